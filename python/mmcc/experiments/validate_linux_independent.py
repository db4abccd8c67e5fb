"""`mmcc validate linux --independent`: the `linux` profile against the kernel in distribution,
each side drawing its own losses.

`mmcc validate linux` lets the testbed's emulator draw its losses from the simulator's own stream
of each link direction (common random numbers), so the i-th data packet meets the same draw in
both worlds and the matrix shows that both stacks react alike to the same losses. Here the
emulator draws from a stream of the run seed the simulator never uses
(`testbed.run.plan(..., independent_losses=True)`), and each side runs its own seeds: the kernel
`kernel_seeds` times (real time, one run after another), the simulator `mmcc_seeds` times. Per
case the report gives each side's mean goodput with a 95 % interval (Student's t: the kernel
side has few runs), the difference of the means with its 95 % interval (Welch, with the
Welch-Satterthwaite degrees of freedom), the verdict against +-5 % of the kernel's mean
(*agrees*: the interval lies inside; *differs*: outside; *unresolved*: more runs needed), the loss
rate each side realised (error-model drops over data packets sent, pooled, binomial 95 %
interval) beside the losses the kernel runs' own loss streams deal over the packets they drew
for (`_core.stream_losses`: the emulator's drops are those draws, so a realised rate away from
the nominal one is the seeds' sample, not a counting difference; cases with the same loss rate
and seeds draw from the same streams, so their realised rates are one sample, not several),
retransmissions and timeouts per run, and how many kernel runs a +-3 % interval of
its mean would take at the spread seen.

Results are one JSON file per run under OUT/independent/, reused while the build that made it is
unchanged; the report is OUT/independent.md and OUT/independent.csv.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..files import atomic_write_bytes, rewrite_marked_block, write_csv_rows
from .validate_independent import _rate_ci
from .validate_linux import Case, _is_current, _summary, fingerprint, kernel_builds, scenario

CCAS = ["newreno", "cubic", "bbr"]
RATE_MBPS = 100
DELAYS_MS = [10, 25]
BUFFERS_BDP = [0.25, 1.0]
LOSSES = [1e-3, 1e-2]
BAND = 0.05
#: The resolution the issue asks of the kernel's mean (half-width of its 95 % interval).
RESOLUTION = 0.03
#: Two-sided 95 % quantiles of Student's t by degrees of freedom (standard tables); between
#: entries the next lower one (a wider interval), beyond 120 the normal quantile.
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
        11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
        20: 2.086, 25: 2.060, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980}


def t95(df: float) -> float:
    if df > 120:
        return 1.959964
    return T975[max(k for k in T975 if k <= max(1.0, df))]


def cases(ccas=None, delays=None, buffers=None, losses=None, duration: float = 15.0) -> list[Case]:
    """One Case per condition (its seed is set per run)."""
    return [Case(c, RATE_MBPS, d, b, l, 0, 0, duration) for c in (ccas or CCAS) for d in (delays or DELAYS_MS)
            for b in (buffers or BUFFERS_BDP) for l in (losses or LOSSES)]


def _path(out: Path, case: Case, side: str) -> Path:
    return out / "independent" / f"{case.key}-{side}.json"


def _run(case: Case, side: str, out: Path) -> dict:
    from ..results import run as run_sim
    from ..scenario import Scenario
    from ..testbed.run import run_testbed

    sc = Scenario.from_dict(scenario(case, out), source=case.key)
    r = run_sim(sc) if side == "mmcc" else run_testbed(sc, independent_losses=True)
    res = _summary(r, case.duration_s, per_sample=side == "kernel")
    f = r.flows.to_pydict()
    res.update({"error_drops": int(f["drops_error_model"][0]), "data_packets": int(f["segments_sent"][0])})
    if side == "kernel":
        res["stream_drops"] = stream_drops(sc.config, case.seed, res["data_packets"] - int(f["drops_queue_full"][0]))
    for k in ("t_s", "cwnd_segments"):  # the report needs no time series
        res.pop(k, None)
    return res


def stream_drops(config: dict, seed: int, draws: int) -> int:
    """The losses the testbed's own streams (`plan(..., independent_losses=True)`) deal the
    first `draws` data packets on the scenario's lossy forward link (packet unit): the drops a
    kernel run that sent that many packets must show if its emulator drew as designed."""
    from .. import _core
    from ..testbed.run import plan

    lossy = [h for h in plan(config, True).forward if h.get("error")]
    if len(lossy) != 1 or lossy[0]["error"].get("unit") != "packet":
        raise ValueError("validate linux --independent: one lossy forward link with a per-packet rate expected")
    return int(_core.stream_losses(seed, f"{lossy[0]['stream']}/error", float(lossy[0]["error"]["rate"]), max(0, draws)))


def run_linux_independent(out_dir: str | Path, *, ccas=None, delays=None, buffers=None, losses=None,
                          kernel_seeds: int = 10, mmcc_seeds: int = 100, duration: float = 15.0,
                          progress: bool = True) -> dict:
    """Run every case `kernel_seeds` times on the kernel and `mmcc_seeds` times in the simulator,
    each with independent losses; returns the report."""
    from .. import _core
    from ..testbed.run import TestbedError, cleanup_stale, unavailable_reason

    if kernel_seeds < 5 or mmcc_seeds < 5:
        raise ValueError("validate linux --independent: at least 5 runs per side (--seeds)")
    if any(not 1 <= d <= 1000 for d in delays or DELAYS_MS):
        raise ValueError("validate linux --independent: --delay: one-way delays from 1 to 1000 ms")
    if any(x <= 0 for x in losses or LOSSES):
        raise ValueError("validate linux --independent: every --loss must be positive (independent losses need losses)")
    reason = unavailable_reason()
    if reason:
        raise TestbedError(f"validate linux: {reason}")
    out = Path(out_dir)
    (out / "independent").mkdir(parents=True, exist_ok=True)
    conds = cases(ccas, delays, buffers, losses, duration)
    kernel = kernel_builds(c.cca for c in conds)
    mmcc_build = fingerprint(_core.__file__)
    todo = []
    for c in conds:
        for side, n in (("kernel", kernel_seeds), ("mmcc", mmcc_seeds)):
            build = kernel[c.cca] if side == "kernel" else mmcc_build
            todo += [(replace(c, seed=s), side, build) for s in range(1, n + 1)
                     if not _is_current(_path(out, replace(c, seed=s), side), build)]
    cleanup_stale()
    started = time.time()
    for i, (c, side, build) in enumerate(todo, 1):
        res = _run(c, side, out)
        res.update({"case": c.__dict__, "side": side, "build": build, "errors": "independent"})
        atomic_write_bytes(_path(out, c, side), json.dumps(res).encode())
        if progress:
            sys.stderr.write(f"\r{i}/{len(todo)} runs, {time.time() - started:.0f} s elapsed   ")
    if progress and todo:
        sys.stderr.write("\n")
    return write_report(out, conds, kernel_seeds, mmcc_seeds)


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(t95(len(x) - 1) * x.std(ddof=1) / math.sqrt(len(x)))


def summarize(kernel_runs: list[dict], mmcc_runs: list[dict]) -> dict:
    """One case's distribution-level comparison (see the module doc)."""
    gk = np.array([r["goodput_mbps"] for r in kernel_runs])
    gm = np.array([r["goodput_mbps"] for r in mmcc_runs])
    (mk, ck), (mm, cm) = _mean_ci(gk), _mean_ci(gm)
    vk, vm = gk.var(ddof=1) / len(gk), gm.var(ddof=1) / len(gm)
    df = (vk + vm) ** 2 / (vk ** 2 / (len(gk) - 1) + vm ** 2 / (len(gm) - 1)) if vk + vm > 0 else 1e9
    diff = (mm - mk) / mk
    half = t95(df) * math.sqrt(vk + vm) / mk
    lo, hi = diff - half, diff + half
    verdict = "agrees" if -BAND <= lo and hi <= BAND else "differs" if hi < -BAND or lo > BAND else "unresolved"
    pk = _rate_ci(sum(r["error_drops"] for r in kernel_runs), sum(r["data_packets"] for r in kernel_runs))
    pm = _rate_ci(sum(r["error_drops"] for r in mmcc_runs), sum(r["data_packets"] for r in mmcc_runs))
    # what the kernel runs' own streams deal (runs stored before it was recorded have none)
    stream = sum(r["stream_drops"] for r in kernel_runs) if all("stream_drops" in r for r in kernel_runs) else -1
    per_run = lambda runs, k: float(np.mean([r[k] for r in runs]))  # noqa: E731
    # kernel runs for a +-3 % interval of its mean at the spread seen (normal quantile)
    need = math.ceil((1.959964 * gk.std(ddof=1) / (RESOLUTION * mk)) ** 2) if mk > 0 else 0
    return {"runs_kernel": len(gk), "runs_mmcc": len(gm), "kernel_mbps": mk, "kernel_ci": ck, "mmcc_mbps": mm,
            "mmcc_ci": cm, "diff_pct": 100 * diff, "diff_lo_pct": 100 * lo, "diff_hi_pct": 100 * hi,
            "verdict": verdict, "kernel_loss": pk[0], "kernel_loss_ci": pk[1], "mmcc_loss": pm[0],
            "mmcc_loss_ci": pm[1], "kernel_drops": sum(r["error_drops"] for r in kernel_runs),
            "kernel_stream_drops": stream, "kernel_retx": per_run(kernel_runs, "retransmits"),
            "mmcc_retx": per_run(mmcc_runs, "retransmits"), "kernel_rtos": per_run(kernel_runs, "rtos"),
            "mmcc_rtos": per_run(mmcc_runs, "rtos"), "kernel_runs_for_3pct": need}


def write_report(out: Path, conds: list[Case], kernel_seeds: int, mmcc_seeds: int) -> dict:
    rows = []
    for c in conds:
        k = [json.loads(_path(out, replace(c, seed=s), "kernel").read_text()) for s in range(1, kernel_seeds + 1)]
        m = [json.loads(_path(out, replace(c, seed=s), "mmcc").read_text()) for s in range(1, mmcc_seeds + 1)]
        rows.append({"cca": c.cca, "condition": c.condition, "duration_s": c.duration_s, **summarize(k, m)})
    write_csv_rows(out / "independent.csv", rows)
    md = markdown(rows)
    atomic_write_bytes(out / "independent.md", f"# The linux profile against the kernel, independent losses\n\n{md}".encode())
    return {"cases": len(rows), "rows": rows, "markdown": md}


def markdown(rows: list[dict]) -> str:
    v = [r["verdict"] for r in rows]
    head = (f"{len(rows)} cases, {rows[0]['runs_kernel']} kernel runs and {rows[0]['runs_mmcc']} simulator runs each, "
            f"{rows[0]['duration_s']:g} s: {v.count('agrees')} agree within +-5 %, {v.count('differs')} differ, "
            f"{v.count('unresolved')} unresolved.\n\n") if rows else "No cases.\n\n"
    lines = ["| cca | condition | kernel Mb/s (95 % CI) | mmcc Mb/s (95 % CI) | diff % (95 % CI) | verdict (+-5 %) | "
             "realised loss kernel / mmcc (x1e-3) | kernel drops / its streams' | retransmissions per run kernel / mmcc | RTOs per run kernel / mmcc | "
             "kernel runs for +-3 % |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        lines.append(f"| {r['cca']} | {r['condition']} | {r['kernel_mbps']:.2f} (+-{r['kernel_ci']:.2f}) | "
                     f"{r['mmcc_mbps']:.2f} (+-{r['mmcc_ci']:.2f}) | {r['diff_pct']:+.1f} ({r['diff_lo_pct']:+.1f} .. "
                     f"{r['diff_hi_pct']:+.1f}) | {r['verdict']} | {1e3 * r['kernel_loss']:.2f} (+-{1e3 * r['kernel_loss_ci']:.2f}) / "
                     f"{1e3 * r['mmcc_loss']:.2f} (+-{1e3 * r['mmcc_loss_ci']:.2f}) | {_drops(r)} | {r['kernel_retx']:.0f} / "
                     f"{r['mmcc_retx']:.0f} | {r['kernel_rtos']:.2f} / {r['mmcc_rtos']:.2f} | {int(r['kernel_runs_for_3pct'])} |")
    return head + "\n".join(lines) + "\n"


def _drops(r: dict) -> str:
    k, s = int(r.get("kernel_drops", -1)), int(r.get("kernel_stream_drops", -1))
    return f"{k} / {s}" if k >= 0 and s >= 0 else f"{k} / -" if k >= 0 else "-"


def update_docs(out_dir: str | Path, doc: Path = Path(__file__).resolve().parents[3] / "docs" / "validation.md") -> None:
    """Rewrite docs/validation.md's `independent-losses-linux` block from OUT/independent.csv."""
    import csv

    rows = []
    for r in csv.DictReader((Path(out_dir) / "independent.csv").open()):
        rows.append({k: (v if k in ("cca", "condition", "verdict") else float(v)) for k, v in r.items()})
    for r in rows:
        for k in ("runs_kernel", "runs_mmcc", "kernel_runs_for_3pct", "kernel_drops", "kernel_stream_drops"):
            if k not in r:
                continue
            r[k] = int(r[k])
    rewrite_marked_block(doc, "independent-losses-linux", markdown(rows))


def main() -> int:
    ap = argparse.ArgumentParser(description="Rewrite docs/validation.md's kernel independent-loss block")
    ap.add_argument("--docs", required=True, metavar="OUT", help="the output folder of the validation")
    update_docs(ap.parse_args().docs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
