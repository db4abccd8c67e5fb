"""`mmcc validate linux`'s matrix and report from stored results (no kernel needed: the testbed
side is written here as the testbed stores it)."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from mmcc.experiments import validate_linux as V


def _store(out, case, side, goodput, t_s, cwnd):
    (out / "runs").mkdir(parents=True, exist_ok=True)
    res = {"goodput_mbps": goodput, "rtt_mean_ms": 30.0, "retransmits": 0, "recoveries": 0, "rtos": 0,
           "loss_probes": 0 if side == "kernel" else None, "t_s": [float(x) for x in t_s], "cwnd_segments": [float(x) for x in cwnd],
           "wall_s": 1.0, "case": case.__dict__, "side": side, "build": "test"}
    V._result_path(out, case, side).write_text(json.dumps(res))


def test_cwnd_readings_take_the_simulators_bin_end_and_the_kernels_last_sample():
    # simulator: 100 ms bins (time = bin start, value = cwnd at the bin's end)
    mmcc = {"side": "mmcc", "t_s": [0.0, 0.1, 0.2, 0.3], "cwnd_segments": [10, 20, 40, 80]}
    assert V.cwnd_readings(mmcc, 0.4).tolist() == [10, 20, 40, 80]
    # kernel: TCP_INFO samples every 10 ms from 0.05 s; the reading at 0.1 s is the sample at 0.1 s
    t = np.arange(5, 41) * 0.01
    kernel = {"side": "kernel", "t_s": t.tolist(), "cwnd_segments": (np.arange(5, 41)).tolist()}
    assert V.cwnd_readings(kernel, 0.4).tolist() == [10, 20, 30, 40]
    # instants before a side's first value are left out
    late = {"side": "kernel", "t_s": [0.25, 0.35], "cwnd_segments": [7, 9]}
    assert V.cwnd_readings(late, 0.4).tolist() == [7, 9]


def test_report_bands_goodput_and_the_cwnd_quantiles(tmp_path):
    dur = 2.0
    agree = V.Case("cubic", 20, 10, 1.0, 0.0, 0, 1, dur)
    peaks = V.Case("dtcp", 100, 25, 1.0, 0.0, 0, 1, dur)
    bins = np.arange(20) * 0.1
    saw = 40 + (np.arange(20) % 5) * 5  # 40..60 segments
    ks = np.arange(1, 201) * 0.01
    for case, kernel_cwnd in ((agree, np.repeat(saw, 10)), (peaks, np.where(np.arange(200) % 50 < 10, 5000, 50))):
        _store(tmp_path, case, "mmcc", 19.0 if case is agree else 95.0, bins, saw)
        _store(tmp_path, case, "kernel", 19.2 if case is agree else 90.0, ks, kernel_cwnd)
    res = V.write_report(tmp_path, [agree, peaks])
    rows = {r["cca"]: r for r in res["rows"]}
    assert rows["cubic"]["within_10pct"] and rows["dtcp"]["within_10pct"]
    assert rows["cubic"]["cwnd_within_25pct"]
    assert rows["cubic"]["cwnd_p50_diff_pct"] == pytest.approx(0.0, abs=1e-9)
    # a fifth of the kernel's readings at 5,000 segments: its 90th percentile is a peak, mmcc's is not
    assert rows["dtcp"]["kernel_cwnd_p90"] == pytest.approx(5000.0)
    assert rows["dtcp"]["cwnd_p90_diff_pct"] < -90 and not rows["dtcp"]["cwnd_within_25pct"]
    assert res["builtin_cwnd_within_25pct"] == 1.0 and res["ebpf_cwnd_within_25pct"] == 0.0
    text = (tmp_path / "report.md").read_text()
    assert "cwnd follows (median and 90th percentile within +-25 %): reno/cubic/bbr 100 %, the eBPF algorithms 0 %" in text
    with open(tmp_path / "cases.csv") as f:
        table = list(csv.DictReader(f))
    assert {"cwnd_p50_diff_pct", "cwnd_p90_diff_pct", "cwnd_within_25pct"} <= set(table[0])
    assert sorted(p.name for p in (tmp_path / "cwnd").iterdir()) == ["cubic-20M-10ms-1bdp-0.png", "dtcp-100M-25ms-1bdp-0.png"]


def test_matrix_sizes_and_bad_arguments():
    full = V.matrix(False, None, None, ["cubic"])
    assert len(full) == 2 * 2 * 2 * 4 + len(V.TRACES)
    assert [c.condition for c in V.matrix(True, None, None, ["newreno"])] == ["50M-20ms-1bdp-0"]
    with pytest.raises(ValueError, match="has no kernel version here"):
        V.matrix(False, None, None, ["vegas"])
    with pytest.raises(ValueError, match="expected a rate from 1Mbps to 200Mbps"):
        V.matrix(False, None, None, ["cubic"], ["1Gbps"])
    with pytest.raises(ValueError, match="out of range"):
        V.matrix(False, None, None, ["cubic"], None, [0.7])


STORE = __import__("pathlib").Path(__file__).resolve().parents[1] / "validation" / "linux-runs"


def test_the_linux_profile_keeps_its_agreement_with_the_stored_kernel_runs(tmp_path):
    """Every kernel run kept in validation/linux-runs (the reno / cubic / bbr matrix of `mmcc validate
    linux --store`, Linux 6.18 on this project's testbed, one run per case) against the `linux`
    profile now: no case's goodput further from the kernel's than when stored (a case within 5 %
    may move inside that band, any other by at most a point) and no cwnd that followed the
    kernel's stops following it. The guard the golden traces cannot give: they pin the profile's
    own trajectories, this pins its distance to the reference."""
    assert len(V.stored_cases(STORE)) == 102
    assert V.check_stored(STORE, tmp_path / "work") == []


def test_a_case_further_from_its_stored_kernel_run_is_reported(tmp_path):
    """check_stored fails a case that moved away from the kernel: the same simulator run against a
    kernel run stored 20 % above it, with the agreement recorded as exact."""
    case = V.Case("newreno", 20, 10, 1.0, 0.0, 0, 1, 2.0)
    out = tmp_path / "made"
    (out / "runs").mkdir(parents=True)
    m = V._run_side(case, "mmcc", out)
    kernel = {**m, "goodput_mbps": m["goodput_mbps"] * 1.2, "case": case.__dict__, "side": "kernel", "build": "t"}
    store = tmp_path / "store"
    (store / "runs").mkdir(parents=True)
    V._result_path(store, case, "kernel").write_text(json.dumps(kernel))
    key = f"newreno-{case.condition}"
    (store / "agreement.json").write_text(json.dumps({key: {"diff_pct": 0.0, "cwnd_within_25pct": True}}))
    worse = V.check_stored(store, tmp_path / "work")
    assert len(worse) == 1 and worse[0].startswith(f"{key}: goodput -16.7 % from the kernel's (stored: +0.0 %)")
    # recorded as it is, the agreement holds
    (store / "agreement.json").write_text(json.dumps({key: {"diff_pct": -16.667, "cwnd_within_25pct": True}}))
    assert V.check_stored(store, tmp_path / "work2") == []


def _runs(values, drops=10, packets=10_000):
    return [{"goodput_mbps": float(v), "error_drops": drops, "data_packets": packets, "retransmits": 5, "rtos": 0}
            for v in values]


def test_independent_losses_compare_means_with_student_intervals(tmp_path):
    from mmcc.experiments import validate_linux_independent as I

    assert I.t95(9) == 2.262 and I.t95(9.5) == 2.262 and I.t95(1000) == pytest.approx(1.96, abs=1e-3)
    rng = np.random.default_rng(1)
    kernel = rng.normal(50, 1, 10)
    same = I.summarize(_runs(kernel), _runs(rng.normal(50, 1, 100)))
    assert same["verdict"] == "agrees" and same["runs_kernel"] == 10
    # the interval of the kernel's mean uses t with 9 degrees of freedom
    assert same["kernel_ci"] == pytest.approx(2.262 * kernel.std(ddof=1) / np.sqrt(10))
    # runs a +-3 % interval of the kernel's mean would need at that spread
    assert same["kernel_runs_for_3pct"] == int(np.ceil((1.959964 * kernel.std(ddof=1) / (0.03 * kernel.mean())) ** 2))
    assert I.summarize(_runs(kernel), _runs(rng.normal(40, 1, 100)))["verdict"] == "differs"
    assert I.summarize(_runs(rng.normal(50, 8, 5)), _runs(rng.normal(51, 8, 5)))["verdict"] == "unresolved"
    loss = I.summarize(_runs(kernel, drops=30), _runs(kernel, drops=10))
    assert loss["kernel_loss"] == pytest.approx(3e-3) and loss["mmcc_loss"] == pytest.approx(1e-3)
    # the docs block is rewritten from the CSV the validation writes
    cases = I.cases(["cubic"], [25], [1.0], [1e-3])
    for side, n in (("kernel", 5), ("mmcc", 5)):
        for s in range(1, n + 1):
            p = I._path(tmp_path, V.Case("cubic", 100, 25, 1.0, 1e-3, 0, s, 15.0), side)
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(json.dumps(_runs([50 + s])[0]))
    rep = I.write_report(tmp_path, cases, 5, 5)
    assert rep["rows"][0]["condition"] == "100M-25ms-1bdp-0.001" and "| cubic | 100M-25ms-1bdp-0.001 |" in rep["markdown"]
    doc = tmp_path / "validation.md"
    doc.write_text("x\n<!-- independent-losses-linux -->\nold\n<!-- /independent-losses-linux -->\ny\n")
    I.update_docs(tmp_path, doc)
    assert rep["markdown"] in doc.read_text() and "old" not in doc.read_text()


def test_independent_kernel_validation_refuses_what_it_does_not_run(mmcc_cli, tmp_path):
    r = mmcc_cli("validate", "linux", "--independent", "--rate", "20Mbps", "--out", tmp_path)
    assert r.returncode != 0 and "the cases run at 100Mbps" in r.stderr
    r = mmcc_cli("validate", "mmwave", "--independent", "--out", tmp_path)
    assert r.returncode != 0 and "--independent is for validate ns3 and validate linux" in r.stderr


def test_a_loss_stream_deals_the_drops_of_the_link_that_draws_from_it(tmp_path):
    """`_core.stream_losses` counts the losses of a seeded stream's first draws: a simulated run
    whose lossy link draws from `link/0/ab/error` drops exactly that many of the data packets it
    admitted; the kernel side's count uses the testbed's own stream (`testbed/link/0/ab/error`)."""
    from mmcc import _core, run
    from mmcc.experiments import validate_linux_independent as I
    from mmcc.scenario import Scenario

    case = V.Case("newreno", 100, 25, 0.25, 1e-2, 0, 3, 4.0)
    sc = Scenario.from_dict(V.scenario(case, tmp_path), source=case.key)
    f = run(sc).flows.to_pydict()
    sent, queue, drops = (int(f[k][0]) for k in ("segments_sent", "drops_queue_full", "drops_error_model"))
    assert drops > 5
    assert _core.stream_losses(3, "link/0/ab/error", 1e-2, sent - queue) == drops
    assert _core.stream_losses(3, "link/0/ab/error", 1e-2, sent - queue - 200) < drops
    assert I.stream_drops(sc.config, 3, sent - queue) == _core.stream_losses(3, "testbed/link/0/ab/error", 1e-2,
                                                                             sent - queue)
    with pytest.raises(ValueError, match="not a probability"):
        _core.stream_losses(1, "x", 2.0, 10)
    rows = I.summarize(_runs([10.0] * 5, drops=30), _runs([10.0] * 5, drops=30))
    assert (rows["kernel_drops"], rows["kernel_stream_drops"]) == (150, -1)  # runs without the count
    both = I.summarize([{**r, "stream_drops": 29} for r in _runs([10.0] * 5, drops=30)], _runs([10.0] * 5))
    assert both["kernel_stream_drops"] == 145 and "| 150 / 145 |" in I.markdown([{**both, "cca": "c", "condition": "x", "duration_s": 1}])


def test_independent_delays_are_checked_before_any_kernel_run(mmcc_cli, tmp_path):
    r = mmcc_cli("validate", "ns3", "--delay", "10", "--out", tmp_path)
    assert r.returncode == 2 and "--delay is for validate linux --independent" in r.stderr, r.stderr
    r = mmcc_cli("validate", "linux", "--independent", "--delay", "ten", "--out", tmp_path)
    assert r.returncode == 2 and "--delay 'ten': expected comma-separated whole milliseconds" in r.stderr, r.stderr
    r = mmcc_cli("validate", "linux", "--independent", "--delay", "0", "--out", tmp_path)
    assert r.returncode == 2 and "one-way delays from 1 to 1000 ms" in r.stderr, r.stderr
