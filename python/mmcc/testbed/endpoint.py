"""The testbed's bulk sender and receiver: real kernel TCP inside the testbed's namespaces.

Run as a script (standard library only, so it starts fast), never imported by the simulator:

    python endpoint.py recv --port P --bin-ms 10 [--sample-ms 10]
    python endpoint.py send --to ADDR --port P --cca NAME --start-ns S --stop-ns S --sample-ms 10

and, for the emulator's self-check (`mmcc testbed --check`), UDP probes: `udp-echo`/`udp-ping`
(round-trip times) and `udp-sink`/`udp-send` (paced datagrams, counted).

Both print `ready` once set up, then wait for `go T0_NS` on stdin, where T0_NS is the
CLOCK_MONOTONIC time of the scenario's time 0 (the emulator's start). The receiver counts the
bytes the application reads in bins of `--bin-ms` until `stop` or end of input (with `--sample-ms`,
also its receive-window state: rcv_ssthresh, DRS's rcv_space and receiver RTT, SO_RCVBUF and
the window clamp); the sender
connects at T0 + start, sends as fast as the socket accepts until T0 + stop and samples the
socket's `TCP_INFO` every `--sample-ms` (cwnd, ssthresh, smoothed and minimum RTT, bytes
acknowledged, retransmissions, delivery rate, congestion state). Each writes one JSON document
to stdout at the end. Both die with their parent (PR_SET_PDEATHSIG), so a killed testbed leaves
no process behind.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import select
import signal
import socket
import struct
import sys
import time

TCP_CONGESTION = 13
TCP_INFO = 11
TCP_WINDOW_CLAMP = 10
# getsockopt(SOL_SOCKET, SO_MEMINFO): u32 sk_meminfo[SK_MEMINFO_VARS] (include/uapi/linux/sock_diag.h)
SO_MEMINFO = 55
SK_MEMINFO_VARS = 9
SK_MEMINFO_SNDBUF, SK_MEMINFO_WMEM_QUEUED = 3, 5

PR_SET_PDEATHSIG = 1
# struct tcp_info (include/uapi/linux/tcp.h) up to tcpi_snd_wnd: 232 bytes
TCP_INFO_LEN = 232


def _sndbuf_and_queued(s) -> tuple[int, int]:
    """The socket's send buffer (`sk_sndbuf`) and the memory its write and retransmission queues
    hold (`sk_wmem_queued`, skb truesize), bytes."""
    try:
        raw = s.getsockopt(socket.SOL_SOCKET, SO_MEMINFO, 4 * SK_MEMINFO_VARS)
    except OSError:
        return 0, 0
    v = struct.unpack_from(f"={len(raw) // 4}I", raw)
    return v[SK_MEMINFO_SNDBUF], v[SK_MEMINFO_WMEM_QUEUED]


def _die_with_parent() -> None:
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except OSError:
        pass
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))


def parse_tcp_info(raw: bytes) -> dict:
    """The fields of `struct tcp_info` the testbed records (offsets of the Linux UAPI header)."""
    raw = raw.ljust(TCP_INFO_LEN, b"\0")
    u32 = lambda off: struct.unpack_from("=I", raw, off)[0]  # noqa: E731
    u64 = lambda off: struct.unpack_from("=Q", raw, off)[0]  # noqa: E731
    return {
        "ca_state": raw[1],
        "rcv_wscale": raw[6] >> 4,
        "snd_mss": u32(16), "rcv_mss": u32(20),
        "unacked": u32(24), "sacked": u32(28), "lost": u32(32), "retrans": u32(36),
        "rcv_ssthresh": u32(64), "reordering": u32(88),
        "rtt_us": u32(68), "rttvar_us": u32(72), "ssthresh": u32(76), "cwnd": u32(80),
        "rcv_rtt_us": u32(92), "rcv_space": u32(96),
        "total_retrans": u32(100),
        "pacing_rate": u64(104), "bytes_acked": u64(120),
        "segs_out": u32(136), "notsent_bytes": u32(144), "min_rtt_us": u32(148), "data_segs_out": u32(156),
        "delivery_rate": u64(160),
        # time (us) with data in flight, and the parts of it limited by the receive window / the
        # send buffer (tcp_chrono_*; the rest: cwnd-limited)
        "busy_time_us": u64(168), "rwnd_limited_us": u64(176), "sndbuf_limited_us": u64(184),
        "delivered": u32(192), "bytes_sent": u64(200), "bytes_retrans": u64(208),
        "dsack_dups": u32(216), "reord_seen": u32(220), "snd_wnd": u32(228),
    }


# The receiver's window state sampled with `recv --sample-ms` (Linux tcp_info, SO_RCVBUF and
# TCP_WINDOW_CLAMP): what the `linux` profile's receive-window model is compared with.
RECV_COLUMNS = ["t_ns", "bytes_read", "rcv_ssthresh", "rcv_space", "rcv_rtt_us", "rcvbuf", "window_clamp",
                "rcv_mss"]


def _recv_sample(conn, t: int, total: int) -> list:
    info = parse_tcp_info(conn.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_LEN))
    return [t, total, info["rcv_ssthresh"], info["rcv_space"], info["rcv_rtt_us"],
            conn.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF),
            conn.getsockopt(socket.IPPROTO_TCP, TCP_WINDOW_CLAMP), info["rcv_mss"]]


def _wait_go() -> int:
    print("ready", flush=True)
    line = sys.stdin.readline().split()
    if len(line) != 2 or line[0] != "go":
        sys.exit(0)  # the testbed gave up before the start
    return int(line[1])


def _sleep_until(t_ns: int) -> None:
    while True:
        left = t_ns - time.monotonic_ns()
        if left <= 0:
            return
        time.sleep(min(left / 1e9, 0.05))


def receive(a) -> dict:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("0.0.0.0", a.port))
    srv.listen(1)
    t0 = _wait_go()
    bin_ns = a.bin_ms * 1_000_000
    bins: dict[int, int] = {}
    first = last = None
    total = 0
    buf = bytearray(1 << 20)
    conn = None
    watch = [srv, sys.stdin]
    done = False
    step = a.sample_ms * 1_000_000 if a.sample_ms else 0
    samples: list = []
    next_sample = 0
    while not done:
        if conn is not None and step:
            now = time.monotonic_ns()
            if now >= next_sample:
                samples.append(_recv_sample(conn, now - t0, total))
                next_sample = max(next_sample + step, now)
        ready, _, _ = select.select(watch, [], [], min(0.5, step / 1e9) if step and conn is not None else 0.5)
        for r in ready:
            if r is srv:
                conn, _ = srv.accept()
                conn.setblocking(False)
                next_sample = time.monotonic_ns()
                watch = [conn, sys.stdin]
            elif r is sys.stdin:
                if sys.stdin.readline().strip() in ("stop", ""):
                    done = True
            else:
                try:
                    n = conn.recv_into(buf)
                except BlockingIOError:
                    continue
                if n == 0:
                    watch = [sys.stdin]
                    continue
                t = time.monotonic_ns() - t0
                first = t if first is None else first
                last = t
                total += n
                k = t // bin_ns
                bins[k] = bins.get(k, 0) + n
    out = {"bin_ns": bin_ns, "bins": sorted(bins.items()), "first_ns": first, "last_ns": last, "bytes": total}
    if step:
        out.update(columns=RECV_COLUMNS, samples=samples)
    return out


def send(a) -> dict:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, a.cca.encode())
    except OSError as e:
        print(json.dumps({"error": f"congestion control {a.cca!r} is not available: {e.strerror}"}), flush=True)
        sys.exit(3)
    t0 = _wait_go()
    _sleep_until(t0 + a.start_ns)
    s.settimeout(10)
    s.connect((a.to, a.port))
    s.setblocking(False)
    first_send = time.monotonic_ns() - t0
    chunk = b"\0" * (256 * 1024)
    samples = []
    step = a.sample_ms * 1_000_000
    next_sample = time.monotonic_ns()
    stop = t0 + a.stop_ns
    while True:
        now = time.monotonic_ns()
        if now >= next_sample:
            info = parse_tcp_info(s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_LEN))
            samples.append([now - t0, info["cwnd"], info["ssthresh"], info["rtt_us"], info["min_rtt_us"],
                            info["bytes_acked"], info["bytes_sent"], info["bytes_retrans"], info["total_retrans"],
                            info["unacked"] - info["sacked"] - info["lost"] + info["retrans"], info["ca_state"],
                            info["delivery_rate"], info["snd_mss"], info["unacked"], info["notsent_bytes"],
                            *_sndbuf_and_queued(s)])
            next_sample += step
        if now >= stop:
            break
        timeout = max(0.0, min(next_sample, stop) - now) / 1e9
        _, w, _ = select.select([], [s], [], timeout)
        if w:
            try:
                s.send(chunk)
            except (BlockingIOError, InterruptedError):
                pass
    info = parse_tcp_info(s.getsockopt(socket.IPPROTO_TCP, TCP_INFO, TCP_INFO_LEN))
    s.close()
    return {"first_send_ns": first_send, "final": info,
            "columns": ["t_ns", "cwnd", "ssthresh", "rtt_us", "min_rtt_us", "bytes_acked", "bytes_sent",
                        "bytes_retrans", "total_retrans", "inflight", "ca_state", "delivery_rate", "mss",
                        "unacked", "notsent_bytes", "sndbuf", "wmem_queued"],
            "samples": samples}


# Round-trip probes measure the path, not the two Python processes at its ends (as TWAMP does,
# RFC 5357 section 4.2.1): each end reads the kernel's receive timestamp of a datagram
# (SO_TIMESTAMPNS, CLOCK_REALTIME) rather than the time it woke up, and the reflector writes its
# turnaround (receive timestamp to the moment it sends the echo) into the echo, which the pinger
# subtracts. Probe layout: u32 sequence, u64 send time (CLOCK_REALTIME ns), u64 turnaround ns.
PROBE = struct.Struct("=IQQ")
SO_TIMESTAMPNS = 35  # include/uapi/asm-generic/socket.h (SO_TIMESTAMPNS_OLD); not in Python's socket module
TIMESTAMP_CMSG = socket.CMSG_SPACE(16)  # struct timespec


def _recv_stamped(s: socket.socket) -> tuple[bytes, tuple, int]:
    """One datagram, its sender and the kernel's receive time (CLOCK_REALTIME ns)."""
    data, anc, _, peer = s.recvmsg(65536, TIMESTAMP_CMSG)
    for level, kind, raw in anc:
        if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
            sec, nsec = struct.unpack("=qq", raw[:16])
            return data, peer, sec * 1_000_000_000 + nsec
    return data, peer, time.time_ns()  # no timestamp delivered: the time we read it


def udp_echo(a) -> dict:
    """Echo every datagram back to its sender until `stop` / end of input, with the turnaround
    (kernel receive time to send) in the probe's third field."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.bind(("0.0.0.0", a.port))
    print("ready", flush=True)
    n = 0
    while True:
        ready, _, _ = select.select([s, sys.stdin], [], [], 0.5)
        if sys.stdin in ready and sys.stdin.readline().strip() in ("stop", ""):
            return {"echoed": n}
        if s in ready:
            data, peer, t_rx = _recv_stamped(s)
            if len(data) >= PROBE.size:
                seq, t_sent, _ = PROBE.unpack_from(data)
                data = PROBE.pack(seq, t_sent, max(0, time.time_ns() - t_rx)) + data[PROBE.size:]  # 0 if the clock stepped back
            s.sendto(data, peer)
            n += 1


def udp_ping(a) -> dict:
    """`count` probes of `size` bytes every `interval_ms`; the round-trip time of each echo: its
    kernel receive time - the probe's send time - the reflector's turnaround."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    s.connect((a.to, a.port))
    s.setblocking(False)
    rtts: dict[int, int] = {}
    pad = b"\0" * max(0, a.size - PROBE.size)
    step = a.interval_ms * 1_000_000
    t_next = time.monotonic_ns()
    end = t_next + a.count * step + 1_000_000_000
    k = 0
    while time.monotonic_ns() < end and len(rtts) < a.count:
        now = time.monotonic_ns()
        if k < a.count and now >= t_next:
            s.send(PROBE.pack(k, time.time_ns(), 0) + pad)
            k += 1
            t_next += step
        ready, _, _ = select.select([s], [], [], max(0.0, min(t_next, end) - now) / 1e9)
        while ready:
            try:
                data, _, t_rx = _recv_stamped(s)
            except BlockingIOError:
                break
            seq, t_sent, turnaround = PROBE.unpack_from(data)
            rtts[seq] = t_rx - t_sent - turnaround
    return {"sent": k, "rtt_ns": [rtts[i] for i in sorted(rtts)]}


def udp_sink(a) -> dict:
    """Count datagrams and bytes until `stop` / end of input."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind(("0.0.0.0", a.port))
    print("ready", flush=True)
    n = size = 0
    first = last = None
    while True:
        ready, _, _ = select.select([s, sys.stdin], [], [], 0.5)
        if s in ready:
            data = s.recv(65536)
            now = time.monotonic_ns()
            first = now if first is None else first
            last = now
            n += 1
            size += len(data)
        if sys.stdin in ready and sys.stdin.readline().strip() in ("stop", ""):
            return {"packets": n, "bytes": size, "first_ns": first, "last_ns": last}


def udp_send(a) -> dict:
    """Paced datagrams of `size` bytes at `rate_bps` (IP size counted) for `duration_ms`."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.connect((a.to, a.port))
    payload = b"\0" * a.size
    gap = (a.size + 28) * 8 * 1e9 / a.rate_bps
    start = time.monotonic_ns()
    n = 0
    while n * gap < a.duration_ms * 1e6:
        due = start + n * gap
        while time.monotonic_ns() < due:
            pass
        s.send(payload)
        n += 1
    return {"sent": n, "bytes": n * a.size, "seconds": (time.monotonic_ns() - start) / 1e9}


def main() -> int:
    p = argparse.ArgumentParser(prog="endpoint.py")
    sub = p.add_subparsers(dest="role", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--bin-ms", type=int, default=10)
    r.add_argument("--sample-ms", type=int, default=0, help="sample the receive window state (0: off)")
    s = sub.add_parser("send")
    s.add_argument("--to", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cca", required=True)
    s.add_argument("--start-ns", type=int, default=0)
    s.add_argument("--stop-ns", type=int, required=True)
    s.add_argument("--sample-ms", type=int, default=10)
    e = sub.add_parser("udp-echo")
    e.add_argument("--port", type=int, required=True)
    g = sub.add_parser("udp-ping")
    g.add_argument("--to", required=True)
    g.add_argument("--port", type=int, required=True)
    g.add_argument("--count", type=int, default=50)
    g.add_argument("--interval-ms", type=int, default=20)
    g.add_argument("--size", type=int, default=64)
    k = sub.add_parser("udp-sink")
    k.add_argument("--port", type=int, required=True)
    u = sub.add_parser("udp-send")
    u.add_argument("--to", required=True)
    u.add_argument("--port", type=int, required=True)
    u.add_argument("--rate-bps", type=float, required=True)
    u.add_argument("--duration-ms", type=int, required=True)
    u.add_argument("--size", type=int, default=1400)
    a = p.parse_args()
    _die_with_parent()
    roles = {"recv": receive, "send": send, "udp-echo": udp_echo, "udp-ping": udp_ping, "udp-sink": udp_sink,
             "udp-send": udp_send}
    out = roles[a.role](a)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
