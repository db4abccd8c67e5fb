"""Algorithms written in Python."""

import pytest

import mmcc
from mmcc.cca import PyNewReno
from mmcc.scenario import Scenario, ScenarioError

from .conftest import SMALL

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

LOSSY = {"links.1.forward.error": {"unit": "packet", "rate": 0.002}}


def _tables_without_name(r):
    """Arrow IPC bytes of every table without the algorithm-name column (NaN-safe equality)."""
    import pyarrow as pa

    out = {}
    for name, t in r.tables.items():
        if "cca" in t.column_names:
            t = t.drop(["cca"])
        sink = pa.BufferOutputStream()
        with pa.ipc.new_stream(sink, t.schema) as w:
            w.write_table(t)
        out[name] = sink.getvalue().to_pybytes()
    return out


def test_python_newreno_equals_the_builtin_exactly(small_toml):
    a = mmcc.run(str(small_toml), sets=LOSSY, seed=4)
    b = mmcc.run(str(small_toml), sets=LOSSY, seed=4, cca=PyNewReno)
    assert b.flows.column("cca")[0].as_py() == "py-newreno"
    ta, tb = _tables_without_name(a), _tables_without_name(b)
    for name in ta:
        assert ta[name] == tb[name], name
    assert a.flows.column("fast_retransmits")[0].as_py() > 0  # the loss path was exercised


class Halving(mmcc.CongestionControl):
    """A toy: +1 segment per RTT, ssthresh at a quarter of the window."""

    name = "halving"

    def __init__(self):
        self.events = []

    def increase_window(self, cc, ack):
        if cc.in_slow_start():
            cc.cwnd += ack["segments_acked"] * cc.mss
        else:
            cc.cwnd += max(1, cc.mss * cc.mss // cc.cwnd)

    def ssthresh(self, cc):
        return max(cc.cwnd // 4, 2 * cc.mss)


def test_custom_algorithm_is_used_in_every_flow_and_reacts_to_loss(small_toml):
    raw = tomllib.loads(SMALL)
    raw["flows"].append({"from": "a", "to": "b", "start": "0.5s"})
    r = mmcc.run(Scenario.from_dict(raw), cca=Halving, sets=LOSSY, seed=2)
    rows = r.flows.to_pylist()
    assert [x["cca"] for x in rows] == ["halving", "halving"]
    assert all(x["delivered_bytes"] > 0 for x in rows)


class Broken(mmcc.CongestionControl):
    name = "broken"

    def increase_window(self, cc, ack):
        raise ZeroDivisionError("oops")


def test_an_exception_in_python_ends_the_run_with_its_traceback(small_toml):
    with pytest.raises(RuntimeError) as e:
        mmcc.run(str(small_toml), cca=Broken)
    msg = str(e.value)
    assert "Python congestion control 'broken' raised in increase_window(): ZeroDivisionError: oops" in msg
    assert "test_python_cca.py" in msg


class RateBased(mmcc.CongestionControl):
    """Model-based toy: cwnd = 2 x max delivery rate x min RTT, from rate samples."""

    name = "rate-based"
    controls_window = True

    def __init__(self):
        self.max_bps = 0
        self.samples = 0

    def increase_window(self, cc, ack):
        pass

    def on_rate_sample(self, cc, rs):
        self.samples += 1
        if rs["valid"]:
            self.max_bps = max(self.max_bps, rs["delivery_rate_bps"])
        if self.max_bps and cc.min_rtt_s:
            cc.cwnd = max(int(2 * self.max_bps / 8 * cc.min_rtt_s), 4 * cc.mss)
        else:
            cc.cwnd += rs["acked_sacked"]


def test_model_based_python_algorithm_gets_rate_samples(small_toml):
    algo = RateBased()
    big = {"tcp.send_buffer": "4MB", "tcp.recv_buffer": "4MB"}  # not window-limited (ns-3 default: 128 KiB)
    r = mmcc.run(str(small_toml), cca=algo, duration="5s", sets=big)
    assert algo.samples > 1000  # the instance given is the one that ran
    assert 80e6 < algo.max_bps <= 100e6  # it measured the 100 Mb/s bottleneck
    late = r.series.to_pylist()[30:]
    tput = sum(x["throughput_mbps"] for x in late) / len(late)
    assert tput > 90, tput  # and fills it once measured


def test_python_flow_without_an_object_is_a_clear_error(small_toml):
    raw = tomllib.loads(SMALL)
    raw["flows"][0]["cca"] = "python"
    with pytest.raises(ScenarioError) as e:
        mmcc.run(Scenario.from_dict(raw, "x.toml"))
    assert "flows[0].cca: 'python' needs a Python algorithm" in str(e.value)
    with pytest.raises(ScenarioError):
        mmcc.run(str(small_toml), cca=42)


def test_cli_loads_a_python_algorithm_from_a_file(mmcc_cli, small_toml, tmp_path):
    f = tmp_path / "algo.py"
    f.write_text(
        "import mmcc\n"
        "class Mine(mmcc.CongestionControl):\n"
        "    name = 'mine'\n"
        "    def increase_window(self, cc, ack):\n"
        "        cc.cwnd += ack['segments_acked'] * cc.mss if cc.in_slow_start() else max(1, cc.mss * cc.mss // cc.cwnd)\n"
    )
    r = mmcc_cli("run", small_toml, "--cca", f"{f}:Mine", "--out", tmp_path / "o", "--no-plot")
    assert r.returncode == 0, r.stderr
    assert "mine" in r.stdout
    r = mmcc_cli("run", small_toml, "--cca", f"{f}:Nope", "--out", tmp_path / "o")
    assert r.returncode == 2 and "no subclass of mmcc.CongestionControl named 'Nope'" in r.stderr


class CountingReno(PyNewReno):
    """PyNewReno that also defines on_ack and on_state_change (the base class's are no-ops)."""

    name = "counting-reno"

    def __init__(self):
        super().__init__()
        self.acks = 0
        self.states = []
        self.seen = set()

    def on_ack(self, cc, ack):
        self.acks += 1
        self.seen.add(id(cc))

    def on_state_change(self, cc, from_state):
        self.states.append((from_state, cc.state))


def test_only_the_methods_an_algorithm_defines_are_called(small_toml):
    # the no-ops of mmcc.CongestionControl are skipped (a call per ACK saved); what a class
    # defines, on its own class or on the instance, is called, with one state object per flow
    algo = CountingReno()
    r = mmcc.run(str(small_toml), cca=algo, duration="3s", sets=LOSSY)
    assert algo.acks > 1000 and len(algo.seen) == 1
    assert ("open", "disorder") in algo.states and any(s == "recovery" for _, s in algo.states)
    plain = PyNewReno()
    calls = []
    plain.on_congestion_event = lambda cc, kind: calls.append(kind)
    mmcc.run(str(small_toml), cca=plain, duration="3s", sets=LOSSY)
    assert calls and set(calls) <= {"fast_retransmit", "timeout"}
    # the results do not depend on which methods are called
    assert _tables_without_name(r) == _tables_without_name(mmcc.run(str(small_toml), cca=PyNewReno, duration="3s", sets=LOSSY))
