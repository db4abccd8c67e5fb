//! mmS-TCP (Kim & Cho, "mmS-TCP: Scalable TCP for improving throughput and fairness in 5G
//! mmWave networks", Sensors 22(10):3609, 2022): Scalable TCP redesigned for mmWave.
//!
//! - Congestion avoidance, per ACK: `cwnd += 1 / a`, where the counter `a` starts at 1 and
//!   grows by 1 with each ACK up to `a_max = 125`. Decision (the paper is silent): `a` is reset
//!   to 1 at each window reduction, so every epoch starts fast, then settles below S-TCP.
//! - Loss: in congestion avoidance `cwnd -= 0.125 cwnd`; in slow start `cwnd -= 0.5 cwnd`
//!   (to stop repeated slow starts). RTO: common conventions (and `a` reset).

use super::util::{add_segments, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, CongestionEvent, ParamSpec, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "mmstcp",
    aliases: &["mms-tcp", "mms_tcp"],
    source: "Kim & Cho, Sensors 22(10):3609 (2022)",
    params: &[
        ParamSpec { name: "a_max", default: 125.0, min: 1.0, max: 1000000.0, help: "upper bound of the ACK counter a" },
        ParamSpec { name: "beta_ca", default: 0.125, min: 0.0, max: 1.0, help: "decrease in congestion avoidance" },
        ParamSpec { name: "beta_ss", default: 0.5, min: 0.0, max: 1.0, help: "decrease in slow start" },
    ],
    build: |p: &Params| Box::new(MmsTcp { stack: p.profile, ..MmsTcp::new(p.get("a_max"), p.get("beta_ca"), p.get("beta_ss")) }),
};

pub struct MmsTcp {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    a: f64,
    a_max: f64,
    beta_ca: f64,
    beta_ss: f64,
    acc: FracAcc,
}

impl MmsTcp {
    pub fn new(a_max: f64, beta_ca: f64, beta_ss: f64) -> Self {
        MmsTcp { stack: Profile::Linux, a: 1.0, a_max: a_max.max(1.0), beta_ca, beta_ss, acc: FracAcc::default() }
    }
    /// The counter `a` (for tests and reports).
    pub fn counter(&self) -> f64 {
        self.a
    }
}

impl CongestionControl for MmsTcp {
    fn name(&self) -> &'static str {
        "mmstcp"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if !slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            return;
        }
        add_segments(&mut self.acc, cc, 1.0 / self.a); // cwnd += 1/a per ACK
        self.a = (self.a + 1.0).min(self.a_max); // a grows by one per ACK up to a_max
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        let beta = if cc.in_slow_start() { self.beta_ss } else { self.beta_ca };
        ((cc.cwnd as f64 * (1.0 - beta)) as u64).max(cc.min_ssthresh()) // cwnd -= beta cwnd
    }
    fn on_congestion_event(&mut self, _cc: &mut CcState, _ev: &CongestionEvent) {
        self.a = 1.0; // every epoch starts fast
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("a_max", self.a_max), ("beta_ca", self.beta_ca), ("beta_ss", self.beta_ss)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;

    #[test]
    fn counter_sequence_gives_harmonic_growth_then_settles() {
        let mut m = MmsTcp::new(125.0, 0.125, 0.5);
        let mut cc = state(1000, 100, 10);
        let mut sizes = vec![];
        for _ in 0..4 {
            let before = cc.cwnd;
            m.increase_window(&mut cc, &ack(1, 1000, None));
            sizes.push(cc.cwnd - before);
        }
        // +1/1, +1/2, +1/3, +1/4 segment: 1000, 500, 333(.33), 250 bytes (fractions carried)
        assert_eq!(sizes, vec![1000, 500, 333, 250]);
        for _ in 0..200 {
            m.increase_window(&mut cc, &ack(1, 1000, None));
        }
        assert_eq!(m.counter(), 125.0);
        let before = cc.cwnd;
        for _ in 0..125 {
            m.increase_window(&mut cc, &ack(1, 1000, None));
        }
        assert_eq!(cc.cwnd - before, 1000); // 1/125 per ACK: one segment per 125 ACKs
    }

    #[test]
    fn two_decrease_factors_and_counter_reset() {
        let mut m = MmsTcp::new(125.0, 0.125, 0.5);
        let cc = state(1000, 800, 10); // congestion avoidance
        assert_eq!(m.ssthresh(&cc), 700_000);
        let cc = state(1000, 800, 5000); // slow start
        assert_eq!(m.ssthresh(&cc), 400_000);
        let mut cc = state(1000, 800, 10);
        for _ in 0..10 {
            m.increase_window(&mut cc, &ack(1, 1000, None));
        }
        let ev = crate::cca::testing::loss(crate::cca::CongestionKind::FastRetransmit, &cc);
        m.on_congestion_event(&mut cc, &ev);
        assert_eq!(m.counter(), 1.0);
    }
}
