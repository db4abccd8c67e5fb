"""Long validations (marked slow; run with `make validate`, not in the default suite).

They check mechanisms the publications describe, not published numbers."""

import csv

import pytest

from mmcc.experiments.reproduce import reproduce_thesis

LOSS_BASED = ("newreno", "highspeed", "cubic")
PER_LEVELS = ("0", "1e-09", "1e-08", "1e-07")


def _table(path):
    """table[algorithm][condition] from the thesis layout (a row per condition, a column per
    algorithm)."""
    with open(path) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    return {a: {r[0]: float(r[1 + j]) for r in rows[1:]} for j, a in enumerate(header[1:])}


@pytest.mark.slow
def test_thesis_reproduction_mechanisms(tmp_path):
    """The quick thesis reproduction (128 runs of 60 s on the thesis' channel):
    - a larger RLC buffer raises the latency of the loss-based algorithms (lossless, edge server),
      since they fill whatever buffer the bottleneck has;
    - random loss (per-byte PER) lowers the loss-based algorithms' throughput, at every buffer;
    - at the highest PER a longer path (remote server, 80 ms RTT) lowers their throughput further
      (the loss-driven rate falls with the RTT);
    - BBR, which does not treat loss as congestion, keeps most of its lossless throughput at
      that PER while NewReno loses most of it."""
    reproduce_thesis(tmp_path, quick=True)
    tput = _table(tmp_path / "tables" / "throughput.csv")
    rtt = _table(tmp_path / "tables" / "latency.csv")
    for a in ("newreno", "cubic"):
        small, bdp, large = (rtt[a][f"edge {b} PER 0"] for b in ("0.25MiB", "2.5MiB", "20MiB"))
        assert small < bdp < large, (a, small, bdp, large)
    for a in LOSS_BASED:
        for cond in ("edge 0.25MiB", "edge 2.5MiB", "edge 20MiB", "remote 8MiB"):
            t = [tput[a][f"{cond} PER {p}"] for p in PER_LEVELS]
            assert t[0] >= 0.97 * t[1] and t[1] > t[2] > t[3], (a, cond, t)
        assert tput[a]["edge 2.5MiB PER 1e-07"] > tput[a]["remote 8MiB PER 1e-07"], a
    bbr = tput["bbr"]["edge 2.5MiB PER 1e-07"] / tput["bbr"]["edge 2.5MiB PER 0"]
    reno = tput["newreno"]["edge 2.5MiB PER 1e-07"] / tput["newreno"]["edge 2.5MiB PER 0"]
    assert bbr > 0.5 and reno < 0.2, (bbr, reno)
