"""`mmcc reproduce <publication>`: run a publication's grid and write tables, figures and an
HTML report under one output folder."""

from __future__ import annotations

import html
import json
import time
from pathlib import Path
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402

from .. import __version__  # noqa: E402
from ..plots import THROUGHPUT_NOTE, algorithm_color, save_figure, scale_for_peaks, step_to_end  # noqa: E402
from ..files import atomic_write_bytes  # noqa: E402
from ..results import STALL_TIMEOUTS  # noqa: E402
from ..scenario import load  # noqa: E402
from .sweep import RunSpec, load_summaries, run_sweep  # noqa: E402
from .tables import markdown, paired_improvement, pivot, transpose, write_table  # noqa: E402

THESIS_ALGORITHMS = ["newreno", "highspeed", "cubic", "bbr", "fbtcp", "rttv", "msscca", "mrvhs"]
THESIS_PROPOSED = ["rttv", "msscca", "mrvhs"]
THESIS_BUFFERS = ["0.25MiB", "2.5MiB", "20MiB"]
THESIS_PER = [0.0, 1e-9, 1e-8, 1e-7]


# Every report defines what its tables show (issue 12: define every metric, sign and formula).
COMMON_DEFINITIONS = [
    ("Cells", "the mean over seeds, with the minimum and maximum over seeds in parentheses when there is "
              "more than one seed; a difference inside that range is not a result. CSV files hold the means, "
              "`*_long.csv` the mean, minimum, maximum and number of seeds per cell."),
    ("Throughput", "the first flow's delivered bytes x 8 / (time of its last delivery - time of its first "
                   "send), Mb/s."),
    ("Latency, RTT", "the mean of the sender's RTT samples over the run (ms); the thesis calls it latency."),
    ("Improvement of X over B", "throughput: (X - B) / B x 100; latency: (B - X) / B x 100; positive means X "
                                "is better. Computed per seed (the runs of a seed share the channel and the random "
                                "losses), then summarized like any other cell."),
    ("Seeds", "seed k drives every random process of a run (channel shadowing, BLER, random loss, algorithm "
              "randomness); all algorithms see the same channel for the same seed."),
]
FAMILY_DEFINITIONS = {
    "T": [("Duplicate-ACK ratio", "duplicate ACKs / ACKs received by the sender, whole run.")],
    "M": [("Duplicate-ACK ratio", "duplicate ACKs / (data segments sent, retransmissions included, + ACKs "
                                  "received), i.e. over the connection's packets as a capture at the sender counts "
                                  "them (the paper's definition); 'first 3 s': duplicate ACKs of the first 3 s over "
                                  "the whole run's packets."),
          ("Jain's index", "(sum of the flows' throughputs)^2 / (n x sum of their squares); 1 = equal shares.")],
    "D": [("Jain's index", "(sum of the flows' throughputs)^2 / (n x sum of their squares); 1 = equal shares."),
          ("dtcp / dtcp+sinr", "D-TCP without a SINR feed (its SINR term is 0, as on a real kernel) / with the "
                               "UE's downlink SINR, 10 ms old (the paper's cross-layer set-up).")],
    "S": [("Retransmissions", "data segments the sender retransmitted, whole run.")],
}
DEVIATIONS_FILE = Path(__file__).with_name("deviations.md")


def _deviations(family: str) -> str:
    """The family's section of deviations.md (plus the common preface), as HTML."""
    text = DEVIATIONS_FILE.read_text()
    pre = text.split("\n## ", 1)[0].split("\n# ", 1)[-1].split("\n", 1)[-1]
    sec = next((b for b in text.split("\n## ")[1:] if b.startswith(f"{family}:")), "")
    return _md_block(pre) + _md_block(sec.split("\n", 1)[-1])


def _inline(t: str) -> str:
    t = html.escape(t)
    parts = t.split("`")
    t = "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts))
    parts = t.split("**")
    return "".join(f"<b>{p}</b>" if i % 2 else p for i, p in enumerate(parts))


def _md_block(md: str) -> str:
    """Paragraphs and "- " lists (with continuation lines) of a small Markdown text, as HTML."""
    out, items, para = [], [], []

    def flush():
        if para:
            out.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
            items.clear()

    for ln in md.strip().splitlines():
        if ln.startswith("<!--") or ln.endswith("-->"):
            continue
        if not ln.strip():
            flush()
        elif ln.startswith("- "):
            if para:
                out.append(f"<p>{_inline(' '.join(para))}</p>")
                para.clear()
            items.append(ln[2:].strip())
        elif items:
            items[-1] += " " + ln.strip()
        else:
            para.append(ln.strip())
    flush()
    return "".join(out)


def _shade_nlos(ax, out: Path, run_id: str | None) -> bool:
    """Shade a time axis where the run's radio was in NLoS (100 ms samples); True if shaded."""
    p = out / "runs" / run_id / "radio.parquet" if run_id else None
    if not p or not p.is_file():
        return False
    rd = pq.read_table(p, columns=["t_s", "los"]).to_pydict()
    t, los = np.asarray(rd["t_s"]), np.asarray(rd["los"])
    step = float(np.median(np.diff(t))) if len(t) > 1 else 0.1
    for a in np.atleast_1d(ax):
        for i in np.flatnonzero(los == 0):
            a.axvspan(t[i], t[i] + step, color="0.88", lw=0, zorder=0)
    return True


def _cond(server: str, buf: str, per: float) -> str:
    return f"{server} {buf} PER {per:g}"


def _run_end(rows, run_id: str) -> float:
    """Simulated end of a run (its duration), for step plots drawn to the end."""
    return next(float(r["duration_s"]) for r in rows if r["run_id"] == run_id)


def _min_span(ax, frac: float) -> None:
    """Widen a y axis to at least `frac` of its centre value, so that noise of a few tenths of a
    per cent does not fill the panel."""
    lo, hi = ax.get_ylim()
    mid = (lo + hi) / 2
    half = max((hi - lo) / 2, abs(mid) * frac / 2)
    if half > 0:
        ax.set_ylim(mid - half, mid + half)


def _time_figure(out: Path, runs: list[tuple[str, str]], title: str, path: Path, with_sinr: bool = True):
    """Throughput, RTT (and the first run's downlink SINR) per 100 ms over time, one line per
    algorithm in its colour, NLoS shaded: `runs` = [(algorithm, run_id)]."""
    n = 3 if with_sinr else 2
    fig, ax = plt.subplots(n, 1, figsize=(10, 2.6 * n), sharex=True, constrained_layout=True)
    for cca, rid in runs:
        s_ = pq.read_table(out / "runs" / rid / "series.parquet").to_pydict()
        m = [i for i, f in enumerate(s_["flow_id"]) if f == 0]
        t = [s_["t_s"][i] for i in m]
        ax[0].plot(t, [s_["throughput_mbps"][i] for i in m], lw=0.8, label=cca, color=algorithm_color(cca))
        ax[1].plot(t, [s_["rtt_mean_ms"][i] for i in m], lw=0.8, label=cca, color=algorithm_color(cca))
    if with_sinr and runs:
        p = out / "runs" / runs[0][1] / "radio.parquet"
        if p.is_file():
            rd = pq.read_table(p, columns=["t_s", "sinr_dl_db"]).to_pydict()
            ax[2].plot(rd["t_s"], rd["sinr_dl_db"], lw=0.8, color="0.2")
        ax[2].set_ylabel("DL SINR (dB)")
    ax[0].set_ylabel("throughput (Mb/s)")
    ax[1].set_ylabel("RTT (ms, log)")
    ax[1].set_yscale("log")
    ax[-1].set_xlabel("time (s)")
    ax[0].legend(fontsize=7, ncol=4)
    ax[0].set_title(title)
    for a in ax:
        a.grid(alpha=0.3)
    if runs:
        _shade_nlos(ax, out, runs[0][1])
    return _save(fig, path)


def thesis_specs(seeds: int, duration: str | None = None, algorithms: list | None = None) -> list[RunSpec]:
    """Edge x 3 RLC buffers x 4 PER levels, remote (8 MiB) x 4 PER levels; the thesis' 8
    algorithms (or `algorithms`)."""
    specs = []
    conditions = [("thesis-edge", "edge", b, p) for b in THESIS_BUFFERS for p in THESIS_PER]
    conditions += [("thesis-remote", "remote", "8MiB", p) for p in THESIS_PER]
    for preset, server, buf, per in conditions:
        for cca in algorithms or THESIS_ALGORITHMS:
            for seed in range(1, seeds + 1):
                labels = (("condition", _cond(server, buf, per)), ("server", server), ("buffer", buf), ("per", f"{per:g}"))
                specs.append(RunSpec(preset, cca=cca, seed=seed, params=(("rlc_buffer", buf), ("per", per)),
                                     duration=duration, labels=labels))
    return specs


def _save(fig, path: Path) -> Path:
    return save_figure(fig, path, dpi=100)


class _FigureContext(NamedTuple):
    rows: list
    out: Path
    fig_dir: Path
    by: dict  # run id by (cca, condition, seed)
    base: str  # the base condition
    seed0: int  # the first seed
    algorithms: list  # the thesis' algorithms and any the user added (--cca)


def _figures(rows, out: Path, fig_dir: Path, algorithms: list) -> list[Path]:
    by = {}
    for r in rows:
        by.setdefault((r["cca"], r["condition"], r["seed"]), r["run_id"])
    c = _FigureContext(rows, out, fig_dir, by, _cond("edge", "2.5MiB", 0.0), min(r["seed"] for r in rows), algorithms)
    figs = []
    for draw in (_cwnd_figure, _per_figures, _cdf_figure, _instantaneous_figure, _sinr_figure):
        figs += draw(c)
    return figs


def _cwnd_figure(c: _FigureContext) -> list:
    """Congestion window over time per algorithm (base condition, first seed)."""
    rows, out, fig_dir, by, base, seed0, _ = c
    figs = []
    # cwnd over time per algorithm (base condition, first seed)
    fig, ax = plt.subplots(len(c.algorithms), 1, figsize=(10, 2 * len(c.algorithms)), sharex=True,
                           constrained_layout=True)
    for a, cca in zip(ax, c.algorithms):
        rid = by.get((cca, base, seed0))
        if rid:
            c = pq.read_table(out / "runs" / rid / "cwnd.parquet").to_pydict()
            step_to_end(a, c["t_s"], c["cwnd_segments"], _run_end(rows, rid), lw=0.7, color=algorithm_color(cca))
            scale_for_peaks(a, c["cwnd_segments"])
            _shade_nlos(a, out, rid)
        a.set_ylabel(cca)
        a.grid(alpha=0.3)
    ax[0].set_title(f"cwnd (segments) over time, {base}")
    ax[-1].set_xlabel("time (s)")
    figs.append((_save(fig, fig_dir / "cwnd.png"),
                 f"Congestion window (segments) of each algorithm over time, {base}, seed {seed0}; grey: NLoS. A "
                 "panel whose slow-start peak is over 20 times its median window has a logarithmic axis."))
    return figs


def _per_figures(c: _FigureContext) -> list:
    """Throughput and latency against PER, one panel per server and buffer."""
    rows, out, fig_dir, by, base, seed0, _ = c
    figs = []
    # throughput and latency vs PER, per buffer
    for metric, label, name in (("throughput_mbps", "average throughput (Mb/s)", "throughput_vs_per.png"),
                                ("rtt_mean_ms", "average latency (ms)", "latency_vs_per.png")):
        groups = [("edge", b) for b in THESIS_BUFFERS] + [("remote", "8MiB")]
        fig, ax = plt.subplots(1, len(groups), figsize=(4 * len(groups), 3.5), constrained_layout=True)
        for a, (server, buf) in zip(ax, groups):
            for cca in c.algorithms:
                ys = []
                for per in THESIS_PER:
                    v = [float(r[metric]) for r in rows if r["cca"] == cca and r["condition"] == _cond(server, buf, per)]
                    ys.append(np.mean(v) if v else np.nan)
                a.plot(range(len(THESIS_PER)), ys, marker="o", lw=1, label=cca, color=algorithm_color(cca))
            _min_span(a, 0.2)
            a.set_xticks(range(len(THESIS_PER)), [f"{p:g}" for p in THESIS_PER])
            a.set_xlabel("PER (per byte)")
            a.set_title(f"{server}, RLC {buf}")
            a.grid(alpha=0.3)
        ax[0].set_ylabel(label)
        ax[-1].legend(fontsize=7)
        figs.append((_save(fig, fig_dir / name),
                     f"{label[0].upper()}{label[1:]} against the per-byte PER on the server link, one panel per "
                     f"server and RLC buffer; points are means over seeds. Each panel spans at least 20 % of its "
                     f"mean value, so differences of a few tenths of a per cent do not fill it."))
    return figs


def _cdf_figure(c: _FigureContext) -> list:
    """CDFs of the per-100 ms throughput and RTT (base condition)."""
    rows, out, fig_dir, by, base, seed0, _ = c
    figs = []
    # CDFs of per-100 ms throughput and RTT, base condition
    fig, ax = plt.subplots(1, 2, figsize=(11, 4), constrained_layout=True)
    for cca in c.algorithms:
        tp, rtt = [], []
        for r in rows:
            if r["cca"] == cca and r["condition"] == base:
                s = pq.read_table(out / "runs" / r["run_id"] / "series.parquet").to_pydict()
                tp += s["throughput_mbps"]
                rtt += [x for x in s["rtt_mean_ms"] if x == x]
        for a, v in ((ax[0], tp), (ax[1], rtt)):
            if v:
                xs = np.sort(v)
                a.plot(xs, np.arange(1, len(xs) + 1) / len(xs), lw=1, label=cca, color=algorithm_color(cca))
    ax[0].set_xlabel("throughput per 100 ms (Mb/s)")
    ax[1].set_xlabel("RTT per 100 ms (ms, log scale)")
    ax[1].set_xscale("log")
    for a in ax:
        a.set_ylabel("CDF")
        a.grid(alpha=0.3)
    ax[1].legend(fontsize=7)
    ax[0].set_title(f"CDFs, {base}")
    figs.append((_save(fig, fig_dir / "cdf.png"),
                 f"Distributions of the per-100 ms throughput and mean RTT over all seeds, {base}; the RTT axis is "
                 "logarithmic so that normal RTTs and the long tails of the NLoS periods both show."))
    return figs


def _instantaneous_figure(c: _FigureContext) -> list:
    """Throughput and RTT per 100 ms over time (base condition, first seed)."""
    rows, out, fig_dir, by, base, seed0, _ = c
    figs = []
    # instantaneous throughput and latency (per 100 ms) over time, base condition
    fig, ax = plt.subplots(2, 1, figsize=(10, 6), sharex=True, constrained_layout=True)
    for cca in c.algorithms:
        rid = by.get((cca, base, seed0))
        if rid:
            s_ = pq.read_table(out / "runs" / rid / "series.parquet").to_pydict()
            ax[0].plot(s_["t_s"], s_["throughput_mbps"], lw=0.7, label=cca, color=algorithm_color(cca))
            ax[1].plot(s_["t_s"], s_["rtt_mean_ms"], lw=0.7, label=cca, color=algorithm_color(cca))
    ax[0].set_ylabel("throughput (Mb/s, 100 ms)")
    ax[1].set_ylabel("RTT (ms, 100 ms mean, log)")
    ax[1].set_yscale("log")
    ax[1].set_xlabel("time (s)")
    ax[0].legend(fontsize=7, ncol=4)
    ax[0].set_title(f"instantaneous throughput and latency, {base}")
    for a in ax:
        a.grid(alpha=0.3)
    _shade_nlos(ax, out, by.get((c.algorithms[0], base, seed0)))
    figs.append((_save(fig, fig_dir / "instantaneous.png"),
                 f"Throughput and mean RTT per 100 ms over time, {base}, seed {seed0}; grey: NLoS; RTT on a "
                 f"logarithmic axis. Throughput is the {THROUGHPUT_NOTE}."))
    return figs


def _sinr_figure(c: _FigureContext) -> list:
    """Downlink SINR over time (the channel is the same for every algorithm of a seed)."""
    rows, out, fig_dir, by, base, seed0, _ = c
    figs = []
    # SINR over time (the channel is the same for every algorithm of a seed)
    rid = by.get((c.algorithms[0], base, seed0))
    p = out / "runs" / rid / "radio.parquet" if rid else None
    if p and p.is_file():
        rd = pq.read_table(p).to_pydict()
        fig, a = plt.subplots(figsize=(10, 3), constrained_layout=True)
        _shade_nlos(a, out, rid)
        a.plot(rd["t_s"], rd["sinr_dl_db"], lw=0.8)
        a.set_xlabel("time (s)")
        a.set_ylabel("SINR (dB)")
        a.set_title("downlink SINR (100 ms samples; NLoS shaded)")
        a.grid(alpha=0.3)
        figs.append((_save(fig, fig_dir / "sinr.png"),
                     f"Downlink SINR over time (100 ms samples), seed {seed0}; grey: NLoS. The channel is the "
                     "same for every algorithm of a seed."))
    return figs


def _md_to_html(md: str) -> str:
    lines = [ln for ln in md.strip().splitlines() if not ln.startswith("|---")]
    cells = [[html.escape(c.strip()) for c in ln.strip("|").split("|")] for ln in lines]
    head = "".join(f"<th>{c}</th>" for c in cells[0])
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in cells[1:])
    return f"<div class='wide'><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"


def reproduce_thesis(out_dir: str | Path, *, seeds: int = 3, quick: bool = False, workers: int | None = None,
                     duration: str | None = None, backend: str = "local", address: str | None = None,
                     extra_ccas: list | None = None) -> Path:
    """`extra_ccas`: algorithms or trained policies (`policy:PATH`) run and reported beside the
    thesis' eight."""
    out = Path(out_dir)
    seeds = 1 if quick else seeds
    algorithms = THESIS_ALGORITHMS + [c for c in extra_ccas or [] if c not in THESIS_ALGORITHMS]
    for c in algorithms[len(THESIS_ALGORITHMS):]:  # a bad name fails here, not in every run
        if c.startswith("policy:"):
            from ..gym.policy import load_policy

            load_policy(c)
        else:
            load("thesis-edge").with_overrides(cca=c).config  # noqa: B018 - checks the name
    specs = thesis_specs(seeds, duration, algorithms)
    counts, wall = _timed_sweep(specs, out, workers, backend, address)
    rows = _rows_for(out, specs)
    for r in rows:
        r["seed"] = int(r["seed"])
    conds = [_cond("edge", b, p) for b in THESIS_BUFFERS for p in THESIS_PER] + [_cond("remote", "8MiB", p) for p in THESIS_PER]
    # the thesis' layout: PER rows inside buffer groups, one column per algorithm
    tp = transpose(pivot(rows, "throughput_mbps", "cca", "condition", algorithms, conds))
    lat = transpose(pivot(rows, "rtt_mean_ms", "cca", "condition", algorithms, conds))
    dup = transpose(pivot(rows, "dupack_ratio", "cca", "condition", algorithms, conds))
    sections = [("Average throughput (Mb/s)", "throughput", tp, "{:.1f}", "condition"),
                ("Average latency: mean RTT (ms)", "latency", lat, "{:.2f}", "condition"),
                ("Duplicate-ACK ratio", "dupack_ratio", dup, "{:.4f}", "condition")]
    bench = [a for a in algorithms if a not in THESIS_PROPOSED]
    for x in THESIS_PROPOSED:
        sections.append((f"Throughput improvement of {x} over each benchmark (%)", f"improvement_throughput_{x}",
                         transpose(paired_improvement(rows, "throughput_mbps", x, bench, "condition", conds, False)),
                         "{:.1f}", "condition"))
        sections.append((f"Latency improvement of {x} over each benchmark (%)", f"improvement_latency_{x}",
                         transpose(paired_improvement(rows, "rtt_mean_ms", x, bench, "condition", conds, True)),
                         "{:.1f}", "condition"))
    figs = _figures(rows, out, out / "figures", algorithms)
    return _report(out, "Reproduction: Alramli thesis, urban 28 GHz scenario (family T)",
                   f"{len(rows)} runs ({seeds} seed(s): 1..{seeds}). Conditions: edge server (10 ms) with RLC "
                   "buffers 0.25 / 2.5 / 20 MiB and remote server (40 ms) with 8 MiB, each at per-byte PER 0, 1e-9, "
                   "1e-8, 1e-7 on the server link. Latency is the mean RTT (the thesis' definition). Values are means "
                   "over seeds. Every number here is mmcc's (its presets thesis-edge and thesis-remote, TCP profile "
                   "ns3); none is the thesis' or ns3-mmwave's. " + _mmwave_agreement(), sections, figs,
                   {"seeds": seeds, "quick": quick, "duration": duration or "preset (60 s)",
                    "algorithms": algorithms, "buffers": THESIS_BUFFERS, "per": THESIS_PER}, counts, wall, "T")


def _mmwave_agreement() -> str:
    """How far mmcc agrees with ns3-mmwave, the thesis' simulator, on this path: the figures of
    `mmcc validate mmwave` on the stored reference runs (validate_mmwave.read_agreement)."""
    from .validate_mmwave import read_agreement

    a = read_agreement()

    def one(tcp: str, name: str) -> str:
        s = a[tcp]
        return (f"against {name}, {s['goodput_within_10pct']} % of {s['cases']} cases ({s['runs']} runs) within "
                f"+-10 % of its goodput ({s['goodput_within_10pct_or_2se']} % within +-10 % or two standard "
                f"errors), per-phase mean SINR within +-2 dB in {s['phase_sinr_within_2db']} % and per-phase "
                f"throughput within +-10 % in {s['phase_thr_within_10pct']} % of the phases "
                f"({s['phase_thr_within_10pct_or_2se']} % within +-10 % or two standard errors)")

    return ("How far mmcc agrees with ns3-mmwave, the simulator the thesis ran, on this path (12 s windows and "
            "full runs of these presets' cases, stored reference runs, `mmcc validate mmwave`): "
            + one("ns-3.35", "ns3-mmwave with ns-3.35's TCP (the TCP the thesis names and the ns3 profile's)") + "; "
            + one("pinned", "ns3-mmwave with its own older TCP") + ". The agreement table, the overlays and "
            "the mechanisms that still differ: docs/validation.md of the mmcc repository, section \"The mmWave "
            "path against ns3-mmwave\".")


# ---- generic helpers for the other publications ---------------------------------------------

def _timed_sweep(specs, out: Path, workers, backend, address) -> tuple[dict, float]:
    """Run (or resume) the sweep; returns its counts and the wall time it took, for the report."""
    t0 = time.perf_counter()
    counts = run_sweep(specs, out, workers=workers, backend=backend, address=address)
    return counts, time.perf_counter() - t0


def _report(out: Path, title: str, intro: str, sections, figs, meta: dict, counts: dict, wall: float,
            family: str) -> Path:
    """Write the tables and `report.html`: intro, definitions, tables, figures with captions, the
    family's deviations from its publication, failed runs and parameters."""
    failed = sorted(p.parent.name for p in (out / "runs").glob("*/error.json"))
    parts = [f"<h1>{html.escape(title)}</h1>",
             f"<p>mmcc {html.escape(__version__)}; {counts['ran']} run now, {counts['skipped']} reused; "
             f"{len(failed)} failed; {wall:.0f} s wall.</p><p>{html.escape(intro)}</p>",
             "<h2>Definitions</h2><dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{_inline(v)}</dd>"
                                                   for k, v in COMMON_DEFINITIONS + FAMILY_DEFINITIONS.get(family, []))
             + "</dl>"]
    for t, stem, table, fmt, *corner in sections:
        corner = corner[0] if corner else "algorithm"
        write_table(table, corner, out / "tables" / stem, fmt)
        parts.append(f"<h2>{html.escape(t)}</h2>" + _md_to_html(markdown(table, corner, fmt)))
        parts.append(f'<p><a href="tables/{stem}.csv">CSV</a> · <a href="tables/{stem}.md">Markdown</a></p>')
    if figs:
        parts.append("<h2>Figures</h2>")
        for f, caption in figs:
            parts.append(f'<figure><img src="figures/{f.name}" alt="{html.escape(caption)}">'
                         f"<figcaption>{html.escape(caption)}</figcaption></figure>")
    parts.append("<h2>Deviations from the publication's set-up</h2>" + _deviations(family))
    parts.append(_stalled_section(out))
    if failed:
        parts.append("<h2>Failed runs</h2><ul>" + "".join(f"<li>{html.escape(x)}</li>" for x in failed) + "</ul>")
    parts.append("<h2>Run parameters</h2><pre>" + html.escape(json.dumps(meta, indent=1)) + "</pre>")
    style = ("<style>body{font-family:sans-serif;max-width:1200px;margin:auto}.wide{overflow-x:auto}"
             "table{border-collapse:collapse;font-size:11px}td,th{border:1px solid #ccc;padding:2px 4px;"
             "text-align:right;white-space:nowrap}img{max-width:100%}dt{font-weight:bold}"
             "figcaption{font-size:13px;color:#333}</style>")
    doc = (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>{style}</head>"
           f"<body>{''.join(parts)}</body></html>")
    report = out / "report.html"
    atomic_write_bytes(report, doc.encode())
    return report


def _stalled_section(out: Path) -> str:
    """The runs in which a flow stayed at one segment in flight across several timeouts (ns-3's
    loop after a timeout, docs/tcp-profiles.md): means over seeds hide them."""
    rows = [r for r in load_summaries(out).to_pylist() if (r.get("stalled_flows") or 0) > 0]
    head = ("<h2>Stalled runs</h2><p>Runs in which a flow kept one segment in flight across "
            f"{STALL_TIMEOUTS} or more consecutive timeouts (flows table: <code>one_segment_timeouts</code>). "
            "With the <code>ns3</code> profile this is ns-3 3.37's own behaviour (shown against ns-3 in "
            "docs/tcp-profiles.md, \"A window of one segment after a timeout\").</p>")
    if not rows:
        return head + "<p>None.</p>"
    def item(r):
        first = (f"; flow 0: {int(r['one_segment_timeouts'])} timeouts in a row over "
                 f"{r['one_segment_stall_s']:.1f} s, {r['throughput_mbps']:.1f} Mb/s"
                 if r["one_segment_timeouts"] >= STALL_TIMEOUTS else "")
        params = ", ".join(f"{k[6:]}={r[k]:g}" if isinstance(r[k], float) else f"{k[6:]}={r[k]}"
                           for k in sorted(r) if k.startswith("param_") and r[k] is not None)
        name = f"{r['scenario']} {r['cca']} seed {r['seed']}" + (f" ({params})" if params else "")
        return (f"<li>{html.escape(name)}: {int(r['stalled_flows'])} of {int(r['flows'])} flow(s){first} "
                f"[run {html.escape(r['run_id'])}]</li>")

    rows.sort(key=lambda r: (r["scenario"], str(r["cca"]), r["seed"], r["run_id"]))
    items = "".join(item(r) for r in rows)
    return head + f"<ul>{items}</ul>"


def _rows_for(out: Path, specs) -> list[dict]:
    ids = {s.run_id() for s in specs}
    return [r for r in load_summaries(out).to_pylist() if r["run_id"] in ids]


MMSTCP_ALGORITHMS = ["scalable", "mmstcp", "cubic", "highspeed", "htcp", "yeah"]


def _bars_with_seeds(ax, rows, metric: str, algorithms: list[str], conds: list[str], key: str) -> None:
    """Grouped bars (mean over seeds) per condition, one colour per algorithm, with every seed's
    value as a point on its bar."""
    w = 0.8 / len(algorithms)
    x = np.arange(len(conds))
    for i, a in enumerate(algorithms):
        vals = [[float(r[metric]) for r in rows if r[key] == a and r["condition"] == c] for c in conds]
        ax.bar(x + i * w, [np.mean(v) if v else np.nan for v in vals], width=w, label=a, color=algorithm_color(a),
               alpha=0.75)
        for j, v in enumerate(vals):
            ax.plot([x[j] + i * w] * len(v), v, "o", ms=3, color="black", zorder=3)
    ax.set_xticks(x + w * (len(algorithms) - 1) / 2, conds)
    ax.legend(fontsize=7, ncol=4)
    ax.grid(alpha=0.3, axis="y")


def reproduce_mmstcp(out_dir: str | Path, *, seeds: int = 3, quick: bool = False, workers: int | None = None,
                     duration: str | None = None, backend: str = "local", address: str | None = None) -> Path:
    """Kim & Cho (mmS-TCP, 2022): SINR scenarios 1-3 (single flow), 2-flow inter-protocol and
    5-flow intra-protocol fairness (Jain's index)."""
    out = Path(out_dir)
    seeds = 1 if quick else seeds
    single = [RunSpec(f"mmstcp-{k}", cca=a, seed=s, duration=duration, labels=(("condition", f"scenario {k}"),))
              for k in (1, 2, 3) for a in MMSTCP_ALGORITHMS for s in range(1, seeds + 1)]
    pairs = [("cubic", "cubic"), ("cubic", "scalable"), ("cubic", "mmstcp"), ("scalable", "mmstcp")]
    fair2 = [RunSpec("mmstcp-fair2", seed=s, duration=duration, params=(("cca_a", a), ("cca_b", b)),
                     labels=(("pair", f"{a} vs {b}"), ("condition", "2 flows")))
             for a, b in pairs for s in range(1, seeds + 1)]
    fair5 = [RunSpec("mmstcp-fair5", seed=s, duration=duration, params=(("cca", a),),
                     labels=(("condition", "5 flows"),))
             for a in MMSTCP_ALGORITHMS for s in range(1, seeds + 1)]
    counts, wall = _timed_sweep(single + fair2 + fair5, out, workers, backend, address)
    rows = _rows_for(out, single)
    conds = ["scenario 1", "scenario 2", "scenario 3"]
    tp = pivot(rows, "throughput_mbps", "cca", "condition", MMSTCP_ALGORITHMS, conds)
    dup = pivot(rows, "dupack_per_packet", "cca", "condition", MMSTCP_ALGORITHMS, conds)
    dup3 = pivot(rows, "dupack_per_packet_first_3s", "cca", "condition", MMSTCP_ALGORITHMS, conds)
    r2 = _rows_for(out, fair2)
    j2 = pivot(r2, "jain_index", "pair", "condition", [f"{a} vs {b}" for a, b in pairs], ["2 flows"])
    r5 = _rows_for(out, fair5)
    for r in r5:
        r["algorithm"] = r["param_cca"]
    j5 = pivot(r5, "jain_index", "algorithm", "condition", MMSTCP_ALGORITHMS, ["5 flows"])
    sections = [("Average throughput (Mb/s)", "throughput", tp, "{:.1f}"),
                ("Duplicate-ACK ratio (whole run): duplicate ACKs / (data segments sent + ACKs received)",
                 "dupack_ratio", dup, "{:.4f}"),
                ("Duplicate-ACK ratio within the first 3 s: duplicate ACKs of the first 3 s / the whole run's packets",
                 "dupack_ratio_first_3s", dup3, "{:.4f}"),
                ("Inter-protocol fairness: Jain's index of two flows", "jain_2flows", j2, "{:.3f}"),
                ("Intra-protocol fairness: Jain's index of five flows", "jain_5flows", j5, "{:.3f}")]
    figs = []
    for metric, label, name, caption in (
            ("throughput_mbps", "average throughput (Mb/s)", "throughput.png",
             "Average throughput of each algorithm per SINR scenario: bars are means over seeds, points every "
             "seed (a run stuck at one segment per timeout shows as a low point; see Stalled runs)."),
            ("dupack_per_packet", "duplicate-ACK ratio", "dupack_ratio.png",
             "Duplicate-ACK ratio (whole run, the paper's definition) of each algorithm per SINR scenario: bars "
             "are means over seeds, points every seed.")):
        fig, ax = plt.subplots(figsize=(8, 3.5), constrained_layout=True)
        _bars_with_seeds(ax, rows, metric, MMSTCP_ALGORITHMS, conds, "cca")
        ax.set_ylabel(label)
        figs.append((_save(fig, out / "figures" / name), caption))
    return _report(out, "Reproduction: Kim & Cho, mmS-TCP (family M)",
                   "SINR scenarios driven by SINR schedules (radio model), CoDel on the 4 MB RLC buffer, MinRTO "
                   "200 ms, 15 s (30 s for five flows).", sections, figs,
                   {"seeds": seeds, "algorithms": MMSTCP_ALGORITHMS, "pairs": pairs}, counts, wall, "M")


DTCP_ALGORITHMS = ["dtcp", "bbr", "bic", "cubic", "newreno", "westwood", "tahoe"]
DTCP_WITH_FEED = "dtcp+sinr"
DTCP_SINR_FEED = (("flows.0.sinr_feed.radio", 0), ("flows.0.sinr_feed.delay", "10ms"))


def reproduce_dtcp(out_dir: str | Path, *, seeds: int = 3, quick: bool = False, workers: int | None = None,
                   duration: str | None = None, backend: str = "local", address: str | None = None) -> Path:
    """Kanagarathinam et al. (NexGen D-TCP, 2020): mmWave scenarios 1, 2 and high speed; the
    wired 1 and 5 Mb/s bottleneck at three loss rates; intra- and inter-protocol fairness."""
    out = Path(out_dir)
    seeds = 1 if quick else seeds
    S = range(1, seeds + 1)
    mm_conds = [("dtcp-mmwave-1", "mmWave 1"), ("dtcp-mmwave-2", "mmWave 2"), ("dtcp-mmwave-highspeed", "high speed")]
    mm = [RunSpec(p, seed=s, duration=duration, params=(("cca", a),), labels=(("condition", c), ("algorithm", a)))
          for p, c in mm_conds for a in DTCP_ALGORITHMS for s in S]
    # D-TCP's fast recovery after NLoS is its SINR term: run it also with the UE's downlink SINR
    # fed to the sender (10 ms old), the paper's cross-layer set-up
    mm += [RunSpec(p, seed=s, duration=duration, params=(("cca", "dtcp"),), sets=DTCP_SINR_FEED,
                   labels=(("condition", c), ("algorithm", DTCP_WITH_FEED))) for p, c in mm_conds for s in S]
    wired_conds = [(r, l) for r in ("1Mbps", "5Mbps") for l in (0.01, 1e-4, 1e-6)]
    wired = [RunSpec("dtcp-wired", seed=s, duration=duration, params=(("rate", r), ("loss", l), ("cca", a)),
                     labels=(("condition", f"{r} loss {l:g}"), ("algorithm", a)))
             for r, l in wired_conds for a in DTCP_ALGORITHMS for s in S]
    intra = [RunSpec("dtcp-intra", seed=s, duration=duration, params=(("cca", a),),
                     labels=(("condition", "5 flows"), ("algorithm", a))) for a in DTCP_ALGORITHMS for s in S]
    inter = [RunSpec("dtcp-inter", seed=s, duration=duration, labels=(("condition", "mixed 5 flows"),
                                                                       ("algorithm", "mix"))) for s in S]
    counts, wall = _timed_sweep(mm + wired + intra + inter, out, workers, backend, address)
    mm_rows, w_rows = _rows_for(out, mm), _rows_for(out, wired)
    mcols = [c for _, c in mm_conds]
    mm_algs = [DTCP_WITH_FEED] + DTCP_ALGORITHMS
    wcols = [f"{r} loss {l:g}" for r, l in wired_conds]
    sections = [
        ("mmWave: average throughput (Mb/s)", "mmwave_throughput",
         pivot(mm_rows, "throughput_mbps", "algorithm", "condition", mm_algs, mcols), "{:.1f}"),
        ("mmWave: average RTT (ms)", "mmwave_rtt", pivot(mm_rows, "rtt_mean_ms", "algorithm", "condition",
                                                          mm_algs, mcols), "{:.2f}"),
        ("Wired bottleneck: average throughput (Mb/s)", "wired_throughput",
         pivot(w_rows, "throughput_mbps", "algorithm", "condition", DTCP_ALGORITHMS, wcols), "{:.3f}"),
        ("Intra-protocol fairness: Jain's index of five flows started 10 s apart", "jain_intra",
         pivot(_rows_for(out, intra), "jain_index", "algorithm", "condition", DTCP_ALGORITHMS, ["5 flows"]), "{:.3f}"),
        ("Inter-protocol fairness (D-TCP, CUBIC, NewReno, Westwood+, Tahoe): Jain's index", "jain_inter",
         pivot(_rows_for(out, inter), "jain_index", "algorithm", "condition", ["mix"], ["mixed 5 flows"]), "{:.3f}"),
    ]
    tp = sections[0][2]
    sections.append(("mmWave: throughput improvement of D-TCP (without its SINR feed) over each benchmark (%)",
                     "improvement_throughput_dtcp",
                     paired_improvement(mm_rows, "throughput_mbps", "dtcp", DTCP_ALGORITHMS[1:], "condition", mcols,
                                        False, row_key="algorithm"), "{:.1f}"))
    sections.append(("mmWave: throughput improvement of D-TCP with its SINR feed over each benchmark (%)",
                     "improvement_throughput_dtcp_sinr",
                     paired_improvement(mm_rows, "throughput_mbps", DTCP_WITH_FEED, DTCP_ALGORITHMS, "condition", mcols,
                                        False, row_key="algorithm"), "{:.1f}"))
    fig, ax = plt.subplots(1, 2, figsize=(12, 3.8), constrained_layout=True)
    _bars_with_seeds(ax[0], mm_rows, "throughput_mbps", mm_algs, mcols, "algorithm")
    wt = sections[2][2]
    for a_i, a in enumerate(DTCP_ALGORITHMS):
        ax[1].plot(range(len(wcols)), wt.values[a_i], marker="o", lw=1, label=a, color=algorithm_color(a))
    ax[0].set_ylabel("average throughput (Mb/s)")
    ax[1].set_xticks(range(len(wcols)), wcols, rotation=30, fontsize=7)
    ax[1].set_ylabel("average throughput (Mb/s)")
    ax[1].legend(fontsize=7)
    ax[1].grid(alpha=0.3)
    figs = [(_save(fig, out / "figures" / "throughput.png"),
             "Left: average throughput per mmWave scenario, D-TCP with and without its SINR feed and the "
             "benchmarks (bars: means over seeds, points: every seed). Right: average throughput over the wired "
             "bottleneck per rate and random loss, means over seeds. Colours: one per algorithm, the same in "
             "both panels and every report.")]
    seed0 = min(int(r["seed"]) for r in mm_rows)
    runs = [(a, r["run_id"]) for a in mm_algs for r in mm_rows
            if r["algorithm"] == a and r["condition"] == "mmWave 2" and int(r["seed"]) == seed0]
    figs.append((_time_figure(out, runs, "mmWave scenario 2: throughput, RTT and SINR per 100 ms",
                              out / "figures" / "time_mmwave2.png"),
                 f"mmWave scenario 2 (LoS, a long NLoS with outage, LoS again), seed {seed0}: throughput and mean RTT "
                 f"per 100 ms of each algorithm and the downlink SINR; grey: NLoS. Throughput is the "
                 f"{THROUGHPUT_NOTE}."))
    return _report(out, "Reproduction: Kanagarathinam et al., NexGen D-TCP (family D)",
                   "mmWave scenarios (geometry: small buildings, large buildings, vehicular), the wired bottleneck "
                   "(RTT 40 ms, 100-packet queue) at 1 and 5 Mb/s with random loss, and fairness. In the mmWave "
                   f"scenarios D-TCP runs twice: 'dtcp' without a SINR feed (as on a real kernel, where its SINR "
                   f"term is 0) and '{DTCP_WITH_FEED}' with the UE's downlink SINR, 10 ms old (the paper's "
                   "cross-layer set-up, the mechanism of its fast recovery after NLoS).",
                   sections, figs, {"seeds": seeds, "algorithms": DTCP_ALGORITHMS}, counts, wall, "D")


SIDDIQUI_ALGORITHMS = ["newreno", "yeah", "hybla", "westwood", "vegas"]


def reproduce_siddiqui(out_dir: str | Path, *, seeds: int = 3, quick: bool = False, workers: int | None = None,
                       duration: str | None = None, backend: str = "local", address: str | None = None) -> Path:
    """Siddiqui & Chau (ICUFN 2021): uplink TCP over UMi-Street Canyon, scenarios 1a, 1b, 1c."""
    out = Path(out_dir)
    seeds = 1 if quick else seeds
    conds = [("siddiqui-1a", "1a"), ("siddiqui-1b", "1b"), ("siddiqui-1c", "1c")]
    specs = [RunSpec(p, seed=s, duration=duration, params=(("cca", a),), labels=(("condition", c), ("algorithm", a)))
             for p, c in conds for a in SIDDIQUI_ALGORITHMS for s in range(1, seeds + 1)]
    counts, wall = _timed_sweep(specs, out, workers, backend, address)
    rows = _rows_for(out, specs)
    cols = [c for _, c in conds]
    sections = [
        ("Average throughput (Mb/s)", "throughput", pivot(rows, "throughput_mbps", "algorithm", "condition",
                                                          SIDDIQUI_ALGORITHMS, cols), "{:.1f}"),
        ("Average RTT (ms)", "rtt", pivot(rows, "rtt_mean_ms", "algorithm", "condition", SIDDIQUI_ALGORITHMS, cols),
         "{:.2f}"),
        ("Retransmissions", "retransmits", pivot(rows, "retransmits", "algorithm", "condition", SIDDIQUI_ALGORITHMS,
                                                 cols), "{:.0f}"),
    ]
    # cwnd (bytes) over time per algorithm in scenario 1a, the paper's main figure
    fig, ax = plt.subplots(len(SIDDIQUI_ALGORITHMS), 1, figsize=(10, 1.8 * len(SIDDIQUI_ALGORITHMS)), sharex=True,
                           constrained_layout=True)
    seed0 = min(int(r["seed"]) for r in rows)
    for a, cca in zip(ax, SIDDIQUI_ALGORITHMS):
        rid = next((r["run_id"] for r in rows
                    if r["algorithm"] == cca and r["condition"] == "1a" and int(r["seed"]) == seed0), None)
        if rid:
            c = pq.read_table(out / "runs" / rid / "cwnd.parquet").to_pydict()
            step_to_end(a, c["t_s"], np.asarray(c["cwnd_bytes"]) / 1e6, _run_end(rows, rid), lw=0.7,
                        color=algorithm_color(cca))
            scale_for_peaks(a, c["cwnd_bytes"])
            _shade_nlos(a, out, rid)
        a.set_ylabel(f"{cca}\ncwnd (MB)", fontsize=8)
        a.grid(alpha=0.3)
    ax[0].set_title("scenario 1a: cwnd over time (NLoS 2.43-8.14 s shaded)")
    ax[-1].set_xlabel("time (s)")
    figs = [(_save(fig, out / "figures" / "cwnd_1a.png"),
             f"Scenario 1a: congestion window (MB) of each algorithm over time, seed {seed0}; grey: NLoS behind "
             "the building.")]
    runs = [(a, r["run_id"]) for a in SIDDIQUI_ALGORITHMS for r in rows
            if r["algorithm"] == a and r["condition"] == "1a" and int(r["seed"]) == seed0]
    figs.append((_time_figure(out, runs, "scenario 1a: throughput, RTT and SINR per 100 ms",
                              out / "figures" / "time_1a.png"),
                 f"Scenario 1a, seed {seed0}: uplink throughput and mean RTT per 100 ms of each algorithm and the "
                 f"downlink SINR; grey: NLoS behind the building. Throughput is the {THROUGHPUT_NOTE}."))
    return _report(out, "Reproduction: Siddiqui & Chau, ICUFN 2021 (family S)",
                   "Uplink bulk TCP (UE to remote host) at 28 GHz, set up from the co-author's public ns3-mmwave "
                   "scripts: MSS 1000 B (application writes of 900 / 1000 B at 1 Gb/s), 5 MiB socket buffers, RLC AM "
                   "10 MiB, outage below -5 dB, gNB at 4 m, UE walking (1a, 1c) or driving (1b) past buildings.",
                   sections, figs, {"seeds": seeds, "algorithms": SIDDIQUI_ALGORITHMS}, counts, wall, "S")
