"""Regression tests for the hardening issue's bad-input findings: each is one clean line on
stderr with the key and what is allowed, never a panic, a hang or a raw exception."""

import os

import pytest

from mmcc.results import LONG_LIST, compact_config
from mmcc.traces import read_mahimahi


def _one_clean_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "internal" not in r.stderr and "panicked" not in r.stderr and "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


@pytest.mark.parametrize("sets, needles", [
    (['links.0.between=["router","client"]'], ["flows[0]: no path from node 'server'"]),
    (["record.bin=1ns"], ["record.bin", "at least 1us"]),
    (['links.0.between=[["server"],"router"]'], ["links[0].between[0]", "expected a node name"]),
    (["params=[1,2]"], ["params: expected a table"]),
])
def test_bad_values_are_clean_errors(mmcc_cli, sets, needles):
    args = ["run", "dumbbell", "--duration", "1s", "--no-plot"]
    for s in sets:
        args += ["--set", s]
    _one_clean_error(mmcc_cli(*args), *needles)


def test_radio_update_below_10us_is_a_clean_error(mmcc_cli):
    r = mmcc_cli("run", "thesis-edge", "--duration", "0.1s", "--set", "radios.0.update=1ns", "--no-plot")
    _one_clean_error(r, "update", "10us..1ms")


def test_traces_are_read_with_bounds(tmp_path):
    huge = tmp_path / "huge.mm"
    huge.write_text("1\n100000000\n")
    with pytest.raises(ValueError, match="period is 100,000,000 ms; allowed: at most 3,600,000 ms"):
        read_mahimahi(huge)
    with pytest.raises(ValueError, match="not a regular file"):
        read_mahimahi("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):  # and no hang
        read_mahimahi(fifo)
    binary = tmp_path / "bin.mm"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    with pytest.raises(ValueError, match="not a text file"):
        read_mahimahi(binary)
    ok = tmp_path / "ok.mm"
    ok.write_text("1\n1\n3\n")
    assert read_mahimahi(ok) == [2, 0, 1]


def test_long_lists_are_elided_from_output_metadata():
    cfg = {"radios": [{"trace_dl": list(range(LONG_LIST + 1)), "x": [1, 2]}]}
    out = compact_config(cfg)
    assert out["radios"][0]["x"] == [1, 2]
    el = out["radios"][0]["trace_dl"]
    assert el["elided_list"] == LONG_LIST + 1 and len(el["sha256"]) == 64
