"""`mmcc testbed --check`: prove the link emulator before trusting it.

Four measurements over a link of RATE and one-way DELAY, each against its configuration:
1. round-trip time of 64-byte UDP probes (50, every 20 ms), timed by the kernel's receive
   timestamps less the reflector's turnaround (so the two Python endpoints' wake-ups are not
   counted): the median within 5 % of 2 x delay plus the probes' serialization, plus the host's
   timer lateness that the emulator measured itself (its mean delay in writing a packet after
   its due time, both directions), which must stay under 1 ms -- a host that wakes the emulator
   later than that cannot emulate the path;
2. UDP at half the capacity for 2 s: every datagram arrives, at the rate sent (within 3 %);
3. UDP at a fifth of the capacity with per-packet loss LOSS: the measured loss within 3 standard
   deviations of the binomial (and equal to the emulator's own count of the drops);
4. capacity under a bulk TCP flow (kernel CUBIC, 4 s, 1 BDP buffer): the goodput after the
   first second within [94, 101] % of the capacity's payload share (1448 bytes of every
   1500-byte packet: 52 bytes of IP and TCP headers with timestamps).
"""
from __future__ import annotations

import math
import statistics
import tempfile
import time
from pathlib import Path

from .run import ADDR_B, Hosts, Plan, TestbedError, _expect_ready, _read_json, plan, run_testbed, unavailable_reason

PORT = 5400


def _scenario(rate_bps: int, delay_ns: int, limit_bytes: int, loss: float, seed: int):
    """One link a - b (both directions: the rate, the delay, a drop-tail buffer of `limit_bytes`;
    per-packet `loss` on a -> b) and a kernel CUBIC flow a -> b for 4 s."""
    from ..scenario import Scenario

    fwd = {"error": {"unit": "packet", "rate": loss}} if loss > 0 else {}
    return Scenario.from_dict({
        "name": "testbed-check", "duration": "4s", "seed": seed, "nodes": ["a", "b"],
        "links": [{"between": ["a", "b"], "rate": f"{rate_bps}bps", "delay": f"{delay_ns}ns",
                   "queue": {"type": "droptail", "limit": f"{limit_bytes}B"}, "forward": fwd}],
        "flows": [{"from": "a", "to": "b", "cca": "cubic"}]})


def _plan(rate_bps: int, delay_ns: int, loss: float, seed: int) -> Plan:
    """The path for the UDP checks: a buffer (4 MB) that never fills."""
    return plan(_scenario(rate_bps, delay_ns, 4_000_000, loss, seed).config)


def _result(name: str, measured: float, expected: float, lo: float, hi: float, unit: str) -> dict:
    return {"check": name, "measured": measured, "expected": expected, "low": lo, "high": hi, "unit": unit,
            "ok": lo <= measured <= hi}


def _mean_lateness_ms(stats: dict | None) -> float:
    """The emulator's own mean write lateness (how long after a packet's due time the host let it
    write the packet), summed over the two directions: what the host's timers add to a round trip."""
    late = (stats or {}).get("write_lateness", {})
    if not all(d in late for d in ("forward", "reverse")):
        raise TestbedError("the emulator wrote no write-lateness statistics")
    return sum(late[d]["mean_ns"] for d in ("forward", "reverse")) / 1e6


def _udp_transfer(h: Hosts, port: int, rate_bps: float, duration_ms: int, delay_ms: float) -> tuple[dict, dict]:
    """Paced 1400-byte datagrams from a to b; returns (what was sent, what arrived)."""
    sink = h.spawn(h.ns_b, ["udp-sink", "--port", str(port)])
    _expect_ready(sink, "UDP sink")
    snd = h.spawn(h.ns_a, ["udp-send", "--to", ADDR_B, "--port", str(port), "--rate-bps", str(rate_bps),
                           "--duration-ms", str(duration_ms), "--size", "1400"])
    sent = _read_json(snd, "UDP sender", 20)
    time.sleep(0.2 + 2 * delay_ms / 1e3)  # the last datagrams' flight
    sink.stdin.write("stop\n")
    sink.stdin.flush()
    return sent, _read_json(sink, "UDP sink", 10)


def check_emulator(rate_mbps: float = 50.0, delay_ms: float = 10.0, loss: float = 0.01, seed: int = 1) -> list[dict]:
    """Run the four checks; returns one dict per check (measured, expected, allowed range, ok)."""
    reason = unavailable_reason()
    if reason:
        raise TestbedError(reason)
    rate = int(rate_mbps * 1e6)
    delay = int(delay_ms * 1e6)
    out = []
    with tempfile.TemporaryDirectory(prefix="mmcc-check-") as tmp:
        with Hosts(_plan(rate, delay, 0.0, seed), Path(tmp)) as h:
            h.start_clock()
            # 1. RTT of small probes
            echo = h.spawn(h.ns_b, ["udp-echo", "--port", str(PORT)])
            _expect_ready(echo, "UDP echo")
            ping = h.spawn(h.ns_a, ["udp-ping", "--to", ADDR_B, "--port", str(PORT), "--count", "50",
                                    "--interval-ms", "20", "--size", "64"])
            r = _read_json(ping, "UDP ping", 20)
            echo.stdin.write("stop\n")
            echo.stdin.flush()
        rtt = statistics.median(r["rtt_ns"]) / 1e6 if r["rtt_ns"] else math.nan
        nominal = 2 * delay_ms + 2 * (64 + 28) * 8 / rate * 1e3
        late_ms = _mean_lateness_ms(h.stats)
        out.append(_result("rtt_median", rtt, nominal + late_ms, 0.95 * nominal + late_ms, 1.05 * nominal + late_ms,
                           "ms"))
        out.append(_result("emulator_write_lateness", late_ms, 0.0, 0.0, 1.0, "ms"))
        with Hosts(_plan(rate, delay, 0.0, seed), Path(tmp)) as h:
            h.start_clock()
            # 2. UDP below capacity: nothing lost, the rate kept
            s, k = _udp_transfer(h, PORT + 1, rate / 2, 2000, delay_ms)
            out.append(_result("udp_half_rate_delivered", k["packets"] / max(s["sent"], 1), 1.0, 1.0, 1.0, "fraction"))
            span = (k["last_ns"] - k["first_ns"]) / 1e9 if k["packets"] > 1 else math.nan
            got = (k["packets"] - 1) * 1428 * 8 / span / 1e6 if span and span > 0 else math.nan
            want = s["sent"] * 1428 * 8 / s["seconds"] / 1e6
            out.append(_result("udp_half_rate_mbps", got, want, 0.97 * want, 1.03 * want, "Mb/s"))
        with Hosts(_plan(rate, delay, loss, seed), Path(tmp)) as h:
            h.start_clock()
            # 3. random loss at a fifth of the capacity
            s, k = _udp_transfer(h, PORT + 2, rate / 5, 3000, delay_ms)
        dropped = (h.stats or {}).get("forward", [{}])[0].get("drops_error_model")
        n = s["sent"]
        sd = math.sqrt(n * loss * (1 - loss))
        lost = n - k["packets"]
        out.append(_result("udp_loss_packets", lost, n * loss, n * loss - 3 * sd, n * loss + 3 * sd, "packets"))
        out.append(_result("udp_loss_matches_emulator_count", lost - (dropped if dropped is not None else -1), 0, 0, 0,
                           "packets"))
    # 4. capacity under a bulk TCP flow, over a 1 BDP buffer
    res = run_testbed(_scenario(rate, delay, max(30_000, rate * 2 * delay // 8_000_000_000), 0.0, seed))
    ser = res.series.to_pydict()
    late = [b for t, b in zip(ser["t_s"], ser["delivered_bytes"]) if t >= 1.0]
    goodput = sum(late) * 8 / (len(late) * 0.1) / 1e6 if late else math.nan
    share = rate_mbps * 1448 / 1500
    out.append(_result("tcp_goodput_mbps", goodput, share, 0.94 * share, 1.01 * share, "Mb/s"))
    return out


def format_checks(rows: list[dict]) -> str:
    lines = []
    for r in rows:
        lines.append(f"{'ok  ' if r['ok'] else 'FAIL'} {r['check']:<34} measured {r['measured']:.4g} {r['unit']}, "
                     f"expected {r['expected']:.4g} (allowed {r['low']:.4g}..{r['high']:.4g})")
    return "\n".join(lines)
