"""Stack profiles as users see them, and the export for the ns-3 reference runner."""

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mmcc import _core
from mmcc.experiments import pinned, validate_ns3


def test_profile_defaults_resolve_and_overrides_win():
    ns3 = json.loads(_core.resolve_tcp(json.dumps({"profile": "ns3"})))
    linux = json.loads(_core.resolve_tcp("{}"))
    assert (ns3["min_rto"], ns3["delack_timeout"], ns3["rcv_buf"]) == (1_000_000_000, 200_000_000, 131_072)
    assert not ns3["detect_lost_retransmissions"] and not ns3["cwnd_validation"] and not ns3["quickack"]
    assert linux["profile"] == "linux" and linux["min_rto"] == 200_000_000 and linux["quickack"]
    mixed = json.loads(_core.resolve_tcp(json.dumps({"profile": "ns3", "min_rto": 300_000_000})))
    assert mixed["min_rto"] == 300_000_000 and mixed["delack_timeout"] == 200_000_000


def test_run_reports_the_profile(mmcc_cli, tmp_path):
    r = mmcc_cli("run", "dumbbell", "--duration", "1s", "--set", "tcp.profile=ns3", "--out", tmp_path, "--no-plot")
    assert r.returncode == 0, r.stderr
    assert "TCP profile ns3" in r.stdout
    info = json.loads((tmp_path / "run.json").read_text())
    assert info["tcp_settings"][0]["profile"] == "ns3" and info["tcp_settings"][0]["min_rto"] == 1_000_000_000
    import pyarrow.parquet as pq
    assert pq.read_table(tmp_path / "flows.parquet").column("tcp_profile").to_pylist() == ["ns3"]


def test_bad_profile_is_a_clear_error(mmcc_cli):
    r = mmcc_cli("run", "dumbbell", "--duration", "1s", "--set", "tcp.profile=bsd")
    assert r.returncode == 2 and "tcp.profile" in r.stderr and "linux" in r.stderr and "ns3" in r.stderr, r.stderr


def test_presets_of_ns3_publications_use_the_ns3_profile():
    from mmcc.scenario import list_presets, load
    for name in list_presets():
        prof = {f["tcp"].get("profile", "linux") for f in load(name).config["flows"]}
        expected = "ns3" if name.split("-")[0] in ("thesis", "siddiqui", "dtcp", "mmstcp") else "linux"
        assert prof == {expected}, name


def test_export_ns3_resolves_every_tcp_setting(mmcc_cli, tmp_path):
    out = tmp_path / "case.json"
    r = mmcc_cli("export-ns3", "dumbbell", "--cca", "cubic", "--set", "tcp.profile=ns3", "--out", out)
    assert r.returncode == 0, r.stderr
    cfg = json.loads(out.read_text())
    assert cfg["format"] == "mmcc-ns3/1" and cfg["bin_ns"] == 100_000_000
    tcp = cfg["flows"][0]["tcp"]
    assert cfg["flows"][0]["cca"] == "cubic"
    for key in ("mss", "min_rto", "delack_count", "delack_timeout", "snd_buf", "rcv_buf", "sack", "timestamps"):
        assert key in tcp, key
    assert tcp["snd_buf"] == 64 << 20  # the preset's value wins over the profile's


def test_export_ns3_refuses_a_receiver_feed(mmcc_cli, tmp_path):
    r = mmcc_cli("export-ns3", "dumbbell", "--set", "flows.0.receiver_feed=100ms", "--out", tmp_path / "x.json")
    assert r.returncode == 2 and "flows[0].receiver_feed has no ns-3 mapping" in r.stderr, r.stderr


def test_export_ns3_refuses_radio_scenarios(mmcc_cli):
    r = mmcc_cli("export-ns3", "thesis-edge")
    assert r.returncode == 2 and "radio" in r.stderr


def test_validation_matrix_and_errors():
    full = validate_ns3.matrix(False, None, None, None, ["100Mbps", "1Gbps"])
    assert len(full) == 17 * 2 * (1 + 3 * 5) + 2 * 4  # a lossless case is deterministic (one seed) unless the algorithm draws (BBR)
    quick = validate_ns3.matrix(True, None, None, None)
    assert {c.rate for c in quick} == {"100Mbps"} and len(quick) == 3 * (1 + 4)
    with pytest.raises(ValueError, match="has no ns-3 class"):
        validate_ns3.matrix(False, None, None, ["tahoe"])
    with pytest.raises(ValueError, match="allowed: 100Mbps, 1Gbps"):
        validate_ns3.matrix(False, None, None, None, ["10Gbps"])


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("pkg-config") is None or subprocess.run(
    ["pkg-config", "--exists", "ns3-internet"]).returncode != 0, reason="libns3-dev is not installed")
def test_validate_ns3_quick_agrees(tmp_path):
    """The --quick subset (NewReno, CUBIC, HighSpeed at 100 Mb/s, loss 0 and 1e-3, 4 seeds of
    20 s) in both simulators, which draw the same losses (common random numbers): every case's
    mean goodput within 5 % of ns-3's."""
    res = validate_ns3.run_validation(tmp_path, quick=True, progress=False)
    assert res["cases"] == 6
    for row in res["rows"]:
        assert abs(row["diff_pct"]) <= 5.0, row
    assert (tmp_path / "report.md").is_file() and list((tmp_path / "cwnd").glob("*.png"))


@pytest.mark.parametrize("key", ["initial_rto", "min_rto", "max_rto"])
def test_zero_rto_is_a_clear_error(mmcc_cli, key):
    r = mmcc_cli("run", "dumbbell", "--duration", "0.01s", "--set", f"tcp.{key}=0s", "--no-plot")
    assert r.returncode == 2 and f"tcp.{key}" in r.stderr and "allowed: 1ms..3600s" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_validate_bad_loss_is_a_clear_error(mmcc_cli):
    r = mmcc_cli("validate", "ns3", "--loss", "abc")
    assert r.returncode == 2 and "--loss 'abc'" in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize("frto", [True, False])
def test_a_spurious_timeout_is_undone_in_the_linux_profile(frto):
    """The bottleneck crawls at 50 kb/s for 0.8 s: a timeout fires while nothing is lost. With
    `tcp.frto` (the linux profile's default) the stack finds it spurious and undoes it (an
    `undo` event after the `rto`), as Linux does; with `tcp.frto = false` it does not."""
    from mmcc.results import run
    from mmcc.scenario import Scenario

    raw = json.loads(json.dumps(pinned.CRAWL))
    raw["tcp"]["frto"] = frto
    r = run(Scenario.from_dict(raw, source="stall"))
    ev = r.tables["events"].to_pydict()
    names = ev["event"]
    assert "rto" in names, names
    assert ("undo" in names) == frto
    if frto:
        assert ev["t_s"][names.index("undo")] > ev["t_s"][names.index("rto")]


def test_bad_frto_is_a_clear_error(mmcc_cli):
    r = mmcc_cli("run", "dumbbell", "--duration", "0.1s", "--set", "tcp.frto=maybe", "--no-plot")
    assert r.returncode == 2 and "tcp.frto: expected true or false, got 'maybe'" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name", pinned.names(pinned.NS3_TRACES))
def test_ns3_profile_reproduces_ns3s_own_cwnd_trace(name, tmp_path):
    """The `ns3` profile against ns-3 3.37 itself, change for change: each file is the
    CongestionWindow trace of ns-3's class in `mmcc-ns3-runner` for one case of `mmcc validate
    ns3` (common random numbers), cut where it was recorded. mmcc's cwnd trace of the same case
    must have the same changes at the same nanoseconds. Each case pins what comparing these
    traces found (docs/tcp-profiles.md): YeAH's round end, fast mode and return to Open (1 Gb/s);
    Westwood+'s EstimateBW event and DataRate arithmetic and ns-3's recovery entry
    (IsLost(HighACK + MSS)); the RTO not restarted in Disorder (Westwood+ 100 Mb/s); H-TCP's
    epoch throughput; TcpScalable's whole segments; Vegas's slow-start cycle end; the device
    queue's flow control, which drops the second flow's SYN (D-TCP, two flows: ns-3's second
    connection opens only at 14.2 s, so the first flow runs alone until then); ns-3's TcpBbr
    (`cca/bbr/ns3.rs` with ns-3's rate sampler, its ProbeBW phase drawn from ns-3's own
    generator, its 32-bit recovery arithmetic and its idle restarts): seed 1 collapses after
    its first ProbeRTT, seed 3 does not, and the lossy seed 2 goes through ~140 recoveries,
    two timeouts and a collapse; NexGen D-TCP's port with loss: ns-3's Disorder -> Open on an
    ACK that advances without new SACK information and Open after fast recovery whatever is
    still SACKed (1e-3, seed 1), and the round's edge at the highest byte sent, which
    DoRetransmit raises with new data on a partial ACK before PktsAcked (1e-5, seed 4); and
    ns-3's recovery entry with the head already lost and retransmitted, where EnterRecovery's
    DoRetransmit sends new data at once, outside the window and the pacing timer (BBR at 1 Gb/s,
    1e-3, seed 3: mmcc sent it at its next pacing slot, and from 1.68 s the run went another way,
    +16.5 %), and a partial ACK's DoRetransmit at the very instant the pacing timer is due, which
    leaves the timer running, so its event sends one more segment at once (the same run: mmcc
    sent one segment less at 3.8939 s; pinned over the whole 5 s, 92,950 changes), after which the
    partial ACK's NewAck re-reads the flight, with DoRetransmit's segment, for BBR's recovery
    cwnd (seed 5: mmcc's cwnd stayed one segment lower at 2.8525 s and the run collapsed, -44 %;
    pinned over 5 s, 123,074 changes); and the order of a forwarded packet and the end of a
    transmission at the same instant at the bottleneck queue, the packet first (D-TCP at 1 Gb/s,
    lossless, ns-3's first 0.56 s; BIC on the square wave, its first 2.2 s: both had one PRR value
    one segment apart, from one pair of back-to-back packets admitted the other way round); and
    on the thesis-edge trace (D-TCP, ns-3's first 0.65 s, 42,511 changes), where the 100 Mb/s
    return link's ACK queue overflows in recovery: the same order for an ACK the receiver sends
    in the event of a data packet's reception (that reception was scheduled first, so a full
    queue refuses the ACK; mmcc had let the ACK in and refused the next one, which swapped two
    ACKs' DeliveredData and so one PRR value at 0.4317 s), and ns-3's bulk sender writing only
    when the socket calls NotifySend, which an ACK that leaves the socket in CA_DISORDER does not
    (no NewAck): with a window above the 64 MiB send buffer, ns-3 left the 1,400 bytes that ACK
    freed unwritten and so unsent (mmcc had sent them: one segment more in flight at the
    recovery that followed at 0.6131 s)."""
    head, ref = pinned.read_trace(pinned.NS3_TRACES / f"{name}.txt.gz")
    config = pinned.ns3_case_config(name, tmp_path)
    # the configuration the Rust suite runs (crates/mmcc-core/tests/pinned_traces.rs) is this case's
    assert json.loads(config) == pinned.stored_config(pinned.NS3_TRACES, name), (
        f"{name}: tests/data/ns3-cwnd/{name}.config.json.gz is stale: python -m mmcc.experiments.pinned --write-configs")
    ours = pinned.run_trace(config)
    ours = pinned.cwnd_changes([(t, c) for t, c, _ in ours])
    ref = pinned.cwnd_changes(ref)
    n = min(len(ours), len(ref))
    first = next((i for i in range(n) if ours[i] != ref[i]), None)
    assert first is None and abs(len(ours) - len(ref)) <= 1, (
        f"{name}: {len(ref)} ns-3 changes, {len(ours)} mmcc; first difference at change {first}: "
        f"ns-3 {ref[first] if first is not None else None}, mmcc {ours[first] if first is not None else None}")


@pytest.mark.parametrize("name", sorted(pinned.LINUX_CASES))
def test_linux_profile_keeps_its_golden_trajectory(name, tmp_path):
    """The `linux` profile's own cwnd and ssthresh, change for change, on the golden cases
    (`pinned.LINUX_CASES`: loss, timeouts, F-RTO, the thesis' radio path): a change of the
    profile's behaviour shows here and in `cargo test`, and is accepted by re-recording them
    (python -m mmcc.experiments.pinned --write-linux, with the reason in the commit)."""
    config = pinned.linux_case_config(name, tmp_path)
    assert json.loads(config) == pinned.stored_config(pinned.LINUX_TRACES, name), (
        f"{name}: tests/data/linux-cwnd/{name}.config.json.gz is stale: python -m mmcc.experiments.pinned --write-configs")
    _, ref = pinned.read_trace(pinned.LINUX_TRACES / f"{name}.txt.gz")
    ours = pinned.run_trace(config)
    ref = pinned.cwnd_changes(ref)
    first = next((i for i in range(min(len(ours), len(ref))) if ours[i] != ref[i]), None)
    assert first is None and len(ours) == len(ref), (
        f"{name}: {len(ref)} golden changes, {len(ours)} now; first difference at change {first}: "
        f"golden {ref[first] if first is not None else None}, now {ours[first] if first is not None else None}")


def test_ns3_times_out_with_nothing_in_flight_while_data_waits(tmp_path):
    """ns-3 3.37's `NewAck` restarts the retransmission timer on every new ACK and stops it only
    when the transmit buffer is empty, and `ReTxTimeout` then runs a full timeout with nothing
    in flight. ns-3's BBR on the 1000/50 Mb/s square wave collapses to a segment every few
    seconds after 4 s; ns-3 then times out about once a second (15 timeouts in 20 s, cwnd one
    segment for a moment each time) and sends its next segment at once. The stored ns-3 run
    (validation/ns3-runs, 100 ms cwnd samples) against the `ns3` profile: the same goodput to the
    byte, the same timeouts, the same one-segment samples."""
    from mmcc.experiments.validate_ns3 import Case, _run_mmcc

    store = Path(__file__).resolve().parents[1] / "validation" / "ns3-runs"
    ref = json.loads((store / "bbr-square-0-s1-20s-ns3.json").read_text())
    # the Rust suite checks this run too (pinned_traces.rs), from a configuration kept current here
    assert json.loads(pinned.ns3_run_config("bbr-square-0-s1-20s", tmp_path)) == pinned.stored_config(
        pinned.NS3_RUN_CONFIGS, "bbr-square-0-s1-20s"), "python -m mmcc.experiments.pinned --write-configs"
    ours = _run_mmcc(Case(**ref["case"]), tmp_path)
    assert ours["goodput_mbps"] == ref["goodput_mbps"] and ours["rtos"] == ref["rtos"] == 15
    mss = 1400
    one = [i for i, w in enumerate(ref["cwnd_bytes"]) if w == mss]
    assert len(one) >= 20 and one == [i for i, w in enumerate(ours["cwnd_bytes"]) if w == mss]
    # elsewhere within a few bytes (the BBR class's float quanta)
    assert max(abs(a - b) for a, b in zip(ours["cwnd_bytes"], ref["cwnd_bytes"])) < 16


STORE = Path(__file__).resolve().parents[1] / "validation" / "ns3-runs"


@pytest.mark.parametrize("name", sorted(p.name[:-len("-ns3.json")] for p in STORE.glob("*-ns3.json")))
def test_every_stored_ns3_run_is_reproduced_to_the_byte(name, tmp_path):
    """Each ns-3 run kept in validation/ns3-runs (ns-3 3.37 with the runner, `mmcc validate ns3
    --store`) against the `ns3` profile now: the same goodput to the byte and the same number of
    timeouts. Among what these runs found: ns-3's timeout with nothing in flight (BBR on the
    square wave) and TcpBic's slow start, one segment per call even when the ACK that leaves
    CA_LOSS acknowledges nothing above the recovery point (BIC on the square wave: ns-3's window
    back to two segments 222 ms sooner after its timeout, -2.1 % before; `mmcc-ns3-runner
    --cwnd-trace` shows ns-3's first 2.2 s, 14,777 changes, equal to mmcc's but for one PRR value
    at 0.898 s, one of two adjacent packets of a burst admitted the other way round; the same
    2.2 s are now identical, that value included, since the queue orders an arrival before a
    dequeue of the same instant as ns-3 does)."""
    from mmcc.experiments.validate_ns3 import Case, _run_mmcc

    ref = json.loads((STORE / f"{name}-ns3.json").read_text())
    ours = _run_mmcc(Case(**ref["case"]), tmp_path)
    assert (ours["goodput_mbps"], ours["rtos"]) == (ref["goodput_mbps"], ref["rtos"])


STALL_CASE = Path(__file__).resolve().parents[1] / "validation" / "ns3-cases" / "stall-after-timeout.toml"
STALL_REF = STALL_CASE.with_suffix(".ns3")


def _ns3_runner_or_none():
    from mmcc import ns3

    try:
        return ns3.build_runner()
    except RuntimeError:
        return None


def test_ns3_keeps_one_segment_after_a_timeout_that_ends_the_episode(tmp_path):
    """ns-3 3.37 itself stalls: when the retransmission after a timeout fills the last hole, its
    ACK is exactly m_recover, ProcessAck leaves CA_LOSS with segsAcked = (ack - m_recover) / MSS
    = 0 and IncreaseWindow grows nothing; the one new segment waits for the receiver's 200 ms
    delayed ACK and the 200 ms RTO fires first, again and again (docs/tcp-profiles.md). The
    stored ns-3 run (validation/ns3-cases) against the `ns3` profile: the same goodput to the
    byte, 20 timeouts each, ns-3's cwnd trace change for change (its last change is the first
    timeout's one segment, at 0.717 s of 5 s), and the flows table names the stall."""
    import csv
    import gzip

    from mmcc.results import run, stall_note
    from mmcc.scenario import load

    # the configuration the Rust suite runs for this trace (pinned_traces.rs) is this case's
    with gzip.open(STALL_REF / "config.json.gz", "rt") as f:
        assert json.load(f) == json.loads(pinned.stall_case_config()), "python -m mmcc.experiments.pinned --write-configs"
    ref = next(csv.DictReader((STALL_REF / "flows.csv").open()))
    with gzip.open(STALL_REF / "cwnd.txt.gz", "rt") as f:
        f.readline()
        ns3_cwnd = [tuple(int(x) for x in line.split()) for line in f]
    assert ns3_cwnd[-1] == (716_691_340, 1400) and int(ref["rtos"]) == 20
    sc = load(str(STALL_CASE))
    r = run(sc, sets={"record.trace": True})
    f = r.flows.to_pydict()
    assert (f["delivered_bytes"][0], f["rtos"][0]) == (int(ref["delivered_bytes"]), 20)
    assert f["one_segment_timeouts"][0] == 20 and 4.1 < f["one_segment_stall_s"][0] < 4.3
    assert stall_note(f["one_segment_timeouts"][0], f["one_segment_stall_s"][0]).startswith("stalled")
    cw = r.tables["cwnd"].to_pydict()
    assert (pinned.cwnd_changes([(round(t * 1e9), int(v)) for t, v in zip(cw["t_s"], cw["cwnd_bytes"])])
            == pinned.cwnd_changes(ns3_cwnd))
    # the mechanism: with ns-3's default 1 s minimum RTO the delayed ACK comes first, and with an
    # ACK for every segment nothing waits; one timeout each, no stall (ns-3 gives the same bytes)
    for sets, nbytes in (({"tcp.min_rto": "1s"}, 32_146_800), ({"tcp.delayed_ack_count": 1}, 45_654_000)):
        g = run(sc, sets=sets).flows.to_pydict()
        assert (g["delivered_bytes"][0], g["rtos"][0], g["one_segment_timeouts"][0]) == (nbytes, 1, 1), sets
    # the linux profile leaves Loss with slow start's growth (tcp_process_loss), so no stall
    lx = run(sc, sets={"tcp.profile": "linux"}).flows.to_pydict()
    assert lx["one_segment_timeouts"][0] <= 1


@pytest.mark.skipif(shutil.which("pkg-config") is None or subprocess.run(
    ["pkg-config", "--exists", "ns3-internet"]).returncode != 0, reason="libns3-dev is not installed")
def test_the_stored_stall_run_is_ns3s_output_now(tmp_path):
    """The stored reference above is what ns-3 3.37 and the runner give today (0.1 s of ns-3)."""
    from mmcc import ns3
    from mmcc.scenario import load

    runner = ns3.build_runner()
    (tmp_path / "case.json").write_text(json.dumps(ns3.export(load(str(STALL_CASE)).config)))
    subprocess.run([str(runner), f"--config={tmp_path / 'case.json'}", f"--out={tmp_path}", "--seed=1",
                    f"--cwnd-trace={tmp_path / 'cwnd.txt'}"], check=True, capture_output=True)
    import gzip

    with gzip.open(STALL_REF / "cwnd.txt.gz", "rt") as f:
        f.readline()
        assert f.read() == (tmp_path / "cwnd.txt").read_text()
    import csv

    rows = [[{k: v for k, v in r.items() if k != "wall_s"} for r in csv.DictReader(p.open())]
            for p in (tmp_path / "flows.csv", STALL_REF / "flows.csv")]
    assert rows[0] == rows[1]


def test_export_ns3_refuses_the_linux_profile(mmcc_cli, tmp_path):
    """The runner is ns-3's stack: a flow with the linux profile is refused with what to do."""
    r = mmcc_cli("export-ns3", "dumbbell", "--out", tmp_path / "x.json")
    assert r.returncode == 2 and "flows[0] uses the `linux` TCP profile" in r.stderr
    assert "--set tcp.profile=ns3" in r.stderr and not (tmp_path / "x.json").exists()
