//! Westwood+ (Mascolo et al., "TCP Westwood: bandwidth estimation for enhanced transport over
//! wireless links", MobiCom 2001; Westwood+: Grieco & Mascolo, CCR 34(2), 2004), as ns-3's
//! `TcpWestwoodPlus` with the Tustin filter.
//!
//! - Bandwidth sample once per RTT: `b_k = bytes delivered (acknowledged or SACKed) in the
//!   round / round duration` (Westwood counts duplicate ACKs as delivered data too).
//! - Tustin low-pass filter (alpha = 0.9): `BWE_k = alpha BWE_{k-1} + (1 - alpha) (b_k + b_{k-1}) / 2`.
//! - Loss: `ssthresh = max(2 MSS, BWE * rtt_min)` (Mascolo eq. for "faster recovery"); on RTO
//!   also cwnd = 1 segment (by the stack).
//! - Window growth: NewReno.
//!
//! The `ns3` profile samples as ns-3's `TcpWestwood` with `WESTWOODPLUS` does
//! ([`Westwood::ns3_on_ack`]): counted segments (duplicate ACKs count one each) over one
//! smoothed RTT, and the filter starting from zero.

use super::util::{ca_segments, reno_ca_acked, FracAcc, RoundRate};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "westwood",
    aliases: &["westwood+", "westwoodplus", "westwood-plus", "tcp-westwood"],
    source: "Grieco & Mascolo, ACM CCR 34(2) 2004 (Westwood+; ns-3 TcpWestwoodPlus, Tustin filter)",
    params: &[ParamSpec { name: "alpha", default: 0.9, min: 0.0, max: 1.0, help: "Tustin filter gain" }],
    build: |p: &Params| Box::new(Westwood { stack: p.profile, ..Westwood::new(p.get("alpha")) }),
};

pub struct Westwood {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    alpha: f64,
    /// Filtered bandwidth estimate, bytes per second.
    bwe: f64,
    last_sample: f64,
    rate: RoundRate,
    acc: FracAcc,
    /// ns-3 sampling: segments counted since the period began, its start and length.
    ns3_count: u64,
    ns3_period: Option<(crate::time::Time, crate::time::Dur)>,
}

impl Westwood {
    pub fn new(alpha: f64) -> Self {
        Westwood {
            stack: Profile::Linux,
            alpha,
            bwe: 0.0,
            last_sample: 0.0,
            rate: RoundRate::default(),
            acc: FracAcc::default(),
            ns3_count: 0,
            ns3_period: None,
        }
    }

    /// ns-3 `TcpWestwood` (WESTWOODPLUS): every PktsAcked adds its segments (a duplicate ACK
    /// counts one, and the cumulative ACK after recovery counts again what the duplicates
    /// reported); the first ACK of a period schedules `EstimateBW` one (smoothed) RTT later:
    /// b = counted segments * MSS / that RTT, from what was counted when that event fires. The
    /// Tustin filter starts from 0 (m_lastBW = 0).
    fn ns3_on_ack(&mut self, cc: &CcState, ack: &AckEvent) {
        // The event fires before an ACK that arrives at or after its time (it was scheduled
        // a round trip earlier, ahead of that ACK's arrival), so that ACK opens the next period.
        if let Some(bwe) = self.ns3_estimate_due(cc) {
            self.last_sample = bwe.1;
            self.bwe = bwe.0;
            self.ns3_count = 0;
            self.ns3_period = None;
        }
        let Some(rtt) = ack.rtt.filter(|r| r.0 > 0) else { return };
        // the stack's count: one for a duplicate ACK (ns-3 calls PktsAcked(tcb, 1, ..)), none
        // for the ACK that leaves CA_LOSS at the recovery point ((ack - m_recover) / MSS = 0)
        self.ns3_count += ack.segments_acked as u64;
        if self.ns3_period.is_none() {
            self.ns3_period = Some((cc.now, rtt));
        }
    }
    /// The filtered estimate and the sample (bytes/s) of an `EstimateBW` event due by now, if
    /// any, in ns-3's `DataRate` arithmetic: whole bits per second, each product truncated.
    fn ns3_estimate_due(&self, cc: &CcState) -> Option<(f64, f64)> {
        let (t0, len) = self.ns3_period?;
        if cc.now < t0 + len {
            return None;
        }
        let bps = |bytes_per_s: f64| (bytes_per_s * 8.0).round() as u64; // stored values are whole bps
        let sample = (self.ns3_count as f64 * cc.mss as f64 * 8.0 / ns3_seconds(len)) as u64;
        let (last_bw, last_sample) = (bps(self.bwe), bps(self.last_sample));
        // Tustin with ns-3's zero start: BWE = a BWE + (1 - a) (b + b_prev) / 2, as
        // (m_lastBW * alpha) + (((sample + m_lastSampleBW) * 0.5) * (1 - alpha))
        let half_sum = ((sample + last_sample) as f64 * 0.5) as u64;
        let bwe = (last_bw as f64 * self.alpha) as u64 + (half_sum as f64 * (1.0 - self.alpha)) as u64;
        Some((bwe as f64 / 8.0, sample as f64 / 8.0))
    }
    /// Bandwidth estimate in bytes per second.
    pub fn bwe(&self) -> f64 {
        self.bwe
    }
    /// Feed one bandwidth sample (bytes per second) through the Tustin filter.
    pub fn filter(&mut self, sample: f64) {
        // BWE_k = alpha BWE_{k-1} + (1 - alpha) (b_k + b_{k-1}) / 2
        self.bwe = if self.bwe == 0.0 {
            sample
        } else {
            self.alpha * self.bwe + (1.0 - self.alpha) * (sample + self.last_sample) / 2.0
        };
        self.last_sample = sample;
    }
}

/// ns-3's `Time::GetSeconds()`: nanoseconds divided by 10^9 (its 64.64 fixed point rounds
/// to the nearest double), where `Dur::secs_f64` multiplies by 10^-9.
fn ns3_seconds(d: crate::time::Dur) -> f64 {
    d.0 as f64 / 1e9
}

impl CongestionControl for Westwood {
    fn name(&self) -> &'static str {
        "westwood"
    }
    fn on_ack(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if self.stack.is_ns3() {
            self.ns3_on_ack(cc, ack);
            return;
        }
        // b_k = data delivered (acknowledged or SACKed) in the round / its duration
        if let Some(sample) = self.rate.on_ack(cc, ack.rtt, cc.delivered).and_then(|r| r.rate) {
            self.filter(sample);
        }
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        // NewReno's growth (ns-3 TcpWestwood inherits TcpNewReno; Linux tcp_westwood uses
        // tcp_reno_cong_avoid)
        let segs = ca_segments(self.stack, cc, ack.segments_acked);
        reno_ca_acked(self.stack, &mut self.acc, cc, segs);
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // ssthresh = BWE * RTT_min
        if self.stack.is_ns3() {
            // ns-3 GetSsThresh: (m_currentBW * m_minRtt) / 8.0 (bits per second times seconds),
            // with an EstimateBW event that fired since the last ACK (e.g. before a timeout)
            let bwe = self.ns3_estimate_due(cc).map_or(self.bwe, |(b, _)| b);
            let rtt_min = cc.min_rtt.map_or(0.0, ns3_seconds);
            return ((rtt_min * (bwe * 8.0).round() / 8.0) as u64).max(cc.min_ssthresh());
        }
        let rtt_min = cc.min_rtt.map_or(0.0, |d| d.secs_f64());
        ((self.bwe * rtt_min) as u64).max(cc.min_ssthresh())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;
    use crate::time::Dur;

    #[test]
    fn tustin_filter_follows_its_equation() {
        let mut w = Westwood::new(0.9);
        w.filter(1000.0);
        assert_eq!(w.bwe(), 1000.0);
        w.filter(2000.0);
        // 0.9 * 1000 + 0.1 * (2000 + 1000) / 2 = 1050
        assert!((w.bwe() - 1050.0).abs() < 1e-9);
    }

    #[test]
    fn ns3_counts_duplicate_acks_and_samples_once_per_smoothed_rtt() {
        let mut w = Westwood::new(0.9);
        let mut cc = state(1000, 100, 10);
        w.stack = crate::cca::Profile::Ns3;
        let rtt = Some(20);
        // 10 ACKs of 2 segments and 5 duplicate ACKs (the stack passes 1 segment, as ns-3's
        // PktsAcked(tcb, 1, ..)) within 20 ms
        for i in 0..15u64 {
            cc.now = crate::time::Time::from_millis(i);
            let segs = if i < 10 { 2 } else { 1 };
            w.on_ack(&mut cc, &super::super::testing::ack(segs, 1000, rtt));
        }
        assert_eq!(w.bwe(), 0.0, "no sample before one RTT");
        // EstimateBW fires at 20 ms, before the ACK that arrives then (which opens the next
        // period): (20 + 5) segments * 1000 B / 20 ms = 10,000,000 b/s; filter from 0 in
        // DataRate's whole bits per second: (10,000,000 * 0.5) * (1 - 0.9) = 499,999.99.. ->
        // 499,999 b/s. A timeout at that instant already sees it (ssthresh = BWE * min RTT / 8).
        cc.now = crate::time::Time::from_millis(20);
        cc.min_rtt = Some(Dur::from_secs(1));
        assert_eq!(w.ssthresh(&cc), 62_499); // 499,999 b/s * 1 s / 8
        w.on_ack(&mut cc, &super::super::testing::ack(2, 1000, rtt));
        assert_eq!(w.bwe(), 499_999.0 / 8.0);
        assert_eq!((w.ns3_count, w.ns3_period.map(|p| p.0)), (2, Some(cc.now)));
    }

    #[test]
    fn ssthresh_is_bandwidth_estimate_times_min_rtt() {
        let mut w = Westwood::new(0.9);
        w.filter(12_500_000.0); // 100 Mb/s
        let mut cc = state(1000, 300, 1000);
        cc.min_rtt = Some(Dur::from_millis(20));
        assert_eq!(w.ssthresh(&cc), 250_000); // 12.5 MB/s * 20 ms
    }

    /// Congestion avoidance as NewReno in the profile's stack: ns-3 floor(MSS^2 / cwnd) once
    /// per ACK (161,547 -> +12 bytes, as ns-3's trace shows), Linux per acknowledged segment.
    #[test]
    fn grows_as_the_profiles_newreno() {
        for (profile, after) in [(crate::cca::Profile::Ns3, 161_559), (crate::cca::Profile::Linux, 161_571)] {
            let mut w = Westwood::new(0.9);
            let mut cc = state(1400, 100, 10);
            cc.cwnd = 161_547;
            w.stack = profile;
            w.increase_window(&mut cc, &super::super::testing::ack(2, 1400, Some(20)));
            assert_eq!(cc.cwnd, after, "{profile:?}");
        }
    }
}
