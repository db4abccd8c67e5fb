"""Sweeps, tables and reports."""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mmcc.experiments.sweep import RunSpec, grid, jain_index, load_summaries, run_sweep
from mmcc.experiments.tables import (latency_improvement, markdown, paired_improvement, pivot, throughput_improvement,
                                    write_table)

VOLATILE = {"wall_s"}


def _rows(out):
    return [{k: v for k, v in r.items() if k not in VOLATILE} for r in load_summaries(out).to_pylist()]


def test_improvement_and_jain_arithmetic():
    assert throughput_improvement(150.0, 100.0) == 50.0
    assert latency_improvement(20.0, 25.0) == 20.0  # (25 - 20) / 25
    assert jain_index([10, 10, 10, 10]) == 1.0
    assert abs(jain_index([1, 0, 0, 0]) - 0.25) < 1e-12
    assert abs(jain_index([3, 1]) - 16 / 20) < 1e-12  # (3+1)^2 / (2 (9+1))
    rows = [{"cca": "x", "c": "a", "seed": 1, "t": 150.0}, {"cca": "b", "c": "a", "seed": 1, "t": 100.0},
            {"cca": "x", "c": "a", "seed": 2, "t": 250.0}, {"cca": "b", "c": "a", "seed": 2, "t": 100.0}]
    table = pivot(rows, "t", "cca", "c", ["x", "b"], ["a"])
    assert table[2] == [[200.0], [100.0]]  # means over repetitions
    imp = paired_improvement(rows, "t", "x", ["b"], "c", ["a"], lower_is_better=False)
    assert imp.rows == ["x vs b"] and imp.values == [[100.0]]


def test_tables_show_the_seed_spread_and_improvements_are_paired_by_seed(tmp_path):
    rows = [{"cca": "x", "c": "a", "seed": 1, "t": 150.0}, {"cca": "b", "c": "a", "seed": 1, "t": 100.0},
            {"cca": "x", "c": "a", "seed": 2, "t": 240.0}, {"cca": "b", "c": "a", "seed": 2, "t": 200.0}]
    table = pivot(rows, "t", "cca", "c", ["x", "b"], ["a"])
    assert (table.lo, table.hi, table.n) == ([[150.0], [100.0]], [[240.0], [200.0]], [[2], [2]])
    md = markdown(table, "algorithm", "{:.0f}")
    assert "| x | 195 (150-240) |" in md and "| b | 150 (100-200) |" in md
    # per seed: +50 % and +20 %, so mean 35 % in [20, 50]; from the means it would be +30 %
    imp = paired_improvement(rows, "t", "x", ["b"], "c", ["a"], lower_is_better=False)
    assert imp.rows == ["x vs b"] and abs(imp.values[0][0] - 35.0) < 1e-9
    assert (imp.lo[0][0], imp.hi[0][0]) == (20.0, 50.0)
    lat = paired_improvement(rows, "t", "x", ["b"], "c", ["a"], lower_is_better=True)
    assert abs(lat.values[0][0] - (-35.0)) < 1e-9  # (B - X) / B
    paths = write_table(table, "algorithm", tmp_path / "t")
    assert [p.name for p in paths] == ["t.csv", "t.md", "t_long.csv"]
    assert (tmp_path / "t_long.csv").read_text().splitlines()[1] == "x,a,195,150,240,2"


def _specs():
    return grid("dumbbell", ccas=["newreno", "cubic", "bbr"], seeds=[1, 2],
                params={}, sets={"links.1.forward.error": [{"unit": "packet", "rate": 1e-3}]}, duration="2s")


def test_same_sweep_on_one_worker_all_cores_and_local_ray_gives_identical_results(tmp_path):
    specs = _specs()
    a = run_sweep(specs, tmp_path / "one", workers=1, progress=False)
    b = run_sweep(specs, tmp_path / "two", workers=2, progress=False)
    c = run_sweep(specs, tmp_path / "ray", workers=2, progress=False, backend="ray")
    assert a == b == c == {"ran": 6, "skipped": 0, "failed": 0}
    assert _rows(tmp_path / "one") == _rows(tmp_path / "two") == _rows(tmp_path / "ray")
    # and a second pass skips everything
    assert run_sweep(specs, tmp_path / "one", workers=2, progress=False) == {"ran": 0, "skipped": 6, "failed": 0}


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    good = RunSpec("dumbbell", cca="newreno", duration="1s")
    bad = RunSpec("dumbbell", cca="newreno", duration="1s", sets=(("links.1.rate", "fast"),))
    with pytest.raises(ValueError):
        bad.run_id()  # an invalid spec cannot even be keyed: the CLI refuses it up front
    bad2 = RunSpec("dumbbell", cca="newreno", duration="1s", sets=(("links.1.forward.queue.limit", "0B"),))
    res = run_sweep([good, bad2], tmp_path, workers=1, progress=False)
    assert res["ran"] == 2
    errors = list((tmp_path / "runs").glob("*/error.json"))
    assert res["failed"] == len(errors)
    assert len(_rows(tmp_path)) == 2 - len(errors)


def test_sweep_killed_with_sigkill_resumes_without_lost_or_duplicated_rows(tmp_path):
    exe = Path(sys.executable).parent / "mmcc"
    args = [str(exe), "sweep", "dumbbell", "--cca", "newreno,cubic,bbr,vegas", "--seeds", "3", "--duration", "3s",
            "--workers", "2", "--set", "links.1.forward.error={unit=\"packet\",rate=1e-3}"]
    killed = tmp_path / "killed"
    p = subprocess.Popen(args + ["--out", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.time() + 60
    while time.time() < deadline and len(list((killed / "runs").glob("*/summary.parquet"))) < 3:
        assert p.poll() is None, "the sweep ended before it could be killed"
        time.sleep(0.05)
    os.killpg(p.pid, signal.SIGKILL)  # the sweep and its workers, mid-flight
    p.wait()
    done_before = len(list((killed / "runs").glob("*/summary.parquet")))
    assert 3 <= done_before < 12, done_before
    r = subprocess.run(args + ["--out", str(killed)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"{12 - done_before} run, {done_before} already done" in r.stdout
    clean = tmp_path / "clean"
    r = subprocess.run(args + ["--out", str(clean)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a, b = _rows(killed), _rows(clean)
    assert len(a) == 12 and len({x["run_id"] for x in a}) == 12
    assert a == b
    # no temporary files left behind by the killed writes are counted as results
    assert not list((killed / "runs").glob("*/summary.parquet.*"))


def test_reproduce_writes_a_report_that_references_every_figure(mmcc_cli, tmp_path):
    out = tmp_path / "rep"
    # a trained policy reported beside the thesis' algorithms (mmcc.gym; here a rule in Python)
    policy = tmp_path / "hold.py"
    policy.write_text('SPEC = {"observation": "basic", "base": "cubic"}\ndef act(obs):\n    return 0.0\n')
    r = mmcc_cli("reproduce", "thesis", "--quick", "--duration", "3s", "--out", out, "--cca", f"policy:{policy}")
    assert r.returncode == 0, r.stderr
    html = (out / "report.html").read_text()
    srcs = re.findall(r'src="([^"]+)"', html)
    assert len(srcs) >= 5
    for s in srcs:
        assert (out / s).is_file(), s
    for figure in (out / "figures").glob("*.png"):
        assert f"figures/{figure.name}" in html, figure.name
    for t in ("throughput", "latency", "improvement_throughput_rttv", "improvement_latency_msscca", "dupack_ratio"):
        assert (out / "tables" / f"{t}.csv").is_file() and (out / "tables" / f"{t}.md").is_file()
    assert "mmcc" in html and "seed" in html
    # every metric defined, every figure captioned, the deviations of the family included
    assert "<h2>Definitions</h2>" in html and "(X - B) / B x 100" in html
    assert html.count("<figcaption>") == len(srcs) and "grey: NLoS" in html
    assert "Deviations from the publication" in html and "BuildingsObstaclePropagationLossModel" in html
    # which simulator the numbers come from, and where the agreement with ns3-mmwave is
    assert "Every number here is mmcc" in html and "The mmWave path against ns3-mmwave" in html
    # the layout of the publication: PER rows inside buffer groups (16 conditions), one column per
    # algorithm (8)
    lines = (out / "tables" / "throughput.csv").read_text().strip().splitlines()
    assert len(lines) == 17 and lines[0].split(",")[:3] == ["condition", "newreno", "highspeed"]
    assert lines[0].split(",")[-1] == f"policy:{policy}" and float(lines[1].split(",")[-1]) > 0
    assert [x.split(",")[0] for x in lines[1:5]] == [f"edge 0.25MiB PER {p}" for p in ("0", "1e-09", "1e-08", "1e-07")]
    imp = (out / "tables" / "improvement_throughput_rttv.csv").read_text().splitlines()
    assert imp[0].startswith("condition,rttv vs newreno,") and len(imp) == 17
    # one colour per algorithm in every figure; the thesis' cwnd figure draws each run to its end
    from mmcc.plots import algorithm_color

    assert algorithm_color("cubic") != algorithm_color("newreno") and algorithm_color("dtcp+sinr") != "0.5"


def test_cli_value_lists_keep_inline_tables_whole():
    from mmcc.cli import _values

    assert _values('1MB, 2MB') == ["1MB", "2MB"]
    assert _values('{unit="packet",rate=1e-3},{unit="byte",rate=1e-7}') == [
        {"unit": "packet", "rate": 1e-3}, {"unit": "byte", "rate": 1e-7}]


def test_unknown_publication_is_a_clear_error(mmcc_cli, tmp_path):
    r = mmcc_cli("reproduce", "nature2030")
    assert r.returncode == 2 and "'nature2030' is not available; available: thesis, siddiqui, dtcp, mmstcp" in r.stderr
    r = mmcc_cli("reproduce", "thesis", "--cca", "nope", "--out", tmp_path / "a")
    assert r.returncode == 2 and "unknown congestion control algorithm 'nope'" in r.stderr
    r = mmcc_cli("reproduce", "mmstcp", "--cca", "cubic", "--out", tmp_path / "b")
    assert r.returncode == 2 and "--cca adds algorithms to the thesis reproduction only" in r.stderr


def test_reproduce_mmstcp_tables(mmcc_cli, tmp_path):
    out = tmp_path / "m"
    r = mmcc_cli("reproduce", "mmstcp", "--quick", "--duration", "2s", "--out", out)
    assert r.returncode == 0, r.stderr
    for t in ("throughput", "dupack_ratio", "jain_2flows", "jain_5flows"):
        lines = (out / "tables" / f"{t}.csv").read_text().strip().splitlines()
        assert len(lines) >= 5, t
    # the table holds, per algorithm, the Jain index of its 5-flow run (one seed with --quick),
    # recomputed here from the runs' summaries (a wrong pivot or label fails)
    table = {x.split(",")[0]: float(x.split(",")[1])
             for x in (out / "tables" / "jain_5flows.csv").read_text().splitlines()[1:]}
    runs = {r["param_cca"]: r["jain_index"] for r in load_summaries(out).to_pylist() if r["scenario"] == "mmstcp-fair5"}
    assert set(table) == set(runs) and len(table) == 6
    for cca, j in table.items():
        assert abs(j - runs[cca]) < 1e-5, (cca, j, runs[cca])
    # the paper's duplicate-ACK ratio: over all packets of the connection (data sent + ACKs received)
    for r in load_summaries(out).to_pylist():
        if r["scenario"].startswith("mmstcp-") and r["flows"] == 1:
            packets = r["segments_sent"] + r["acks_received"]
            assert r["dupack_per_packet"] == r["dupacks"] / packets
            assert r["dupack_per_packet_first_3s"] <= r["dupack_per_packet"]
    # runs stuck at one segment per timeout (ns-3's loop, docs/tcp-profiles.md) are listed by
    # name in the report, and only those: with the 200 ms minimum RTO of these presets most runs
    # of 2 s fall into it after the first timeout (S-TCP at seed 1 of scenario 1 among them),
    # two-flow S-TCP does not
    summaries = [r for r in load_summaries(out).to_pylist() if r["seed"] == 1]
    stalled = {(r["scenario"], r["cca"]) for r in summaries if r["stalled_flows"]}
    assert ("mmstcp-1", "scalable") in stalled and ("mmstcp-fair2", "scalable") not in stalled
    report = (out / "report.html").read_text()
    assert "<h2>Stalled runs</h2>" in report and "mmstcp-1 scalable seed 1: 1 of 1 flow(s)" in report
    for r in summaries:
        assert (f"[run {r['run_id']}]" in report) == bool(r["stalled_flows"]), (r["scenario"], r["cca"])


def test_reproduce_dtcp_tables(mmcc_cli, tmp_path):
    out = tmp_path / "d"
    r = mmcc_cli("reproduce", "dtcp", "--quick", "--duration", "2s", "--out", out)
    assert r.returncode == 0, r.stderr
    for t in ("mmwave_throughput", "mmwave_rtt", "wired_throughput", "jain_intra", "jain_inter",
              "improvement_throughput_dtcp"):
        assert (out / "tables" / f"{t}.csv").is_file(), t
    wired = (out / "tables" / "wired_throughput.csv").read_text().strip().splitlines()
    assert len(wired) == 8 and len(wired[0].split(",")) == 7  # 7 algorithms x 6 conditions


def test_reproduce_siddiqui_tables(mmcc_cli, tmp_path):
    out = tmp_path / "s"
    r = mmcc_cli("reproduce", "siddiqui", "--quick", "--out", out)
    assert r.returncode == 0, r.stderr
    lines = (out / "tables" / "throughput.csv").read_text().strip().splitlines()
    assert lines[0] == "algorithm,1a,1b,1c" and len(lines) == 6
    assert (out / "figures" / "cwnd_1a.png").is_file()
    html = (out / "report.html").read_text()
    assert "quanchau/mmwave-tcp-congestion-control" in html and "Dual connectivity" in html


def test_query_runs_sql_over_the_dataset(mmcc_cli, tmp_path):
    run_sweep(grid("dumbbell", ccas=["newreno", "bbr"], duration="1s"), tmp_path, workers=2, progress=False)
    r = mmcc_cli("query", tmp_path, "SELECT cca, count(*) AS n FROM runs GROUP BY cca ORDER BY cca", "--csv")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ["cca,n", "bbr,1", "newreno,1"]
    r = mmcc_cli("query", tmp_path, "SELEC 1")
    assert r.returncode == 2 and r.stderr.startswith("error: query: Parser Error")
    r = mmcc_cli("query", tmp_path / "nothing", "SELECT 1")
    assert r.returncode == 2 and "no finished runs" in r.stderr
    # by default the SQL sees only 'runs': no other file read, nothing written, nothing attached,
    # and the setting cannot be turned back on
    secret = tmp_path / "secret.csv"
    secret.write_text("a\n1\n")
    for sql in (f"SELECT * FROM read_csv('{secret}')", f"COPY runs TO '{tmp_path / 'x.csv'}'",
                f"ATTACH '{tmp_path / 'y.db'}'", "SET enable_external_access = true"):
        r = mmcc_cli("query", tmp_path, sql)
        assert r.returncode == 2 and r.stderr.startswith("error: query:"), (sql, r.stderr)
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "y.db").exists()
    r = mmcc_cli("query", tmp_path, f"SELECT count(*) AS n FROM read_csv('{secret}')", "--csv", "--external")
    assert r.returncode == 0 and r.stdout.splitlines() == ["n", "1"], r.stderr


def test_sweep_file_defines_the_grid(mmcc_cli, tmp_path):
    f = tmp_path / "grid.toml"
    f.write_text('scenario = "dumbbell"\ncca = ["newreno", "cubic"]\nseeds = 2\nduration = "1s"\n'
                 '[set]\n"links.1.forward.queue.limit" = ["250KB", "1MB"]\n')
    r = mmcc_cli("sweep", "--file", f, "--out", tmp_path / "o")
    assert r.returncode == 0, r.stderr
    assert "8 run, 0 already done" in r.stdout
    f.write_text('scenario = "dumbbell"\nworkers = 3\n')
    r = mmcc_cli("sweep", "--file", f, "--out", tmp_path / "o")
    assert r.returncode == 2 and "workers: unknown key; allowed keys" in r.stderr
