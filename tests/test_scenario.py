import copy
import json

import pytest

import mmcc
from mmcc.scenario import Scenario, ScenarioError, load, normalize

from .conftest import SMALL

try:
    import tomllib
except ImportError:  # pragma: no cover
    import tomli as tomllib

BASE = tomllib.loads(SMALL)


def err(raw, source="s.toml"):
    with pytest.raises(ScenarioError) as e:
        normalize(raw, source)
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def edit(path_fn):
    raw = copy.deepcopy(BASE)
    path_fn(raw)
    return raw


def test_small_scenario_normalizes_to_base_units():
    cfg = normalize(BASE, "s.toml")
    assert cfg["duration"] == 2 * 10**9
    assert cfg["links"][1]["rate"] == 10**8
    assert cfg["links"][1]["ab"]["queue"] == {"type": "droptail", "limit_bytes": 250_000, "limit_packets": None,
                                             "room_bytes": None}
    assert cfg["flows"][0]["cca"] == "newreno"


def test_one_schema_defaults_and_rules_come_from_the_core():
    """The reader leaves defaults and rules to the core (sim/validate.rs): the configuration
    comes back complete, and a rule's message gets the file name in front of the core's key."""
    cfg = normalize(BASE, "s.toml")
    assert cfg["links"][0]["mtu"] == 1500 and cfg["record"]["bin"] == 100_000_000
    # a TCP knob left unset stays unset (its profile decides it when the flow is built)
    tcp = json.loads(mmcc._core.resolve_tcp(json.dumps(cfg["flows"][0]["tcp"])))
    assert cfg["flows"][0]["tcp"]["mss"] is None and tcp["mss"] == 1448
    assert cfg["flows"][0]["app"] == {"type": "bulk", "bytes": None, "write_size": None}
    assert cfg["links"][0]["ab"]["queue"] == {"type": "droptail", "limit_bytes": None, "limit_packets": 1000,
                                             "room_bytes": None}
    # relations between keys and ranges: the core's messages, with the file and the user's key names
    assert err(edit(lambda r: r["flows"][0].update(start="2s", stop="1s"))) == "s.toml: flows[0].stop: must be after start"
    assert err(edit(lambda r: r.update(tcp={"segment_size": "1500B"}))).startswith(
        "s.toml: flows[0].tcp.segment_size: 1500B plus 52B of IP/TCP headers and options exceeds the smallest link MTU")
    assert err(edit(lambda r: r["flows"][0].update(cca="renoo"))).startswith("s.toml: flows[0].cca: ")
    assert err(edit(lambda r: r.update(nodes=r["nodes"] + r["nodes"][:1]))).startswith("s.toml: nodes: node names must be unique")


def test_unknown_key_is_named_with_the_allowed_keys():
    m = err(edit(lambda r: r["links"][1].update(speed="1Gbps")))
    assert m.startswith("s.toml: links[1].speed: unknown key; allowed keys here:")
    assert "rate" in m


def test_wrong_type():
    m = err(edit(lambda r: r["flows"][0].update(start=5)))
    assert m.startswith("s.toml: flows[0].start: 5 has no unit")


@pytest.mark.parametrize("edit_fn,needle", [
    (lambda r: r["links"][1].update(framing="2kB"), "s.toml: links[1].framing: 2000B is out of range; allowed: 0B..1000B"),
    (lambda r: r.update(tcp={"handshake": "yes"}), "s.toml: tcp.handshake: expected true or false, got 'yes'"),
    (lambda r: r["flows"][0].update(receiver_feed=100), "s.toml: flows[0].receiver_feed: 100 has no unit"),
    (lambda r: r["links"][1]["forward"]["queue"].update(admit_room="1MB"),
     "s.toml: links[1].forward.queue.admit_room: 1000000 B is out of range; allowed: 1 B up to the queue's byte limit (250000 B)"),
    (lambda r: r["links"][1]["forward"].update(queue={"type": "codel", "admit_room": "1500B"}),
     "s.toml: links[1].forward.queue.admit_room: only a droptail queue has this key"),
    (lambda r: r["links"][1]["forward"].update(queue={"type": "droptail", "limit_packets": 100, "admit_room": "1500B"}),
     "s.toml: links[1].forward.queue.admit_room: needs a byte limit (`limit`) on the queue"),
])
def test_errors_of_this_sessions_keys(edit_fn, needle):
    m = err(edit(edit_fn))
    assert m.startswith(needle) and "\n" not in m, m


def test_admit_room_reaches_the_core():
    """ns-3's device flow control as a drop-tail option: `admit_room` (bytes that must be free)."""
    raw = edit(lambda r: r["links"][1]["forward"]["queue"].update(admit_room="1500B"))
    assert normalize(raw, "s.toml")["links"][1]["ab"]["queue"]["room_bytes"] == 1500


def test_out_of_range():
    m = err(edit(lambda r: r.update(tcp={"initial_cwnd": 0})))
    assert "tcp.initial_cwnd: 0 is out of range" in m


def test_malformed_quantity_names_file_key_and_units():
    m = err(edit(lambda r: r["links"][1]["forward"]["queue"].update(limit="2.5 parsecs")))
    assert m.startswith('s.toml: links[1].forward.queue.limit: "2.5 parsecs": unknown size unit "parsecs"')
    assert "MB" in m and "MiB" in m


def test_unknown_node_lists_nodes():
    m = err(edit(lambda r: r["flows"][0].update(to="z")))
    assert "flows[0].to: unknown node 'z'; nodes: a, r, b" in m


def test_unknown_algorithm_and_parameter():
    m = err(edit(lambda r: r["flows"][0].update(cca="warp")))
    assert "flows[0].cca: unknown congestion control algorithm 'warp'; available: newreno" in m
    m = err(edit(lambda r: r["flows"][0].update(cca_params={"beta": 0.3})))
    assert "flows[0].cca_params: algorithm 'newreno' has no parameter 'beta'" in m


def test_missing_required_key():
    m = err(edit(lambda r: r.pop("duration")))
    assert "s.toml: duration: missing required key" in m


def test_invalid_toml_file(tmp_path):
    p = tmp_path / "broken.toml"
    p.write_text("duration = \n")
    with pytest.raises(ScenarioError) as e:
        Scenario.from_file(p).config
    assert str(e.value).startswith(f"{p}: not valid TOML")


def test_unknown_preset_lists_presets():
    with pytest.raises(ScenarioError) as e:
        load("dumbel")
    msg = str(e.value)
    assert msg.startswith("unknown preset 'dumbel'; presets: ") and "dumbbell" in msg and "thesis-edge" in msg


def test_presets_all_validate():
    for name in mmcc.list_presets():
        load(name).config


def test_overrides_by_dotted_path_and_cca():
    sc = Scenario.from_dict(BASE).with_overrides({"links.1.forward.queue.limit": "5MB"}, cca="reno", seed=9)
    cfg = sc.config
    assert cfg["links"][1]["ab"]["queue"]["limit_bytes"] == 5_000_000
    assert cfg["flows"][0]["cca"] == "newreno"  # alias resolved
    assert cfg["seed"] == 9
    with pytest.raises(ScenarioError) as e:
        Scenario.from_dict(BASE).with_overrides({"links.7.rate": "1Gbps"})
    assert "index '7' does not exist" in str(e.value)


def test_algorithm_parameters_given_with_a_new_algorithm_reach_it_or_are_refused(mmcc_cli, tmp_path):
    """`--cca` / `cca=` replaces a flow's algorithm first; parameters the caller sets for the new
    one (`--set flows.N.cca_params=...`, `cca_params=`) are applied after it, in run, sweep and
    the Python API alike. Parameters the scenario gave a replaced algorithm are dropped; those it
    gave the same algorithm stay."""
    bbr = {"probe_rtt_app_limited": 1.0}
    sc = load("thesis-edge")
    for over in (sc.with_overrides({"flows.0.cca_params": {"probe_rtt_app_limited": 1}}, cca="bbr"),
                 sc.with_overrides(cca="bbr", cca_params={"probe_rtt_app_limited": 1})):
        assert over.config["flows"][0]["cca"] == "bbr" and over.config["flows"][0]["cca_params"] == bbr
    raw = copy.deepcopy(BASE)
    raw["flows"][0].update(cca="bbr", cca_params={"probe_rtt_app_limited": 1})
    assert Scenario.from_dict(raw).with_overrides(cca="bbr").config["flows"][0]["cca_params"] == bbr
    assert not Scenario.from_dict(raw).with_overrides(cca="cubic").config["flows"][0].get("cca_params")
    with pytest.raises(ScenarioError, match="algorithm 'cubic' has no parameter 'probe_rtt_app_limited'"):
        sc.with_overrides({"flows.0.cca_params": {"probe_rtt_app_limited": 1}}, cca="cubic").config
    # the sweep of the issue: --cca bbr with the flow's parameters set by --set
    r = mmcc_cli("sweep", "thesis-edge", "--cca", "bbr", "--set", "flows.0.cca_params={probe_rtt_app_limited=1}",
                 "--duration", "0.2s", "--workers", "1", "--out", tmp_path / "s")
    assert r.returncode == 0, r.stderr
    import json

    (run,) = (tmp_path / "s" / "runs").glob("*/run.json")
    flow = json.loads(run.read_text())["config"]["flows"][0]
    assert flow["cca"] == "bbr" and flow["cca_params"] == bbr
    r = mmcc_cli("run", "thesis-edge", "--cca", "cubic", "--set", "flows.0.cca_params={probe_rtt_app_limited=1}",
                 "--duration", "0.1s", "--no-plot", "--out", tmp_path / "r")
    assert r.returncode == 2 and "algorithm 'cubic' has no parameter 'probe_rtt_app_limited'" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_same_structure_from_python():
    r = mmcc.run(Scenario.from_dict(BASE), duration="1s")
    assert r.flows.num_rows == 1
    assert r.flows.column("throughput_mbps")[0].as_py() > 30  # 1 s including slow start


def test_every_preset_runs_and_its_results_have_the_expected_shape():
    for name in mmcc.list_presets():
        r = mmcc.run(name, duration="0.5s")
        flows = r.flows.to_pylist()
        assert len(flows) == len(load(name).config["flows"]), name
        assert r.series.num_rows == 5 * len(flows), name  # 100 ms bins
        radios = len(load(name).config["radios"])
        assert r.tables["radio"].num_rows == 500 * radios, name  # one row per millisecond
        assert any(f["data_received"] > 0 for f in flows), name


def test_rate_trace_scale_and_offset(tmp_path):
    # 100 ms of 10 opportunities per ms (120 Mb/s), then 100 ms of 5 (60 Mb/s)
    trace = tmp_path / "cap.mahimahi"
    stamps = [ms for ms in range(1, 101) for _ in range(10)] + [ms for ms in range(101, 201) for _ in range(5)]
    trace.write_text("\n".join(map(str, stamps)) + "\n")

    def steps(**rt):
        d = {"name": "t", "duration": "400ms", "nodes": ["a", "b"], "flows": [{"from": "a", "to": "b"}],
             "links": [{"between": ["a", "b"], "rate": "1Gbps", "delay": "1ms",
                        "forward": {"rate_trace": {"file": str(trace), **rt}}}]}
        return Scenario.from_dict(d).config["links"][0]["ab"]["rate_steps"]

    assert steps() == [[0, 120_000_000], [100_000_000, 60_000_000], [200_000_000, 120_000_000],
                       [300_000_000, 60_000_000]]
    # half the rates, from 100 ms into the trace (then looped)
    assert steps(scale=0.5, offset="100ms") == [[0, 30_000_000], [100_000_000, 60_000_000],
                                                [200_000_000, 30_000_000], [300_000_000, 60_000_000]]
    with pytest.raises(ScenarioError, match=r"rate_trace.offset.*within the trace's 200 ms"):
        steps(offset="250ms")
    with pytest.raises(ScenarioError, match="rate_trace.scale"):
        steps(scale=0)


@pytest.mark.parametrize("name", ["mmstcp-1", "mmstcp-2", "mmstcp-3", "mmstcp-fair2", "mmstcp-fair5"])
def test_mmstcp_presets_name_the_source_of_every_sinr_level(name):
    """The paper gives the SINR events but no levels or times: each level a preset's schedule
    uses is named among this project's choices in its comments (or derived from one, as
    scenario 1's event is the LoS level - 20 dB)."""
    import re
    from importlib.resources import files

    text = (files("mmcc.presets") / f"{name}.toml").read_text()
    comments = " ".join(line for line in text.splitlines() if line.startswith("#"))
    assert "gives no SINR levels and no event times" in comments
    choices = comments.split("This project's choices:", 1)[1]
    sc = load(name)
    levels = {s["sinr_db"] for r in sc.config["radios"] for s in r["radio"]["sinr_schedule"]}
    los = sc.params["sinr_los_db"]
    for level in levels:
        if level == los - 20 and "20 dB" in comments:
            continue
        assert re.search(rf"(?<![\d.]){level:g} dB", choices), (name, level)


def test_rate_application_write_count():
    """`writes` counts write attempts (refused ones too) and is only for rate applications."""
    raw = copy.deepcopy(BASE)
    raw["flows"][0]["app"] = {"type": "rate", "rate": "10Mbps", "write_size": "1400B", "writes": 100}
    f = mmcc.run(Scenario.from_dict(raw), duration="2s").flows.to_pydict()
    assert f["delivered_bytes"][0] == 140_000  # 100 writes of 1400 bytes, the last at 0.11 s
    raw["flows"][0]["app"] = {"type": "bulk", "writes": 100}
    with pytest.raises(ScenarioError, match="app.writes: only a rate application has this key"):
        Scenario.from_dict(raw).config


def test_the_tcp_table_of_the_docs_is_the_cores_declaration():
    """docs/scenario-format.md's [tcp] table is generated from crates/mmcc-core/src/tcp/knobs.rs
    (`python -m mmcc.docs_tables --write`); a knob added or changed there without it fails."""
    from mmcc import docs_tables

    assert docs_tables.main([]) == 0


@pytest.mark.parametrize("profile", ["linux", "ns3"])
def test_every_tcp_knob_written_as_the_docs_show_it_gives_that_value(profile):
    """Each knob, set in a scenario to its profile's value as the docs table writes it, reaches
    the core under its own name and resolves to that value (the reader, the key names and the
    units all come from the one declaration)."""
    from mmcc import _core, docs_tables, schema

    knobs = [k for k in schema.tcp_knobs() if k[profile] is not None]
    tcp = {k["key"]: (k[profile] if k["kind"] in ("bool", "count") else docs_tables.show(k["kind"], k[profile]).strip('"'))
           for k in knobs}
    d = copy.deepcopy(BASE)
    d["tcp"] = tcp
    sc = Scenario.from_dict(d)
    resolved = json.loads(_core.resolve_tcp(json.dumps(sc.config["flows"][0]["tcp"])))
    assert {k["name"]: resolved[k["name"]] for k in knobs} == {k["name"]: k[profile] for k in knobs}
