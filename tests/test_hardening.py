"""Regression tests for the hardening issue's bad-input findings: each is one clean line on
stderr with the key and what is allowed, never a panic, a hang or a raw exception."""

import json
import os
import subprocess
import sys

import pytest

import mmcc
from mmcc.results import LONG_LIST, compact_config
from mmcc.scenario import Scenario
from mmcc.traces import read_mahimahi


def _one_clean_error(r, *needles):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "internal" not in r.stderr and "panicked" not in r.stderr and "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


@pytest.mark.parametrize("sets, needles", [
    (['links.0.between=["router","client"]'], ["preset dumbbell: flows[0]: no path from node 'server'"]),
    (["record.bin=1ns"], ["record.bin", "at least 1us"]),
    (['links.0.between=[["server"],"router"]'], ["links[0].between[0]", "expected a node name"]),
    (["params=[1,2]"], ["params: expected a table"]),
    (["tcp.recv_truesize=100000"], ["flows[0].tcp.recv_truesize: 100000B is out of range", "allowed: 1B..65536B"]),
    (["tcp.recv_truesize=5GB"], ["tcp.recv_truesize: '5GB' is out of range", "at most 4GiB"]),
    (["tcp.rack=maybe"], ["tcp.rack: expected true or false, got 'maybe'"]),
    (["tcp.tso_defer=2"], ["tcp.tso_defer: expected true or false, got 2"]),
    (["tcp.send_buffer_truesize=yes"], ["tcp.send_buffer_truesize: expected true or false, got 'yes'"]),
    (["flows.0.app.write_size=0B"], ["flows[0].app.write_size: 0B is out of range"]),
    (["flows.0.app.rate=1Mbps"], ["flows[0].app.rate: only a rate application has this key"]),
    (["tcp.recv_buffer_initial=1KB"],
     ["flows[0].tcp.recv_buffer_initial: 1000B is out of range", "at least one segment (1448B)"]),
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


def test_a_large_trace_is_read_in_bounded_memory(tmp_path):
    """A trace is parsed in chunks: reading 60 MB of timestamps must not hold the file (or an
    integer per line) in memory; peak memory grows by well under the file's size."""
    big = tmp_path / "big.mm"
    per_ms = 1200  # 14.4 Gb/s of 1500-byte opportunities
    with open(big, "wb") as f:
        for ms in range(1, 10_001):
            f.write((f"{ms}\n" * per_ms).encode())
    size = big.stat().st_size
    assert size > 50e6
    code = ("import resource, sys; from mmcc.traces import read_mahimahi; "
            "base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss; "
            "c = read_mahimahi(sys.argv[1]); assert len(c) == 10000 and c[0] == 1200 and sum(c) == 12000000; "
            "print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024)")
    r = subprocess.run([sys.executable, "-c", code, str(big)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout) < size / 2, f"peak memory grew by {int(r.stdout):,} bytes for a {size:,}-byte trace"


def test_the_largest_topology_routes_in_linear_memory():
    """65,535 nodes (the most a scenario may have) with one short flow: routes are kept only for
    the flow's paths, not as a nodes x nodes table (which took gigabytes)."""
    code = ("import resource, mmcc; n = 65535; "
            "sc = {'name': 'big', 'duration': '0.1s', 'nodes': [f'n{i}' for i in range(n)], "
            "'links': [{'between': [f'n{i}', f'n{i + 1}'], 'rate': '100Mbps', 'delay': '1us'} for i in range(n - 1)], "
            "'flows': [{'from': 'n0', 'to': 'n2'}]}; "
            "r = mmcc.run(mmcc.Scenario.from_dict(sc)); assert r.flows.column('throughput_mbps')[0].as_py() > 50; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert int(r.stdout) < 1e9, f"peak memory {int(r.stdout):,} bytes"


def test_flows_above_the_limit_are_refused_early():
    from mmcc import _core
    from mmcc.scenario import MAX_FLOWS, ScenarioError

    one = {"name": "f", "duration": "1s", "nodes": ["a", "b"],
           "links": [{"between": ["a", "b"], "rate": "1Gbps", "delay": "1ms"}], "flows": [{"from": "a", "to": "b"}]}
    with pytest.raises(ScenarioError, match=f"flows: {MAX_FLOWS + 1} flows; allowed: at most {MAX_FLOWS}"):
        Scenario.from_dict({**one, "flows": [{"from": "a", "to": "b"}] * (MAX_FLOWS + 1)}).config
    cfg = json.loads(Scenario.from_dict(one).to_json())
    cfg["flows"] = cfg["flows"] * (MAX_FLOWS + 1)  # past the Python check: the core refuses it too
    with pytest.raises(ValueError, match=f"allowed: at most {MAX_FLOWS}"):
        _core.complete_config(json.dumps(cfg), [])


def test_long_lists_are_elided_from_output_metadata():
    cfg = {"radios": [{"trace_dl": list(range(LONG_LIST + 1)), "x": [1, 2]}]}
    out = compact_config(cfg)
    assert out["radios"][0]["x"] == [1, 2]
    el = out["radios"][0]["trace_dl"]
    assert el["elided_list"] == LONG_LIST + 1 and len(el["sha256"]) == 64


def test_link_utilization_counts_only_transmitted_bytes():
    """A 100 GB buffer holds seconds of queued packets at the end: they were not sent yet."""
    import mmcc
    sc = mmcc.Scenario.from_dict({
        "duration": "2s", "nodes": ["s", "c"],
        "links": [{"between": ["s", "c"], "rate": "10Mbps", "delay": "5ms",
                   "forward": {"queue": {"type": "droptail", "limit": "100GB"}}}],
        "tcp": {"send_buffer": "64MiB", "recv_buffer": "64MiB"},
        "flows": [{"from": "s", "to": "c", "cca": "newreno"}],
    })
    util = mmcc.run(sc).tables["links"].to_pydict()["utilization"]
    assert 0.95 < util[0] <= 1.0, util


def test_readme_python_snippet_runs(tmp_path, monkeypatch):
    """The README's Python example works with the declared dependencies only."""
    import re
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = re.search(r"```python\n(.*?)```", readme, re.S).group(1)
    code = "\n".join(line for line in block.splitlines() if "{...}" not in line)
    code = code.replace('duration="10s"', 'duration="1s"')
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "out" / "mine" / "run.json").is_file()


def test_outputs_stay_under_out(mmcc_cli, tmp_path):
    """A scenario cannot name an output file outside the run folder, nor a folder outside ./out."""
    base = tmp_path / "s.toml"
    text = ('duration = "0.2s"\nnodes = ["a", "b"]\n[[links]]\nbetween = ["a", "b"]\nrate = "10Mbps"\n'
            'delay = "1ms"\n[[flows]]\nfrom = "a"\nto = "b"\ncca = "newreno"\n')
    base.write_text(text + '[pcap]\nlink = 0\npath = "/tmp/elsewhere.pcap"\n')
    _one_clean_error(mmcc_cli("run", base, "--no-plot"), "pcap.path", "file name ending in .pcap")
    base.write_text('name = "../../x"\n' + text)
    _one_clean_error(mmcc_cli("run", base, "--no-plot"), "name", "no '..'")
    # a capture named in the scenario lands in --out; a symlink there is not followed
    base.write_text(text + '[pcap]\nlink = 0\npath = "cap.pcap"\n')
    out = tmp_path / "o"
    r = mmcc_cli("run", base, "--out", out, "--no-plot")
    assert r.returncode == 0 and (out / "cap.pcap").is_file() and "cap.pcap" in r.stdout, r.stderr
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (out / "cap.pcap").unlink()
    (out / "cap.pcap").symlink_to(victim)
    _one_clean_error(mmcc_cli("run", base, "--out", out, "--no-plot"), "not a regular file")
    assert victim.read_text() == "keep"


BAD_CCAS = '''
import mmcc
class NanReno(mmcc.CongestionControl):
    name = "nan-reno"
    def increase_window(self, cc, ack):
        cc.cwnd += ack["segments_acked"] * cc.mss
    def ssthresh(self, cc):
        return float("nan")
class Boom(mmcc.CongestionControl):
    name = "boom"
    def __init__(self):
        raise RuntimeError("no")
class NoName(mmcc.CongestionControl):
    name = 5
class Huge(mmcc.CongestionControl):
    name = "huge"
    def increase_window(self, cc, ack):
        cc.cwnd = 2**62
'''


@pytest.mark.parametrize("cls, needle", [
    ("NanReno", "ssthresh() returned nan"),
    ("Boom", "Boom: creating it failed: RuntimeError: no"),
    ("NoName", "NoName: its `name` must be a non-empty string"),
    ("Huge", "allowed: at most 1099511627776 bytes"),
])
def test_python_algorithm_faults_are_named(mmcc_cli, tmp_path, cls, needle):
    f = tmp_path / "bad.py"
    f.write_text(BAD_CCAS)
    r = mmcc_cli("run", "dumbbell", "--duration", "2s", "--set", 'links.1.forward.error={unit="packet",rate=0.01}',
                 "--cca", f"{f}:{cls}", "--no-plot", "--out", tmp_path / "o")
    assert r.returncode != 0 and needle in r.stderr and "internal error" not in r.stderr, r.stderr


def test_python_algorithm_file_that_exits_is_an_error(mmcc_cli, tmp_path):
    f = tmp_path / "exits.py"
    f.write_text("import sys\nsys.exit(0)\n")
    r = mmcc_cli("run", "dumbbell", "--duration", "1s", "--cca", f"{f}:X", "--no-plot")
    _one_clean_error(r, "SystemExit")


def test_algorithm_parameter_out_of_range(mmcc_cli):
    r = mmcc_cli("run", "dumbbell", "--duration", "1s", "--cca", "cubic", "--cca-param", "beta=1e9", "--no-plot")
    _one_clean_error(r, "parameter 'beta' of 'cubic'", "allowed: 0..1")


def test_ctrl_c_stops_a_long_run_with_partial_results(tmp_path):
    """SIGINT during a simulation of about a day (minutes of wall time on any machine): the run
    stops within seconds, writes what it has and marks it partial (exit status 130)."""
    import json
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path
    exe = Path(sys.executable).parent / "mmcc"
    out = tmp_path / "o"
    # SIGINT at its default in the child (a test runner started in the background ignores it,
    # and Python then keeps ignoring it, as it should)
    p = subprocess.Popen([str(exe), "run", "thesis-edge", "--duration", "100000s", "--no-plot", "--out", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    time.sleep(3)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130 and "partial" in err, err
    assert time.monotonic() - t0 < 30
    info = json.loads((out / "run.json").read_text())
    assert info["partial"].startswith("interrupted at ")


def test_sweep_columns_are_typed(tmp_path):
    """seed is an integer, parameters are numbers (PER 0 is 0.0 wherever it comes from), the
    duration is in seconds; SQL compares and sorts them as numbers, and now() works."""
    from mmcc.experiments.sweep import grid, query, run_sweep
    run_sweep(grid("thesis-edge", ccas=["newreno"], seeds=[1], params={"per": [0, 1e-7]}, duration="0.5s"),
              tmp_path, workers=1, progress=False)
    cols, rows = query(tmp_path, "SELECT seed, param_per, duration_s, typeof(seed), typeof(param_per) "
                                 "FROM runs WHERE param_per = 0")
    assert rows == [[1, 0.0, 0.5, "BIGINT", "DOUBLE"]], rows
    _, rows = query(tmp_path, "SELECT now() IS NOT NULL")
    assert rows == [[True]]


class _CrashingSpec:
    """A sweep entry whose run kills its worker process (as the out-of-memory killer would)."""

    def __init__(self, name):
        from mmcc.experiments.sweep import RunSpec
        self.inner = RunSpec("dumbbell", cca="newreno", duration="0.2s")
        self.name = name

    def run_id(self):
        return f"crash-{self.name}"

    def describe(self):
        return {"scenario": "crash", "cca": "none", "seed": 0, "duration_s": 0.0}

    def scenario_obj(self):
        import os
        import signal
        os.kill(os.getpid(), signal.SIGKILL)


def test_a_run_that_kills_its_worker_fails_alone(tmp_path):
    """A worker killed mid-run breaks the process pool: the sweep records that run as failed
    (error.json), finishes every other run, and a re-run skips the finished ones."""
    import json
    from mmcc.experiments.sweep import grid, run_sweep
    good = grid("dumbbell", ccas=["newreno", "cubic", "bic"], seeds=[1], duration="0.2s")
    specs = good[:2] + [_CrashingSpec("a")] + good[2:]
    res = run_sweep(specs, tmp_path, workers=2, progress=False)
    assert res == {"ran": 4, "skipped": 0, "failed": 1}, res
    err = json.loads((tmp_path / "runs" / "crash-a" / "error.json").read_text())
    assert "worker process died" in err["error"]
    assert len(list((tmp_path / "runs").glob("*/summary.parquet"))) == 3
    assert run_sweep(good, tmp_path, workers=2, progress=False) == {"ran": 0, "skipped": 3, "failed": 0}


def test_a_run_over_its_time_limit_is_recorded_and_the_sweep_goes_on(tmp_path):
    import json
    from mmcc.experiments.sweep import RunSpec, run_sweep
    slow = RunSpec("thesis-edge", cca="newreno", duration="100000s")
    quick = RunSpec("dumbbell", cca="newreno", duration="0.2s")
    res = run_sweep([slow, quick], tmp_path, workers=2, progress=False, time_limit=2.0)
    assert res["failed"] == 1 and res["ran"] == 2
    err = json.loads((tmp_path / "runs" / slow.run_id() / "error.json").read_text())
    assert "time limit exceeded" in err["error"]
    assert (tmp_path / "runs" / quick.run_id() / "summary.parquet").is_file()


def test_corrupt_summary_and_concurrent_sweeps(tmp_path):
    """A corrupt or foreign summary.parquet is skipped with a warning (query and summaries still
    work); a second sweep on the same folder is refused while the first holds it; temporary files
    of a killed sweep are cleaned up."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from mmcc.experiments.sweep import _lock, grid, load_summaries, query, run_sweep
    specs = grid("dumbbell", ccas=["newreno"], seeds=[1], duration="0.2s")
    run_sweep(specs, tmp_path, workers=1, progress=False)
    (tmp_path / "runs" / "junk").mkdir()
    (tmp_path / "runs" / "junk" / "summary.parquet").write_bytes(b"not parquet")
    (tmp_path / "runs" / "foreign").mkdir()
    pq.write_table(pa.table({"x": [1]}), tmp_path / "runs" / "foreign" / "summary.parquet")
    assert load_summaries(tmp_path).num_rows == 1
    assert query(tmp_path, "SELECT count(*) FROM runs")[1] == [[1]]
    stale = tmp_path / "runs" / "junk" / ".summary.parquet.abc.tmp"
    stale.write_bytes(b"x")
    held = _lock(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="another sweep is writing this folder"):
            run_sweep(specs, tmp_path, workers=1, progress=False)
    finally:
        held.close()
    assert run_sweep(specs, tmp_path, workers=1, progress=False)["skipped"] == 1
    assert not stale.exists()


def test_fuzz_target_finds_no_crash_or_hang():
    """The project's fuzz target (python -m mmcc.fuzz), bounded: 10,000 mutated scenarios and
    trace files, each a clean rejection naming the key or a run to the end."""
    from mmcc.fuzz import fuzz
    t = fuzz(10_000, seed=7)
    assert t.cases == 10_000 and t.ran > 300 and t.rejected > 5_000
    assert not t.crashes and not t.hangs, (t.crashes[:5], t.hangs[:5])


def test_docs_stand_alone_in_a_clone():
    """No document or source file points outside the repository (../shared/...), and every
    relative link of the README and docs resolves."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    files = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for f in files + sorted((root / "crates").rglob("*.rs")) + sorted((root / "python").rglob("*.py")):
        assert "../shared" not in f.read_text(), f
    for f in files:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", f.read_text()):
            if "://" in target:
                continue
            assert (f.parent / target).exists(), f"{f.name}: dead link {target}"


def test_reproductions_and_sweeps_write_summary_csv(tmp_path):
    import csv
    from mmcc.experiments.sweep import grid, run_sweep
    run_sweep(grid("dumbbell", ccas=["newreno", "cubic"], seeds=[1], duration="0.2s"), tmp_path, workers=1,
              progress=False)
    rows = list(csv.DictReader((tmp_path / "summary.csv").open()))
    assert sorted(r["cca"] for r in rows) == ["cubic", "newreno"]


def test_unreachable_ray_cluster_fails_fast_and_writes_nothing(mmcc_cli, tmp_path):
    import time
    t0 = time.monotonic()
    r = mmcc_cli("sweep", "dumbbell", "--cca", "newreno", "--seeds", "1", "--duration", "0.1s", "--backend", "ray",
                 "--address", "127.0.0.1:1", "--out", tmp_path / "s")
    assert r.returncode != 0 and "cannot reach the Ray cluster at 127.0.0.1:1" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 30 and not (tmp_path / "s").exists()


def test_ray_address_of_a_silent_server_fails_fast_and_ipv6_parses(mmcc_cli, tmp_path):
    import socket
    import threading
    import time

    from mmcc.experiments.sweep import _probe_ray, parse_address

    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    held = []  # connections stay open: the server accepts and says nothing

    def accept_all():
        while True:
            held.append(srv.accept())

    threading.Thread(target=accept_all, daemon=True).start()
    t0 = time.monotonic()
    r = mmcc_cli("sweep", "dumbbell", "--cca", "newreno", "--seeds", "1", "--duration", "0.1s", "--backend", "ray",
                 "--address", f"127.0.0.1:{srv.getsockname()[1]}", "--out", tmp_path / "s")
    assert r.returncode != 0 and "does not speak gRPC" in r.stderr, r.stderr
    assert time.monotonic() - t0 < 15 and not (tmp_path / "s").exists()
    assert parse_address("[::1]:6379") == ("::1", 6379) and parse_address("ray://head:10001") == ("head", 10001)
    with pytest.raises(ValueError, match="in brackets"):
        parse_address("::1:6379")
    # a server that accepts and closes at once is no Ray head node either
    quiet = socket.socket()
    quiet.bind(("127.0.0.1", 0))
    quiet.listen()
    threading.Thread(target=lambda: quiet.accept()[0].close(), daemon=True).start()
    with pytest.raises(RuntimeError, match="does not speak gRPC"):
        _probe_ray(f"127.0.0.1:{quiet.getsockname()[1]}")


def test_a_local_ray_instance_refuses_clients_without_its_token(tmp_path):
    """Ray's servers listen on every interface (Ray has no loopback-only binding): the local
    instance mmcc starts must refuse a client that does not hold its token."""
    import importlib.util
    import socket

    if importlib.util.find_spec("ray") is None:
        pytest.skip("ray is not installed")

    from mmcc.experiments.sweep import _probe_ray, init_ray

    saved = os.environ.get("RAY_AUTH_MODE")
    try:
        ctx = init_ray(None, 1)
        import ray

        gcs = ctx.address_info["gcs_address"]
        _probe_ray(gcs)  # the probe recognises a real head node
        host = gcs.rpartition(":")[0]
        with socket.create_connection((host, int(gcs.rpartition(":")[2])), timeout=5):
            pass  # reachable on a non-loopback address: authentication is what protects it
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
        env.update(RAY_AUTH_MODE="disabled", HOME=str(tmp_path))
        r = subprocess.run([sys.executable, "-c", f"import ray; ray.init(address={gcs!r}); print('CONNECTED')"],
                           env=env, capture_output=True, text=True, timeout=120)
        assert r.returncode != 0 and "CONNECTED" not in r.stdout and "token" in r.stderr.lower(), r.stderr[-2000:]
    finally:
        sys.modules["ray"].shutdown() if "ray" in sys.modules else None
        if saved is None:
            os.environ.pop("RAY_AUTH_MODE", None)
        else:
            os.environ["RAY_AUTH_MODE"] = saved
    os.environ["RAY_AUTH_MODE"] = "disabled"
    try:
        with pytest.raises(RuntimeError, match="needs token authentication"):
            init_ray(None, 1)
    finally:
        os.environ.pop("RAY_AUTH_MODE", None) if saved is None else os.environ.__setitem__("RAY_AUTH_MODE", saved)


def test_valid_but_suspicious_values_warn(mmcc_cli, tmp_path):
    r = mmcc_cli("run", "thesis-edge", "--duration", "0.5s", "--param", "rlc_buffer=20", "--param", "per=0.5",
                 "--no-plot", "--out", tmp_path)
    assert r.returncode == 0, r.stderr
    assert "rlc_buffer.limit: 20 is 20 bytes" in r.stderr and "0.5 per byte loses 100 % of 1500-byte packets" in r.stderr
    # the warning follows the packet loss a rate gives, not the raw value: 1e-3 per byte loses 78 %
    # of 1500-byte packets, 1e-5 per byte 1.5 % (no warning)
    r = mmcc_cli("run", "thesis-edge", "--duration", "0.1s", "--param", "per=1e-3", "--no-plot", "--out", tmp_path)
    assert "0.001 per byte loses 78 % of 1500-byte packets" in r.stderr
    r = mmcc_cli("run", "thesis-edge", "--duration", "0.1s", "--param", "per=1e-5", "--no-plot", "--out", tmp_path)
    assert "loses" not in r.stderr
    r = mmcc_cli("run", "dumbbell", "--set", "links.1.rate=1e-9bps", "--duration", "0.1s", "--no-plot")
    assert r.returncode == 2 and "links[1].rate: must be positive; allowed: at least 1bps" in r.stderr


def test_runs_get_their_own_folder_and_stale_files_go(mmcc_cli, tmp_path):
    r1 = mmcc_cli("run", "dumbbell", "--duration", "0.2s", "--cca", "cubic", "--no-plot", cwd=tmp_path)
    r2 = mmcc_cli("run", "dumbbell", "--duration", "0.2s", "--cca", "bbr", "--no-plot", cwd=tmp_path)
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    # a folder per algorithm (and, with --duration given, the same hash of it on both)
    (cubic,) = (tmp_path / "out").glob("dumbbell-cubic-s1-*")
    (bbr,) = (tmp_path / "out").glob("dumbbell-bbr-s1-*")
    assert (cubic / "run.json").is_file() and (bbr / "run.json").is_file()
    assert cubic.name.rsplit("-", 1)[1] == bbr.name.rsplit("-", 1)[1]
    # the same folder again without figures: the old figure is removed, not left beside new tables
    out = tmp_path / "o"
    assert mmcc_cli("run", "dumbbell", "--duration", "0.2s", "--out", out).returncode == 0
    assert (out / "overview.png").is_file()
    assert mmcc_cli("run", "dumbbell", "--duration", "0.2s", "--out", out, "--no-plot").returncode == 0
    assert not (out / "overview.png").exists() and (out / "run.json").is_file()


def test_buffer_limited_flows_are_flagged(mmcc_cli, tmp_path):
    """A 64 KB receive buffer on a 100 Mb/s, 40 ms path caps the flow: the summary says so."""
    f = tmp_path / "s.toml"
    f.write_text('duration = "2s"\nnodes = ["a", "b"]\n[[links]]\nbetween = ["a", "b"]\nrate = "100Mbps"\n'
                 'delay = "20ms"\n[tcp]\nrecv_buffer = "64KB"\n[[flows]]\nfrom = "a"\nto = "b"\ncca = "cubic"\n')
    r = mmcc_cli("run", f, "--no-plot", "--out", tmp_path / "o")
    assert r.returncode == 0 and "flow 0 was limited by the receive window" in r.stderr, r.stderr
    g = tmp_path / "g.toml"
    g.write_text(f.read_text().replace('recv_buffer = "64KB"', 'recv_buffer = "64MiB"'))
    r = mmcc_cli("run", g, "--no-plot", "--out", tmp_path / "p")
    assert r.returncode == 0 and "limited by" not in r.stderr, r.stderr


def test_unreadable_scenarios_and_secret_traces(mmcc_cli, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_bytes(b"\xff\xfe not utf-8")
    _one_clean_error(mmcc_cli("run", bad), "not a UTF-8 text file")
    secret = tmp_path / "secret.mm"
    secret.write_text("root:hunter2\n")
    sc = tmp_path / "t.toml"
    sc.write_text(f'duration="1s"\nnodes=["a","b"]\n[[radios]]\ngnb="a"\nue="b"\ntrace="{secret}"\n'
                  '[[flows]]\nfrom="a"\nto="b"\ncca="newreno"\n')
    r = mmcc_cli("run", sc)
    _one_clean_error(r, "secret.mm:1")
    assert "hunter2" not in r.stderr


@pytest.mark.parametrize("send_buffer", ["1400B", "1460B", "2800B"])
def test_paced_sender_with_a_tiny_send_buffer_keeps_its_skbs_consistent(send_buffer):
    """The linux profile's BBR (paced) with a rate application and a send buffer of one or two
    segments: every segment is acknowledged before the next is written, and the next one begins
    a new skb (the acknowledged one was freed) instead of continuing it. It stopped with an
    internal invariant ("the head begins no skb") before."""
    raw = {"name": "inv", "duration": "1s", "nodes": ["s", "c"],
           "links": [{"between": ["s", "c"], "rate": "100Mbps", "delay": "5ms"}],
           "tcp": {"segment_size": "1400B", "send_buffer": send_buffer},
           "flows": [{"from": "s", "to": "c", "cca": "bbr",
                      "app": {"type": "rate", "rate": "10Mbps", "write_size": "1400B"}}]}
    f = mmcc.run(Scenario.from_dict(raw, source="inv")).flows.to_pydict()
    assert f["delivered_bytes"][0] > 0 and f["tcp_profile"][0] == "linux"


def test_first_use_errors_are_one_clear_line_before_anything_runs(mmcc_cli, tmp_path):
    """--out that is a file or cannot be created fails at once (nothing simulated, nothing lost);
    the fuzz target has a real argument parser; from_dict takes only a table; validate takes
    durations with units; the testbed's advice for a radio scenario is a command that works."""
    afile = tmp_path / "afile.txt"
    afile.write_text("keep")
    for out, needle in ((afile, "exists and is not a folder"), (afile / "sub", "cannot create the folder")):
        r = mmcc_cli("run", "dumbbell", "--duration", "0.2s", "--no-plot", "--out", out)
        assert r.returncode == 2 and needle in r.stderr and r.stdout == "", (r.stdout, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
    assert afile.read_text() == "keep"
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "mmcc.fuzz", "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and "usage: python -m mmcc.fuzz" in p.stdout
    p = subprocess.run([sys.executable, "-m", "mmcc.fuzz", "many"], capture_output=True, text=True)
    assert p.returncode == 2 and "invalid int value: 'many'" in p.stderr and "Traceback" not in p.stderr
    with pytest.raises(mmcc.ScenarioError, match="a scenario is a table of keys .* got int"):
        Scenario.from_dict(5)
    r = mmcc_cli("validate", "mmwave", "--duration", "7s", "--cca", "newreno", "--store", tmp_path, "--out", tmp_path / "v")
    assert r.returncode == 2 and "newreno-edge-0.25MiB-0-s1-7s" in r.stderr  # 7 s understood
    r = mmcc_cli("validate", "ns3", "--duration", "7parsec")
    assert r.returncode == 2 and 'unknown time unit "parsec"' in r.stderr
    from mmcc.testbed.run import TestbedError, plan

    with pytest.raises(TestbedError, match=r"`mmcc run SCENARIO --out RUN`.*`mmcc export-trace RUN --out"):
        plan(mmcc.scenario.load("thesis-edge").config)


def test_default_output_folders_do_not_overwrite_runs_with_other_parameters(mmcc_cli, tmp_path):
    """`out/<scenario>-<cca>-s<seed>` gains a short hash of --param, --set, --duration and
    --cca-param when any is given, so the README's comparisons keep each run."""
    folders = []
    for extra in ([], ["--set", "links.1.forward.queue.limit=250KB"], ["--set", "links.1.forward.queue.limit=5MB"]):
        r = mmcc_cli("run", "dumbbell", "--duration", "0.1s", "--no-plot", *extra, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        folders.append(r.stdout.strip().splitlines()[-1].split(" to ")[-1].rstrip("/"))
    assert len(set(folders)) == 3 and all(f.startswith("out/dumbbell-newreno-s1-") for f in folders)
    r = mmcc_cli("run", "dumbbell", "--seed", "2", "--duration", "0.1s", "--no-plot", cwd=tmp_path)
    assert r.stdout.strip().endswith("out/dumbbell-newreno-s2-5c0f9c94/")  # the same --duration: the same folder


def test_error_lines_stay_readable_whatever_the_input_echoes(mmcc_cli, tmp_path):
    """An error that echoes a huge or odd user value is one line of at most ERROR_CHARS
    characters with its beginning and end, and control characters escaped."""
    from mmcc.scenario import ERROR_CHARS

    names = [f"n{i}" for i in range(70_000)]
    f = tmp_path / "big.toml"
    f.write_text(f'duration = "1s"\nnodes = {names!r}\n'.replace("'", '"') +
                 '[[links]]\nbetween = ["n0", "nope"]\nrate = "1Mbps"\ndelay = "1ms"\n')
    r = mmcc_cli("run", f, "--no-plot", "--out", tmp_path / "o")
    line = r.stderr.strip()
    assert r.returncode == 2 and len(line.splitlines()) == 1 and len(line) <= ERROR_CHARS + len("error: ")
    g = tmp_path / "esc.toml"
    g.write_text('duration = "1s"\nnodes = ["a", "b"]\n[[links]]\nbetween = ["a", "z\\u001b[31mred"]\n'
                 'rate = "1Mbps"\ndelay = "1ms"\n[[flows]]\nfrom = "a"\nto = "b"\n')
    r = mmcc_cli("run", g, "--no-plot", "--out", tmp_path / "o2")
    assert r.returncode == 2 and "\x1b" not in r.stderr and "\\x1b" in r.stderr, r.stderr
