"""The benchmark script's parts that do not time anything (`make bench` itself is not a test)."""

import importlib.util
import sys
from pathlib import Path

import mmcc

ROOT = Path(__file__).resolve().parent.parent


def _bench():
    spec = importlib.util.spec_from_file_location("bench", ROOT / "benches" / "bench.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_many_flow_scenario_is_the_dumbbell_with_n_flows(tmp_path):
    b = _bench()
    sc = mmcc.load(str(b.many_flows_scenario(3, tmp_path)))
    flows = sc.config["flows"]
    assert len(flows) == 3 and [f["start"] for f in flows] == [0, 1_000_000, 2_000_000]
    assert sc.config["duration"] == 60_000_000_000 and all(f["cca"] == "newreno" for f in flows)


def test_a_child_s_wall_time_peak_memory_and_simulated_wall_are_read():
    b = _bench()
    wall, peak, out = b.child([sys.executable, "-c", "x = bytearray(50_000_000); print('simulated in 0.25 s wall')"])
    assert wall > 0 and peak > 50 and b.simulated_wall(out) == 0.25
    assert b.simulated_wall("no such line") != b.simulated_wall("no such line")  # NaN
