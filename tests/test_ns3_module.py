"""The ns-3 side in the default suite: this project's ns-3 module builds, its classes run in
ns-3's own stack, and a few short cases agree with mmcc (the full matrix is `mmcc validate ns3`).

Skipped when libns3-dev is not installed (`make test` installs it when run as root)."""

import json
import shutil
import subprocess

import numpy as np
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
    store = tmp_path / "store"
    sq = validate_ns3.run_validation(tmp_path / "square", ccas=["newreno"], rates=["square"], seeds=1,
                                     duration=4.0, progress=False, store=store)
    assert abs(sq["rows"][0]["diff_pct"]) <= 5.0, sq["rows"][0]
    # the store keeps ns-3's result; another output folder reuses it instead of running ns-3
    kept = sorted(store.glob("*-ns3.json"))
    assert len(kept) == 1
    again = validate_ns3.run_validation(tmp_path / "again", ccas=["newreno"], rates=["square"], seeds=1,
                                        duration=4.0, progress=False, store=store)
    assert (tmp_path / "again" / "runs" / kept[0].name).read_bytes() == kept[0].read_bytes()
    assert again["rows"][0]["ns3_mbps"] == sq["rows"][0]["ns3_mbps"]


def test_matrix_has_the_ported_algorithms_and_bottleneck_shapes():
    full = validate_ns3.matrix(False, None, None, None)
    n_cca = len(validate_ns3.NS3_ALGORITHMS) + len(validate_ns3.PORTED)
    # per bottleneck rate: lossless once (deterministic), three loss rates x 5 seeds; shapes once
    assert len(full) == n_cca * (2 * (1 + 3 * 5) + len(validate_ns3.SHAPES)) + 4 * (2 + len(validate_ns3.SHAPES))  # BBR draws: every seed
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


@needs_ns3
def test_runner_loses_the_packets_mmcc_loses(tmp_path):
    """Common random numbers: with one seed the runner draws its losses from mmcc's stream of the
    link direction for the data segments mmcc has there. NewReno at 1 % loss for 3 s behaves
    alike in both simulators, so they lose the same segments (11 of them with seed 3) and
    deliver the same bytes to within 2 %; with ns-3's own RateErrorModel (--errors=ns3) the
    losses are other ones."""
    import csv
    import json

    from mmcc import ns3
    from mmcc.results import run as run_scenario
    from mmcc.scenario import Scenario

    case = validate_ns3.Case("newreno", "100Mbps", 1e-2, 3, 3.0)
    sc = Scenario.from_dict(validate_ns3.scenario(case, tmp_path), source=case.key)
    r = run_scenario(sc)
    drops = r.tables["drops"].to_pydict()
    mmcc_lost = sum(p for p, c in zip(drops["packets"], drops["cause"]) if c == "error_model")
    mmcc_bytes = r.flows.to_pydict()["delivered_bytes"][0]
    runner = ns3.build_runner()
    (tmp_path / "case.json").write_text(json.dumps(ns3.export(sc.config)))
    got = {}
    for errors in ("mmcc", "ns3"):
        out = tmp_path / errors / "tables"  # the runner makes the folder
        p = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={out}", "--seed=3",
                            f"--errors={errors}"], capture_output=True, text=True)
        assert p.returncode == 0, p.stderr
        got[errors] = next(csv.DictReader((out / "flows.csv").open()))
    assert mmcc_lost == 11
    assert int(got["mmcc"]["error_drops"]) == mmcc_lost
    assert abs(int(got["mmcc"]["delivered_bytes"]) / mmcc_bytes - 1) < 0.02
    assert int(got["ns3"]["delivered_bytes"]) != int(got["mmcc"]["delivered_bytes"])
    bad = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path}", "--errors=dice"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "--errors: 'dice' is not mmcc or ns3" in bad.stderr
    # an output folder that cannot be made is refused before the run, not after it
    (tmp_path / "file").write_text("")
    bad = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'file' / 'out'}"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and f"--out={tmp_path / 'file' / 'out'}: cannot write to this folder" in bad.stderr
    assert not list(tmp_path.glob("**/*.tmp"))



@needs_ns3
def test_runner_diagnostics_trace_dump_and_capture(tmp_path):
    """The runner's diagnostics on 0.3 s of NewReno at 100 Mb/s: `--cwnd-trace` writes every change
    of flow 0's window (the first is the initial 10 segments of 1400 bytes, then slow start's
    growth), `--txbuffer-at` ns-3's transmit buffer at that instant on stderr, `--pcap` one pcap
    per device (two per link), `--log` ns-3's own log lines of the named components inside a window
of simulated time; an unwritable trace file and a malformed log window are refused before the
run."""
    import json
    import struct

    from mmcc import ns3
    from mmcc.scenario import Scenario

    case = validate_ns3.Case("newreno", "100Mbps", 0.0, 1, 0.3)
    cfg = ns3.export(Scenario.from_dict(validate_ns3.scenario(case, tmp_path), source=case.key).config)
    (tmp_path / "case.json").write_text(json.dumps(cfg))
    runner = ns3.build_runner()
    p = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'out'}",
                        f"--cwnd-trace={tmp_path / 'cwnd.txt'}", "--txbuffer-at=200000000",
                        f"--pcap={tmp_path / 'cap'}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    trace = [tuple(map(int, line.split())) for line in (tmp_path / "cwnd.txt").read_text().splitlines()]
    assert trace[0][1] == 14000 and trace[1][1] == 15400, trace[:3]
    assert all(a[0] <= b[0] for a, b in zip(trace, trace[1:]))
    dump = [line for line in p.stderr.splitlines() if line.startswith("txbuffer at 200000000: head ")]
    assert len(dump) == 1 and " in_flight " in dump[0], p.stderr[-500:]
    caps = sorted(tmp_path.glob("cap-link*.pcap"))
    assert len(caps) == 2 * len(cfg["links"])
    for c in caps:  # pcap magic of nanosecond timestamps, link type PPP
        magic, *_, linktype = struct.unpack("<IHHiIII", c.read_bytes()[:24])
        assert (magic, linktype) == (0xA1B23C4D, 9)
    bad = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'out2'}",
                          f"--cwnd-trace={tmp_path / 'nope' / 'cwnd.txt'}"], capture_output=True, text=True)
    assert bad.returncode == 2 and f"cannot write {tmp_path / 'nope' / 'cwnd.txt'}" in bad.stderr
    # --log: ns-3's own log lines of the named components, only inside the window
    p = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'out3'}",
                        "--log=TcpSocketBase,TcpTxBuffer@100000000-100200000"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-500:]
    logged = [line for line in p.stderr.splitlines() if line.startswith("+")]
    times = [float(line.split("s", 1)[0]) for line in logged]
    assert any("TcpSocketBase:ReceivedAck(" in line for line in logged), p.stderr[-500:]
    assert any(" TcpTxBuffer:" in line for line in logged)
    assert times and all(0.1 <= t <= 0.1002 for t in times), (min(times, default=None), max(times, default=None))
    for spec, why in [("Nope@1-2", "'Nope' is not an ns-3 log component"),
                      ("TcpSocketBase@5-2", "0 <= FROM_NS < TO_NS"),
                      ("TcpSocketBase@5", "expected COMPONENT[,COMPONENT...]@FROM_NS-TO_NS")]:
        bad = subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'out4'}",
                              f"--log={spec}"], capture_output=True, text=True)
        assert bad.returncode == 2 and why in bad.stderr, (spec, bad.stderr)


@needs_ns3
def test_runner_series_has_each_bins_cwnd_to_the_byte(tmp_path):
    """The runner's 100 ms table holds each bin's last window, whole: NewReno at 100 Mb/s for
    1.5 s is in congestion avoidance above 2,000,000 bytes after 1 s, where a stream's default 6
    significant digits wrote e.g. 2,003,555 as 2.00356e+06. Each bin's value is the last change
    of `--cwnd-trace` inside that bin."""
    import bisect
    import csv
    import json

    from mmcc import ns3
    from mmcc.scenario import Scenario

    case = validate_ns3.Case("newreno", "100Mbps", 0.0, 1, 1.5)
    cfg = ns3.export(Scenario.from_dict(validate_ns3.scenario(case, tmp_path), source=case.key).config)
    (tmp_path / "case.json").write_text(json.dumps(cfg))
    p = subprocess.run([str(ns3.build_runner()), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path / 'out'}",
                        f"--cwnd-trace={tmp_path / 'cwnd.txt'}"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-500:]
    trace = [tuple(map(int, line.split())) for line in (tmp_path / "cwnd.txt").read_text().splitlines()]
    times = [t for t, _ in trace]
    rows = list(csv.DictReader((tmp_path / "out" / "series.csv").open()))
    assert len(rows) == 15
    for b, row in enumerate(rows):
        last = bisect.bisect_left(times, (b + 1) * 100_000_000) - 1  # last change before the bin ends
        assert row["cwnd_bytes"] == str(trace[last][1]), (b, row["cwnd_bytes"], trace[last])
    assert int(rows[-1]["cwnd_bytes"]) > 2_000_000 and int(rows[-1]["cwnd_bytes"]) % 100 != 0


@needs_ns3
def test_runner_counts_a_timeout_while_in_loss(tmp_path):
    """The runner counts every retransmission timeout, also one that fires while the socket is
    still in CA_LOSS after the one before (ns-3's CongState trace sees only the first: the
    state does not change). CUBIC at 100 Mb/s and 10 % loss, seed 1, 3 s: mmcc times out at
    1.091 s and again at 2.114 s before it leaves Loss; the runner gives mmcc's bytes to the byte
    and now its 2 timeouts (it counted 1; NexGen D-TCP on the square wave, 9 against mmcc's 10,
    with the same goodput and every 100 ms cwnd sample equal, is how this was found)."""
    from mmcc import ns3

    case = validate_ns3.Case("cubic", "100Mbps", 0.1, 1, 3.0)
    ours = validate_ns3._run_mmcc(case, tmp_path)
    theirs = validate_ns3._run_ns3(case, str(ns3.build_runner()), tmp_path / "ns3")
    assert ours["rtos"] == 2
    assert (theirs["goodput_mbps"], theirs["rtos"]) == (ours["goodput_mbps"], 2)


def test_build_files_list_every_source_of_the_module():
    """The module builds three ways: `make -C ns3` (libns3-dev; it takes model/*.cc), the CMake
    tree of ns-3.36+ (CMakeLists.txt) and the waf tree of ns-3.35 and older (wscript, the version
    the source publications ran). The last two list their files: both must list every source and
    header of model/, the same test suite and every source of the runner (examples/), and nothing
    else."""
    import ast
    import re
    from pathlib import Path

    ns3 = Path(__file__).resolve().parents[1] / "ns3"
    sources = sorted(f"model/{p.name}" for p in (ns3 / "model").glob("*.cc"))
    headers = sorted(f"model/{p.name}" for p in (ns3 / "model").glob("*.h"))

    cmake = (ns3 / "CMakeLists.txt").read_text()

    def cmake_list(key: str) -> list[str]:
        block = re.search(rf"{key}\s+(.*?)(?=\n\s*[A-Z_]+\b|\))", cmake, re.S).group(1)
        return sorted(block.split())

    assert cmake_list("SOURCE_FILES") == sources
    assert cmake_list("HEADER_FILES") == headers
    assert cmake_list("TEST_SOURCES") == ["test/mmcc-tcp-test-suite.cc"]
    runner = sorted(p.name for p in (ns3 / "examples").glob("*.cc"))
    examples = re.search(r"SOURCE_FILES\s+(.*?)\n", (ns3 / "examples" / "CMakeLists.txt").read_text()).group(1)
    assert sorted(examples.split()) == runner

    tree = ast.parse((ns3 / "wscript").read_text())  # also: the wscript is valid Python
    lists = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Constant)):
            for t in node.targets:
                if isinstance(t, ast.Attribute):
                    lists[f"{t.value.id}.{t.attr}"] = ast.literal_eval(node.value)
    assert sorted(lists["module.source"]) == sources
    assert sorted(lists["headers.source"]) == headers
    assert lists["module_test.source"] == ["test/mmcc-tcp-test-suite.cc"]
    assert sorted(lists["obj.source"]) == [f"examples/{n}" for n in runner]
    assert {n.name for n in tree.body if isinstance(n, ast.FunctionDef)} == {"configure", "build"}


def test_summary_of_independent_runs_gives_intervals_and_a_verdict():
    """Means with 95 % intervals, the difference's Welch interval against the +-5 % band, and the
    pooled realised loss rate with its binomial interval (hand-checked numbers)."""
    from mmcc.experiments.validate_independent import summarize

    def runs(values, drops, seen):
        return [{"goodput_mbps": v, "error_drops": drops, "error_model_packets": seen, "rtos": 0} for v in values]

    same = summarize(runs([100.0, 102.0] * 50, 1, 1000), runs([101.0, 101.0] * 50, 1, 1000))
    assert same["verdict"] == "agrees" and abs(same["diff_pct"]) < 1e-9
    assert abs(same["ns3_ci"] - 1.959964 * np.std([100.0, 102.0] * 50, ddof=1) / 10) < 1e-9
    assert abs(same["ns3_loss"] - 1e-3) < 1e-12 and abs(same["ns3_loss_ci"] - 1.959964 * (1e-3 * 0.999 / 1e5) ** 0.5) < 1e-12
    apart = summarize(runs([100.0, 102.0] * 50, 1, 1000), runs([120.0, 122.0] * 50, 1, 1000))
    assert apart["verdict"] == "differs" and apart["diff_lo_pct"] > 5
    noisy = summarize(runs([50.0, 150.0] * 15, 1, 1000), runs([55.0, 155.0] * 15, 1, 1000))
    assert noisy["verdict"] == "unresolved"


def test_independent_mode_refuses_too_few_seeds_and_other_references(mmcc_cli, tmp_path):
    r = mmcc_cli("validate", "ns3", "--independent", "--seeds", "5", "--out", tmp_path)
    assert r.returncode == 2 and "at least 30 per side" in r.stderr, r.stderr
    r = mmcc_cli("validate", "mmwave", "--independent", "--out", tmp_path)
    assert r.returncode == 2 and "--independent is for validate ns3 and validate linux" in r.stderr, r.stderr
    r = mmcc_cli("validate", "linux", "--independent", "--seeds", "2", "--out", tmp_path)
    assert r.returncode == 2 and "at least 5 runs per side" in r.stderr, r.stderr


@needs_ns3
def test_independent_losses_run_on_both_sides(tmp_path):
    """Each side draws its own losses: ns-3's RateErrorModel (its realised rate is reported) and
    mmcc's streams; 30 seeds of 2 s, NewReno at 1e-2."""
    from mmcc.experiments.validate_independent import run_independent

    res = run_independent(tmp_path, ccas=["newreno"], losses=[1e-2], seeds=30, duration=2.0, progress=False)
    r = res["rows"][0]
    assert r["seeds_ns3"] == r["seeds_mmcc"] == 30 and r["verdict"] in ("agrees", "differs", "unresolved")
    # both error models realise about the nominal rate (each within its interval of 1e-2 +- 30 %)
    assert 0.007 < r["ns3_loss"] < 0.013 and 0.007 < r["mmcc_loss"] < 0.013
    assert (tmp_path / "independent.md").read_text().count("| newreno |") == 1
    # the losses differ between the sides: not common random numbers
    a = json.loads(next((tmp_path / "independent").glob("*-s1-2s-ns3.json")).read_text())
    b = json.loads(next((tmp_path / "independent").glob("*-s1-2s-mmcc.json")).read_text())
    assert a["error_drops"] != b["error_drops"] or a["goodput_mbps"] != b["goodput_mbps"]
