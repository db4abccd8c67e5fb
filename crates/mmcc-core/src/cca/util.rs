//! Building blocks shared by several algorithms.

use super::{CcState, Profile};
use crate::time::Dur;

/// Additive-increase accumulator shared by Reno-style algorithms: adds `num / den` bytes with
/// exact carry of the fraction.
#[derive(Clone, Debug, Default)]
pub struct FracAcc {
    acc: u64,
}

impl FracAcc {
    /// Add `num / den` (bytes) to `*cwnd`, carrying the remainder to the next call.
    #[inline]
    pub fn add(&mut self, cwnd: &mut u64, num: u64, den: u64) {
        if den == 0 {
            return;
        }
        self.acc = self.acc.saturating_add(num);
        if self.acc >= den {
            let whole = self.acc / den;
            self.acc -= whole * den;
            *cwnd += whole;
        }
    }
    pub fn reset(&mut self) {
        self.acc = 0;
    }
}

/// Standard slow start per profile; returns the segments left over for congestion avoidance.
/// - `linux` (`tcp_slow_start`, RFC 3465 with L = ssthresh): cwnd += MSS per acknowledged
///   segment, capped at ssthresh;
/// - `ns3` (`TcpNewReno::SlowStart`): cwnd += one MSS per ACK that acknowledges at least one
///   segment, not capped; the other segments of the ACK are left over.
pub fn slow_start(stack: Profile, cc: &mut CcState, segments: u32) -> u32 {
    if stack.is_ns3() {
        if segments == 0 {
            return 0;
        }
        cc.cwnd += cc.mss;
        return segments - 1;
    }
    let room = cc.ssthresh.saturating_sub(cc.cwnd).div_ceil(cc.mss);
    let used = (segments as u64).min(room);
    cc.cwnd = (cc.cwnd + used * cc.mss).min(cc.ssthresh.max(cc.cwnd));
    segments - used as u32
}

/// Appropriate byte counting without a cap (ns-3 `TcpCubic` slow start; Linux CUBIC uses
/// `tcp_slow_start`): cwnd += MSS per acknowledged segment.
pub fn slow_start_abc(stack: Profile, cc: &mut CcState, segments: u32) -> u32 {
    if stack.is_ns3() {
        cc.cwnd += segments as u64 * cc.mss;
        return 0;
    }
    slow_start(stack, cc, segments)
}

/// The window a loss halves: bytes in flight in ns-3 (`TcpSocketBase` calls
/// `GetSsThresh(tcb, bytesInFlight)`), cwnd in Linux (`ca_ops->ssthresh` reads `tcp_snd_cwnd`).
pub fn loss_window(stack: Profile, cc: &CcState) -> u64 {
    match stack {
        Profile::Ns3 => cc.bytes_in_flight,
        Profile::Linux => cc.cwnd,
    }
}

/// RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2 * SMSS); the flight is the bytes in
/// flight in ns-3 and cwnd in Linux (`tcp_reno_ssthresh`), see [`loss_window`].
pub fn half_flight(stack: Profile, cc: &CcState) -> u64 {
    (loss_window(stack, cc) / 2).max(cc.min_ssthresh())
}

/// The common start of `increase_window`: standard slow start for the acknowledged segments
/// (RFC 5681 / RFC 3465), then whether congestion avoidance applies to this ACK (segments were
/// left over and cwnd has reached ssthresh).
#[inline]
pub fn slow_start_then_ca(stack: Profile, cc: &mut CcState, segments_acked: u32) -> bool {
    ca_segments(stack, cc, segments_acked) > 0
}

/// As [`slow_start_then_ca`], returning the segments congestion avoidance counts (0: none).
#[inline]
pub fn ca_segments(stack: Profile, cc: &mut CcState, segments_acked: u32) -> u32 {
    let mut segs = segments_acked;
    if cc.in_slow_start() {
        segs = slow_start(stack, cc, segs);
    }
    if cc.in_slow_start() {
        0
    } else {
        segs
    }
}

/// Per-ACK growth of `increment / cwnd` segments (an increment of `increment` segments per
/// RTT), or Reno's 1/cwnd while the increment is unknown (no RTT samples yet).
#[inline]
pub fn per_rtt_increment(acc: &mut FracAcc, cc: &mut CcState, increment: Option<f64>) {
    match increment {
        Some(f) => {
            let w = cc.cwnd_segments();
            add_segments(acc, cc, f / w);
        }
        None => reno_ca(acc, cc),
    }
}

/// A closed per-RTT round (see [`RoundRate`]).
#[derive(Clone, Copy, Debug)]
pub struct ClosedRound {
    /// The counter's advance over the round's duration, bytes per second (None for a round of
    /// zero duration).
    pub rate: Option<f64>,
    /// Smallest RTT and number of RTT samples in the round.
    pub min_rtt: Option<Dur>,
    pub samples: u32,
}

/// Per-round rate of a byte counter the caller chooses: `cc.snd_una` (bytes cumulatively
/// acknowledged, what an ns-3 class (`m_lastAckedSeq`) and a Linux module (`snd_una`) see
/// alike) or `cc.delivered` (acknowledged or SACKed), over a [`Round`].
#[derive(Clone, Debug, Default)]
pub struct RoundRate {
    round: Round,
    start: Option<crate::time::Time>,
    at_start: u64,
}

impl RoundRate {
    /// Feed an ACK with the counter's value; at the end of a round returns the round, then
    /// starts the next one.
    pub fn on_ack(&mut self, cc: &CcState, rtt: Option<Dur>, counter: u64) -> Option<ClosedRound> {
        if self.start.is_none() {
            self.start = Some(cc.now);
            self.at_start = counter;
        }
        // The round's edge is the highest byte sent (ns-3 port `PerRttRound`: m_highTxMark;
        // Linux snd_nxt), including what this ACK's processing has sent so far.
        if !self.round.on_ack_bounded(cc, rtt, cc.high_tx) {
            return None;
        }
        let dt = (cc.now - self.start.unwrap_or(cc.now)).secs_f64();
        let closed = ClosedRound {
            rate: (dt > 0.0).then(|| counter.saturating_sub(self.at_start) as f64 / dt),
            min_rtt: self.round.min_rtt,
            samples: self.round.samples,
        };
        self.round.restart_at(cc.high_tx);
        self.start = Some(cc.now);
        self.at_start = counter;
        Some(closed)
    }
}

/// Throughput over fixed intervals, as a receiver's application sees it: the bytes cumulatively
/// acknowledged (delivered in order) during each interval of at least `interval`, closed at the
/// first ACK after it ends.
#[derive(Clone, Debug)]
pub struct IntervalThroughput {
    interval: Dur,
    start: Option<crate::time::Time>,
    una_at_start: u64,
    /// Bytes per second of the last closed interval.
    pub last: Option<f64>,
}

impl IntervalThroughput {
    pub fn new(interval: Dur) -> Self {
        IntervalThroughput { interval, start: None, una_at_start: 0, last: None }
    }

    /// Feed an ACK (the clock and the cumulative ACK point).
    pub fn on_ack(&mut self, now: crate::time::Time, snd_una: u64) {
        let start = *self.start.get_or_insert_with(|| {
            self.una_at_start = snd_una;
            now
        });
        let dt = now - start;
        if dt >= self.interval && dt.0 > 0 {
            self.last = Some(snd_una.saturating_sub(self.una_at_start) as f64 / dt.secs_f64());
            self.start = Some(now);
            self.una_at_start = snd_una;
        }
    }
}

/// Reno congestion avoidance: cwnd += MSS * MSS / cwnd once per ACK (RFC 5681 eq. 3).
#[inline]
pub fn reno_ca(acc: &mut FracAcc, cc: &mut CcState) {
    let cwnd = cc.cwnd;
    acc.add(&mut cc.cwnd, cc.mss * cc.mss, cwnd);
}

/// Reno congestion avoidance for one ACK that acknowledged `segments` (after slow start took
/// its share), as the profile's reference stack does it:
/// - `ns3` (`TcpNewReno::CongestionAvoidance`): RFC 5681 eq. (3) once per ACK, whatever the
///   segments acknowledged: cwnd += max(1, floor(SMSS * SMSS / cwnd)) bytes;
/// - `linux` (`tcp_cong_avoid_ai(tp, cwnd, acked)`): SMSS * SMSS / cwnd per acknowledged
///   segment, all against the same cwnd, the fraction carried.
#[inline]
pub fn reno_ca_acked(stack: Profile, acc: &mut FracAcc, cc: &mut CcState, segments: u32) {
    if segments == 0 {
        return;
    }
    if stack.is_ns3() {
        cc.cwnd += (cc.mss * cc.mss / cc.cwnd.max(1)).max(1);
    } else {
        let cwnd = cc.cwnd;
        acc.add(&mut cc.cwnd, cc.mss * cc.mss * segments as u64, cwnd);
    }
}

/// Add `segments` (a fraction of a segment, in segments) to cwnd, carried exactly to a
/// millionth of a byte.
#[inline]
pub fn add_segments(acc: &mut FracAcc, cc: &mut CcState, segments: f64) {
    if segments > 0.0 && segments.is_finite() {
        acc.add(&mut cc.cwnd, (segments * cc.mss as f64 * 1e6).round() as u64, 1_000_000);
    }
}

/// Set cwnd to `segments` (clamped to at least 2 segments... or `floor` segments).
#[inline]
pub fn set_cwnd_segments(cc: &mut CcState, segments: f64, floor: f64) {
    cc.cwnd = (segments.max(floor) * cc.mss as f64).round() as u64;
}

/// Per-RTT rounds in the Vegas style (Linux `beg_snd_nxt`): a round ends on the first ACK
/// that acknowledges data sent after the previous round ended. Tracks the minimum RTT and the
/// number of RTT samples within the round.
#[derive(Clone, Debug, Default)]
pub struct Round {
    end: u64,
    pub min_rtt: Option<Dur>,
    pub samples: u32,
    started: bool,
    /// The ACK (its arrival time) whose RTT sample belongs to the round before a return to
    /// Open ([`Round::restart_on_open`]).
    skip_sample_at: Option<crate::time::Time>,
}

impl Round {
    /// Feed an ACK; returns true when it closes a round (the caller then uses `min_rtt` /
    /// `samples`, and the round restarts).
    pub fn on_ack(&mut self, cc: &CcState, rtt: Option<Dur>) -> bool {
        self.on_ack_bounded(cc, rtt, cc.snd_nxt)
    }

    /// As [`Round::on_ack`] with the round's right edge taken from `edge` (the next byte to
    /// send or the highest sent) when the first round begins.
    fn on_ack_bounded(&mut self, cc: &CcState, rtt: Option<Dur>, edge: u64) -> bool {
        let rtt = if self.skip_sample_at.take() == Some(cc.now) { None } else { rtt };
        if let Some(r) = rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
            self.samples += 1;
        }
        if !self.started {
            self.started = true;
            self.end = edge;
            return false;
        }
        cc.snd_una > self.end
    }

    /// As [`Round::on_ack`], but the round closes as soon as everything sent before it began
    /// is acknowledged (ns-3 `TcpVegas`: `m_lastAckedSeq >= m_begSndNxt`), one ACK earlier than
    /// "an ACK covers data sent in this round" when the boundaries meet.
    /// The first ACK closes a round too: ns-3 enters Open with `m_begSndNxt` at the first
    /// sequence number (`CongestionStateSet(CA_OPEN)` when the handshake completes), so the
    /// first ACK finds `m_lastAckedSeq >= m_begSndNxt` and the first round of samples begins
    /// after it.
    pub fn on_ack_reaching_end(&mut self, cc: &CcState, rtt: Option<Dur>) -> bool {
        let started = self.started;
        let covered = self.on_ack(cc, rtt);
        !started || covered || cc.snd_una == self.end
    }

    /// Start a new round on the return to Open (ns-3 `EnableVegas` / `EnableYeah` from
    /// `CongestionStateSet(CA_OPEN)`, Linux `tcp_vegas_enable` from `tcp_vegas_state`). Both
    /// stacks count the RTT sample of the ACK that returns to Open before the reset (ns-3
    /// `PktsAcked`, Linux `pkts_acked` in `tcp_clean_rtx_queue`, both ahead of the state
    /// change), so that ACK's sample is left out of the new round.
    pub fn restart_on_open(&mut self, cc: &CcState) {
        self.restart(cc);
        self.skip_sample_at = Some(cc.now);
    }

    /// Start the next round.
    pub fn restart(&mut self, cc: &CcState) {
        self.restart_at(cc.snd_nxt);
    }

    /// Start the next round with its right edge at `edge`.
    fn restart_at(&mut self, edge: u64) {
        self.end = edge;
        self.min_rtt = None;
        self.samples = 0;
    }
}
