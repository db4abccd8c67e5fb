"""The testbed's bulk sender and receiver: real kernel TCP inside the testbed's namespaces.

Run as a script (standard library only, so it starts fast), never imported by the simulator:

    python endpoint.py recv --port P --bin-ms 10
    python endpoint.py send --to ADDR --port P --cca NAME --start S --stop S --sample-ms 10

Both print `ready` once set up, then wait for `go T0_NS` on stdin, where T0_NS is the
CLOCK_MONOTONIC time of the scenario's time 0 (the emulator's start). The receiver counts the
bytes the application reads in bins of `--bin-ms` until `stop` or end of input; the sender
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
PR_SET_PDEATHSIG = 1
# struct tcp_info (include/uapi/linux/tcp.h) up to tcpi_snd_wnd: 232 bytes
TCP_INFO_LEN = 232
INFINITE_SSTHRESH = 0x7FFFFFFF


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
        "snd_mss": u32(16),
        "unacked": u32(24), "sacked": u32(28), "lost": u32(32), "retrans": u32(36),
        "rtt_us": u32(68), "rttvar_us": u32(72), "ssthresh": u32(76), "cwnd": u32(80),
        "total_retrans": u32(100),
        "pacing_rate": u64(104), "bytes_acked": u64(120),
        "segs_out": u32(136), "min_rtt_us": u32(148), "data_segs_out": u32(156),
        "delivery_rate": u64(160), "delivered": u32(192), "bytes_sent": u64(200), "bytes_retrans": u64(208),
    }


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
    while not done:
        ready, _, _ = select.select(watch, [], [], 0.5)
        for r in ready:
            if r is srv:
                conn, _ = srv.accept()
                conn.setblocking(False)
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
    return {"bin_ns": bin_ns, "bins": sorted(bins.items()), "first_ns": first, "last_ns": last, "bytes": total}


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
                            info["delivery_rate"], info["snd_mss"]])
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
                        "bytes_retrans", "total_retrans", "inflight", "ca_state", "delivery_rate", "mss"],
            "samples": samples}


def main() -> int:
    p = argparse.ArgumentParser(prog="endpoint.py")
    sub = p.add_subparsers(dest="role", required=True)
    r = sub.add_parser("recv")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--bin-ms", type=int, default=10)
    s = sub.add_parser("send")
    s.add_argument("--to", required=True)
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--cca", required=True)
    s.add_argument("--start-ns", type=int, default=0)
    s.add_argument("--stop-ns", type=int, required=True)
    s.add_argument("--sample-ms", type=int, default=10)
    a = p.parse_args()
    _die_with_parent()
    out = receive(a) if a.role == "recv" else send(a)
    sys.stdout.write(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
