"""Figures of a run (matplotlib, Agg backend: no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .results import RunResult, atomic_write_bytes  # noqa: E402


def overview(result: RunResult, path: str | Path) -> Path:
    """cwnd, throughput (per 100 ms) and RTT over time, one line per flow, shared time axis."""
    cw = result.tables["cwnd"].to_pydict()
    se = result.tables["series"].to_pydict()
    flows = result.flows.to_pylist()
    fig, ax = plt.subplots(3, 1, figsize=(10, 8), sharex=True, constrained_layout=True)
    for f in flows:
        fid = f["flow_id"]
        label = f"flow {fid} ({f['cca']})"
        m = np.asarray(cw["flow_id"]) == fid
        ax[0].step(np.asarray(cw["t_s"])[m], np.asarray(cw["cwnd_segments"])[m], where="post", lw=0.8, label=label)
        m = np.asarray(se["flow_id"]) == fid
        t = np.asarray(se["t_s"])[m]
        ax[1].plot(t, np.asarray(se["throughput_mbps"])[m], lw=0.9, label=label)
        ax[2].plot(t, np.asarray(se["rtt_mean_ms"], dtype=float)[m], lw=0.9, label=label)
    ax[0].set_ylabel("cwnd (segments)")
    ax[1].set_ylabel("throughput (Mb/s, 100 ms bins)")
    ax[2].set_ylabel("RTT (ms, bin mean)")
    ax[2].set_xlabel("time (s)")
    for a in ax:
        a.grid(alpha=0.3)
    ax[0].legend(loc="upper right", fontsize=8)
    ax[0].set_title(f"{result.scenario.name} - seed {result.scenario.config['seed']}")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    atomic_write_bytes(out, tmp.read_bytes())
    tmp.unlink()
    return out
