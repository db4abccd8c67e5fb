"""The kernel side: the testbed's plan (no privileges needed), then, as root with BPF and TUN,
the eBPF algorithms loaded and carrying real transfers, the emulator proven against its
configuration, and cleanup after Ctrl-C and after a killed run."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from mmcc.scenario import Scenario, load
from mmcc.testbed import bpf
from mmcc.testbed.run import NS_PREFIX, kernel_cca, plan, unavailable_reason
from mmcc.testbed.run import TestbedError as TbError

ROOT = Path(__file__).resolve().parents[1]


def _wired(**over) -> dict:
    d = {"name": "tb", "duration": "2s", "seed": 1, "nodes": ["server", "router", "client"],
         "links": [{"between": ["server", "router"], "rate": "1Gbps", "delay": "5ms"},
                   {"between": ["client", "router"], "rate": "50Mbps", "delay": "10ms",
                    "reverse": {"queue": {"type": "droptail", "limit": "100000B"},
                                "error": {"unit": "packet", "rate": 0.01}}}],
         "flows": [{"from": "server", "to": "client", "cca": "cubic"}]}
    d.update(over)
    return d


def test_plan_chains_the_path_in_order_with_each_direction():
    p = plan(Scenario.from_dict(_wired()).config)
    # forward: server->router (1 Gb/s), then router->client: the second link is given as
    # client-router, so the data direction is its reverse (with its queue and loss)
    assert [h["rate"] for h in p.forward] == [1_000_000_000, 50_000_000]
    assert p.forward[1]["queue"]["limit_bytes"] == 100_000
    assert p.forward[1]["error"] == {"unit": "packet", "rate": 0.01}
    assert [h["rate"] for h in p.reverse] == [50_000_000, 1_000_000_000]
    assert p.reverse[0]["error"] is None
    assert p.link_ids == [(0, "forward"), (1, "reverse")]
    assert p.mtu == 1500 and p.duration_ns == 2_000_000_000
    # losses from the simulator's stream of each direction, or from the testbed's own
    assert [h["stream"] for h in p.forward] == ["link/0/ab", "link/1/ba"]
    ind = plan(Scenario.from_dict(_wired()).config, independent_losses=True)
    assert [h["stream"] for h in ind.forward] == ["testbed/link/0/ab", "testbed/link/1/ba"]


def test_plan_refuses_what_it_cannot_emulate_with_the_way_out():
    with pytest.raises(TbError, match="export-trace"):
        plan(load("thesis-edge").config)
    two_pairs = _wired(flows=[{"from": "server", "to": "client"}, {"from": "client", "to": "server"}])
    with pytest.raises(TbError, match="one pair of nodes"):
        plan(Scenario.from_dict(two_pairs).config)
    with pytest.raises(TbError, match="no kernel version"):
        plan(Scenario.from_dict(_wired(flows=[{"from": "server", "to": "client", "cca": "vegas"}])).config)
    codel = _wired()
    codel["links"][1]["reverse"]["queue"] = {"type": "codel"}
    with pytest.raises(TbError, match="drop-tail"):
        plan(Scenario.from_dict(codel).config)
    finite = _wired(flows=[{"from": "server", "to": "client", "app": {"type": "bulk", "bytes": "1MB"}}])
    with pytest.raises(TbError, match="unlimited bulk"):
        plan(Scenario.from_dict(finite).config)


def test_the_rtt_check_adds_the_emulators_own_lateness_of_both_directions():
    from mmcc.testbed.check import _mean_lateness_ms
    from mmcc.testbed.run import TestbedError

    stats = {"write_lateness": {"forward": {"mean_ns": 250_000}, "reverse": {"mean_ns": 80_000}}}
    assert _mean_lateness_ms(stats) == pytest.approx(0.33)
    for bad in (None, {}, {"write_lateness": {"forward": {"mean_ns": 1}}}):
        with pytest.raises(TestbedError, match="no write-lateness statistics"):
            _mean_lateness_ms(bad)


def test_kernel_names():
    assert kernel_cca("newreno") == "reno" and kernel_cca("rttv") == "mmcc_rttv"
    assert kernel_cca("mmcc_dtcp") == "mmcc_dtcp"
    assert bpf.names("all") == [f"mmcc_{a}" for a in bpf.ALGORITHMS]
    with pytest.raises(bpf.KernelError, match="unknown eBPF algorithm"):
        bpf.names(["cubic"])


def test_tcp_info_fields_at_the_uapi_offsets():
    """`struct tcp_info` of include/uapi/linux/tcp.h: each field read where the header puts it."""
    import struct

    from mmcc.testbed.endpoint import TCP_INFO_LEN, parse_tcp_info

    raw = bytearray(TCP_INFO_LEN)
    raw[1] = 3  # tcpi_ca_state: TCP_CA_Recovery
    for off, v in ((80, 1700), (88, 3), (144, 65536), (216, 7), (220, 2), (228, 123456)):  # u32 fields
        struct.pack_into("=I", raw, off, v)
    for off, v in ((168, 9_000_000), (176, 250), (184, 1_500_000), (200, 10**12)):  # u64 fields
        struct.pack_into("=Q", raw, off, v)
    info = parse_tcp_info(bytes(raw))
    assert (info["ca_state"], info["cwnd"], info["reordering"], info["notsent_bytes"]) == (3, 1700, 3, 65536)
    assert (info["busy_time_us"], info["rwnd_limited_us"], info["sndbuf_limited_us"]) == (9_000_000, 250, 1_500_000)
    assert (info["bytes_sent"], info["dsack_dups"], info["reord_seen"], info["snd_wnd"]) == (10**12, 7, 2, 123456)
    # an older kernel's shorter struct reads as zeros past its end
    assert parse_tcp_info(bytes(raw[:160]))["busy_time_us"] == 0


def test_send_buffer_memory_is_read_from_so_meminfo():
    """`SO_MEMINFO` of a loopback sender: the send buffer and the memory its queues hold, with data
    unsent behind a reader that reads nothing (no root needed)."""
    import socket

    from mmcc.testbed.endpoint import _sndbuf_and_queued

    with socket.socket() as lst, socket.socket() as s:
        lst.bind(("127.0.0.1", 0))
        lst.listen()
        assert _sndbuf_and_queued(s)[1] == 0  # nothing queued before the connection
        s.connect(lst.getsockname())
        conn, _ = lst.accept()
        with conn:
            s.setblocking(False)
            sent = 0
            try:
                while sent < 64 << 20:
                    sent += s.send(b"x" * 65536)
            except BlockingIOError:
                pass
            sndbuf, queued = _sndbuf_and_queued(s)
            assert sndbuf > 0 and 0 < queued <= 2 * sndbuf


def test_bpf_arithmetic_on_the_host():
    """The integer arithmetic of the BPF programs against the simulator's equations (cc only)."""
    r = subprocess.run(["make", "-s", "-C", str(ROOT / "bpf"), "test", f"BUILD={ROOT / 'target' / 'bpf-test'}"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout
    assert "all checks passed" in r.stdout


def test_builds_go_to_the_user_cache_not_the_source_tree(tmp_path, monkeypatch):
    from mmcc.testbed.run import emulator_command, emulator_module

    monkeypatch.setenv("MMCC_CACHE", str(tmp_path / "cache"))
    assert bpf.build_dir() == tmp_path / "cache" / "bpf" / os.uname().release and bpf.build_dir().is_dir()
    # the emulator is in the extension module: nothing to build, no path into the checkout
    assert emulator_module().name.startswith("_core") and emulator_command(Path("c.json"))[:3] == [
        sys.executable, "-m", "mmcc.testbed.linkemu"]
    r = subprocess.run([sys.executable, "-m", "mmcc.testbed.linkemu", str(tmp_path / "missing.json")],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "mmcc-linkemu: cannot read" in r.stderr


def test_cli_kernel_list_works_without_root_or_bpf():
    r = subprocess.run([sys.executable, "-m", "mmcc.cli", "kernel", "list"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert "mmcc_rttv" in r.stdout and "Traceback" not in r.stderr


REASON = unavailable_reason() or bpf.unavailable_reason()
needs_kernel = pytest.mark.skipif(REASON is not None, reason=f"kernel testbed unavailable: {REASON}")


def _our_namespaces(pid: int) -> list[str]:
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [ln.split()[0] for ln in out.splitlines() if ln.startswith(f"{NS_PREFIX}-{pid}-")]


@needs_kernel
def test_every_ebpf_algorithm_loads_carries_a_transfer_and_unloads(tmp_path):
    import struct

    from mmcc.testbed.run import run_testbed

    before = set(bpf.registered())
    flows = [{"from": "a", "to": "b", "cca": a} for a in bpf.ALGORITHMS]
    sc = Scenario.from_dict({"name": "six", "duration": "3s", "nodes": ["a", "b"],
                             "links": [{"between": ["a", "b"], "rate": "60Mbps", "delay": "5ms",
                                        "forward": {"queue": {"type": "droptail", "limit": "150000B"}}}],
                             "flows": flows})
    r = run_testbed(sc, pcap_dir=tmp_path)
    f = r.flows.to_pydict()
    assert f["cca"] == [f"mmcc_{a}" for a in bpf.ALGORITHMS]
    # the opt-in captures: pcap (ns timestamps, raw IPv4), headers of every packet entering each path
    fwd = (tmp_path / "forward.pcap").read_bytes()
    assert struct.unpack_from("<I", fwd)[0] == 0xA1B23C4D and struct.unpack_from("<I", fwd, 20)[0] == 101
    assert r.extra["emulator"]["forward"][0]["arrived_packets"] > 1000
    assert len(fwd) > 24 + 1000 * (16 + 52) and (tmp_path / "reverse.pcap").stat().st_size > 24
    for cca, mbps in zip(f["cca"], f["throughput_mbps"]):
        assert mbps > 1.0, f"{cca} carried {mbps} Mb/s"
    # together they fill the link (60 Mb/s x 1448/1500)
    assert sum(f["delivered_bytes"]) * 8 / 3 / 1e6 > 0.8 * 60 * 1448 / 1500
    # whatever this run registered is gone again; what was there before is untouched
    assert set(bpf.registered()) == before
    # and an explicit load / unload round trip leaves nothing registered
    loaded = bpf.load("all")
    assert set(bpf.registered()) == {f"mmcc_{a}" for a in bpf.ALGORITHMS}
    bpf.unload(loaded)
    assert set(bpf.registered()) == before


@needs_kernel
def test_the_emulator_matches_its_configuration():
    from mmcc.testbed.check import check_emulator, format_checks

    rows = check_emulator()
    assert all(r["ok"] for r in rows), format_checks(rows)


def _start_testbed(tmp_path: Path, duration: str, sigint_ignored: bool = False) -> subprocess.Popen:
    """`mmcc testbed` (RTTV over 20 Mb/s) in a child process, once its namespaces and its
    registration exist and the transfer has run for a second. `sigint_ignored`: start it with
    SIGINT ignored, as a shell starts a background job."""
    sc = tmp_path / "s.toml"
    sc.write_text(f"""name = "kill"\nduration = "{duration}"\nnodes = ["a", "b"]\n
[[links]]\nbetween = ["a", "b"]\nrate = "20Mbps"\ndelay = "5ms"\n
[[flows]]\nfrom = "a"\nto = "b"\ncca = "rttv"\n""")
    ignore = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if sigint_ignored else None
    p = subprocess.Popen([sys.executable, "-m", "mmcc.cli", "testbed", str(sc), "--out", str(tmp_path / "o")],
                         cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=ignore)
    for _ in range(200):
        if len(_our_namespaces(p.pid)) == 2 and "mmcc_rttv" in bpf.available():
            time.sleep(1.0)
            return p
        time.sleep(0.05)
    raise AssertionError("the testbed did not set up its namespaces")


def _children_of(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout
    return [int(ln.split()[0]) for ln in out.splitlines()[1:] if ln.split()[1] == str(pid)]


@needs_kernel
@pytest.mark.parametrize("inherited", ["default", "ignored"])
def test_ctrl_c_cleans_up_everything(tmp_path, inherited):
    """SIGINT ends the run and cleans up, also when the testbed was started with SIGINT ignored
    (a background job of a shell script: Python then leaves it ignored unless told otherwise)."""
    before = set(bpf.registered())
    p = _start_testbed(tmp_path, "60s", sigint_ignored=inherited == "ignored")
    p.send_signal(signal.SIGINT)
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGUSR1)  # the testbed writes its stacks: where it waits
        time.sleep(2)
        p.kill()
        _, err = p.communicate()
        raise AssertionError(f"the testbed did not end within 60 s of SIGINT; its stderr:\n{err}") from None
    assert p.returncode == 130, err
    assert "Traceback" not in err
    assert _our_namespaces(p.pid) == []
    assert set(bpf.registered()) == before


@needs_kernel
def test_a_killed_run_leaves_nothing_after_cleanup(tmp_path):
    before = set(bpf.registered())
    p = _start_testbed(tmp_path, "60s")
    kids = _children_of(p.pid)
    assert kids, "the testbed runs the emulator and the endpoints as its children"
    p.kill()
    p.wait()
    # the emulator and the endpoints die with it (PR_SET_PDEATHSIG)
    for _ in range(100):
        if not any(Path(f"/proc/{k}").exists() for k in kids):
            break
        time.sleep(0.05)
    assert not any(Path(f"/proc/{k}").exists() for k in kids)
    # its namespaces and its registration are left until a cleanup (or the next run)
    r = subprocess.run([sys.executable, "-m", "mmcc.cli", "testbed", "--cleanup"], cwd=ROOT, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    assert _our_namespaces(p.pid) == []
    assert set(bpf.registered()) == before
    assert not (Path("/run/mmcc-testbed") / f"{p.pid}.json").exists()
    assert not list(Path(tempfile.gettempdir()).glob(f"mmcc-testbed-{p.pid}-*")), "its temporary folder is left"


@needs_kernel
def test_a_spurious_timeout_is_undone_by_the_kernel_and_by_the_linux_profile():
    """The bottleneck (20 Mb/s, 20 ms, one-BDP buffer) crawls at 50 kb/s from 3 s to 3.8 s: one
    timeout, nothing lost by it. The kernel undoes it (TcpExtTCPLossUndo: the echoed timestamp
    predates the retransmission, or TCPSpuriousRTOs: F-RTO); so does the linux profile (`undo`
    event), and right after the stall both windows are back near the one before it, where
    `tcp.frto = false` is at about half."""
    from mmcc.results import run
    from mmcc.testbed.run import run_testbed

    raw = {"name": "stall", "duration": "5s", "seed": 1, "nodes": ["server", "router", "client"],
           "links": [{"between": ["server", "router"], "rate": "1Gbps", "delay": "100us"},
                     {"between": ["router", "client"], "rate": "20Mbps", "delay": "9.9ms",
                      "forward": {"queue": {"type": "droptail", "limit": "50kB"},
                                  "rate_schedule": [{"t": "3s", "rate": "50kbps"}, {"t": "3.8s", "rate": "20Mbps"}]}}],
           "tcp": {"profile": "linux"}, "flows": [{"from": "server", "to": "client", "cca": "cubic"}]}

    def cwnd_at(r, t):
        s = r.tables["series"].to_pydict()
        return next(c for ts, c in zip(s["t_s"], s["cwnd_segments"]) if ts >= t)

    k = run_testbed(Scenario.from_dict(raw, source="stall"))
    c = k.extra["kernel_tcp_counters"]
    assert c["TcpExtTCPTimeouts"] >= 1, c
    assert c["TcpExtTCPLossUndo"] + c["TcpExtTCPSpuriousRTOs"] >= 1, c
    m = run(Scenario.from_dict(raw, source="stall"))
    assert "undo" in m.tables["events"].to_pydict()["event"]
    raw["tcp"]["frto"] = False
    off = run(Scenario.from_dict(raw, source="stall"))
    before = cwnd_at(k, 2.9)
    # the windows at the end of the 100 ms bin after the stall (3.8-3.9 s): the next bin can end
    # in the recovery of the burst that follows the stall, on either side, whose timing moves by
    # milliseconds
    assert abs(cwnd_at(m, 3.8) - cwnd_at(k, 3.8)) <= 0.15 * before, (cwnd_at(m, 3.8), cwnd_at(k, 3.8))
    assert cwnd_at(off, 3.8) < 0.7 * cwnd_at(k, 3.8)
