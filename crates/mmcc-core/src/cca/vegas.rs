//! TCP Vegas (Brakmo & Peterson, IEEE JSAC 13(8), 1995), as ns-3's `TcpVegas`
//! (alpha = 2, beta = 4, gamma = 1 segments).
//!
//! Once per RTT (a round ends when an ACK covers data sent after the previous round ended),
//! with at least 3 RTT samples in the round and `rtt` the minimum RTT of the round:
//! - `target = cwnd * base_rtt / rtt`, `diff = cwnd - target` (segments of queue);
//! - slow start: if `diff > gamma`, leave it: `cwnd = min(cwnd, target + 1)` and
//!   `ssthresh = max(min(ssthresh, cwnd - 1), 2)`;
//! - congestion avoidance: `diff > beta` -> `cwnd -= 1` (and ssthresh as above),
//!   `diff < alpha` -> `cwnd += 1`, else hold; then `ssthresh = max(ssthresh, 3/4 cwnd)`.
//!
//! Between round ends, slow start grows per ACK as usual and congestion avoidance holds.
//! With 2 or fewer samples in a round, NewReno's growth applies. Loss: ssthresh =
//! `max(min(ssthresh, cwnd - MSS), 2 MSS)` (ns-3 `TcpVegas::GetSsThresh`). Vegas runs only in
//! the Open state (ns-3 `CongestionStateSet`). In the `ns3` profile the target window is
//! truncated to whole segments as ns-3's `uint32_t targetCwnd`, which rounds the queue
//! estimate up (at 100 Mb/s and 22 ms ns-3 holds cwnd near 129 segments, two thirds of the BDP,
//! because 22.2 ms / 22 ms already reads as 2 queued segments), and a cycle ends as soon as
//! everything sent before it is acknowledged (`m_lastAckedSeq >= m_begSndNxt`); Linux
//! (`tcp_vegas.c`: `after(ack, beg_snd_nxt)`) needs an ACK beyond it. Which ACKs, so which
//! smoothed RTTs, fall in a cycle decides where the window settles: with the later end the
//! `ns3` profile held 97 segments against ns-3's 129.

use super::util::{reno_ca_acked, set_cwnd_segments, slow_start, FracAcc, Round};
use super::{AckEvent, AlgorithmInfo, CaState, CcState, CongestionControl, ParamSpec, Params, Profile};
use crate::time::Dur;

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "vegas",
    aliases: &["tcp-vegas"],
    source: "Brakmo & Peterson, IEEE JSAC 13(8) 1995 (ns-3 TcpVegas)",
    params: &[
        ParamSpec { name: "alpha", default: 2.0, min: 0.0, max: 10000.0, help: "lower bound of queued segments" },
        ParamSpec { name: "beta", default: 4.0, min: 0.0, max: 10000.0, help: "upper bound of queued segments" },
        ParamSpec { name: "gamma", default: 1.0, min: 0.0, max: 10000.0, help: "slow-start exit threshold (segments)" },
    ],
    build: |p: &Params| Box::new(Vegas { stack: p.profile, ..Vegas::new(p.get("alpha"), p.get("beta"), p.get("gamma")) }),
};

pub struct Vegas {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    alpha: f64,
    beta: f64,
    gamma: f64,
    base_rtt: Option<Dur>,
    round: Round,
    enabled: bool,
    acc: FracAcc,
}

impl Vegas {
    pub fn new(alpha: f64, beta: f64, gamma: f64) -> Self {
        Vegas { stack: Profile::Linux, alpha, beta, gamma, base_rtt: None, round: Round::default(), enabled: true, acc: FracAcc::default() }
    }

    /// The per-RTT Vegas decision given the round's minimum RTT; returns the new cwnd.
    fn update(&self, cc: &mut CcState, rtt: Dur, segments_acked: u32) {
        let base = self.base_rtt.unwrap_or(rtt).secs_f64();
        let w = (cc.cwnd / cc.mss) as f64; // whole segments, as ns-3
        let mut target = w * base / rtt.secs_f64(); // expected-rate window
        if self.stack.is_ns3() {
            // ns-3 TcpVegas: targetCwnd is a uint32 (truncated), so diff = cwnd - target is
            // rounded up to whole segments
            target = target.floor();
        }
        let diff = w - target; // segments queued
        let mss = cc.mss as f64;
        let vegas_ssthresh =
            |cc: &CcState| (cc.ssthresh as f64).min(cc.cwnd as f64 - mss).max(2.0 * mss) as u64;
        if cc.in_slow_start() {
            if diff > self.gamma {
                // leave slow start: cwnd = min(cwnd, target + 1)
                set_cwnd_segments(cc, w.min(target.floor() + 1.0), 2.0);
                cc.ssthresh = vegas_ssthresh(cc);
            } else {
                // still little queued: this ACK grows cwnd as slow start does (ns-3
                // `TcpNewReno::SlowStart`, Linux `tcp_slow_start` in tcp_vegas_cong_avoid)
                slow_start(self.stack, cc, segments_acked);
            }
            // ns-3 and Linux end every branch with ssthresh = max(ssthresh, 3/4 cwnd)
            cc.ssthresh = cc.ssthresh.max(cc.cwnd * 3 / 4);
        } else {
            let mut nw = w;
            if diff > self.beta {
                nw -= 1.0; // too much queued: linear decrease
                set_cwnd_segments(cc, nw, 2.0);
                cc.ssthresh = vegas_ssthresh(cc);
            } else if diff < self.alpha {
                nw += 1.0; // too little: linear increase
                set_cwnd_segments(cc, nw, 2.0);
            }
            cc.ssthresh = cc.ssthresh.max(cc.cwnd * 3 / 4);
        }
    }
}

impl CongestionControl for Vegas {
    fn name(&self) -> &'static str {
        "vegas"
    }
    fn on_ack(&mut self, _cc: &mut CcState, ack: &AckEvent) {
        if let Some(r) = ack.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        // ns-3 TcpVegas: the cycle ends once everything sent before it is acknowledged
        let round_end =
            if self.stack.is_ns3() { self.round.on_ack_reaching_end(cc, ack.rtt) } else { self.round.on_ack(cc, ack.rtt) };
        if !self.enabled {
            self.reno(cc, ack);
            return;
        }
        if round_end {
            let (samples, min_rtt) = (self.round.samples, self.round.min_rtt);
            self.round.restart(cc);
            match min_rtt {
                Some(rtt) if samples > 2 => self.update(cc, rtt, ack.segments_acked),
                _ => self.reno(cc, ack),
            }
        } else if cc.in_slow_start() {
            slow_start(self.stack, cc, ack.segments_acked);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // ns-3 TcpVegas::GetSsThresh: max(min(ssthresh, cwnd - MSS), 2 MSS) (the window, not
        // the flight size as most algorithms use)
        (cc.ssthresh.min(cc.cwnd.saturating_sub(cc.mss))).max(cc.min_ssthresh())
    }
    fn on_state_change(&mut self, cc: &mut CcState, _from: CaState) {
        self.enabled = cc.state == CaState::Open;
        if self.enabled {
            self.round.restart_on_open(cc);
        }
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("alpha", self.alpha), ("beta", self.beta), ("gamma", self.gamma)]
    }
}

impl Vegas {
    fn reno(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let mut segs = ack.segments_acked;
        if cc.in_slow_start() {
            segs = slow_start(self.stack, cc, segs);
        }
        if !cc.in_slow_start() {
            // ns-3 TcpNewReno::IncreaseWindow, Linux tcp_reno_cong_avoid
            reno_ca_acked(self.stack, &mut self.acc, cc, segs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;

    fn vegas_at(cwnd: u64, base_ms: u64) -> (Vegas, CcState) {
        let mut v = Vegas::new(2.0, 4.0, 1.0);
        v.base_rtt = Some(Dur::from_millis(base_ms));
        (v, state(1000, cwnd, 10))
    }

    #[test]
    fn ns3_rounds_the_queue_estimate_up() {
        // 129 segments, base 22 ms, round minimum 22.24 ms: 129 * 22/22.24 = 127.6 queued 1.4;
        // ns-3 truncates the target to 127: 2 queued = alpha, so cwnd holds
        let (mut v, mut cc) = vegas_at(129, 22);
        cc.ssthresh = 10_000;
        v.stack = crate::cca::Profile::Ns3;
        v.update(&mut cc, Dur::from_micros(22_240), 1);
        assert_eq!(cc.cwnd, 129_000);
        let (v, mut cc) = vegas_at(129, 22);
        cc.ssthresh = 10_000;
        v.update(&mut cc, Dur::from_micros(22_240), 1); // Linux: 1.4 < alpha: grow
        assert_eq!(cc.cwnd, 130_000);
    }

    #[test]
    fn ns3_cycle_ends_when_the_previous_window_is_acknowledged() {
        // ns-3 m_lastAckedSeq >= m_begSndNxt; Linux after(ack, beg_snd_nxt). Congestion
        // avoidance at 10 segments, no queue: a cycle's end adds one segment.
        for (profile, cwnd_after) in [(crate::cca::Profile::Ns3, 11_000), (crate::cca::Profile::Linux, 10_000)] {
            let (mut v, mut cc) = vegas_at(10, 20);
            cc.ssthresh = 5_000;
            v.stack = profile;
            cc.snd_nxt = 10_000; // the cycle: everything up to 10,000
            for una in [1_000, 4_000, 7_000, 10_000] {
                cc.snd_una = una;
                v.increase_window(&mut cc, &super::super::testing::ack(3, 1000, Some(20)));
            }
            // the ACK reaching 10,000 ends the cycle in ns-3 only
            assert_eq!(cc.cwnd, cwnd_after, "{profile:?}");
        }
    }

    #[test]
    fn adds_one_segment_when_fewer_than_alpha_are_queued() {
        // cwnd 100, base 20 ms, rtt 20.2 ms: diff = 100 - 100*20/20.2 = 0.99 < 2
        let (v, mut cc) = vegas_at(100, 20);
        v.update(&mut cc, Dur::from_micros(20_200), 1);
        assert_eq!(cc.cwnd, 101_000);
    }

    #[test]
    fn holds_between_alpha_and_beta_and_backs_off_above_beta() {
        // diff = 100 - 100*20/20.6 = 2.91: hold
        let (v, mut cc) = vegas_at(100, 20);
        v.update(&mut cc, Dur::from_micros(20_600), 1);
        assert_eq!(cc.cwnd, 100_000);
        // diff = 100 - 100*20/21 = 4.76 > 4: minus one
        let (v, mut cc) = vegas_at(100, 20);
        v.update(&mut cc, Dur::from_millis(21), 1);
        assert_eq!(cc.cwnd, 99_000);
    }

    #[test]
    fn loss_lowers_ssthresh_to_one_segment_below_the_window() {
        // ns-3 TcpVegas::GetSsThresh: max(min(ssthresh, cwnd - MSS), 2 MSS), whatever the flight
        let v = Vegas::new(2.0, 4.0, 1.0);
        let mut cc = state(1000, 100, 1_000_000);
        cc.bytes_in_flight = 60_000;
        assert_eq!(v.ssthresh(&cc), 99_000);
        cc.ssthresh = 50_000;
        assert_eq!(v.ssthresh(&cc), 50_000);
        cc.cwnd = 2_000;
        assert_eq!(v.ssthresh(&cc), 2_000);
    }

    #[test]
    fn leaves_slow_start_when_more_than_gamma_is_queued() {
        let mut v = Vegas::new(2.0, 4.0, 1.0);
        v.base_rtt = Some(Dur::from_millis(20));
        let mut cc = state(1000, 100, 100_000);
        // rtt 25 ms: target = 80, diff = 20 > 1: cwnd = min(100, 81)
        v.update(&mut cc, Dur::from_millis(25), 1);
        assert_eq!(cc.cwnd, 81_000);
        assert_eq!(cc.ssthresh, 80_000);
    }

    #[test]
    fn a_cycle_end_in_slow_start_with_little_queued_grows_as_slow_start() {
        // ns-3 TcpVegas::IncreaseWindow / Linux tcp_vegas_cong_avoid: diff <= gamma in slow
        // start -> SlowStart(segmentsAcked); rtt 20.1 ms: target = floor(99.5) = 99, diff = 1
        let mut v = Vegas::new(2.0, 4.0, 1.0);
        v.base_rtt = Some(Dur::from_millis(20));
        let mut cc = state(1000, 100, u64::MAX);
        v.update(&mut cc, Dur::from_micros(20_100), 2);
        assert_eq!(cc.cwnd, 102_000);
        assert_eq!(cc.ssthresh, u64::MAX);
    }
}
