//! MSS-CCA (Alramli et al., ICT Express 2025; PhD thesis, UPM 2025, ch. 5).
//!
//! - Congestion avoidance, per ACK: `TimeRatio = (rtt_max + rtt_base) / rtt_cur`,
//!   `F = sqrt(MSS * TimeRatio)`, `cwnd += F / cwnd` (thesis eq. 5.x), with MSS in **bytes**
//!   and cwnd in segments (docs/algorithms.md: with MSS = 1400 and a flat RTT cwnd
//!   grows by about sqrt(2800) = 53 segments per RTT).
//! - Loss: beta = 0.5. Slow start and RTO: common conventions. Without RTT samples: NewReno.

use super::rttv::time_ratio;
use super::util::{half_flight, per_rtt_increment, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "msscca",
    aliases: &["mss-cca", "mss_cca"],
    source: "Alramli et al., ICT Express (2025); Alramli PhD thesis (UPM 2025) ch. 5",
    params: &[],
    build: |p: &Params| Box::new(MssCca { stack: p.profile, ..MssCca::default() }),
};

/// `sqrt(MSS * TimeRatio)` in segments per RTT (the MSS-CCA / MRVHS increment).
pub fn mss_increment(cc: &CcState) -> Option<f64> {
    time_ratio(cc).map(|r| (cc.mss as f64 * r).sqrt())
}

#[derive(Default)]
pub struct MssCca {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    acc: FracAcc,
}

impl CongestionControl for MssCca {
    fn name(&self) -> &'static str {
        "msscca"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if !slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            return;
        }
        // F = sqrt(MSS * TimeRatio); cwnd += F / cwnd
        per_rtt_increment(&mut self.acc, cc, mss_increment(cc));
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
    fn grows_by_sqrt_4200_over_cwnd_per_ack() {
        let mut m = MssCca::default();
        let mut cc = state(1400, 100, 50);
        cc.min_rtt = Some(Dur::from_millis(20));
        cc.max_rtt = Some(Dur::from_millis(40));
        cc.latest_rtt = Some(Dur::from_millis(20));
        m.increase_window(&mut cc, &ack(1, 1400, Some(20)));
        // F = sqrt(1400 * 3) = 64.807; F / 100 = 0.64807 segment = 907.3 bytes
        assert_eq!(cc.cwnd, 140_000 + 907);
    }
}
