//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area networks",
//! ACM CCR 33(2), 2003).
//!
//! - Congestion avoidance, per acknowledged segment: cwnd += a (Kelly eq. 1). Below the legacy
//!   window 1/a the increase is Reno's 1/cwnd: cwnd += max(a, 1/cwnd). The default a follows
//!   the profile's reference: Linux `tcp_scalable.c` counts `TCP_SCALABLE_AI_CNT` = 100
//!   segments per increase (a = 0.01, Kelly's value); ns-3 `TcpScalable` has `AIFactor` = 50
//!   (a = 0.02). A given `a` overrides both.
//! - Loss: cwnd -= b * cwnd, b = 0.125 (Kelly eq. 2): ssthresh = max((1 - b) w, 2 segments),
//!   w = cwnd (Linux) or the bytes in flight in whole segments (ns-3 `GetSsThresh`).
//! - Slow start and RTO: as common conventions.

use super::util::{add_segments, ca_segments, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "scalable",
    aliases: &["stcp", "s-tcp", "tcp-scalable"],
    source: "Kelly, ACM CCR 33(2), 2003 (Linux tcp_scalable.c)",
    params: &[
        ParamSpec {
            name: "a",
            default: 0.01,
            min: 0.0, max: 100.0, help: "additive increase per acknowledged segment (Kelly eq. 1); default 0.01 (Linux), 0.02 in the ns3 profile",
        },
        ParamSpec { name: "b", default: 0.125, min: 0.0, max: 1.0, help: "multiplicative decrease per loss (Kelly eq. 2)" },
    ],
    build: |p: &Params| Box::new(Scalable { a: p.given("a"), b: p.get("b"), acc: FracAcc::default() }),
};

pub struct Scalable {
    /// None: the profile's reference value ([`Scalable::a`]).
    a: Option<f64>,
    b: f64,
    acc: FracAcc,
}

impl Scalable {
    pub fn new(a: f64, b: f64) -> Self {
        Scalable { a: Some(a), b, acc: FracAcc::default() }
    }

    /// Kelly's a: as given, else 1/100 (Linux TCP_SCALABLE_AI_CNT) or 1/50 (ns-3 AIFactor).
    pub fn a(&self, cc: &CcState) -> f64 {
        self.a.unwrap_or(if cc.ns3() { 1.0 / 50.0 } else { 1.0 / 100.0 })
    }
}

/// Scalable TCP's increase for one ACK (shared with mmS-TCP's reference and YeAH's fast mode).
pub fn stcp_increase(acc: &mut FracAcc, cc: &mut CcState, a: f64) {
    // Kelly eq. (1): cwnd += a per ACK; Reno's 1/cwnd below the legacy window (Linux).
    let inc = a.max(1.0 / cc.cwnd_segments());
    add_segments(acc, cc, inc);
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        // ns-3 TcpScalable and Linux tcp_scalable both count acknowledged segments.
        let segs = ca_segments(cc, ack.segments_acked);
        let a = self.a(cc);
        for _ in 0..segs {
            stcp_increase(&mut self.acc, cc, a);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        if cc.ns3() {
            // ns-3 TcpScalable::GetSsThresh: max(floor(flight segments * (1 - b)), 2) segments
            let w = (cc.bytes_in_flight / cc.mss) as f64;
            return ((w * (1.0 - self.b)) as u64).max(2) * cc.mss;
        }
        // Kelly eq. (2): cwnd <- cwnd - b cwnd
        ((cc.cwnd as f64 * (1.0 - self.b)) as u64).max(cc.min_ssthresh())
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("a", self.a.unwrap_or(f64::NAN)), ("b", self.b)]
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;

    #[test]
    fn one_hundredth_of_a_segment_per_ack_above_the_legacy_window() {
        let mut s = Scalable::new(0.01, 0.125);
        let mut cc = state(1000, 1000, 10);
        for _ in 0..100 {
            s.increase_window(&mut cc, &ack(1, 1000, None));
        }
        assert_eq!(cc.cwnd, 1_000_000 + 1000); // 100 ACKs x 0.01 segment = 1 segment
    }

    #[test]
    fn the_default_a_follows_the_profile() {
        let s = Scalable { a: None, b: 0.125, acc: FracAcc::default() };
        let mut cc = state(1000, 1000, 10);
        assert_eq!(s.a(&cc), 0.01); // Linux TCP_SCALABLE_AI_CNT = 100
        cc.profile = crate::cca::Profile::Ns3;
        assert_eq!(s.a(&cc), 0.02); // ns-3 AIFactor = 50
        // ns-3 ssthresh: from the flight, whole segments: 0.875 * 99 = 86.6 -> 86
        cc.bytes_in_flight = 99_500;
        assert_eq!(s.ssthresh(&cc), 86_000);
    }

    #[test]
    fn reno_increase_below_the_legacy_window() {
        let mut s = Scalable::new(0.01, 0.125);
        let mut cc = state(1000, 50, 10);
        s.increase_window(&mut cc, &ack(1, 1000, None));
        assert_eq!(cc.cwnd, 50_000 + 20); // 1/50 segment
    }

    #[test]
    fn loss_removes_one_eighth() {
        let s = Scalable::new(0.01, 0.125);
        let cc = state(1000, 800, 10);
        assert_eq!(s.ssthresh(&cc), 700_000);
    }
}
