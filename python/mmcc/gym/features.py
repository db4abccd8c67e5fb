"""What an agent observes: one monitor interval measured from two flow snapshots
(`Measure`), and the features computed from it (`FEATURES`, each with its unit).

A feature is a function of a `Measure`; add one with `register_feature(name, unit, fn)` (see
docs/gym.md). Presets name the feature lists of published designs (`PRESETS`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from .. import _core

#: Index of each field in a `_core.Session.snapshot` tuple.
F = {name: i for i, name in enumerate(_core.SNAPSHOT_FIELDS)}
_NOW, _CWND, _FLIGHT, _MSS = F["now_ns"], F["cwnd"], F["in_flight"], F["mss"]
_SRTT, _MINRTT, _LATEST = F["srtt_ns"], F["min_rtt_ns"], F["latest_rtt_ns"]
_RTT_N, _RTT_SUM, _SENT, _RETX = F["rtt_samples"], F["rtt_sum_ns"], F["bytes_sent"], F["retx_bytes"]
_ACKED, _DELIV, _RETRANS, _RTOS = F["bytes_acked"], F["delivered"], F["retransmits"], F["rtos"]
_STATE, _PACING, _SINR, _LOS, _DONE = F["ca_state"], F["pacing_bps"], F["sinr_db"], F["los"], F["done"]


class Measure:
    """One monitor interval of one flow (SI units: seconds, bits per second, bytes), plus the
    episode's running extremes that normalised features and rewards use."""

    __slots__ = ("t_s", "dt_s", "throughput_bps", "send_bps", "ack_bps", "rtt_s", "prev_rtt_s", "srtt_s",
                 "min_rtt_s", "latest_rtt_s", "loss_rate", "retransmits", "timeouts", "cwnd", "in_flight",
                 "mss", "pacing_bps", "sinr_db", "los", "ca_state", "done", "lost_bps",
                 "min_interval_rtt_s", "max_throughput_bps", "max_cwnd")


class Monitor:
    """Turns successive snapshots of one flow into `Measure`s (one per interval)."""

    def __init__(self, first: tuple):
        self.prev = first
        self.prev_rtt_s = 0.0
        self.min_interval_rtt_s = math.inf
        self.max_throughput_bps = 0.0
        self.max_cwnd = 0

    def measure(self, cur: tuple) -> Measure:
        p = self.prev
        m = Measure()
        dt = (cur[_NOW] - p[_NOW]) * 1e-9
        m.t_s, m.dt_s = cur[_NOW] * 1e-9, dt
        inv = 8.0 / dt if dt > 0 else 0.0
        m.throughput_bps = (cur[_DELIV] - p[_DELIV]) * inv
        sent = cur[_SENT] - p[_SENT]
        retx = cur[_RETX] - p[_RETX]
        m.send_bps = sent * inv
        m.ack_bps = (cur[_ACKED] - p[_ACKED]) * inv
        m.lost_bps = retx * inv
        m.loss_rate = retx / sent if sent > 0 else 0.0
        n = cur[_RTT_N] - p[_RTT_N]
        srtt = cur[_SRTT]
        m.srtt_s = srtt * 1e-9 if srtt is not None else 0.0
        # the interval's mean RTT sample; without a sample in it, the smoothed RTT
        m.rtt_s = (cur[_RTT_SUM] - p[_RTT_SUM]) / n * 1e-9 if n > 0 else m.srtt_s
        m.prev_rtt_s = self.prev_rtt_s if self.prev_rtt_s > 0 else m.rtt_s
        m.min_rtt_s = cur[_MINRTT] * 1e-9 if cur[_MINRTT] is not None else 0.0
        m.latest_rtt_s = cur[_LATEST] * 1e-9 if cur[_LATEST] is not None else 0.0
        m.retransmits = cur[_RETRANS] - p[_RETRANS]
        m.timeouts = cur[_RTOS] - p[_RTOS]
        m.cwnd, m.in_flight, m.mss = cur[_CWND], cur[_FLIGHT], cur[_MSS]
        m.pacing_bps = cur[_PACING] or 0
        m.sinr_db = cur[_SINR] if cur[_SINR] is not None else 0.0
        m.los = cur[_LOS]
        m.ca_state = cur[_STATE]
        m.done = cur[_DONE]
        if n > 0 and m.rtt_s < self.min_interval_rtt_s:
            self.min_interval_rtt_s = m.rtt_s
        self.max_throughput_bps = max(self.max_throughput_bps, m.throughput_bps)
        self.max_cwnd = max(self.max_cwnd, m.cwnd)
        m.min_interval_rtt_s = self.min_interval_rtt_s if self.min_interval_rtt_s < math.inf else m.rtt_s
        m.max_throughput_bps = self.max_throughput_bps
        m.max_cwnd = self.max_cwnd
        if m.rtt_s > 0:
            self.prev_rtt_s = m.rtt_s
        self.prev = cur
        return m


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else 1.0


@dataclass(frozen=True)
class Feature:
    name: str
    unit: str
    help: str
    fn: Callable[[Measure], float]


FEATURES: dict[str, Feature] = {}


def register_feature(name: str, unit: str, fn: Callable[[Measure], float], help: str = "") -> None:
    """Add an observation feature: `fn(measure) -> float`, `unit` for the docs."""
    if not name.isidentifier():
        raise ValueError(f"feature name {name!r}: expected an identifier (letters, digits, '_')")
    FEATURES[name] = Feature(name, unit, help, fn)


for _name, _unit, _fn, _help in [
    ("throughput_mbps", "Mb/s", lambda m: m.throughput_bps * 1e-6, "bytes the receiving application got in the interval"),
    ("send_rate_mbps", "Mb/s", lambda m: m.send_bps * 1e-6, "bytes put on the wire (new and retransmitted)"),
    ("ack_rate_mbps", "Mb/s", lambda m: m.ack_bps * 1e-6, "bytes newly acknowledged cumulatively"),
    ("rtt_ms", "ms", lambda m: m.rtt_s * 1e3, "mean RTT sample of the interval (the smoothed RTT if none)"),
    ("srtt_ms", "ms", lambda m: m.srtt_s * 1e3, "RFC 6298 smoothed RTT at the end of the interval"),
    ("min_rtt_ms", "ms", lambda m: m.min_rtt_s * 1e3, "the connection's minimum RTT sample"),
    ("latest_rtt_ms", "ms", lambda m: m.latest_rtt_s * 1e3, "the last RTT sample"),
    ("loss_rate", "fraction", lambda m: m.loss_rate, "retransmitted / sent bytes in the interval"),
    ("retransmits", "segments", lambda m: float(m.retransmits), "retransmissions in the interval"),
    ("timeouts", "count", lambda m: float(m.timeouts), "retransmission timeouts in the interval"),
    ("cwnd_segments", "segments", lambda m: m.cwnd / m.mss, "congestion window at the end of the interval"),
    ("in_flight_segments", "segments", lambda m: m.in_flight / m.mss, "RFC 6675 pipe at the end of the interval"),
    ("pacing_mbps", "Mb/s", lambda m: m.pacing_bps * 1e-6, "the pacing rate set (0: the stack's default)"),
    ("recovery", "0/1", lambda m: 1.0 if m.ca_state >= 2 else 0.0, "in fast recovery or after a timeout"),
    # Aurora (Jay et al., ICML 2019, section 4.1): the latency gradient d(latency)/dt, the latency
    # ratio (mean latency of the interval over the minimum mean latency seen) and the sending
    # ratio (packets sent over packets acknowledged), per monitor interval
    ("latency_gradient", "s/s", lambda m: (m.rtt_s - m.prev_rtt_s) / m.dt_s if m.dt_s > 0 else 0.0,
     "Aurora: change of the mean RTT since the previous interval, per second"),
    ("latency_ratio", "ratio", lambda m: _ratio(m.rtt_s, m.min_interval_rtt_s),
     "Aurora: the interval's mean RTT over the lowest interval mean of the episode"),
    ("sending_ratio", "ratio", lambda m: min(_ratio(m.send_bps, m.ack_bps), 1000.0),
     "Aurora: bytes sent over bytes acknowledged in the interval (at most 1000)"),
    # Orca (Abbasloo et al., SIGCOMM 2020, section 4.2) feeds its agent normalised throughput,
    # loss, delay, the interval length and the window; normalised here by the episode's extremes
    ("throughput_norm", "ratio", lambda m: _ratio(m.throughput_bps, m.max_throughput_bps) if m.max_throughput_bps else 0.0,
     "Orca: throughput over the highest interval throughput of the episode"),
    ("delay_ratio", "ratio", lambda m: _ratio(m.rtt_s, m.min_rtt_s), "Orca: the interval's mean RTT over the minimum RTT"),
    ("srtt_ratio", "ratio", lambda m: _ratio(m.srtt_s, m.min_rtt_s), "smoothed RTT over the minimum RTT"),
    ("interval_ratio", "ratio", lambda m: _ratio(m.dt_s, m.min_rtt_s), "Orca: the interval's length over the minimum RTT"),
    ("cwnd_norm", "ratio", lambda m: _ratio(m.cwnd, m.max_cwnd), "Orca: cwnd over the largest cwnd of the episode"),
    # cross-layer (radio) features: the downlink SINR and LoS state of the radio link whose UE
    # is an end of the flow, at its last channel update; 0 without a radio link
    ("sinr_db", "dB", lambda m: m.sinr_db, "downlink SINR of the flow's radio link"),
    ("los", "0/1", lambda m: 1.0 if m.los else 0.0, "the UE has line of sight to its gNB"),
]:
    register_feature(_name, _unit, _fn, _help)

#: Feature lists of published designs, with their history length (intervals stacked).
PRESETS: dict[str, tuple[list[str], int]] = {
    "aurora": (["latency_gradient", "latency_ratio", "sending_ratio"], 10),
    "orca": (["throughput_norm", "loss_rate", "delay_ratio", "interval_ratio", "cwnd_norm", "srtt_ratio"], 1),
    "basic": (["throughput_mbps", "rtt_ms", "min_rtt_ms", "loss_rate", "cwnd_segments", "in_flight_segments"], 1),
}

RADIO_FEATURES = ["sinr_db", "los"]


def resolve(observation, history: int | None, radio: bool) -> tuple[list[Feature], int]:
    """(features, history length) from a preset name or a list of feature names."""
    if isinstance(observation, str):
        if observation not in PRESETS:
            raise ValueError(f"observation: unknown preset {observation!r}; allowed: {', '.join(PRESETS)} "
                             f"or a list of feature names")
        names, k = PRESETS[observation]
    else:
        names, k = list(observation), 1
    if radio:
        names = names + [n for n in RADIO_FEATURES if n not in names]
    unknown = [n for n in names if n not in FEATURES]
    if unknown or not names:
        raise ValueError(f"observation: unknown feature(s) {', '.join(map(repr, unknown)) or '(none given)'}; "
                         f"allowed: {', '.join(FEATURES)}")
    k = k if history is None else history
    if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= 1000:
        raise ValueError(f"history: {k!r}; allowed: a whole number of intervals in 1..1000")
    return [FEATURES[n] for n in names], k
