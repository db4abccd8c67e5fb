"""Figures of a run (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .files import atomic_write_bytes  # noqa: E402
from .results import RunResult  # noqa: E402


def save_figure(fig, path: str | Path, dpi: int = 110) -> Path:
    """Save a figure as PNG atomically (readers never see half a file) and close it."""
    import io

    out = Path(path)
    buf = io.BytesIO()  # rendered in memory: no fixed temporary name a planted link could redirect
    fig.savefig(buf, dpi=dpi, format="png")
    plt.close(fig)
    atomic_write_bytes(out, buf.getvalue())
    return out



#: One colour per algorithm in every figure of every report (tab20 order); names not listed get
#: a grey.
ALGORITHM_ORDER = ["newreno", "highspeed", "cubic", "bbr", "fbtcp", "rttv", "msscca", "mrvhs", "dtcp", "dtcp+sinr",
                   "mmstcp", "scalable", "htcp", "yeah", "vegas", "westwood", "hybla", "bic", "tahoe"]


def algorithm_color(cca: str):
    """The colour of an algorithm, the same in every figure."""
    cmap = plt.get_cmap("tab20")
    try:
        return cmap(ALGORITHM_ORDER.index(cca) % 20)
    except ValueError:
        return "0.5"


#: Why a 100 ms throughput bin can exceed the link's rate (figure captions, docs/outputs.md)
THROUGHPUT_NOTE = ("goodput per 100 ms bin as the receiver delivers it in order: a bin after a repaired hole "
                   "releases the data held behind it and can exceed the link's rate")


def step_to_end(ax, t, y, t_end: float, **kw):
    """A step plot of values that change at `t`, drawn on to `t_end` (the end of the run): the
    last value holds until then."""
    t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
    if len(t) and t_end > t[-1]:
        t, y = np.append(t, t_end), np.append(y, y[-1])
    return ax.step(t, y, where="post", **kw)


def scale_for_peaks(ax, values, axis: str = "y") -> bool:
    """A log axis when one peak would flatten the rest (peak over 20 times the median of the
    positive values, e.g. a slow-start overshoot): True if it was set."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v) & (v > 0)]
    if len(v) and v.max() > 20 * np.median(v):
        (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
        return True
    return False


def cwnd_overlay(path, title: str, curves: list[tuple]) -> None:
    """cwnd (segments) over time of several runs of one case on one axis: curves of
    (t_s, cwnd_segments, label, line style), for the validation reports."""
    fig, ax = plt.subplots(figsize=(8, 3))
    for t, w, label, ls in curves:
        ax.plot(t, w, label=label, lw=1, ls=ls)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("cwnd (segments)")
    ax.set_title(title)
    ax.legend(loc="upper right")
    save_figure(fig, path)

def overview(result: RunResult, path: str | Path) -> Path:
    """cwnd, throughput (per 100 ms) and RTT over time, one line per flow, shared time axis; for
    a run whose series is recorded for all flows together, the spread across flows instead."""
    sp = result.tables.get("spread")
    if sp is not None and sp.num_rows:
        return _aggregate_overview(result, sp.to_pydict(), path)
    cw = result.tables["cwnd"].to_pydict()
    se = result.tables["series"].to_pydict()
    flows = result.flows.to_pylist()
    t_end = result.scenario.config["duration"] / 1e9
    fig, ax = plt.subplots(3, 1, figsize=(10, 8), sharex=True, constrained_layout=True)
    for f in flows:
        fid = f["flow_id"]
        label = f"flow {fid} ({f['cca']})"
        color = algorithm_color(f["cca"]) if len(flows) == 1 else None
        m = np.asarray(cw["flow_id"]) == fid
        step_to_end(ax[0], np.asarray(cw["t_s"])[m], np.asarray(cw["cwnd_segments"])[m], t_end, lw=0.8, label=label,
                    color=color)
        m = np.asarray(se["flow_id"]) == fid
        t = np.asarray(se["t_s"])[m]
        ax[1].plot(t, np.asarray(se["throughput_mbps"])[m], lw=0.9, label=label, color=color)
        ax[2].plot(t, np.asarray(se["rtt_mean_ms"], dtype=float)[m], lw=0.9, label=label, color=color)
    log = scale_for_peaks(ax[0], cw["cwnd_segments"])
    ax[0].set_ylabel("cwnd (segments" + (", log)" if log else ")"))
    ax[1].set_ylabel("throughput (Mb/s, 100 ms bins)")
    ax[2].set_ylabel("RTT (ms, bin mean)")
    ax[2].set_xlabel("time (s); throughput: " + THROUGHPUT_NOTE)
    ax[2].xaxis.label.set_fontsize(8)
    for a in ax:
        a.grid(alpha=0.3)
    ax[0].legend(loc="upper right", fontsize=8)
    ax[0].set_title(f"{result.scenario.name} - seed {result.scenario.config['seed']}")
    return save_figure(fig, path)


def _aggregate_overview(result: RunResult, sp: dict, path) -> Path:
    """All flows together: the spread of the per-flow window and throughput across flows (10th-90th
    percentile band, median, min and max), the flows' total throughput with Jain's index, and the
    mean RTT over all samples."""
    se = result.series.to_pydict()
    n = len(result.flows)
    t = np.asarray(sp["t_s"])
    fig, ax = plt.subplots(4, 1, figsize=(10, 10), sharex=True, constrained_layout=True)
    for a, what, unit in ((ax[0], "cwnd", "segments"), (ax[1], "throughput", "mbps")):
        col = lambda q: np.asarray(sp[f"{what}_{q}_{unit}"], dtype=float)  # noqa: E731
        a.fill_between(t, col("p10"), col("p90"), step="post", alpha=0.3, color="C0", lw=0, label="10th-90th percentile")
        a.step(t, col("p50"), where="post", lw=1, color="C0", label="median")
        a.step(t, col("min"), where="post", lw=0.6, ls=":", color="0.3", label="min / max")
        a.step(t, col("max"), where="post", lw=0.6, ls=":", color="0.3")
        a.grid(alpha=0.3)
    ax[0].set_ylabel("cwnd per flow (segments)")
    ax[1].set_ylabel("throughput per flow (Mb/s)")
    ax[0].legend(loc="upper right", fontsize=8)
    ax[2].plot(np.asarray(se["t_s"]), np.asarray(se["throughput_mbps"]), lw=0.9, color="C1", label="all flows")
    ax[2].set_ylabel("total throughput (Mb/s)")
    jx = ax[2].twinx()
    jx.plot(t, np.asarray(sp["jain_index"], dtype=float), lw=0.8, color="C2", label="Jain's index")
    jx.set_ylim(0, 1.05)
    jx.set_ylabel("Jain's index", color="C2")
    ax[2].grid(alpha=0.3)
    ax[3].plot(np.asarray(se["t_s"]), np.asarray(se["rtt_mean_ms"], dtype=float), lw=0.9, color="C3")
    ax[3].set_ylabel("RTT (ms, mean of all samples)")
    ax[3].set_xlabel("time (s); throughput: " + THROUGHPUT_NOTE)
    ax[3].xaxis.label.set_fontsize(8)
    ax[3].grid(alpha=0.3)
    ax[0].set_title(f"{result.scenario.name} - seed {result.scenario.config['seed']} - {n} flows (series for all flows together)")
    return save_figure(fig, path)


def _series_flows(result: RunResult, se: dict):
    """(label, row mask) per line of the series table: one per flow, or one for all flows."""
    ids = np.asarray(se["flow_id"])
    if len(ids) and ids[0] == -1:
        return [("all flows", ids == -1)]
    return [(f"flow {f['flow_id']} ({f['cca']})", ids == f["flow_id"]) for f in result.flows.to_pylist()]


def _shade_nlos(ax, t, los):
    """Shade the intervals where los == 0."""
    t = np.asarray(t)
    los = np.asarray(los)
    start = None
    for i in range(len(t)):
        if los[i] == 0 and start is None:
            start = t[i]
        if (los[i] != 0 or i == len(t) - 1) and start is not None:
            ax.axvspan(start, t[i], color="0.85", zorder=0, lw=0)
            start = None


def radio_figures(result: RunResult, out_dir: str | Path) -> list[Path]:
    """For runs with a radio link: SINR over time with NLoS shaded (sinr.png), a top view of the
    scenario with the UE path and time marks (map.png), and throughput / RTT / SINR on one time
    axis (radio_overview.png)."""
    rt = result.tables.get("radio")
    if rt is None or rt.num_rows == 0:
        return []
    out_dir = Path(out_dir)
    r = rt.to_pydict()
    m = np.asarray(r["radio_id"]) == 0
    t = np.asarray(r["t_s"])[m]
    los = np.asarray(r["los"])[m]
    sinr = np.asarray(r["sinr_dl_db"])[m]
    xy = (np.asarray(r["ue_x_m"])[m], np.asarray(r["ue_y_m"])[m])
    # each figure is drawn, saved and closed before the next
    makers = [(lambda: _sinr_figure(result, t, los, sinr), "sinr.png"),
              (lambda: _map_figure(result, t, los, xy), "map.png"),
              (lambda: _overview_figure(result, t, los, sinr), "radio_overview.png")]
    return [save_figure(make(), out_dir / name) for make, name in makers]


def _sinr_figure(result: RunResult, t, los, sinr):
    fig, ax = plt.subplots(figsize=(10, 3.5), constrained_layout=True)
    _shade_nlos(ax, t, los)
    ax.plot(t, sinr, lw=0.8, color="C0")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("downlink SINR (dB)")
    ax.set_title(f"{result.scenario.name}: SINR (NLoS shaded)")
    ax.grid(alpha=0.3)
    return fig


def _draw_obstacles(ax, obstacles: list, gnb: list) -> None:
    from matplotlib.patches import Rectangle

    named = set()
    for o in obstacles:
        (x0, y0, _), (x1, y1, _) = o["min"], o["max"]
        small = (x1 - x0) * (y1 - y0) < 4.0  # the thesis' 0.5 m "trees" are opaque boxes
        what = "foliage" if o["kind"] != "building" else ("small obstacle (tree)" if small else "building")
        color = "tab:green" if o["kind"] != "building" or small else "0.4"
        ax.add_patch(Rectangle((x0, y0), x1 - x0, y1 - y0, color=color, alpha=0.8,
                               label=None if what in named else what))
        named.add(what)
    ax.plot([gnb[0]], [gnb[1]], marker="^", ms=12, color="tab:red", label="gNB", ls="none")


def _time_marks(ax, t, x, y, step: float, near: float) -> None:
    """One label per place (where the UE stood, the times it was there are joined: "5-9s"), so
    labels do not print over each other."""
    marks: list[list] = []
    for tm in np.arange(0, t[-1] + 1e-9, step):
        i = min(int(np.searchsorted(t, tm)), len(t) - 1)
        for mk in marks:
            if abs(x[i] - x[mk[0]]) + abs(y[i] - y[mk[0]]) < near:
                mk[2] = tm
                break
        else:
            marks.append([i, tm, tm])
    for i, t0, t1 in marks:
        text = f"{t0:g}s" if t0 == t1 else f"{t0:g}-{t1:g}s"
        ax.annotate(text, (x[i], y[i]), fontsize=8, xytext=(4, 4), textcoords="offset points")


def _map_figure(result: RunResult, t, los, xy):
    """Top view: the obstacle area (left) and the whole path (right)."""
    cfg = result.scenario.config["radios"][0]["radio"]
    gnb = cfg.get("gnb_position", [0.0, 0.0, 15.0])
    x, y = xy
    obstacles = cfg.get("obstacles", [])
    fig, axes = plt.subplots(1, 2, figsize=(13, 6), constrained_layout=True)
    for k, ax in enumerate(axes):
        _draw_obstacles(ax, obstacles, gnb)
        ax.scatter(x[los == 1], y[los == 1], s=2, color="tab:blue", label="UE, LoS")
        ax.scatter(x[los == 0], y[los == 0], s=2, color="tab:orange", label="UE, NLoS")
        if k == 0:
            pts = [gnb[:2], [x[0], y[0]]] + [o["min"][:2] for o in obstacles] + [o["max"][:2] for o in obstacles]
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            pad = 5.0
            ax.set_xlim(min(xs) - pad, max(xs) + pad)
            ax.set_ylim(min(ys) - pad, max(ys) + pad)
        _time_marks(ax, t, x, y, 5.0 if k == 0 else 10.0, 1.0 if k == 0 else 30.0)
        ax.set_aspect("equal", adjustable="box" if k == 0 else "datalim")
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
        ax.grid(alpha=0.3)
    axes[0].set_title(f"{result.scenario.name}: obstacle area")
    axes[1].set_title("whole UE path")
    axes[0].legend(loc="best", fontsize=8)
    return fig


def _overview_figure(result: RunResult, t, los, sinr):
    se = result.series.to_pydict()
    fig, ax = plt.subplots(3, 1, figsize=(10, 8), sharex=True, constrained_layout=True)
    for label, fm in _series_flows(result, se):
        ts = np.asarray(se["t_s"])[fm]
        ax[0].plot(ts, np.asarray(se["throughput_mbps"])[fm], lw=0.9, label=label)
        ax[1].plot(ts, np.asarray(se["rtt_mean_ms"], dtype=float)[fm], lw=0.9)
    ax[2].plot(t, sinr, lw=0.7, color="C3")
    for a in ax:
        _shade_nlos(a, t, los)
        a.grid(alpha=0.3)
    ax[0].set_ylabel("throughput (Mb/s)")
    ax[1].set_ylabel("RTT (ms)")
    ax[2].set_ylabel("SINR (dB)")
    ax[2].set_xlabel("time (s); throughput: " + THROUGHPUT_NOTE)
    ax[2].xaxis.label.set_fontsize(8)
    ax[0].legend(fontsize=8, loc="upper right")
    ax[0].set_title(f"{result.scenario.name}: throughput, RTT and SINR (NLoS shaded)")
    return fig
