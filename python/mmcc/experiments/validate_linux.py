"""`mmcc validate linux`: the same wired cases in mmcc (profile `linux`) and on this machine's
kernel (the testbed: real TCP between two namespaces over mmcc's link emulator).

The path: server -(rate, one-way delay)- client, a drop-tail buffer of a fraction of the
bandwidth-delay product at the bottleneck, per-packet random loss on the data direction, one bulk
flow, 1448-byte segments (MTU 1500 with timestamps, as both stacks default to). The matrix:
rates 20 and 100 Mb/s x one-way delays 10 and 25 ms x buffers 0.25 and 1 BDP x loss 0, 1e-4,
1e-3, 1e-2, plus two traces: the downlink capacity of the `thesis-edge` radio (mmcc, NewReno, seed
1; frozen with validate_ns3's, `FROZEN_TRACE`) in 100 ms bins from 0 s and from 35 s, scaled to 1/50 of its rate (0-110 Mb/s: the emulator is
a user-space program on the same cores as both TCP endpoints) with 10 ms delay and a 250 kB
buffer. Algorithms: the kernel's reno, cubic and bbr against mmcc's newreno, cubic and bbr, and
mmcc's six eBPF algorithms against their Rust versions.

Kernel runs take real time, so they run one at a time; each result (JSON under OUT/runs/) is kept
and reused while the build that made it is unchanged (the mmcc extension for the simulator side;
the kernel release, the emulator binary, `TESTBED_VERSION` and the algorithm's BPF object for the
testbed side).
`report.md`, `cases.csv` and the cwnd overlays (OUT/cwnd/) are rewritten from all results.

`--store DIR` keeps each kernel run in DIR (`validation/linux-runs/`: the measurements and the cwnd
as the report reads it, every `CWND_STEP_S`) and the agreement of that matrix in
DIR/agreement.json; the suite runs the simulator's side of every stored case again and requires
the agreement to hold (`check_stored`), so a change of the `linux` profile that moves it away from
the kernel fails `make test` without a kernel.

Whether the cwnd trajectories follow each other is measured, not only plotted: both sides' cwnd is
read every 100 ms (the kernel's `TCP_INFO` sample at or before each instant, the simulator's value
at the end of each 100 ms series bin), and the report compares the median and the 90th percentile
of those readings (the window's level and its peaks; a sawtooth's phase is not compared, as one
loss more or less shifts it). A case's cwnd "follows" when both are within `CWND_BAND`.
"""
from __future__ import annotations

import hashlib
import json
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, write_csv_rows
from .validate_ns3 import _is_current, fingerprint, thesis_edge_trace

#: The kernel's own algorithms (their kernel names: testbed.run.kernel_cca).
KERNEL_BUILTIN = ["newreno", "cubic", "bbr"]
EBPF = ["rttv", "msscca", "mrvhs", "mmstcp", "dtcp", "fbtcp"]
RATES_MBPS = [20, 100]
DELAYS_MS = [10, 25]
BUFFERS_BDP = [0.25, 1.0]
LOSSES = [0.0, 1e-4, 1e-3, 1e-2]
TRACES = {1: 0, 2: 35}  # trace number -> offset into the thesis-edge capacity, seconds
TRACE_SCALE = 0.02
BAND = 0.10
#: Band for the cwnd quantiles (median and 90th percentile over the run, sampled every `CWND_STEP_S`).
CWND_BAND = 0.25
CWND_STEP_S = 0.1


@dataclass(frozen=True)
class Case:
    cca: str
    rate_mbps: int
    delay_ms: int
    buffer_bdp: float
    loss: float
    trace: int  # 0: constant rate; else a TRACES entry
    seed: int
    duration_s: float

    @property
    def condition(self) -> str:
        if self.trace:
            return f"trace{self.trace}"
        return f"{self.rate_mbps}M-{self.delay_ms}ms-{self.buffer_bdp:g}bdp-{self.loss:g}"

    @property
    def key(self) -> str:
        return f"{self.cca}-{self.condition}-s{self.seed}-{self.duration_s:g}s"


def scenario(case: Case, out: Path) -> dict:
    """The case as a raw scenario (the TOML structure)."""
    rate_bps = case.rate_mbps * 1_000_000
    bdp = rate_bps * 2 * case.delay_ms / 1000 / 8
    fwd: dict = {"queue": {"type": "droptail", "limit": f"{max(3000, int(case.buffer_bdp * bdp))}B"}}
    if case.loss > 0:
        fwd["error"] = {"unit": "packet", "rate": case.loss}
    if case.trace:
        fwd["rate_trace"] = {"file": str(thesis_edge_trace(out)), "bin": "100ms", "scale": TRACE_SCALE,
                             "offset": f"{TRACES[case.trace]}s"}
    return {
        "name": f"linux-validation-{case.cca}",
        "duration": f"{case.duration_s}s",
        "seed": case.seed,
        "nodes": ["server", "client"],
        "links": [{"between": ["server", "client"], "rate": f"{case.rate_mbps}Mbps", "delay": f"{case.delay_ms}ms",
                   "forward": fwd}],
        "tcp": {"profile": "linux"},
        "flows": [{"from": "server", "to": "client", "cca": case.cca}],
    }


def matrix(quick: bool, seeds: int | None, duration: float | None, ccas: list[str] | None,
           rates: list[str] | None = None, losses: list[float] | None = None) -> list[Case]:
    """The cases: `rates` are bottleneck rates ("20Mbps") or traces ("trace1", "trace2"),
    `losses` per-packet loss rates (default: the whole matrix; --quick: one lossless case)."""
    from ..units import parse_rate

    allowed = [*KERNEL_BUILTIN, *EBPF]
    for c in ccas or []:
        if c not in allowed:
            raise ValueError(f"validate linux: {c!r} has no kernel version here; allowed: {', '.join(allowed)}")
    mbps, traces = [], []
    for r in rates or []:
        if r.startswith("trace") and r[5:].isdigit() and int(r[5:]) in TRACES:
            traces.append(int(r[5:]))
            continue
        try:
            v = parse_rate(r) / 1e6
        except ValueError:
            v = 0
        if not 1 <= v <= 200:
            raise ValueError(f"validate linux: --rate {r!r}: expected a rate from 1Mbps to 200Mbps (the matrix's "
                             f"range) or {', '.join(f'trace{t}' for t in TRACES)}")
        mbps.append(int(v))
    for x in losses or []:
        if not 0.0 <= x < 0.5:
            raise ValueError(f"validate linux: loss {x!r} is out of range; allowed: 0 <= loss < 0.5 per packet")
    n, dur = seeds or 1, duration or (10.0 if quick else 15.0)
    ccas = ccas or allowed
    if quick and not rates and not losses:
        conds = [(50, 20, 1.0, 0.0, 0)]
    else:
        if not rates:
            mbps, traces = RATES_MBPS, list(TRACES)
        conds = [(r, d, b, l, 0) for r in mbps for d in DELAYS_MS for b in BUFFERS_BDP for l in (losses or LOSSES)]
        conds += [(100, 10, 1.0, 0.0, t) for t in traces]
    return [Case(c, r, d, b, l, t, s, dur) for c in ccas for (r, d, b, l, t) in conds for s in range(1, n + 1)]


#: Bump when the testbed's measurement changes (endpoints, sampling, table building): results of
#: another version are run again.
TESTBED_VERSION = 3  # 2: losses drawn from the simulator's streams (common random numbers); 3: the receiver samples its window state


def kernel_builds(ccas) -> dict[str, str]:
    """Identity of the testbed side per algorithm: kernel release, the emulator (the extension
    module that holds it), the
    testbed's measurement version and, for an eBPF algorithm, its BPF object."""
    from ..testbed import bpf, run as tb

    emulator = fingerprint(tb.emulator_module()).encode()
    out = {}
    for cca in set(ccas):
        h = hashlib.sha256(f"{platform.release()} v{TESTBED_VERSION}".encode())
        h.update(emulator)
        if cca in EBPF:
            h.update(fingerprint(bpf.build_dir() / f"{cca}.bpf.o").encode())
        out[cca] = h.hexdigest()[:16]
    return out


def _summary(r, duration_s: float, per_sample: bool) -> dict:
    f = r.flows.to_pydict()
    src = r.tables["cwnd"].to_pydict() if per_sample else r.tables["series"].to_pydict()
    keep = [i for i, fl in enumerate(src["flow_id"]) if fl == 0]
    kc = (r.extra or {}).get("kernel_tcp_counters", {})
    return {"goodput_mbps": sum(b * 8 / duration_s / 1e6 for b in f["delivered_bytes"]),
            "rtt_mean_ms": f["rtt_mean_ms"][0], "retransmits": f["retransmits"][0],
            "recoveries": f["fast_retransmits"][0], "rtos": f["rtos"][0],
            "loss_probes": kc.get("TcpExtTCPLossProbes"),
            "t_s": [src["t_s"][i] for i in keep], "cwnd_segments": [src["cwnd_segments"][i] for i in keep],
            "wall_s": r.wall_seconds}


def _run_side(case: Case, side: str, out: Path) -> dict:
    from ..results import run as run_sim
    from ..scenario import Scenario
    from ..testbed.run import run_testbed

    sc = Scenario.from_dict(scenario(case, out), source=case.key)
    if side == "mmcc":
        return _summary(run_sim(sc), case.duration_s, per_sample=False)
    return _summary(run_testbed(sc), case.duration_s, per_sample=True)


def _result_path(out: Path, case: Case, side: str) -> Path:
    return out / "runs" / f"{case.key}-{side}.json"


def run_validation(out_dir: str | Path, *, quick: bool = False, seeds: int | None = None,
                   duration: float | None = None, ccas: list[str] | None = None, rates: list[str] | None = None,
                   losses: list[float] | None = None, progress: bool = True, store: str | Path | None = None) -> dict:
    from .. import _core
    from ..testbed import bpf
    from ..testbed.run import TestbedError, cleanup_stale, unavailable_reason

    reason = unavailable_reason()
    if reason:
        raise TestbedError(f"validate linux: {reason}")
    out = Path(out_dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    cases = matrix(quick, seeds, duration, ccas, rates, losses)
    if any(c.trace for c in cases):
        thesis_edge_trace(out)
    ebpf = sorted({c.cca for c in cases if c.cca in EBPF})
    if ebpf:
        bpf.build()
        # measure this build: a registration made earlier (another build) is replaced
        bpf.unload(ebpf)
    mmcc_build = fingerprint(_core.__file__)
    kernel = kernel_builds(c.cca for c in cases)
    build = {(c, side): mmcc_build if side == "mmcc" else kernel[c.cca] for c in cases for side in ("mmcc", "kernel")}
    cleanup_stale()
    todo = [(c, side) for c in cases for side in ("mmcc", "kernel")
            if not _is_current(_result_path(out, c, side), build[(c, side)])]
    started = time.time()
    for k, (c, side) in enumerate(todo, 1):
        res = _run_side(c, side, out)
        res.update({"case": c.__dict__, "side": side, "build": build[(c, side)]})
        atomic_write_bytes(_result_path(out, c, side), json.dumps(res).encode())
        if progress:
            sys.stderr.write(f"\r{k}/{len(todo)} runs, {time.time() - started:.0f} s elapsed   ")
    if progress and todo:
        sys.stderr.write("\n")
    res = write_report(out, cases)
    res["out"] = str(out)
    if store is not None:
        keep(out, cases, res, Path(store))
    return res


def _stored_kernel_run(res: dict, duration_s: float) -> dict:
    """A kernel result as the store keeps it: the cwnd as the report reads it (every
    `CWND_STEP_S`, so `cwnd_readings` gives the same values), not every TCP_INFO sample."""
    grid = np.arange(1, int(round(duration_s / CWND_STEP_S)) + 1) * CWND_STEP_S
    c = cwnd_readings(res, duration_s)
    return {**res, "t_s": [round(float(t), 6) for t in grid[len(grid) - len(c):]],
            "cwnd_segments": [float(x) for x in c]}


def keep(out: Path, cases: list[Case], res: dict, store: Path) -> None:
    """The kernel runs of `cases` and the matrix's agreement (`agreement.json`: per case the
    goodput difference and whether the cwnd follows) into `store`."""
    (store / "runs").mkdir(parents=True, exist_ok=True)
    for c in cases:
        k = _load(out, c, "kernel")
        atomic_write_bytes(_result_path(store, c, "kernel"), json.dumps(_stored_kernel_run(k, c.duration_s)).encode())
    agreement = {f"{r['cca']}-{r['condition']}": {"diff_pct": round(r["diff_pct"], 3),
                                                  "cwnd_within_25pct": r["cwnd_within_25pct"]}
                 for r in res["rows"]}
    atomic_write_bytes(store / "agreement.json", (json.dumps(agreement, indent=1, sort_keys=True) + "\n").encode())


def stored_cases(store: Path) -> list[Case]:
    """The cases of the kernel runs kept in `store`."""
    return sorted((Case(**json.loads(p.read_text())["case"]) for p in (store / "runs").glob("*-kernel.json")),
                  key=lambda c: c.key)


#: How far the simulator's goodput may move from the stored agreement before `check_stored`
#: calls it a regression: a case within 5 % of the kernel may move inside that band, any other
#: may not get further from the kernel by more than a percentage point.
MOVE_PCT = 1.0


def check_stored(store: Path, work: Path) -> list[str]:
    """The simulator's side of every stored kernel case run again (into `work`) against the
    stored agreement: the cases whose goodput got further from the kernel's (`MOVE_PCT`) or
    whose cwnd stopped following it, one line each (empty: the agreement holds)."""
    import shutil

    cases = stored_cases(store)
    (work / "runs").mkdir(parents=True, exist_ok=True)
    for c in cases:
        shutil.copyfile(_result_path(store, c, "kernel"), _result_path(work, c, "kernel"))
        m = _run_side(c, "mmcc", work)
        m.update({"case": c.__dict__, "side": "mmcc", "build": "check"})
        atomic_write_bytes(_result_path(work, c, "mmcc"), json.dumps(m).encode())
    pinned = json.loads((store / "agreement.json").read_text())
    worse = []
    for r in write_report(work, cases, plots=False)["rows"]:
        key = f"{r['cca']}-{r['condition']}"
        was, now = pinned[key], r["diff_pct"]
        if abs(now) > max(100 * BAND / 2, abs(was["diff_pct"]) + MOVE_PCT):
            worse.append(f"{key}: goodput {now:+.1f} % from the kernel's (stored: {was['diff_pct']:+.1f} %)")
        if was["cwnd_within_25pct"] and not r["cwnd_within_25pct"]:
            worse.append(f"{key}: the cwnd no longer follows the kernel's (p50 {r['cwnd_p50_diff_pct']:+.0f} %, "
                         f"p90 {r['cwnd_p90_diff_pct']:+.0f} %)")
    return worse


def _load(out: Path, case: Case, side: str) -> dict:
    return json.loads(_result_path(out, case, side).read_text())


def _mean(values) -> float:
    """Mean of the known values (NaN when none is known: results made before a count existed)."""
    v = [x for x in values if x is not None and x == x]
    return float(np.mean(v)) if v else float("nan")


def cwnd_readings(side: dict, duration_s: float) -> np.ndarray:
    """The cwnd (segments) every `CWND_STEP_S` over the run: the last value at or before each instant.

    The simulator's side holds 100 ms series bins (time = the bin's start, value = cwnd at its end),
    the kernel's the `TCP_INFO` samples (time = when read); instants before a side's first value are
    left out."""
    t = np.asarray(side["t_s"], float)
    c = np.asarray(side["cwnd_segments"], float)
    if side.get("side") == "mmcc" and len(t) > 1:
        t = t + (t[1] - t[0])
    grid = np.arange(1, int(round(duration_s / CWND_STEP_S)) + 1) * CWND_STEP_S
    idx = np.searchsorted(t, grid + 1e-9, side="right") - 1
    return c[idx[idx >= 0]]


def _quantile_diff(m: np.ndarray, k: np.ndarray, q: float) -> tuple[float, float, float]:
    """(simulator's, kernel's, relative difference) of the q-th percentile of the cwnd readings."""
    if not len(m) or not len(k):
        return float("nan"), float("nan"), float("nan")
    a, b = float(np.percentile(m, q)), float(np.percentile(k, q))
    return a, b, (a - b) / b if b > 0 else float("nan")


def write_report(out: Path, cases: list[Case], plots: bool = True) -> dict:
    """Per (cca, condition): mean over repetitions on both sides, difference, +-10 % band (and
    the cwnd overlays, unless `plots` is false)."""
    groups: dict[tuple, list[Case]] = {}
    for c in cases:
        groups.setdefault((c.cca, c.condition), []).append(c)
    from ..testbed.run import kernel_cca

    rows = []
    for (cca, cond), cs in groups.items():
        ms = [_load(out, c, "mmcc") for c in cs]
        ks = [_load(out, c, "kernel") for c in cs]
        m = np.array([x["goodput_mbps"] for x in ms])
        k = np.array([x["goodput_mbps"] for x in ks])
        diff = (m.mean() - k.mean()) / k.mean() if k.mean() > 0 else float("nan")
        cm = np.concatenate([cwnd_readings(x, c.duration_s) for x, c in zip(ms, cs)])
        ck = np.concatenate([cwnd_readings(x, c.duration_s) for x, c in zip(ks, cs)])
        m50, k50, d50 = _quantile_diff(cm, ck, 50)
        m90, k90, d90 = _quantile_diff(cm, ck, 90)
        rows.append({"cca": cca, "kernel_cca": kernel_cca(cca), "condition": cond,
                     "runs": len(cs), "mmcc_mbps": float(m.mean()), "kernel_mbps": float(k.mean()),
                     "kernel_sd": float(k.std()), "diff_pct": 100 * diff, "within_10pct": bool(abs(diff) <= BAND),
                     "mmcc_rtt_ms": float(np.mean([x["rtt_mean_ms"] for x in ms])),
                     "kernel_rtt_ms": float(np.mean([x["rtt_mean_ms"] for x in ks])),
                     "mmcc_rtos": _mean(x.get("rtos") for x in ms),
                     "kernel_rtos": _mean(x.get("rtos") for x in ks),
                     "kernel_loss_probes": _mean(x.get("loss_probes") for x in ks),
                     "mmcc_cwnd_p50": m50, "kernel_cwnd_p50": k50, "cwnd_p50_diff_pct": 100 * d50,
                     "mmcc_cwnd_p90": m90, "kernel_cwnd_p90": k90, "cwnd_p90_diff_pct": 100 * d90,
                     "cwnd_within_25pct": bool(abs(d50) <= CWND_BAND and abs(d90) <= CWND_BAND)})
    builtin = [r for r in rows if r["cca"] in KERNEL_BUILTIN]
    ebpf = [r for r in rows if r["cca"] in EBPF]
    frac = lambda rs, key="within_10pct": float(np.mean([r[key] for r in rs])) if rs else float("nan")  # noqa: E731
    groups_named = (("reno/cubic/bbr", builtin), ("the eBPF algorithms", ebpf))
    if rows:
        write_csv_rows(out / "cases.csv", rows)
    lines = ["# mmcc (profile linux) vs the Linux kernel (testbed)", "",
             f"Kernel {platform.release()}; {cases[0].duration_s:g} s runs." if cases else "",
             f"{len(rows)} cases. Within +-10 %: "
             + "; ".join(f"{name} {100 * frac(g):.0f} % of {len(g)}" for name, g in groups_named if g)
             + f". cwnd follows (median and 90th percentile within +-{100 * CWND_BAND:.0f} %): "
             + ", ".join(f"{name} {100 * frac(g, 'cwnd_within_25pct'):.0f} %" for name, g in groups_named if g)
             + ".", "",
             "Conditions: RATE-DELAY(one way)-BUFFER(BDP)-LOSS(per packet), or traceN (thesis-edge capacity x "
             f"{TRACE_SCALE:g}). diff: (mmcc - kernel) / kernel of the goodput; RTT: mean smoothed RTT (kernel: "
             "TCP_INFO every 10 ms) / mean RTT sample (mmcc); cwnd p50 / p90: median and 90th percentile of the "
             f"cwnd read every {1000 * CWND_STEP_S:.0f} ms, segments, mmcc / kernel (difference).", "",
             "| cca | kernel | condition | runs | mmcc Mb/s | kernel Mb/s (sd) | diff % | +-10 % | RTT ms mmcc / kernel "
             "| RTOs mmcc / kernel | kernel loss probes | cwnd p50 | cwnd p90 | cwnd +-25 % |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    num = lambda x: "-" if x != x else f"{x:.0f}"  # noqa: E731
    for r in sorted(rows, key=lambda r: (r["cca"], r["condition"])):
        lines.append(f"| {r['cca']} | {r['kernel_cca']} | {r['condition']} | {r['runs']} | {r['mmcc_mbps']:.1f} | "
                     f"{r['kernel_mbps']:.1f} ({r['kernel_sd']:.1f}) | {r['diff_pct']:+.1f} | "
                     f"{'yes' if r['within_10pct'] else 'no'} | {r['mmcc_rtt_ms']:.1f} / {r['kernel_rtt_ms']:.1f} | "
                     f"{num(r['mmcc_rtos'])} / {num(r['kernel_rtos'])} | {num(r['kernel_loss_probes'])} | "
                     f"{num(r['mmcc_cwnd_p50'])} / {num(r['kernel_cwnd_p50'])} ({r['cwnd_p50_diff_pct']:+.0f} %) | "
                     f"{num(r['mmcc_cwnd_p90'])} / {num(r['kernel_cwnd_p90'])} ({r['cwnd_p90_diff_pct']:+.0f} %) | "
                     f"{'yes' if r['cwnd_within_25pct'] else 'no'} |")
    atomic_write_bytes(out / "report.md", ("\n".join(lines) + "\n").encode())
    if plots:
        _plot_overlays(out, groups)
    return {"cases": len(rows), "within_10pct": frac(rows), "builtin_within_10pct": frac(builtin),
            "ebpf_within_10pct": frac(ebpf), "cwnd_within_25pct": frac(rows, "cwnd_within_25pct"),
            "builtin_cwnd_within_25pct": frac(builtin, "cwnd_within_25pct"),
            "ebpf_cwnd_within_25pct": frac(ebpf, "cwnd_within_25pct"), "rows": rows}


def _plot_overlays(out: Path, groups: dict) -> None:
    """cwnd over time, first repetition of each case, kernel and simulator."""
    from ..plots import cwnd_overlay
    from ..testbed.run import kernel_cca

    for (cca, cond), cs in groups.items():
        m, k = _load(out, cs[0], "mmcc"), _load(out, cs[0], "kernel")
        cwnd_overlay(out / "cwnd" / f"{cca}-{cond}.png", f"{cca}, {cond}",
                     [(k["t_s"], k["cwnd_segments"], f"kernel ({kernel_cca(cca)})", "-"),
                      (m["t_s"], m["cwnd_segments"], "mmcc (linux profile)", "--")])
