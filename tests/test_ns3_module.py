"""The ns-3 side in the default suite: this project's ns-3 module builds, its classes run in
ns-3's own stack, and a few short cases agree with mmcc (the full matrix is `mmcc validate ns3`).

Skipped when libns3-dev is not installed (`make test` installs it when run as root)."""

import shutil
import subprocess

import pytest

from mmcc.experiments import validate_ns3

HAVE_NS3 = shutil.which("pkg-config") is not None and subprocess.run(
    ["pkg-config", "--exists", "ns3-internet"]).returncode == 0
needs_ns3 = pytest.mark.skipif(not HAVE_NS3, reason="libns3-dev is not installed")


@needs_ns3
def test_module_unit_tests_pass():
    from mmcc import ns3
    r = ns3.run_unit_tests()
    assert r.returncode == 0 and "PASS mmcc-tcp" in r.stdout, r.stdout + r.stderr


@needs_ns3
def test_short_cross_check_within_band(tmp_path):
    """Lossless 100 Mb/s, 10 s: ns-3's NewReno and CUBIC against mmcc's ns3 profile, and the ns-3
    ports of the mmWave algorithms against their Rust versions (all deterministic without loss:
    one seed each); and NewReno on the 1000/50 Mb/s square wave. Each within +-5 %."""
    ccas = ["newreno", "cubic", "rttv", "msscca", "mrvhs", "fbtcp", "mmstcp"]
    res = validate_ns3.run_validation(tmp_path, ccas=ccas, rates=["100Mbps"], losses=[0.0], seeds=1,
                                      duration=10.0, progress=False)
    assert res["cases"] == len(ccas)
    for row in res["rows"]:
        assert abs(row["diff_pct"]) <= 5.0, row
    sq = validate_ns3.run_validation(tmp_path / "square", ccas=["newreno"], rates=["square"], seeds=1,
                                     duration=4.0, progress=False)
    assert abs(sq["rows"][0]["diff_pct"]) <= 5.0, sq["rows"][0]


def test_matrix_has_the_ported_algorithms_and_bottleneck_shapes():
    full = validate_ns3.matrix(False, None, None, None)
    n_cca = len(validate_ns3.NS3_ALGORITHMS) + len(validate_ns3.PORTED)
    assert len(full) == n_cca * (2 * 4 + len(validate_ns3.SHAPES)) * 5
    assert {c.rate for c in full} == {"100Mbps", "1Gbps", "steps", "square", "trace", "2flows"}
    assert all(c.loss == 0 for c in full if c.rate in validate_ns3.SHAPES)
    with pytest.raises(ValueError, match="allowed: .*square"):
        validate_ns3.matrix(False, None, None, None, ["sawtooth"])


def test_scenarios_of_the_shapes():
    case = validate_ns3.Case("newreno", "square", 0.0, 1, 4.0)
    fwd = validate_ns3.scenario(case)["links"][1]["forward"]
    assert [s["rate"] for s in fwd["rate_schedule"][:3]] == ["50Mbps", "1000Mbps", "50Mbps"]
    two = validate_ns3.scenario(validate_ns3.Case("cubic", "2flows", 0.0, 1, 8.0))
    assert len(two["flows"]) == 2 and two["flows"][1]["start"] == "2.0s"


def test_stale_results_are_run_again(tmp_path):
    path = tmp_path / "r.json"
    path.write_text('{"build": "abc"}')
    assert validate_ns3._is_current(path, "abc") and not validate_ns3._is_current(path, "def")
    assert not validate_ns3._is_current(tmp_path / "missing.json", "abc")
