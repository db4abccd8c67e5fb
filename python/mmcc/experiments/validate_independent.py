"""`mmcc validate ns3 --independent`: agreement in distribution with independent losses.

The default matrix of `mmcc validate ns3` makes ns-3 drop exactly the packets mmcc drops (common
random numbers), which shows that both stacks react alike to the same drops. Here each side draws
its own losses: ns-3 with its `RateErrorModel` and its own generator (the runner's
`--errors=ns3`), mmcc with its own streams, over many seeds on both sides. Per case the report
gives each side's mean goodput with a 95 % confidence interval, the difference of the means with
its 95 % interval (Welch; normal quantile, so at least 30 seeds per side), and the loss rate each
side's error model realised (dropped / offered packets at the bottleneck's receiving end, pooled
over the seeds, with its binomial 95 % interval). A case agrees when the difference's interval
lies within +-5 % of ns-3's mean; it differs when the interval excludes the band entirely;
otherwise more seeds are needed.

Results are one JSON file per run under OUT/independent/ (resumable, reused only if made by the
same build), the report is OUT/independent.md.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time
from concurrent.futures import as_completed
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, rewrite_marked_block, write_csv_rows
from .sweep import worker_pool
from .validate_ns3 import Case, _is_current, _run_mmcc, _run_ns3, fingerprint

#: The cases of the fidelity issue: the algorithms that differed by +4.7 to +6.8 % over
#: 100 mmcc seeds against 15 ns-3 seeds, at 100 Mb/s and 1e-3, 10 s runs.
CCAS = ["newreno", "cubic", "highspeed", "vegas", "yeah"]
Z95 = 1.959964
BAND = 0.05


def _path(out: Path, case: Case, side: str) -> Path:
    return out / "independent" / f"{case.key}-{side}.json"


def _execute(case: Case, side: str, out: str, runner: str, build: str) -> None:
    o = Path(out)
    res = _run_mmcc(case, o) if side == "mmcc" else _run_ns3(case, runner, o / "ns3-work", errors="ns3")
    res.update({"case": case.__dict__, "side": side, "build": build, "errors": "independent"})
    for k in ("cwnd_bytes", "t_s"):  # the report needs none of the time series
        res.pop(k, None)
    atomic_write_bytes(_path(o, case, side), json.dumps(res).encode())


def run_independent(out_dir: str | Path, *, ccas=None, rates=None, losses=None, seeds: int = 100,
                    duration: float = 10.0, workers: int | None = None, progress: bool = True) -> dict:
    """Run every case `seeds` times on each side with independent losses; returns the report."""
    from .. import _core, ns3

    if seeds < 30:
        raise ValueError(f"validate ns3 --independent: --seeds {seeds}: at least 30 per side (the intervals "
                         "use the normal quantile)")
    losses = losses or [1e-3]
    if any(x <= 0 for x in losses):
        raise ValueError("validate ns3 --independent: every --loss must be positive (independent losses need losses)")
    out = Path(out_dir)
    (out / "independent").mkdir(parents=True, exist_ok=True)
    runner = str(ns3.build_runner())
    builds = {"ns3": fingerprint(runner), "mmcc": fingerprint(_core.__file__)}
    cases = [Case(c, r, l, s, duration) for c in (ccas or CCAS) for r in (rates or ["100Mbps"]) for l in losses
             for s in range(1, seeds + 1)]
    todo = [(c, side) for c in cases for side in ("ns3", "mmcc") if not _is_current(_path(out, c, side), builds[side])]
    started = time.time()
    with worker_pool(workers or os.cpu_count() or 1) as ex:
        futs = [ex.submit(_execute, c, side, str(out), runner, builds[side]) for c, side in todo]
        for i, f in enumerate(as_completed(futs), 1):
            f.result()
            if progress:
                sys.stderr.write(f"\r{i}/{len(todo)} runs, {time.time() - started:.0f} s elapsed   ")
    if progress and todo:
        sys.stderr.write("\n")
    return write_independent_report(out, cases)


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(Z95 * x.std(ddof=1) / math.sqrt(len(x)))


def _rate_ci(drops: int, seen: int) -> tuple[float, float]:
    p = drops / seen if seen else float("nan")
    return p, Z95 * math.sqrt(p * (1 - p) / seen) if seen else float("nan")


def summarize(ns3_runs: list[dict], mmcc_runs: list[dict]) -> dict:
    """One case's distribution-level comparison (see the module doc)."""
    gn = np.array([r["goodput_mbps"] for r in ns3_runs])
    gm = np.array([r["goodput_mbps"] for r in mmcc_runs])
    (mn, cn), (mm, cm) = _mean_ci(gn), _mean_ci(gm)
    diff = (mm - mn) / mn
    half = math.sqrt((cn / Z95) ** 2 + (cm / Z95) ** 2) * Z95 / mn
    lo, hi = diff - half, diff + half
    verdict = "agrees" if -BAND <= lo and hi <= BAND else "differs" if hi < -BAND or lo > BAND else "unresolved"
    pn = _rate_ci(sum(r["error_drops"] for r in ns3_runs), sum(r["error_model_packets"] for r in ns3_runs))
    pm = _rate_ci(sum(r["error_drops"] for r in mmcc_runs), sum(r["error_model_packets"] for r in mmcc_runs))
    return {"seeds_ns3": len(gn), "seeds_mmcc": len(gm), "ns3_mbps": mn, "ns3_ci": cn, "mmcc_mbps": mm, "mmcc_ci": cm,
            "diff_pct": 100 * diff, "diff_lo_pct": 100 * lo, "diff_hi_pct": 100 * hi, "verdict": verdict,
            "ns3_loss": pn[0], "ns3_loss_ci": pn[1], "mmcc_loss": pm[0], "mmcc_loss_ci": pm[1],
            "ns3_rtos": float(np.mean([r["rtos"] for r in ns3_runs])),
            "mmcc_rtos": float(np.mean([r["rtos"] for r in mmcc_runs]))}


def write_independent_report(out: Path, cases: list[Case]) -> dict:
    groups: dict[tuple, list[Case]] = {}
    for c in cases:
        groups.setdefault((c.cca, c.rate, c.loss, c.duration_s), []).append(c)
    rows = []
    for (cca, rate, loss, dur), cs in sorted(groups.items()):
        n = [json.loads(_path(out, c, "ns3").read_text()) for c in cs]
        m = [json.loads(_path(out, c, "mmcc").read_text()) for c in cs]
        rows.append({"cca": cca, "rate": rate, "loss": loss, "duration_s": dur, **summarize(n, m)})
    write_csv_rows(out / "independent.csv", rows)
    atomic_write_bytes(out / "independent.md", (independent_markdown(rows) + "\n").encode())
    return {"cases": len(rows), "rows": rows}


def independent_markdown(rows: list[dict]) -> str:
    lines = ["| cca | rate | loss | seeds ns-3 / mmcc | ns-3 Mb/s (95 % CI) | mmcc Mb/s (95 % CI) | diff % (95 % CI) | "
             "verdict (+-5 %) | realised loss ns-3 / mmcc (x1e-3, 95 % CI) | RTOs per run ns-3 / mmcc |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(
            f"| {r['cca']} | {r['rate']} | {r['loss']:g} | {r['seeds_ns3']} / {r['seeds_mmcc']} "
            f"| {r['ns3_mbps']:.2f} (+-{r['ns3_ci']:.2f}) | {r['mmcc_mbps']:.2f} (+-{r['mmcc_ci']:.2f}) "
            f"| {r['diff_pct']:+.1f} ({r['diff_lo_pct']:+.1f} .. {r['diff_hi_pct']:+.1f}) | {r['verdict']} "
            f"| {1e3 * r['ns3_loss']:.3f} (+-{1e3 * r['ns3_loss_ci']:.3f}) / {1e3 * r['mmcc_loss']:.3f} "
            f"(+-{1e3 * r['mmcc_loss_ci']:.3f}) | {r['ns3_rtos']:.2f} / {r['mmcc_rtos']:.2f} |")
    return "\n".join(lines)


def update_docs(out_dir: str | Path, doc: Path = Path(__file__).resolve().parents[3] / "docs" / "validation.md") -> None:
    """Rewrite docs/validation.md's independent-losses block from the runs stored in OUT."""
    out = Path(out_dir)
    runs = sorted((out / "independent").glob("*-ns3.json"))
    if not runs:
        raise ValueError(f"{out}: no independent runs (expected {out / 'independent'}/*-ns3.json)")
    cases = [Case(**json.loads(p.read_text())["case"]) for p in runs]
    rows = write_independent_report(out, cases)["rows"]
    verdicts = [r["verdict"] for r in rows]
    head = (f"{len(rows)} cases, {rows[0]['seeds_ns3']} seeds per side, {rows[0]['duration_s']:g} s runs: "
            f"{verdicts.count('agrees')} agree within +-5 %, {verdicts.count('differs')} differ, "
            f"{verdicts.count('unresolved')} unresolved (`mmcc validate ns3 --independent --seeds "
            f"{rows[0]['seeds_ns3']}`; this block: `python -m mmcc.experiments.validate_independent --docs OUT`).\n\n")
    rewrite_marked_block(doc, "independent-losses", f"{head}{independent_markdown(rows)}\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--docs":
        sys.exit("usage: python -m mmcc.experiments.validate_independent --docs OUT  (rewrites docs/validation.md's "
                 "independent-losses block from OUT/independent)")
    update_docs(sys.argv[2])
