//! RTTV (Alramli et al., "RTTV-TCP: adaptive congestion control algorithm based on RTT
//! variations for mmWave networks", Ad Hoc Networks 164, 2024; PhD thesis, UPM 2025, ch. 4).
//!
//! - Congestion avoidance, per ACK (thesis eq. 4.4 / 4.5):
//!   `F = sqrt((rtt_max + rtt_base) / rtt_cur * cwnd)`, `cwnd += F / cwnd` (segments).
//!   `rtt_cur` is the latest RTT sample, `rtt_base` and `rtt_max` the connection's minimum and
//!   maximum samples (never reset, as the papers specify). Without a sample yet, NewReno's
//!   increase is used.
//! - Loss: beta = 0.5, ssthresh = max(flight / 2, 2 MSS). Slow start and RTO: common conventions.

use super::util::{half_flight, per_rtt_increment, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "rttv",
    aliases: &["rttv-tcp"],
    source: "Alramli et al., Ad Hoc Networks 164 (2024); Alramli PhD thesis (UPM 2025) ch. 4",
    params: &[],
    build: |p: &Params| Box::new(Rttv { stack: p.profile, ..Rttv::default() }),
};

/// `(rtt_max + rtt_base) / rtt_cur` (thesis eq. 4.4 "TimeRatio"), if all three are known.
pub fn time_ratio(cc: &CcState) -> Option<f64> {
    let (cur, base, max) = (cc.latest_rtt?, cc.min_rtt?, cc.max_rtt?);
    if cur.0 == 0 {
        return None;
    }
    Some((max.0 as f64 + base.0 as f64) / cur.0 as f64)
}

#[derive(Default)]
pub struct Rttv {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    acc: FracAcc,
}

impl CongestionControl for Rttv {
    fn name(&self) -> &'static str {
        "rttv"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if !slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            return;
        }
        // eq. 4.4: F = sqrt((rtt_max + rtt_base) / rtt_cur * cwnd); eq. 4.5: cwnd += F / cwnd
        let f = time_ratio(cc).map(|ratio| (ratio * cc.cwnd_segments()).sqrt());
        per_rtt_increment(&mut self.acc, cc, f);
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        half_flight(self.stack, cc) // beta = 0.5
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;
    use crate::time::Dur;

    #[test]
    fn grows_by_sqrt_3cwnd_over_cwnd_per_ack() {
        let mut r = Rttv::default();
        let mut cc = state(1400, 100, 50);
        cc.min_rtt = Some(Dur::from_millis(20));
        cc.max_rtt = Some(Dur::from_millis(40));
        cc.latest_rtt = Some(Dur::from_millis(20));
        r.increase_window(&mut cc, &ack(1, 1400, Some(20)));
        // F = sqrt((40 + 20) / 20 * 100) = sqrt(300) = 17.3205; F / cwnd = 0.173205 segment
        // = 242.487 bytes
        assert_eq!(cc.cwnd, 140_000 + 242);
        let grown = (cc.cwnd as f64 - 140_000.0) / 1400.0;
        assert!((grown - 0.1732).abs() < 0.001);
    }

    #[test]
    fn growth_shrinks_as_rtt_rises_towards_its_maximum() {
        let step = |cur_ms| {
            let mut r = Rttv::default();
            let mut cc = state(1400, 100, 50);
            cc.min_rtt = Some(Dur::from_millis(20));
            cc.max_rtt = Some(Dur::from_millis(40));
            cc.latest_rtt = Some(Dur::from_millis(cur_ms));
            r.increase_window(&mut cc, &ack(1, 1400, None));
            cc.cwnd - 140_000
        };
        // rtt_cur = 40: F = sqrt(60/40 * 100) = 12.247 -> 171.46 bytes
        assert_eq!(step(40), 171);
        assert!(step(20) > step(30) && step(30) > step(40));
    }
}
