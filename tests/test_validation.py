"""Long validations (marked slow; run with `make validate`, not in the default suite)."""

import pytest

from mmcc.experiments.reproduce import reproduce_thesis


@pytest.mark.slow
def test_thesis_reproduction_shows_the_thesis_ordering(tmp_path):
    """The full-length quick reproduction (128 runs of 60 s): under the highest PER on the edge
    server with the BDP-sized buffer, the thesis' algorithms (RTTV, MSS-CCA, MRVHS) keep more
    throughput than NewReno, HighSpeed and CUBIC, as the thesis reports."""
    reproduce_thesis(tmp_path, quick=True)
    lines = (tmp_path / "tables" / "throughput.csv").read_text().strip().splitlines()
    header = lines[0].split(",")
    col = header.index("edge 2.5MiB PER 1e-07")
    tput = {ln.split(",")[0]: float(ln.split(",")[col]) for ln in lines[1:]}
    for x in ("rttv", "msscca", "mrvhs"):
        for b in ("newreno", "highspeed", "cubic"):
            assert tput[x] > tput[b], (x, b, tput)
    # and every algorithm is faster on the edge server than on the remote one at that PER
    rcol = header.index("remote 8MiB PER 1e-07")
    for ln in lines[1:]:
        cells = ln.split(",")
        assert float(cells[col]) > float(cells[rcol]), cells[0]
