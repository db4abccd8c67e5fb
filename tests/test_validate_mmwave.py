"""`mmcc validate mmwave`: the thesis presets against stored ns3-mmwave runs (the runner's output
format, every stored case compared again, the agreement docs/validation.md quotes)."""

import functools
import gzip
import re
from pathlib import Path

import pytest

from mmcc.experiments import validate_mmwave as vm

#: every stored run: (oracle TCP, case)
CASES = [(tcp, c) for tcp, ref in vm.REFERENCES.items() for c in vm.stored_cases(ref.store)]
DOC = Path(__file__).resolve().parents[1] / "docs" / "validation.md"


@functools.lru_cache(maxsize=None)
def _ours(key: str) -> dict:
    """mmcc's side of a case (once per test session; both oracle TCPs compare against it)."""
    return vm.run_mmcc(vm.Case.from_key(key))


def _compared(tcp: str, key: str) -> dict:
    """One stored case against the preset now."""
    return vm.compare(vm.Case.from_key(key), vm.read_reference(vm.reference(tcp).store / key), _ours(key))


def test_case_keys_round_trip_and_bad_requests_are_clear_errors(mmcc_cli, tmp_path):
    c = vm.Case("cubic", "edge", 0.25, 1e-7, 2, 12.0)
    assert c.key == "cubic-edge-0.25MiB-1e-07-s2-12s" and vm.Case.from_key(c.key) == c
    assert len(vm.matrix()) == 3 * (3 * 2 + 2)  # three algorithms: edge 3 buffers x 2 PER, remote x 2
    assert [c.cca for c in vm.matrix(["bbr"], [2.5], [0.0], ["edge"], tcp="ns-3.35")] == ["bbr"]
    for args, needle in ((["--cca", "bbr"], "'bbr' is not mapped by the ns3-mmwave runner with --tcp pinned"),
                         (["--tcp", "ns-3.99"], "--tcp 'ns-3.99'; allowed: pinned, ns-3.35"),
                         (["--server", "moon"], "server 'moon'; allowed: edge, remote"),
                         (["--per", "0.5"], "per 0.5 is out of range"),
                         (["--duration", "600"], "duration 600.0 s is out of range"),
                         (["--cca", "newreno", "--runner", "x"], "--runner and --ns3-mmwave go together"),
                         (["--cca", "newreno", "--duration", "7", "--store", str(tmp_path)],
                          "no stored ns3-mmwave run for newreno-edge-0.25MiB-0-s1-7s")):
        r = mmcc_cli("validate", "mmwave", *args, "--out", tmp_path / "o")
        assert r.returncode == 2 and needle in r.stderr, (args, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1
    for opt in ("--buffer", "--tcp"):
        r = mmcc_cli("validate", "ns3", opt, "2.5")
        assert r.returncode == 2 and f"{opt} is for validate mmwave" in r.stderr


def test_the_runners_tables_are_read_as_written(tmp_path):
    """The format mmcc-mmwave-runner writes (flows.csv, series.csv, radio.csv[.gz]): empty cells
    are NaN (no RTT sample, no SINR report in that millisecond)."""
    (tmp_path / "flows.csv").write_text("flow_id,cca,delivered_bytes,goodput_mbps,tx_bytes,retx_bytes,"
                                        "fast_retransmits,rtos,error_drops,cpu_s\n0,newreno,1400,0.0112,2800,1400,1,0,3,1.5\n")
    (tmp_path / "series.csv").write_text("t_s,throughput_mbps,cwnd_bytes,rtt_ms\n0,0,,\n0.1,0.112,14000,22.5\n")
    (tmp_path / "radio.csv.gz").write_bytes(gzip.compress(b"t_ms,sinr_db,tbs,tb_bytes,mcs_mean,corrupt_tbs\n"
                                                          b"3,38.08,1,48,0,0\n4,,0,0,,0\n"))
    r = vm.read_reference(tmp_path)
    assert (r["delivered_bytes"], r["retx_bytes"], r["fast_retransmits"], r["error_drops"]) == (1400, 1400, 1, 3)
    assert list(r["radio_t_s"]) == [0.003, 0.004] and r["sinr_db"][0] == 38.08 and r["sinr_db"][1] != r["sinr_db"][1]
    assert r["rtt_ms"][1] == 22.5 and r["cwnd_bytes"][0] != r["cwnd_bytes"][0]


@pytest.mark.parametrize("tcp,key", [(tcp, c.key) for tcp, c in CASES])
def test_stored_ns3_mmwave_run_compares(tcp, key):
    """Each stored reference run against the preset now: both sides' whole-run and per-phase
    figures exist and the stored run is the runner's (its metadata names the pinned commit and
    the oracle's TCP)."""
    case = vm.Case.from_key(key)
    import json

    meta = json.loads((vm.reference(tcp).store / key / "meta.json").read_text())
    assert meta["ns3_mmwave_commit"] == vm.REFERENCE_COMMIT and meta["case"]["cca"] == case.cca
    assert meta.get("tcp", "pinned") == tcp
    row = _compared(tcp, key)
    assert row["goodput_ns3_mbps"] > 0 and row["phases"]
    assert all(p["sinr_ns3_db"] == p["sinr_ns3_db"] for p in row["phases"])  # every phase has SINR reports


@pytest.mark.parametrize("tcp", list(vm.DOC_BLOCKS))
def test_docs_quote_the_current_agreement(tcp):
    """docs/validation.md's agreement tables (one per oracle TCP) are what the stored runs and the
    code give now."""
    rows = [_compared(t, c.key) for t, c in CASES if t == tcp]
    block = vm.DOC_BLOCKS[tcp]
    b = re.escape(block)
    m = re.search(f"<!-- {b} -->\n(.*?)<!-- /{b} -->", DOC.read_text(), re.S)
    assert m, f"docs/validation.md has no {block} block"
    assert rows and m.group(1) == vm.agreement_markdown(rows), \
        "rerun: python -m mmcc.experiments.validate_mmwave --docs"
    assert vm.read_agreement()[tcp] == vm.agreement_summary(rows), \
        "rerun: python -m mmcc.experiments.validate_mmwave --docs"


def test_validate_writes_to_the_folder_given_or_one_per_reference(monkeypatch, tmp_path):
    """`--out` is used as given, whatever its name; without it each reference has its folder."""
    from mmcc import cli
    from mmcc.experiments import validate_ns3

    seen = []
    done = {"cases": 0, "runs": 0, "goodput_within_10pct": 0, "goodput_within_10pct_or_2se": 0,
            "phase_sinr_within_2db": 0, "phase_thr_within_10pct": 0, "phase_thr_within_10pct_or_2se": 0,
            "within_5pct": 0, "within_10pct": 0}
    monkeypatch.setattr(vm, "run_validation", lambda out, **_: seen.append(out) or done)
    monkeypatch.setattr(validate_ns3, "run_validation", lambda out, **_: seen.append(out) or done)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["validate", "mmwave"]) == 0
    assert cli.main(["validate", "mmwave", "--out", "out/validate-ns3"]) == 0
    assert cli.main(["validate", "ns3"]) == 0
    assert seen == ["out/validate-mmwave", "out/validate-ns3", "out/validate-ns3"]


# ---- the oracle's own TCP on wired stand-ins (validation/oracle-tcp) ----------------------------

from mmcc.experiments import oracle_tcp  # noqa: E402


@pytest.mark.parametrize("case,cca", [(c, a) for c in oracle_tcp.CASES for a in oracle_tcp.CCAS])
def test_mmcc_gives_ns337s_numbers_on_the_oracle_tcp_cases(case, cca):
    """The wired stand-ins for the radio path's overflows: mmcc's `ns3` profile still gives the
    stored ns-3.37 goodput (within 0.001 %, the runner's rounding) and the same timeouts and recoveries, so the stored
    ns3-mmwave-TCP column is a difference of TCP versions alone."""
    ref = next(r for r in oracle_tcp.stored() if (r["case"], r["cca"], r["side"]) == (case, cca, "ns-3.37"))
    ours = oracle_tcp.run_mmcc(case, cca)
    assert abs(ours["goodput_mbps"] - ref["goodput_mbps"]) <= 1e-5 * ref["goodput_mbps"], (ours, ref)
    assert (ours["rtos"], ours["fast_retransmits"]) == (ref["rtos"], ref["fast_retransmits"]), (ours, ref)


def test_docs_quote_the_oracle_tcp_table():
    text = DOC.read_text()
    m = re.search(r"<!-- oracle-tcp -->\n(.*?)<!-- /oracle-tcp -->", text, re.S)
    assert m and m.group(1) == oracle_tcp.markdown(oracle_tcp.stored()), \
        "rerun: python -m mmcc.experiments.oracle_tcp --docs"


def test_the_small_buffers_slow_start_follows_the_oracles_packet_trace():
    """NewReno, 0.25 MiB, seed 1, against the oracle's packet trace (ns-3.35 build): the first
    transmission of each of the 11 slow-start rounds within 1 us of the reference's (the radio
    path's timing: L1L2CtrlLatency, both decode latencies, the block sizes, the uplink's grants
    and STATUS PDUs), the first fast retransmission and the timeout that repairs its lost
    retransmission within 1 us."""
    from mmcc.results import run
    from mmcc.scenario import load

    trace = Path(__file__).resolve().parents[1] / "validation" / "mmwave-traces"
    rows = [line.split(",") for line in gzip.open(trace / "newreno-edge-0.25MiB-0-s1-1.6s.packets.csv.gz", "rt")][1:]
    tx = [(int(t) / 1e9, int(retx)) for t, kind, _, _, retx in rows if kind == "tx"]
    # the first retransmitted segment, sent again by the timeout
    first = next(seq for _, kind, seq, _, retx in rows if kind == "tx" and int(retx))
    again = [int(t) / 1e9 for t, kind, seq, _, _ in rows if kind == "tx" and seq == first]
    rounds_ref, last = [], -1.0
    for t, retx in tx:
        if not retx and t - last > 0.010:
            rounds_ref.append(t)
        last = t
    retx_ref = [t for t, retx in tx if retx]
    r = run(load("thesis-edge"), cca="newreno", seed=1, duration="1.6s", params={"rlc_buffer": "0.25MiB"})
    ev = r.tables["events"].to_pydict()
    cw = r.tables["cwnd"].to_pydict()["t_s"]
    rounds_ours, last = [], -1.0
    for t in cw:
        if t - last > 0.010:
            rounds_ours.append(t)
        last = t
    gaps = [abs(ours - ref) for ours, ref in zip(rounds_ours[:11], rounds_ref[:11])]
    assert len(gaps) == 11 and max(gaps) < 1e-6, gaps
    fast = [t for t, e in zip(ev["t_s"], ev["event"]) if e == "fast_retransmit"]
    rto = [t for t, e in zip(ev["t_s"], ev["event"]) if e == "rto"]
    assert abs(fast[0] - retx_ref[0]) < 1e-6, (fast, retx_ref[:3])
    assert len(again) == 3 and again[1] == retx_ref[0]
    assert len(rto) == 1 and abs(rto[0] - again[2]) < 1e-6, (rto, again)


def _acks_at_server(pcap: Path) -> list[tuple[int, int]]:
    """(t_ns, ACK number) of each TCP segment in an mmcc capture (`[pcap]`, nanosecond pcap)."""
    import struct

    data, out, at = pcap.read_bytes(), [], 24
    while at + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack_from("<IIII", data, at)
        frame = data[at + 16:at + 16 + incl]
        at += 16 + incl
        ip = next(i for i in range(len(frame)) if frame[i] >> 4 == 4)
        tcp = ip + (frame[ip] & 15) * 4
        out.append((sec * 10**9 + frac, struct.unpack_from(">I", frame, tcp + 8)[0]))
    return out


@pytest.mark.parametrize("case,cca,buffer,until_s,within_1us", [
    ("newreno-edge-0.25MiB-0-s1-1.6s", "newreno", "0.25MiB", 0.37, 552),
    ("bbr-edge-2.5MiB-0-s1-0.3s", "bbr", "2.5MiB", 0.27, 147),
])
def test_the_acks_reach_the_server_when_the_oracles_do(tmp_path, case, cca, buffer, until_s, within_1us):
    """Every ACK of the reference's packet trace (ns-3.35 build, seed 1) up to `until_s` reaches
    mmcc's server with the same number, nearly all within 1 us of the reference's and none more
    than 0.11 ms (a subframe) off: the UE's MAC fills each grant from its record of the RLC's
    last report, before the packets the subframe's decoded block brings, and a STATUS no report
    counted takes the opportunity meant for data, at the UE and at the gNB (ACKs held together
    for 3.4 ms at 0.19 s in BBR's); the gNB's record is refreshed by its SDUs, by the polls of
    the UE's data PDUs outside t-StatusProhibit and by its report timer, not by a STATUS; the
    blocks have ns3-mmwave's transport block sizes and its RLC's packing (docs/radio.md)."""
    from mmcc.results import run
    from mmcc.scenario import load

    trace = Path(__file__).resolve().parents[1] / "validation" / "mmwave-traces" / f"{case}.packets.csv.gz"
    rows = [line.strip().split(",") for line in gzip.open(trace, "rt")][1:]
    ref = [(int(t), int(seq)) for t, kind, seq, _, _ in rows if kind == "ack" and int(t) < until_s * 1e9]
    run(load("thesis-edge"), cca=cca, seed=1, duration=f"{until_s + 0.03}s", params={"rlc_buffer": buffer},
        sets={"pcap": {"link": 0, "direction": "reverse", "path": "acks.pcap"}}, out_dir=tmp_path)
    ours = _acks_at_server(tmp_path / "acks.pcap")[:len(ref)]
    assert [a for _, a in ours] == [a for _, a in ref]
    gaps = [abs(t - r) for (t, _), (r, _) in zip(ours, ref)]
    assert max(gaps) <= 110_000 and sum(g < 1_000 for g in gaps) >= within_1us, (max(gaps), sum(g < 1_000 for g in gaps))


def test_a_phase_the_seeds_cannot_tell_apart_counts_within_two_standard_errors():
    def row(seed, ref, ours):
        ph = {"phase": "walk", "sinr_ns3_db": 30.0, "sinr_mmcc_db": 30.0, "mcs_ns3": 25.0, "mcs_mmcc": 25.0,
              "thr_ns3_mbps": ref, "thr_mmcc_mbps": ours}
        return {"case": f"newreno-edge-2.5MiB-0-s{seed}-12s", "goodput_ns3_mbps": ref, "goodput_mmcc_mbps": ours,
                "rtos_ns3": 0, "rtos_mmcc": 0, "fast_retransmits_ns3": 0, "fast_retransmits_mmcc": 0,
                "phases": [ph]}
    # means 500 and 575 (+15 %), standard errors 100 and 25: within two of them
    spread = vm.aggregate([row(1, 400, 550), row(2, 600, 600)])[0]
    p = spread["phases"][0]
    assert not p["thr_ok"] and p["thr_consistent"] and spread["goodput_consistent"]
    # the same means with tight seeds: apart
    tight = vm.aggregate([row(1, 499, 574), row(2, 501, 576)])[0]["phases"][0]
    assert not tight["thr_ok"] and not tight["thr_consistent"]
    # one seed: only the band counts
    assert not vm.aggregate([row(1, 500, 575)])[0]["phases"][0]["thr_consistent"]


def test_the_sinr_is_compared_over_the_milliseconds_the_reference_reports():
    """ns3-mmwave reports the SINR only while it sends the UE data; mmcc's samples of other
    milliseconds (an idle UE after a timeout, the end of the run) are left out."""
    import numpy as np

    ms = np.arange(0, 12_000) / 1e3
    t = np.arange(0, 121) / 10
    side = {"delivered_bytes": 1, "retx_bytes": 0, "fast_retransmits": 0, "rtos": 0, "error_drops": 0,
            "t_s": t, "throughput_mbps": np.ones_like(t), "rtt_ms": np.ones_like(t)}
    ref = {**side, "radio_t_s": np.arange(150, 161) / 1e3, "sinr_db": np.full(11, 40.0), "mcs": np.full(11, 28.0)}
    ours = {**side, "radio_t_s": ms, "sinr_db": np.where((ms >= 0.15) & (ms <= 0.1605), 40.0, 0.0),
            "mcs": np.full(ms.size, 28.0)}
    start = vm.compare(vm.Case("newreno", "edge", 2.5, 0.0, 1, 12.0), ref, ours)["phases"][0]
    assert start["phase"] == "start (still)" and start["sinr_mmcc_db"] == 40.0 and start["sinr_ok"]


def test_the_oracles_rlc_trace_shows_its_poll_retransmissions(tmp_path):
    """The reference's RLC trace (`--rlcTrace`, ns-3.35 build, NewReno, 0.25 MiB, seed 1, 1.6 s):
    the gNB sends PDUs again (its t-PollRetransmit, modelled by `rlc_poll_retransmit`): the
    round whose last PDU went at 272.9 ms sends its four full blocks again 4 ms later, and
    docs/radio.md quotes the totals."""
    trace = Path(__file__).resolve().parents[1] / "validation" / "mmwave-traces"
    copies = vm.rlc_copies(trace / "newreno-edge-0.25MiB-0-s1-1.6s.rlc.csv.gz")
    assert [b for t, b in copies if 276_900_000 < t < 278_000_000] == [39184, 39184, 37405, 35622]
    n, kb = len(copies), round(sum(b for _, b in copies) / 1000)
    assert f"{n} copies, {kb} KB, in 1.6 s" in (Path(__file__).resolve().parents[1] / "docs" / "radio.md").read_text()
    # a copy is a PDU the UE got that the gNB did not send new; matched by size in order
    rows = "t_ns,kind,bytes\n0,gnb_tx,100\n300,ue_rx,100\n4000300,ue_rx,100\n"
    p = tmp_path / "rlc.csv"
    p.write_text(rows)
    assert vm.rlc_copies(p) == [(4000300, 100)]
