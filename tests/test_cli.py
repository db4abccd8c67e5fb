import json
import struct

import pyarrow.parquet as pq


def test_help_and_listing(mmcc_cli):
    r = mmcc_cli("--help")
    assert r.returncode == 0 and "mmcc run" in r.stdout
    r = mmcc_cli("presets")
    assert r.returncode == 0 and "dumbbell" in r.stdout
    r = mmcc_cli("algorithms")
    assert r.returncode == 0 and "newreno" in r.stdout and "RFC 5681" in r.stdout


def test_bad_scenario_file_gives_one_line_and_nonzero_exit(mmcc_cli, tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('duration = "2.5 parsecs"\nnodes = ["a", "b"]\nlinks = []\nflows = []\n')
    r = mmcc_cli("run", p)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"error: {p}: duration:") and "parsecs" in lines[0] and "accepted units" in lines[0]
    assert "Traceback" not in r.stderr


def test_usage_errors_are_one_line(mmcc_cli, small_toml):
    for args in (["run"], ["run", small_toml, "--seed", "x"], ["frobnicate"], ["run", "nonexistent-preset"],
                 ["run", small_toml, "--cca", "warp"], ["run", small_toml, "--cca-param", "beta=1"],
                 ["run", small_toml, "--set", "links.9.rate=1Gbps"], ["run", small_toml, "--pcap", "x"]):
        r = mmcc_cli(*args)
        assert r.returncode != 0, args
        assert len(r.stderr.strip().splitlines()) == 1, (args, r.stderr)
        assert r.stderr.startswith("error:"), (args, r.stderr)
        assert "Traceback" not in r.stderr


def test_run_writes_summary_parquet_and_png(mmcc_cli, small_toml, tmp_path):
    out = tmp_path / "out"
    r = mmcc_cli("run", small_toml, "--seed", "3", "--out", out)
    assert r.returncode == 0, r.stderr
    assert "newreno" in r.stdout and "thr Mb/s" in r.stdout
    for t in ("flows", "series", "cwnd", "events", "rtt_hist", "owd_hist", "drops", "links"):
        assert (out / f"{t}.parquet").is_file(), t
    png = (out / "overview.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    info = json.loads((out / "run.json").read_text())
    assert info["seed"] == 3 and info["config"]["duration"] == 2 * 10**9
    series = pq.read_table(out / "series.parquet")
    assert series.num_rows == 20  # 2 s in 100 ms bins
    assert {"t_s", "throughput_mbps", "cwnd_bytes", "cwnd_segments", "rtt_mean_ms"} <= set(series.column_names)
    assert pq.read_table(out / "flows.parquet").schema.metadata[b"seed"] == b"3"


def test_trace_and_pcap(mmcc_cli, small_toml, tmp_path):
    out = tmp_path / "o"
    r = mmcc_cli("run", small_toml, "--trace", "--pcap", "1:forward", "--out", out, "--no-plot")
    assert r.returncode == 0, r.stderr
    rtt = pq.read_table(out / "rtt_trace.parquet")
    assert rtt.num_rows > 1000
    data = (out / "capture.pcap").read_bytes()
    magic, vmaj, vmin, _, _, snap, link = struct.unpack("<IHHiIII", data[:24])
    assert (magic, vmaj, vmin, link) == (0xA1B23C4D, 2, 4, 101)
    # walk the records: IPv4 / TCP, data segments from 10.0.0.2 (router) ... to 10.0.0.3
    off, n, payload = 24, 0, 0
    while off < len(data):
        sec, ns, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        pkt = data[off + 16: off + 16 + incl]
        assert pkt[0] == 0x45 and pkt[9] == 6
        ihl = 20
        tcp_hlen = (pkt[ihl + 12] >> 4) * 4
        payload += orig - ihl - tcp_hlen
        n += 1
        off += 16 + incl
    assert n > 1000
    flows = pq.read_table(out / "flows.parquet").to_pylist()[0]
    # every data byte the receiver got crossed this link (plus retransmissions)
    assert payload >= flows["delivered_bytes"]


def test_written_files_follow_the_umask(mmcc_cli, small_toml, tmp_path):
    import os
    import stat

    out = tmp_path / "perm"
    r = mmcc_cli("run", small_toml, "--out", out, "--no-plot")
    assert r.returncode == 0, r.stderr
    umask = os.umask(0)
    os.umask(umask)
    mode = stat.S_IMODE((out / "flows.parquet").stat().st_mode)
    assert mode == 0o666 & ~umask


def _many_flows(tmp_path, n, record=""):
    from .conftest import SMALL

    flows = "".join(f'[[flows]]\nfrom = "a"\nto = "b"\nstart = "{i}ms"\n' for i in range(n))
    p = tmp_path / f"flows{n}.toml"
    p.write_text(SMALL.replace('duration = "2s"', 'duration = "1s"').split("[[flows]]")[0] + record + flows)
    return p


def test_many_flows_are_recorded_together_with_their_spread(mmcc_cli, tmp_path):
    # more than 100 flows: the series for all flows together (flow_id -1), the spread across
    # flows per bin, no per-flow cwnd points, and the figure of the spread
    r = mmcc_cli("run", _many_flows(tmp_path, 101), "--out", tmp_path / "agg")
    assert r.returncode == 0, r.stderr
    # the summary lists ten flows and a line on all of them, not 101 rows
    assert "... 91 more flows in the flows table; all 101 flows: total" in r.stdout and "Jain's index" in r.stdout
    assert len(r.stdout.splitlines()) < 20, r.stdout
    se = pq.read_table(tmp_path / "agg" / "series.parquet").to_pydict()
    assert se["flow_id"] == [-1] * 10
    sp = pq.read_table(tmp_path / "agg" / "spread.parquet").to_pydict()
    assert sp["flows"][-1] == 101 and all(0 < j <= 1 for j in sp["jain_index"][1:])
    assert all(a <= b <= c for a, b, c in zip(sp["throughput_p10_mbps"], sp["throughput_p50_mbps"], sp["throughput_p90_mbps"]))
    assert pq.read_table(tmp_path / "agg" / "cwnd.parquet").num_rows == 0
    assert (tmp_path / "agg" / "overview.png").stat().st_size > 10_000
    flows = pq.read_table(tmp_path / "agg" / "flows.parquet").to_pydict()
    # the flows' delivered bytes add up to the series' (the aggregate loses nothing)
    assert sum(flows["delivered_bytes"]) == sum(se["delivered_bytes"])
    # asked per flow: a row per flow and bin, no spread
    p = _many_flows(tmp_path, 101, '[record]\nseries = "per-flow"\n')
    r = mmcc_cli("run", p, "--no-plot", "--out", tmp_path / "per")
    assert r.returncode == 0, r.stderr
    assert pq.read_table(tmp_path / "per" / "series.parquet").num_rows == 1010
    assert not (tmp_path / "per" / "spread.parquet").exists()
    bad = _many_flows(tmp_path, 2, '[record]\nseries = "both"\n')
    r = mmcc_cli("run", bad, "--no-plot", "--out", tmp_path / "bad")
    assert r.returncode == 2 and "record.series" in r.stderr and "per-flow" in r.stderr, r.stderr


def test_importing_mmcc_or_asking_for_help_loads_no_arrow(tmp_path):
    # numpy and pyarrow (about 0.15 s) load when a run's tables are made, not at import
    import subprocess
    import sys

    code = ("import sys, mmcc, mmcc.cli; s = mmcc.load('dumbbell'); "
            "assert 'pyarrow' not in sys.modules and 'numpy' not in sys.modules, sorted(sys.modules); "
            "mmcc.run; assert 'pyarrow' in sys.modules")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_a_sweep_of_many_flows_keeps_the_spread_and_reads_no_missing_flow_rows(tmp_path):
    # a sweep run of more than 100 flows writes spread.parquet; the first-3-s duplicate-ACK
    # ratio, which needs flow 0's own series, is NaN rather than a 0 read from missing rows
    import math

    from mmcc.experiments.sweep import grid, load_summaries, run_sweep

    runs = grid(str(_many_flows(tmp_path, 101)), seeds=[1])
    run_sweep(runs, tmp_path / "sw", workers=1, progress=False)
    (d,) = (tmp_path / "sw" / "runs").iterdir()
    assert (d / "spread.parquet").exists()
    row = load_summaries(tmp_path / "sw").to_pylist()[0]
    assert math.isnan(row["dupack_per_packet_first_3s"]) and row["flows"] == 101
