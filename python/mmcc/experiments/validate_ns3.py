"""`mmcc validate ns3`: the same wired cases in mmcc (profile `ns3`) and in ns-3 3.37.

The path: server -(100 Gb/s, 10 ms)- router -(bottleneck, 1 ms, 2,500,000-byte drop-tail)-
client, 1400-byte segments, per-packet loss at the client, bulk flows, 64 MiB socket buffers on
both sides (so neither stack is buffer-limited). The bottleneck is a constant rate (100 Mb/s,
1 Gb/s) or one of the time-varying ones of `SHAPES` (steps, a 1000/50 Mb/s square wave, the
capacity of the `thesis-edge` radio replayed as a rate trace), or a constant 100 Mb/s shared by
two flows. Every case runs over several seeds on both sides. The runner draws its random losses
from mmcc's own stream of the link direction for the packets mmcc has there (common random
numbers, `MmccStreamErrorModel`): with one seed the n-th data segment at the client is lost in
both simulators or in neither, so the two sides' runs of a seed are paired and a difference left
after the means over seeds is the stacks', not the dice's. (`--errors=ns3` on the runner uses
ns-3's RateErrorModel instead; the comparison then needs many more seeds.)

ns-3's own classes are compared with mmcc's algorithm of the same name, and this project's ns-3
port of each mmWave algorithm (ns3/model) with its Rust version.

Each run's result is one JSON file under OUT/runs/ (written atomically): the validation is
resumable, and a result is reused only if it was made by the same build (a fingerprint of the
mmcc extension, or of the ns-3 runner, is stored with it). `report.md` and `cases.csv` are
rewritten from all results at the end. Runs go to all local cores (ns-3 runs are slow: several
wall seconds per simulated second at 1 Gb/s).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import sys
import time
from concurrent.futures import as_completed
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, write_csv_rows
from .sweep import worker_pool

#: ns-3 3.37 ships these classes; each is compared with the mmcc algorithm of the same name.
NS3_ALGORITHMS = ["newreno", "cubic", "highspeed", "bbr", "vegas", "scalable", "bic", "htcp", "hybla",
                  "westwood", "yeah"]
#: Algorithms that draw random numbers themselves (BBR's ProbeBW start phase, in ns-3's TcpBbr
#: and in mmcc): their lossless cases need every seed too.
RANDOMIZED = {"bbr"}
#: The mmWave algorithms of the publications, ported to ns-3 in ns3/model/ (the port vs the Rust).
PORTED = ["rttv", "msscca", "mrvhs", "fbtcp", "dtcp", "mmstcp"]
RATES = {"100Mbps": 100_000_000, "1Gbps": 1_000_000_000}
#: Time-varying and shared bottlenecks (run without random loss): name -> description.
SHAPES = {
    "steps": "100 Mb/s, 25 Mb/s from T/4, 100 Mb/s from T/2, 50 Mb/s from 3T/4",
    "square": "1000 Mb/s and 50 Mb/s alternating every 0.5 s (1 s period)",
    "trace": "the downlink capacity of the thesis-edge radio (mmcc, NewReno, seed 1; frozen, FROZEN_TRACE) in 100 ms bins",
    "2flows": "100 Mb/s shared by two flows, the second starting at T/4",
}
LOSSES = [0.0, 1e-5, 1e-4, 1e-3]
BAND = 0.05  # the +-5 % agreement band of the fidelity issue


@dataclass(frozen=True)
class Case:
    cca: str
    rate: str
    loss: float
    seed: int
    duration_s: float

    @property
    def key(self) -> str:
        return f"{self.cca}-{self.rate}-{self.loss:g}-s{self.seed}-{self.duration_s:g}s"


#: The bottleneck of the "trace" cases: the thesis-edge downlink capacity (NewReno, seed 1) in
#: 1500-byte opportunities per millisecond, as mmcc computed it when the stored ns-3 runs of these
#: cases were made (validation/ns3-runs). Frozen: the radio model goes on changing (ns3-mmwave's
#: CQI step, found later, changes this capacity), the validation of the TCP stack on it must not.
FROZEN_TRACE = Path(__file__).resolve().parents[3] / "validation" / "ns3-cases" / "thesis-edge-capacity-opportunities.txt.gz"


def thesis_edge_trace(out: Path) -> Path:
    """The frozen thesis-edge capacity as a Mahimahi trace (written once per OUT)."""
    import gzip

    from ..traces import write_mahimahi

    path = out / "thesis-edge-capacity.mahimahi"
    if not path.exists():
        with gzip.open(FROZEN_TRACE, "rt") as f:
            counts = [int(line) for line in f if not line.startswith("#")]
        write_mahimahi(counts, path)
    return path


def scenario(case: Case, out: Path | None = None) -> dict:
    """The case as a raw scenario (the TOML structure)."""
    from .. import ns3

    links_fwd: dict = {"queue": ns3.device_queue("2500000B")}
    if case.loss > 0:
        links_fwd["error"] = {"unit": "packet", "rate": case.loss}
    rate = case.rate if case.rate in RATES else "100Mbps"
    T = case.duration_s
    if case.rate == "steps":
        links_fwd["rate_schedule"] = [{"t": f"{T / 4}s", "rate": "25Mbps"}, {"t": f"{T / 2}s", "rate": "100Mbps"},
                                      {"t": f"{3 * T / 4}s", "rate": "50Mbps"}]
    elif case.rate == "square":
        rate = "1000Mbps"
        links_fwd["rate_schedule"] = [{"t": f"{k / 2}s", "rate": "50Mbps" if k % 2 else "1000Mbps"}
                                      for k in range(1, int(2 * T) + 1)]
    elif case.rate == "trace":
        links_fwd["rate_trace"] = {"file": str(thesis_edge_trace(out or Path("."))), "bin": "100ms"}
    flows = [{"from": "server", "to": "client", "cca": case.cca}]
    if case.rate == "2flows":
        flows.append({"from": "server", "to": "client", "cca": case.cca, "start": f"{T / 4}s"})
    return {
        "name": f"ns3-validation-{case.cca}",
        "duration": f"{case.duration_s}s",
        "seed": case.seed,
        "nodes": ["server", "router", "client"],
        "links": [
            {"between": ["server", "router"], "rate": "100Gbps", "delay": "10ms", "framing": ns3.P2P_FRAMING},
            {"between": ["router", "client"], "rate": rate, "delay": "1ms", "forward": links_fwd,
             "framing": ns3.P2P_FRAMING},
        ],
        "tcp": {"profile": "ns3", "segment_size": "1400B", "send_buffer": "64MiB", "recv_buffer": "64MiB"},
        "flows": flows,
    }


def matrix(quick: bool, seeds: int | None, duration: float | None, ccas: list[str] | None,
           rates: list[str] | None = None, losses: list[float] | None = None) -> list[Case]:
    for r in rates or []:
        if r not in RATES and r not in SHAPES:
            raise ValueError(f"validate: bottleneck {r!r} is not in the matrix; allowed: {', '.join([*RATES, *SHAPES])}")
    for c in ccas or []:
        if c not in NS3_ALGORITHMS + PORTED:
            raise ValueError(f"validate: {c!r} has no ns-3 class; allowed: {', '.join(NS3_ALGORITHMS + PORTED)}")
    for x in losses or []:
        if not 0.0 <= x < 0.5:
            raise ValueError(f"validate: loss {x!r} is out of range; allowed: 0 <= loss < 0.5 per packet")
    if quick:
        ccas = ccas or ["newreno", "cubic", "highspeed"]
        # lossless (deterministic) and 1e-3 (many loss events per run, so few seeds suffice)
        rates, losses, n, dur = rates or ["100Mbps"], losses or [0.0, 1e-3], seeds or 4, duration or 20.0
    else:
        ccas = ccas or NS3_ALGORITHMS + PORTED
        rates, losses, n, dur = rates or [*RATES, *SHAPES], losses or LOSSES, seeds or 5, duration or 20.0
    # the time-varying and shared bottlenecks run without random loss. A lossless case of an
    # algorithm that draws nothing has no random component on either side (every seed gives the
    # same run), so it runs once, with seed 1.
    def seeds_of(cca: str, loss: float) -> int:
        return n if loss > 0 or cca in RANDOMIZED else 1

    return [Case(c, r, l, s, dur) for c in ccas for r in rates for l in (losses if r in RATES else [0.0])
            for s in range(1, seeds_of(c, l) + 1)]


def fingerprint(path: str | Path) -> str:
    """Identity of a build (the mmcc extension or the ns-3 runner): a hash of its bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:16]


def _series_flow0(s: dict) -> tuple[list, list]:
    if "flow_id" not in s:
        return s["t_s"], s["cwnd_bytes"]
    keep = [i for i, f in enumerate(s["flow_id"]) if f == 0]
    return [s["t_s"][i] for i in keep], [s["cwnd_bytes"][i] for i in keep]


def _run_mmcc(case: Case, out: Path) -> dict:
    from ..results import run as run_scenario
    from ..scenario import Scenario

    t0 = time.perf_counter()
    r = run_scenario(Scenario.from_dict(scenario(case, out), source=case.key))
    wall = time.perf_counter() - t0
    f = r.flows.to_pydict()
    t_s, cwnd = _series_flow0(r.tables["series"].to_pydict())
    dur = case.duration_s
    per_flow = [b * 8 / dur / 1e6 for b in f["delivered_bytes"]]
    # the bottleneck's error model sees what its queue let through (data; the ACKs go the other way)
    drops = sum(f["drops_error_model"])
    seen = sum(f["segments_sent"]) - sum(f["drops_queue_full"])
    return {"goodput_mbps": sum(per_flow), "flow_mbps": per_flow, "wall_s": wall,
            "retx_bytes": None, "fast_retransmits": sum(f["fast_retransmits"]), "rtos": sum(f["rtos"]),
            "cwnd_bytes": cwnd, "t_s": t_s, "error_drops": drops, "error_model_packets": seen}


def _run_ns3(case: Case, runner: str, tmp: Path, errors: str = "mmcc") -> dict:
    """One ns-3 run; `errors`: the runner's loss draws, mmcc's stream (paired with mmcc's run of
    the seed) or ns-3's own RateErrorModel and generator ("ns3", independent)."""
    from ..scenario import Scenario
    from .. import ns3

    d = tmp / case.key
    cfg = Scenario.from_dict(scenario(case, tmp.parent), source=case.key).config
    t0 = time.perf_counter()
    flows = ns3.run_case(runner, cfg, d, case.seed, case.key, errors)
    wall = time.perf_counter() - t0
    series = [x for x in csv.DictReader(io.StringIO((d / "series.csv").read_text()))
              if x.get("flow_id", "0") == "0"]
    # goodput over the whole run on both sides (a late flow's share of the run, not of its life)
    per_flow = [int(x["delivered_bytes"]) * 8 / case.duration_s / 1e6 for x in flows]
    return {"goodput_mbps": sum(per_flow), "flow_mbps": per_flow, "wall_s": wall,
            "retx_bytes": sum(int(x["retx_bytes"]) for x in flows),
            "fast_retransmits": sum(int(x["fast_retransmits"]) for x in flows),
            "rtos": sum(int(x["rtos"]) for x in flows), "cwnd_bytes": [float(x["cwnd_bytes"]) for x in series],
            "t_s": [float(x["t_s"]) for x in series],
            # PhyRxDrop / PhyRxEnd of the receiving device: dropped and received packets
            "error_drops": int(flows[0].get("error_drops") or 0),
            "error_model_packets": int(flows[0].get("error_drops") or 0) + int(flows[0].get("error_model_packets") or 0)}


def _result_path(out: Path, case: Case, side: str) -> Path:
    return out / "runs" / f"{case.key.replace('/', '_')}-{side}.json"


def _is_current(path: Path, build: str) -> bool:
    """A stored result made by this build (results of older builds are run again)."""
    try:
        return json.loads(path.read_text()).get("build") == build
    except (OSError, ValueError):
        return False


def _execute(case: Case, side: str, out: str, runner: str, build: str) -> str:
    path = _result_path(Path(out), case, side)
    res = _run_mmcc(case, Path(out)) if side == "mmcc" else _run_ns3(case, runner, Path(out) / "ns3-work")
    res.update({"case": case.__dict__, "side": side, "build": build})
    atomic_write_bytes(path, json.dumps(res).encode())
    return str(path)


def run_validation(out_dir: str | Path, *, quick: bool = False, seeds: int | None = None,
                   duration: float | None = None, ccas: list[str] | None = None, rates: list[str] | None = None,
                   losses: list[float] | None = None, workers: int | None = None, progress: bool = True,
                   store: str | Path | None = None) -> dict:
    """Run the matrix in both simulators (resumable). `store`: a folder of ns-3 results kept
    between checkouts; results of this runner build there are reused and new ones added."""
    from .. import _core, ns3

    out = Path(out_dir)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    runner = str(ns3.build_runner())
    builds = {"ns3": fingerprint(runner), "mmcc": fingerprint(_core.__file__)}
    cases = matrix(quick, seeds, duration, ccas, rates, losses)
    if any(c.rate == "trace" for c in cases):
        thesis_edge_trace(out)  # once, before the workers need it
    store_dir = Path(store) if store else None
    if store_dir is not None:
        if store_dir.exists() and not store_dir.is_dir():
            raise ValueError(f"validate ns3: --store {store}: not a folder")
        for c in cases:
            kept, here = store_dir / _result_path(out, c, "ns3").name, _result_path(out, c, "ns3")
            if not _is_current(here, builds["ns3"]) and _is_current(kept, builds["ns3"]):
                atomic_write_bytes(here, kept.read_bytes())
    todo = [(c, side) for c in cases for side in ("ns3", "mmcc")
            if not _is_current(_result_path(out, c, side), builds[side])]
    # ns-3 runs first: they are the long ones
    todo.sort(key=lambda x: (x[1] != "ns3", -RATES.get(x[0].rate, 10**9)))
    workers = workers or os.cpu_count() or 1
    started, done = time.time(), 0

    def keep(c: Case) -> None:
        """Add an ns-3 result of this runner build to the store (at once: a long matrix that is
        stopped keeps every run that finished)."""
        here = _result_path(out, c, "ns3")
        if _is_current(here, builds["ns3"]) and not _is_current(store_dir / here.name, builds["ns3"]):
            store_dir.mkdir(parents=True, exist_ok=True)
            atomic_write_bytes(store_dir / here.name, here.read_bytes())

    with worker_pool(workers) as ex:
        futs = {ex.submit(_execute, c, side, str(out), runner, builds[side]): (c, side) for c, side in todo}
        for f in as_completed(futs):
            f.result()
            c, side = futs[f]
            if store_dir is not None and side == "ns3":
                keep(c)
            done += 1
            if progress:
                el = time.time() - started
                sys.stderr.write(f"\r{done}/{len(todo)} runs, {el:.0f} s elapsed   ")
    if progress and todo:
        sys.stderr.write("\n")
    if store_dir is not None:
        for c in cases:  # also results made in this folder before it had a store
            keep(c)
    return write_report(out, cases)


def _load(out: Path, case: Case, side: str) -> dict:
    return json.loads(_result_path(out, case, side).read_text())


def write_report(out: Path, cases: list[Case]) -> dict:
    """Aggregate per (cca, rate, loss) over seeds: mean, std, difference, band; cwnd overlays."""
    groups: dict[tuple, list[Case]] = {}
    for c in cases:
        groups.setdefault((c.cca, c.rate, c.loss), []).append(c)
    rows = []
    for (cca, rate, loss), cs in groups.items():
        m = [_load(out, c, "mmcc") for c in cs]
        n = [_load(out, c, "ns3") for c in cs]
        gm = np.array([x["goodput_mbps"] for x in m])
        gn = np.array([x["goodput_mbps"] for x in n])
        diff = (gm.mean() - gn.mean()) / gn.mean() if gn.mean() > 0 else float("nan")
        # standard error of the mean paired difference (a seed's two runs share their losses),
        # relative to ns-3's mean
        se = float((gm - gn).std(ddof=1) / np.sqrt(len(cs)) / gn.mean()) if len(cs) > 1 and gn.mean() > 0 else float("nan")
        rows.append({"cca": cca, "rate": rate, "loss": loss, "seeds": len(cs),
                     "mmcc_mbps": gm.mean(), "mmcc_std": gm.std(), "ns3_mbps": gn.mean(), "ns3_std": gn.std(),
                     "diff_pct": 100 * diff, "se_pct": 100 * se, "within_5pct": abs(diff) <= BAND,
                     "within_10pct": abs(diff) <= 0.10,
                     "mmcc_rtos": float(np.mean([x["rtos"] for x in m])),
                     "ns3_rtos": float(np.mean([x["rtos"] for x in n])),
                     "speed_ratio": sum(x["wall_s"] for x in n) / max(sum(x["wall_s"] for x in m), 1e-9)})
    frac5 = float(np.mean([r["within_5pct"] for r in rows])) if rows else float("nan")
    frac10 = float(np.mean([r["within_10pct"] for r in rows])) if rows else float("nan")
    write_csv_rows(out / "cases.csv", rows)
    lines = ["# mmcc (profile ns3) vs ns-3 3.37", "",
             f"Each case: {cases[0].duration_s:g} s runs." if cases else "",
             f"{len(rows)} cases, {len(cases)} seeded runs per side. Within +-5 %: {100 * frac5:.0f} % of cases; "
             f"within +-10 %: {100 * frac10:.0f} %.", "",
             "diff: (mmcc - ns-3) / ns-3 of the mean goodput over seeds; se: the standard error of that difference "
             "from the seed-to-seed spread of the paired differences (both sides of a seed draw the same losses from "
             "mmcc's stream), so a difference within about 2 se is not resolved by the seeds. RTOs: every expiry of the "
             "retransmission timer on both sides (ns-3: each entry into CA_LOSS and each doubling of its RTO while "
             "already in CA_LOSS; results of runner builds before 2026-11-27 count the entries only).", "",
             "| cca | rate | loss | seeds | mmcc Mb/s (sd) | ns-3 Mb/s (sd) | diff % | se % | +-5 % | RTOs mmcc / ns-3 | ns-3 / mmcc wall |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in sorted(rows, key=lambda r: (r["cca"], r["rate"], r["loss"])):
        lines.append(f"| {r['cca']} | {r['rate']} | {r['loss']:g} | {r['seeds']} | {r['mmcc_mbps']:.1f} ({r['mmcc_std']:.1f}) "
                     f"| {r['ns3_mbps']:.1f} ({r['ns3_std']:.1f}) | {r['diff_pct']:+.1f} | {r['se_pct']:.1f} | {'yes' if r['within_5pct'] else 'no'} "
                     f"| {r['mmcc_rtos']:.1f} / {r['ns3_rtos']:.1f} | {r['speed_ratio']:.0f}x |")
    atomic_write_bytes(out / "report.md", ("\n".join(lines) + "\n").encode())
    _plot_overlays(out, groups)
    return {"cases": len(rows), "within_5pct": frac5, "within_10pct": frac10, "rows": rows}


def _plot_overlays(out: Path, groups: dict) -> None:
    """cwnd over time, first seed of each case, both simulators."""
    from ..plots import cwnd_overlay

    for (cca, rate, loss), cs in groups.items():
        c = cs[0]
        m, n = _load(out, c, "mmcc"), _load(out, c, "ns3")
        cwnd_overlay(out / "cwnd" / f"{cca}-{rate.replace('/', '_')}-{loss:g}.png", f"{cca}, {rate}, loss {loss:g}, seed {c.seed}",
                     [(n["t_s"], np.array(n["cwnd_bytes"]) / 1400, "ns-3 3.37", "-"),
                      (m["t_s"], np.array(m["cwnd_bytes"]) / 1400, "mmcc (ns3 profile)", "--")])
