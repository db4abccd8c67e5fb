"""Congestion-control algorithms written in Python.

Subclass `CongestionControl`, override the events you need and pass the class to a run::

    import mmcc

    class MyReno(mmcc.CongestionControl):
        name = "my-reno"

        def increase_window(self, cc, ack):
            if cc.in_slow_start():
                cc.cwnd += ack["segments_acked"] * cc.mss          # RFC 5681 slow start
            else:
                cc.cwnd += max(1, cc.mss * cc.mss // cc.cwnd)     # RFC 5681 eq. (3)

    r = mmcc.run("dumbbell", cca=MyReno, duration="10s")

The events are those of the Rust trait (`mmcc_core::cca::CongestionControl`, shaped after ns-3's
`TcpCongestionOps`). `cc` is a `CcState`: windows in bytes (`cwnd`, `ssthresh` and
`pacing_rate_bps` may be assigned), times in seconds (`now_s`, `latest_rtt_s`, `srtt_s`,
`min_rtt_s`, `max_rtt_s`), plus `mss`, `initial_cwnd`, `bytes_in_flight`, `state`
("open", "disorder", "recovery", "loss"), `delivered`, `app_limited`, `sinr_db`, `snd_una`,
`snd_nxt`, and the helpers `cwnd_segments()` and `in_slow_start()`.

One instance is made per flow. `cc` is the same object at every call of a flow, refreshed before
each: keep copies of its values, not the object. A method left as this base class's no-op is not
called at all (a call per ACK saved). An exception raised by a method ends the run with a
RuntimeError naming the algorithm, the method and the Python traceback.
"""

from __future__ import annotations

__all__ = ["CongestionControl", "PyNewReno"]


class CongestionControl:
    """Base class: every method has the default of a Reno-style algorithm except
    `increase_window`, which an algorithm must define."""

    #: name shown in results (the `cca` column)
    name = "python"
    #: True for model-based algorithms that set cwnd in `on_rate_sample` (like BBR): the stack
    #: then skips `increase_window`, PRR and "cwnd = ssthresh" when recovery ends.
    controls_window = False
    #: False for algorithms without fast recovery (Tahoe).
    uses_fast_recovery = True

    def init(self, cc) -> None:
        """Once, before the first segment is sent."""

    def on_ack(self, cc, ack: dict) -> None:
        """Every ACK that delivered data (ns-3 PktsAcked): ack = {segments_acked, bytes_acked,
        rtt_s (None without a valid sample)}."""

    def increase_window(self, cc, ack: dict) -> None:
        """Grow cc.cwnd on an ACK that advanced snd_una outside fast recovery (ns-3 IncreaseWindow)."""
        raise NotImplementedError(f"{type(self).__name__} must define increase_window(cc, ack)")

    def ssthresh(self, cc) -> int:
        """New slow-start threshold in bytes after a congestion event; must not change state.
        Default: RFC 5681 eq. (4), max(FlightSize / 2, 2 MSS)."""
        return max(cc.bytes_in_flight // 2, 2 * cc.mss)

    def on_congestion_event(self, cc, kind: str) -> None:
        """A loss was detected: kind is "fast_retransmit" or "timeout"; cc.ssthresh is already set."""

    def on_state_change(self, cc, from_state: str) -> None:
        """The congestion state changed from `from_state` to `cc.state`."""

    def on_rate_sample(self, cc, rs: dict) -> None:
        """Delivery-rate sample per ACK (only called when controls_window is True): rs =
        {delivered, interval_s, delivery_rate_bps, is_app_limited, rtt_s, acked_sacked,
        newly_lost, prior_in_flight, valid}."""


class PyNewReno(CongestionControl):
    """NewReno in Python, equal to the built-in `newreno` in the `linux` profile (used by tests
    and to measure the cost of a Python algorithm): slow start per acknowledged segment up to
    ssthresh, then MSS*MSS/cwnd per acknowledged segment with the fraction carried exactly
    (Linux tcp_cong_avoid_ai); ssthresh = max(cwnd / 2, 2 MSS) (tcp_reno_ssthresh)."""

    name = "py-newreno"

    def __init__(self):
        self.acc = 0

    def increase_window(self, cc, ack):
        segs = ack["segments_acked"]
        if cc.cwnd < cc.ssthresh:
            room = -(-(cc.ssthresh - cc.cwnd) // cc.mss)  # ceil
            used = min(segs, room)
            cc.cwnd = min(cc.cwnd + used * cc.mss, max(cc.ssthresh, cc.cwnd))
            segs -= used
        if segs > 0 and cc.cwnd >= cc.ssthresh:
            # RFC 5681 eq. (3) per acknowledged segment: cwnd += MSS * MSS / cwnd, fraction carried
            self.acc += cc.mss * cc.mss * segs
            if self.acc >= cc.cwnd:
                whole = self.acc // cc.cwnd
                self.acc -= whole * cc.cwnd
                cc.cwnd += whole

    def ssthresh(self, cc):
        return max(cc.cwnd // 2, 2 * cc.mss)  # Linux tcp_reno_ssthresh (the linux profile)
