"""`mmcc validate mmwave`: the thesis' radio path in mmcc against ns3-mmwave itself.

The reference is ns3-mmwave at the commit the thesis' public scripts compile against (the parent
of the commit that removed `BuildingsObstaclePropagationLossModel`, REFERENCE_COMMIT), running
`ns3/mmwave-oracle/mmcc-mmwave-runner.cc`: the authors' urban set-up (geometry, mobility, RLC AM
buffer, per-byte errors on the PGW link, MinRto 1 s, 1400-byte segments, the 1 Gb/s source,
10 ms or 40 ms to the server) written for mmcc from their scripts. mmcc runs the presets
`thesis-edge` and `thesis-remote` with the same parameters.

Each case is compared per phase of the UE's trajectory (PHASES: still at the start, walk, the
stop behind a tree, walk, the stop behind the building, walk, drive away) and over the whole
run: mean SINR (dB), throughput, RTT; retransmitted bytes, fast retransmits and timeouts. The
agreement bands: per-phase mean SINR within +-2 dB, per-phase throughput and whole-run goodput
within +-10 %.

ns3-mmwave needs 1.3 to 23 CPU seconds per simulated second here, so its runs are kept: each in
`validation/mmwave-runs/<case>/` (flows.csv, series.csv, radio.csv.gz, drops.csv, meta.json), and
every stored case is compared again in `make test`. With `--runner` (and the ns3-mmwave tree it
runs in) the cases not stored yet are run and stored.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import os
import subprocess
import time
from concurrent.futures import as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, rewrite_marked_block, write_csv_rows
from .sweep import worker_pool

ROOT = Path(__file__).resolve().parents[3]
STORE = ROOT / "validation" / "mmwave-runs"
RUNNER_SOURCE = ROOT / "ns3" / "mmwave-oracle" / "mmcc-mmwave-runner.cc"
#: ns3-mmwave (nyuwireless-unipd) at the parent of b06eeb48 ("Update the channel models", June
#: 2020, which removed the obstacle model the thesis' scripts name)
REFERENCE_COMMIT = "cbfb03d06c15aa82d0297a105bb373db88d1bb5c"
#: server -> (preset, one-way delay of the server link in ms)
SERVERS = {"edge": ("thesis-edge", 10.0), "remote": ("thesis-remote", 40.0)}
#: the UE's trajectory in the thesis' scripts: (name, from s, to s)
PHASES = [("start (still)", 0.1, 1.0), ("walk", 1.0, 5.3), ("tree stop", 5.3, 9.0), ("walk 2", 9.0, 26.0),
          ("building stop", 26.0, 30.0), ("walk 3", 30.0, 35.0), ("drive away", 35.0, 60.0)]
SINR_BAND_DB = 2.0
THROUGHPUT_BAND = 0.10
#: algorithms the runner maps (ns-3's classes at the reference commit; no TcpBbr there)
RUNNER_ALGORITHMS = ["newreno", "highspeed", "cubic", "rttv", "fbtcp", "msscca", "mrvhs", "scalable", "westwood", "vegas",
                     "yeah", "htcp", "hybla", "bic"]
MIB = 1024 * 1024


@dataclass(frozen=True)
class Reference:
    """One build of the oracle: the same ns3-mmwave commit (radio, RLC, MAC, EPC) with one TCP."""
    name: str
    store: Path
    tcp: str
    algorithms: tuple[str, ...]


#: The two TCPs the oracle runs with. `pinned`: the commit's own internet module (the ns-3-dev
#: of January 2020). `ns-3.35`: the same tree with ns-3.35's TCP (the `tcp-*` and `rtt-estimator`
#: sources of src/internet/model from ns3-mmwave 95eed3b7, "Update to ns-3 3.35", its
#: TcpL4Protocol kept), the TCP the thesis names; it also has TcpBbr.
REFERENCES = {
    "pinned": Reference("pinned", STORE, "ns3-mmwave's own TCP at that commit (ns-3-dev, January 2020)",
                        tuple(RUNNER_ALGORITHMS)),
    "ns-3.35": Reference("ns-3.35", ROOT / "validation" / "mmwave-runs-tcp-3.35",
                         "ns-3.35's TCP (ns3-mmwave 95eed3b7) in the same tree", (*RUNNER_ALGORITHMS, "bbr")),
}


def reference(name: str) -> Reference:
    if name not in REFERENCES:
        raise ValueError(f"validate mmwave: --tcp {name!r}; allowed: {', '.join(REFERENCES)}")
    return REFERENCES[name]


@dataclass(frozen=True)
class Case:
    cca: str
    server: str
    rlc_buffer_mib: float
    per: float
    seed: int
    duration_s: float

    @property
    def key(self) -> str:
        return f"{self.cca}-{self.server}-{self.rlc_buffer_mib:g}MiB-{self.per:g}-s{self.seed}-{self.duration_s:g}s"

    @classmethod
    def from_key(cls, key: str) -> "Case":
        cca, server, buf, rest = key.split("-", 3)
        per, seed, dur = rest.rsplit("-", 2)
        return cls(cca, server, float(buf.removesuffix("MiB")), float(per), int(seed[1:]), float(dur[:-1]))


def matrix(ccas=None, buffers=None, pers=None, servers=None, seeds=1, duration=12.0, tcp="pinned") -> list[Case]:
    """Edge cases for each buffer x PER, remote cases (8 MiB) for each PER."""
    ccas = ccas or ["newreno", "cubic", "highspeed"]
    allowed = reference(tcp).algorithms
    for c in ccas:
        if c not in allowed:
            raise ValueError(f"validate mmwave: {c!r} is not mapped by the ns3-mmwave runner with --tcp {tcp}; "
                             f"allowed: {', '.join(allowed)}")
    servers = servers or ["edge", "remote"]
    for s in servers:
        if s not in SERVERS:
            raise ValueError(f"validate mmwave: server {s!r}; allowed: edge, remote")
    pers = [0.0, 1e-7] if pers is None else pers
    for p in pers:
        if not 0.0 <= p < 1e-3:
            raise ValueError(f"validate mmwave: per {p!r} is out of range; allowed: 0 <= per < 1e-3 (per byte)")
    if not 0.5 <= duration <= 60.0:
        raise ValueError(f"validate mmwave: duration {duration!r} s is out of range; allowed: 0.5..60 s")
    out = []
    for s in servers:
        for b in (buffers or [0.25, 2.5, 20.0]) if s == "edge" else [8.0]:
            out += [Case(c, s, b, p, k, duration) for c in ccas for p in pers for k in range(1, seeds + 1)]
    return out


def stored_cases(store: Path = STORE) -> list[Case]:
    # a run still being written sits in "<case>.tmp" until it is complete
    return sorted((Case.from_key(p.name) for p in store.glob("*")
                   if not p.name.endswith(".tmp") and (p / "flows.csv").is_file()), key=lambda c: c.key)


# ---- the two sides --------------------------------------------------------------------------

def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def _num(x: str) -> float:
    return float(x) if x not in ("", None) else float("nan")


def rlc_copies(path: Path) -> list[tuple[int, int]]:
    """The RLC retransmissions in a runner's `--rlcTrace` (rlc.csv, gzipped or not): the PDUs the
    UE's RLC received that the gNB's RLC did not send new (its `TxPDU` fires for new PDUs and
    STATUS PDUs only), each a (t_ns at the UE, bytes). A received PDU is matched to the oldest
    unmatched new PDU of its size sent before it (at most 50 ms earlier)."""
    from collections import defaultdict, deque

    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        rows = [(int(r["t_ns"]), r["kind"], int(r["bytes"])) for r in csv.DictReader(f)]
    sent: dict[int, deque] = defaultdict(deque)
    copies = []
    for t, kind, size in sorted(rows, key=lambda r: (r[0], r[1] != "gnb_tx")):
        if kind == "gnb_tx":
            sent[size].append(t)
        elif kind == "ue_rx":
            q = sent[size]
            while q and q[0] < t - 50_000_000:
                q.popleft()
            if q:
                q.popleft()
            else:
                copies.append((t, size))
    return copies


def read_reference(d: Path) -> dict:
    """A stored (or fresh) ns3-mmwave run as the comparison reads it."""
    flows = _csv((d / "flows.csv").read_text())
    if len(flows) != 1:
        raise ValueError(f"{d}/flows.csv: expected one flow row, got {len(flows)}")
    f = flows[0]
    series = _csv((d / "series.csv").read_text())
    radio_path = d / "radio.csv.gz"
    radio = _csv(gzip.decompress(radio_path.read_bytes()).decode() if radio_path.exists()
                 else (d / "radio.csv").read_text())
    return {"delivered_bytes": int(f["delivered_bytes"]), "retx_bytes": int(f["retx_bytes"]),
            "fast_retransmits": int(f["fast_retransmits"]), "rtos": int(f["rtos"]),
            "error_drops": int(f["error_drops"]), "cpu_s": float(f["cpu_s"]),
            "t_s": np.array([_num(r["t_s"]) for r in series]),
            "throughput_mbps": np.array([_num(r["throughput_mbps"]) for r in series]),
            "rtt_ms": np.array([_num(r["rtt_ms"]) for r in series]),
            "cwnd_bytes": np.array([_num(r["cwnd_bytes"]) for r in series]),
            "radio_t_s": np.array([int(r["t_ms"]) / 1e3 for r in radio]),
            "sinr_db": np.array([_num(r["sinr_db"]) for r in radio]),
            "mcs": np.array([_num(r["mcs_mean"]) for r in radio])}


def run_reference(case: Case, runner: Path, tree: Path, dest: Path, tcp: str = "pinned") -> Path:
    """Run ns3-mmwave for a case (from its tree) and keep the run in `dest/<case>/`."""
    d = dest / case.key
    work = d.with_name(d.name + ".tmp")
    work.mkdir(parents=True, exist_ok=True)
    args = [str(runner), f"--cca={case.cca}", f"--rlcBuffer={round(case.rlc_buffer_mib * MIB)}",
            f"--per={case.per!r}", f"--serverDelayMs={SERVERS[case.server][1]:g}",
            f"--simTime={case.duration_s:g}", f"--seed={case.seed}", f"--out={work.resolve()}"]
    t0 = time.perf_counter()
    p = subprocess.run(args, cwd=tree, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ns3-mmwave runner failed for {case.key}: {(p.stderr or p.stdout).strip()[-800:]}")
    radio = work / "radio.csv"
    (work / "radio.csv.gz").write_bytes(gzip.compress(radio.read_bytes(), mtime=0))
    radio.unlink()
    meta = {"case": asdict(case), "ns3_mmwave_commit": REFERENCE_COMMIT, "tcp": tcp, "runner_sha256": runner_fingerprint(),
            "wall_s": round(time.perf_counter() - t0, 1), "command": " ".join(["mmcc-mmwave-runner", *args[1:-1]])}
    (work / "meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    if d.exists():
        for p_ in d.iterdir():
            p_.unlink()
        d.rmdir()
    work.rename(d)
    return d


def runner_fingerprint() -> str:
    return hashlib.sha256(RUNNER_SOURCE.read_bytes()).hexdigest()[:16]


def run_mmcc(case: Case) -> dict:
    from ..results import run
    from ..scenario import load

    preset, _ = SERVERS[case.server]
    t0 = time.perf_counter()
    r = run(load(preset), cca=case.cca, seed=case.seed, duration=f"{case.duration_s}s",
            params={"rlc_buffer": f"{case.rlc_buffer_mib}MiB", "per": case.per})
    wall = time.perf_counter() - t0
    f = r.flows.to_pydict()
    s = r.series.to_pydict()
    rad = r.tables["radio"].to_pydict()
    keep = [i for i, rid in enumerate(rad["radio_id"]) if rid == 0]
    return {"delivered_bytes": int(f["delivered_bytes"][0]), "retx_bytes": int(sum(s["retx_bytes"])),
            "fast_retransmits": int(f["fast_retransmits"][0]), "rtos": int(f["rtos"][0]),
            "error_drops": int(f["drops_error_model"][0]), "wall_s": wall,
            "t_s": np.array(s["t_s"]), "throughput_mbps": np.array(s["throughput_mbps"]),
            "rtt_ms": np.array(s["rtt_mean_ms"], dtype=float), "cwnd_bytes": np.array(s["cwnd_bytes"], dtype=float),
            "radio_t_s": np.array([rad["t_s"][i] for i in keep]),
            "sinr_db": np.array([rad["sinr_dl_db"][i] for i in keep]),
            "mcs": np.array([rad["mcs_dl"][i] if rad["mcs_dl"][i] >= 0 else np.nan for i in keep], dtype=float)}


# ---- comparison -------------------------------------------------------------------------------

def _mean_in(t: np.ndarray, v: np.ndarray, a: float, b: float) -> float:
    m = (t >= a) & (t < b) & np.isfinite(v)
    return float(v[m].mean()) if m.any() else float("nan")


def _rel(ours: float, ref: float) -> float:
    return (ours - ref) / ref if ref > 0 else float("nan")


def compare(case: Case, ref: dict, ours: dict) -> dict:
    """Per phase (within the run) and whole-run figures of both sides, with the bands."""
    T = case.duration_s
    # ns3-mmwave reports the SINR only in the milliseconds it sends the UE data (its UE's PHY
    # measures a downlink block); mmcc's samples are compared over the same milliseconds
    seen = np.isin(np.round(ours["radio_t_s"] * 1e3), np.round(ref["radio_t_s"] * 1e3))
    same = {k: ours[k][seen] for k in ("radio_t_s", "sinr_db", "mcs")}
    phases = []
    for name, a, b in PHASES:
        b = min(b, T)
        if b - a < 0.3:
            continue
        sinr_ref, sinr_ours = (_mean_in(x["radio_t_s"], x["sinr_db"], a, b) for x in (ref, same))
        thr_ref, thr_ours = (_mean_in(x["t_s"], x["throughput_mbps"], a, b) for x in (ref, ours))
        rtt_ref, rtt_ours = (_mean_in(x["t_s"], x["rtt_ms"], a, b) for x in (ref, ours))
        d_sinr, d_thr = sinr_ours - sinr_ref, _rel(thr_ours, thr_ref)
        phases.append({"phase": name, "from_s": a, "to_s": b, "sinr_ns3_db": sinr_ref, "sinr_mmcc_db": sinr_ours,
                       "sinr_diff_db": d_sinr, "sinr_ok": bool(abs(d_sinr) <= SINR_BAND_DB),
                       "mcs_ns3": _mean_in(ref["radio_t_s"], ref["mcs"], a, b),
                       "mcs_mmcc": _mean_in(same["radio_t_s"], same["mcs"], a, b),
                       "thr_ns3_mbps": thr_ref, "thr_mmcc_mbps": thr_ours, "thr_diff_pct": 100 * d_thr,
                       "thr_ok": bool(abs(d_thr) <= THROUGHPUT_BAND),
                       "rtt_ns3_ms": rtt_ref, "rtt_mmcc_ms": rtt_ours})
    g_ref, g_ours = (x["delivered_bytes"] * 8 / T / 1e6 for x in (ref, ours))
    d = _rel(g_ours, g_ref)
    return {"case": case.key, **asdict(case), "goodput_ns3_mbps": g_ref, "goodput_mmcc_mbps": g_ours,
            "goodput_diff_pct": 100 * d, "goodput_ok": bool(abs(d) <= THROUGHPUT_BAND),
            "retx_ns3_bytes": ref["retx_bytes"], "retx_mmcc_bytes": ours["retx_bytes"],
            "fast_retransmits_ns3": ref["fast_retransmits"], "fast_retransmits_mmcc": ours["fast_retransmits"],
            "rtos_ns3": ref["rtos"], "rtos_mmcc": ours["rtos"],
            "error_drops_ns3": ref["error_drops"], "error_drops_mmcc": ours["error_drops"],
            "ns3_cpu_s": ref.get("cpu_s"), "mmcc_wall_s": ours.get("wall_s"), "phases": phases}


def _compare_one(case: Case, store: str, out: str | None = None) -> dict:
    """Compare one case; with `out`, also draw its overlay figure (in the worker that has both
    runs)."""
    ref, ours = read_reference(Path(store) / case.key), run_mmcc(case)
    if out is not None:
        _overlay(Path(out), case, ref, ours)
    return compare(case, ref, ours)


def run_validation(out_dir, *, cases: list[Case] | None = None, store: str | Path | None = None,
                   runner: str | Path | None = None, tree: str | Path | None = None, workers: int | None = None,
                   progress: bool = True, tcp: str = "pinned") -> dict:
    """Compare every case (default: every stored reference run of the oracle with TCP `tcp`). With
    `runner` and `tree` (an oracle built with that TCP), cases without a stored reference run in
    ns3-mmwave first and are stored."""
    import sys

    out, store = Path(out_dir), Path(store or reference(tcp).store)
    cases = cases if cases is not None else stored_cases(store)
    if not cases:
        raise ValueError(f"validate mmwave: no stored ns3-mmwave run in {store}; name cases (--cca, --buffer, --per, "
                         f"--server, --duration) and give --runner and --ns3-mmwave to run them")
    missing = [c for c in cases if not (store / c.key / "flows.csv").is_file()]
    if missing and runner is None:
        raise ValueError(f"validate mmwave: no stored ns3-mmwave run for {missing[0].key} (and {len(missing) - 1} "
                         f"more); give --runner and --ns3-mmwave to run them, or leave out --cca/--duration to "
                         f"compare the {len(stored_cases(store))} stored cases")
    workers = workers or os.cpu_count() or 1
    if missing:
        runner, tree = Path(runner).resolve(), Path(tree or ".").resolve()
        with worker_pool(workers) as ex:
            futs = [ex.submit(run_reference, c, runner, tree, store, tcp) for c in missing]
            for i, f in enumerate(as_completed(futs), 1):
                f.result()
                if progress:
                    sys.stderr.write(f"\rns3-mmwave: {i}/{len(missing)} runs   ")
        if progress:
            sys.stderr.write("\n")
    with worker_pool(workers) as ex:
        rows = list(ex.map(_compare_one, cases, [str(store)] * len(cases), [str(out)] * len(cases)))
    return write_report(out, rows, tcp)


def group_key(case: Case) -> str:
    """A case without its seed: the runs of one configuration."""
    return f"{case.cca}-{case.server}-{case.rlc_buffer_mib:g}MiB-{case.per:g}-{case.duration_s:g}s"


def _mean_se(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), (float(a.std(ddof=1) / np.sqrt(len(a))) if len(a) > 1 else float("nan"))


def _within_2se(ref: list[float], ours: list[float]) -> bool:
    """Whether the seeds cannot tell the two means apart: their difference is within two standard
    errors of it (only with several seeds on both sides; NaNs, phases without traffic, count
    as not)."""
    (m_ref, se_ref), (m_ours, se_ours) = _mean_se(ref), _mean_se(ours)
    return bool(np.isfinite(se_ref) and np.isfinite(se_ours)
                and abs(m_ours - m_ref) <= 2 * float(np.hypot(se_ref, se_ours)))


def aggregate(rows: list[dict]) -> list[dict]:
    """One row per configuration: the means over its seeds. Each seed draws another sequence of
    channel realisations (and, with PER, other losses) in both simulators, so a single seed
    compares two draws; the bands apply to the means over seeds, shown with their standard
    errors."""
    groups: dict[str, list[dict]] = {}
    for r in rows:
        groups.setdefault(group_key(Case.from_key(r["case"])), []).append(r)
    out = []
    for key, rs in sorted(groups.items()):
        g_ref, se_ref = _mean_se([r["goodput_ns3_mbps"] for r in rs])
        g_ours, se_ours = _mean_se([r["goodput_mmcc_mbps"] for r in rs])
        d = _rel(g_ours, g_ref)
        phases = []
        for name, *_ in PHASES:
            ps = [p for r in rs for p in r["phases"] if p["phase"] == name]
            if len(ps) != len(rs):
                continue
            m = {k: float(np.nanmean([p[k] for p in ps])) if any(np.isfinite(p[k]) for p in ps) else float("nan")
                 for k in ("sinr_ns3_db", "sinr_mmcc_db", "mcs_ns3", "mcs_mmcc", "thr_ns3_mbps", "thr_mmcc_mbps")}
            d_sinr, d_thr = m["sinr_mmcc_db"] - m["sinr_ns3_db"], _rel(m["thr_mmcc_mbps"], m["thr_ns3_mbps"])
            thr_ok = bool(abs(d_thr) <= THROUGHPUT_BAND)
            phases.append({"phase": name, **m, "sinr_diff_db": d_sinr, "sinr_ok": bool(abs(d_sinr) <= SINR_BAND_DB),
                           "thr_diff_pct": 100 * d_thr, "thr_ok": thr_ok,
                           "thr_consistent": thr_ok or _within_2se([p["thr_ns3_mbps"] for p in ps],
                                                                   [p["thr_mmcc_mbps"] for p in ps])})
        out.append({"group": key, "seeds": len(rs), "goodput_ns3_mbps": g_ref, "goodput_ns3_se": se_ref,
                    "goodput_mmcc_mbps": g_ours, "goodput_mmcc_se": se_ours, "goodput_diff_pct": 100 * d,
                    "goodput_ok": bool(abs(d) <= THROUGHPUT_BAND),
                    "goodput_consistent": bool(abs(d) <= THROUGHPUT_BAND or _within_2se(
                        [r["goodput_ns3_mbps"] for r in rs], [r["goodput_mmcc_mbps"] for r in rs])),
                    "rtos_ns3": float(np.mean([r["rtos_ns3"] for r in rs])),
                    "rtos_mmcc": float(np.mean([r["rtos_mmcc"] for r in rs])),
                    "fast_retransmits_ns3": float(np.mean([r["fast_retransmits_ns3"] for r in rs])),
                    "fast_retransmits_mmcc": float(np.mean([r["fast_retransmits_mmcc"] for r in rs])),
                    "phases": phases})
    return out


def summary(groups: list[dict], runs: int) -> dict:
    """The bands over configurations (`aggregate`'s means over their seeds), and the number of
    runs behind them."""
    ph = [p for g in groups for p in g["phases"]]
    frac = lambda xs: float(np.mean(xs)) if xs else float("nan")  # noqa: E731
    return {"cases": len(groups), "runs": runs, "goodput_within_10pct": frac([g["goodput_ok"] for g in groups]),
            "goodput_within_10pct_or_2se": frac([g["goodput_consistent"] for g in groups]),
            "phase_sinr_within_2db": frac([p["sinr_ok"] for p in ph if np.isfinite(p["sinr_diff_db"])]),
            "phase_thr_within_10pct": frac([p["thr_ok"] for p in ph if np.isfinite(p["thr_diff_pct"])]),
            "phase_thr_within_10pct_or_2se": frac([p["thr_consistent"] for p in ph
                                                   if np.isfinite(p["thr_diff_pct"])])}


def _pm(mean: float, se: float) -> str:
    return f"{mean:.1f}" if not np.isfinite(se) else f"{mean:.1f} +- {se:.1f}"


def agreement_markdown(rows: list[dict], groups: list[dict] | None = None) -> str:
    """The agreement table docs/validation.md quotes (a test checks it is current): one row per
    configuration, means over its seeds (+- their standard errors); `groups`: `aggregate(rows)`
    when the caller has it."""
    groups = aggregate(rows) if groups is None else groups
    s = summary(groups, len(rows))
    lines = [f"{s['cases']} cases ({s['runs']} runs of both simulators; a case's figures are the means over its "
             f"seeds). Whole-run goodput within +-10 %: {100 * s['goodput_within_10pct']:.0f} % of cases "
             f"({100 * s['goodput_within_10pct_or_2se']:.0f} % within +-10 % or within two standard errors of the "
             f"difference, where both sides have several seeds); per-phase "
             f"mean SINR within +-2 dB: {100 * s['phase_sinr_within_2db']:.0f} % of phases; per-phase throughput "
             f"within +-10 %: {100 * s['phase_thr_within_10pct']:.0f} % of phases "
             f"({100 * s['phase_thr_within_10pct_or_2se']:.0f} % within +-10 % or two standard errors).", "",
             "| case | seeds | goodput ns3-mmwave / mmcc Mb/s (+- s.e.) | diff % | timeouts per run | fast rtx per run "
             "| per phase, ns3-mmwave / mmcc: mean SINR, mean MCS, throughput (Mb/s) |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for g in groups:
        ph = "; ".join(f"{p['phase']}: {p['sinr_ns3_db']:.1f} / {p['sinr_mmcc_db']:.1f} dB, MCS "
                       f"{p['mcs_ns3']:.1f} / {p['mcs_mmcc']:.1f}, {p['thr_ns3_mbps']:.0f} / {p['thr_mmcc_mbps']:.0f}"
                       for p in g["phases"])
        lines.append(f"| {g['group']} | {g['seeds']} | {_pm(g['goodput_ns3_mbps'], g['goodput_ns3_se'])} / "
                     f"{_pm(g['goodput_mmcc_mbps'], g['goodput_mmcc_se'])} | {g['goodput_diff_pct']:+.1f} | "
                     f"{g['rtos_ns3']:.1f} / {g['rtos_mmcc']:.1f} | {g['fast_retransmits_ns3']:.1f} / "
                     f"{g['fast_retransmits_mmcc']:.1f} | {ph} |")
    return "\n".join(lines) + "\n"


def write_report(out: Path, rows: list[dict], tcp: str = "pinned") -> dict:
    out.mkdir(parents=True, exist_ok=True)
    flat = [{k: v for k, v in r.items() if k != "phases"} for r in rows]
    write_csv_rows(out / "cases.csv", flat)
    write_csv_rows(out / "phases.csv", [{"case": r["case"], **p} for r in rows for p in r["phases"]])
    groups = aggregate(rows)
    write_csv_rows(out / "groups.csv", [{k: v for k, v in g.items() if k != "phases"} for g in groups])
    text = [f"# mmcc (thesis presets) vs ns3-mmwave {REFERENCE_COMMIT[:8]} with {reference(tcp).tcp}", "",
            "Per phase of the UE's trajectory and over the whole run, means over each case's seeds. Bands: "
            "per-phase mean SINR within +-2 dB, per-phase throughput and whole-run goodput within +-10 % of "
            "ns3-mmwave's. Every run: cases.csv and phases.csv; the cases: groups.csv.", "",
            agreement_markdown(rows, groups)]
    atomic_write_bytes(out / "report.md", "\n".join(text).encode())
    return {**summary(groups, len(rows)), "rows": rows}


def _overlay(out: Path, case: Case, ref: dict, ours: dict) -> None:
    """SINR (10 ms means) and throughput over time of one case, both simulators."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plots import save_figure

    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5), sharex=True, constrained_layout=True)
    for x, label, style in ((ref, "ns3-mmwave", "-"), (ours, "mmcc", "--")):
        t, v = x["radio_t_s"], x["sinr_db"]
        m = np.isfinite(v)
        k = (t[m] * 100).astype(int)
        if len(k):
            sums, n = np.bincount(k, v[m]), np.bincount(k)
            ok = n > 0
            a1.plot(np.nonzero(ok)[0] / 100, sums[ok] / n[ok], style, lw=1, label=label)
        a2.plot(x["t_s"], x["throughput_mbps"], style, lw=1, label=label, drawstyle="steps-post")
    for _, a, b in PHASES[2::2]:
        if a < case.duration_s:
            for ax in (a1, a2):
                ax.axvspan(a, min(b, case.duration_s), color="0.9", zorder=0)
    a2.set_xlim(0, case.duration_s)
    a1.set_ylabel("DL SINR (dB)")
    a2.set_ylabel("goodput per 100 ms (Mb/s)")
    a2.set_xlabel("time (s); shaded: the stops behind the tree and the building, and the drive away")
    a1.legend(fontsize=8)
    a1.set_title(case.key, fontsize=9)
    save_figure(fig, out / "figures" / f"{case.key}.png")
    plt.close(fig)


#: The overlays docs/validation.md shows, per oracle TCP: stored case -> figure in docs/img.
DOC_FIGURES = {"pinned": {"newreno-edge-2.5MiB-0-s1-60s": "mmwave-newreno-edge-2.5MiB-60s.png",
                          "newreno-edge-20MiB-0-s1-12s": "mmwave-newreno-edge-20MiB-12s.png"},
               "ns-3.35": {"newreno-edge-2.5MiB-0-s1-12s": "mmwave-tcp-3.35-newreno-edge-2.5MiB-12s.png"}}
#: docs/validation.md's agreement block of each oracle TCP
DOC_BLOCKS = {"pinned": "mmwave-agreement", "ns-3.35": "mmwave-agreement-tcp-3.35"}


#: The agreement of each oracle build, as the thesis reproduction's report quotes it (written by
#: `update_docs` with the docs; a test checks it is current).
AGREEMENT_FILE = Path(__file__).with_name("mmwave_agreement.json")


def read_agreement() -> dict:
    """AGREEMENT_FILE: per oracle build, `agreement_summary` of its stored runs."""
    import json

    return json.loads(AGREEMENT_FILE.read_text())


def agreement_summary(rows: list[dict]) -> dict:
    """The figures the reproduction report quotes for one oracle build (percentages, rounded)."""
    s = summary(aggregate(rows), len(rows))
    return {k: (round(100 * v) if isinstance(v, float) else v) for k, v in s.items()}


def update_docs(doc: Path = ROOT / "docs" / "validation.md") -> None:
    """Rewrite docs/validation.md's agreement blocks from the stored runs of both oracle TCPs
    (tests check them), their overlay figures (DOC_FIGURES) and AGREEMENT_FILE."""
    import json
    import shutil
    import tempfile

    agreement = {}
    for tcp, block in DOC_BLOCKS.items():
        store, figures, rows = reference(tcp).store, DOC_FIGURES[tcp], []
        with tempfile.TemporaryDirectory() as tmp:
            for c in stored_cases(store):
                ref, ours = read_reference(store / c.key), run_mmcc(c)
                rows.append(compare(c, ref, ours))
                if c.key in figures:
                    _overlay(Path(tmp), c, ref, ours)
                    shutil.copy(Path(tmp) / "figures" / f"{c.key}.png", doc.parent / "img" / figures[c.key])
        rewrite_marked_block(doc, block, agreement_markdown(rows))
        agreement[tcp] = agreement_summary(rows)
    atomic_write_bytes(AGREEMENT_FILE, (json.dumps(agreement, indent=1, sort_keys=True) + "\n").encode())


if __name__ == "__main__":
    import sys

    if sys.argv[1:] != ["--docs"]:
        sys.exit("usage: python -m mmcc.experiments.validate_mmwave --docs  (rewrites docs/validation.md's "
                 "agreement blocks from validation/mmwave-runs and validation/mmwave-runs-tcp-3.35)")
    update_docs()
