//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area networks",
//! ACM CCR 33(2), 2003).
//!
//! - Congestion avoidance, per ACK: cwnd += a, a = 0.01 segment (Kelly eq. 1). Below the
//!   legacy window the increase is Reno's 1/cwnd, as Linux `tcp_scalable.c` does with
//!   `min(cwnd, 100)`: per ACK cwnd += max(a, 1/cwnd).
//! - Loss: cwnd -= b * cwnd, b = 0.125 (Kelly eq. 2): ssthresh = max((1 - b) cwnd, 2 MSS).
//! - Slow start and RTO: as common conventions.

use super::util::{add_segments, ca_segments, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "scalable",
    aliases: &["stcp", "s-tcp", "tcp-scalable"],
    source: "Kelly, ACM CCR 33(2), 2003 (Linux tcp_scalable.c)",
    params: &[
        ParamSpec { name: "a", default: 0.01, help: "additive increase per ACK, segments (Kelly eq. 1)" },
        ParamSpec { name: "b", default: 0.125, help: "multiplicative decrease per loss (Kelly eq. 2)" },
    ],
    build: |p: &Params| Box::new(Scalable::new(p.get("a"), p.get("b"))),
};

pub struct Scalable {
    a: f64,
    b: f64,
    acc: FracAcc,
}

impl Scalable {
    pub fn new(a: f64, b: f64) -> Self {
        Scalable { a, b, acc: FracAcc::default() }
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
        for _ in 0..segs {
            stcp_increase(&mut self.acc, cc, self.a);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // Kelly eq. (2): cwnd <- cwnd - b cwnd
        ((cc.cwnd as f64 * (1.0 - self.b)) as u64).max(cc.min_ssthresh())
    }
    fn params(&self) -> Vec<(&'static str, f64)> {
        vec![("a", self.a), ("b", self.b)]
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
