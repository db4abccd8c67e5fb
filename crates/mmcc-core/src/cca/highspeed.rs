//! HighSpeed TCP (RFC 3649).
//!
//! For w <= Low_Window = 38 segments: a = 1, b = 0.5 (standard TCP). Above, with
//! High_Window = 83000 and High_Decrease = 0.1 (RFC 3649 section 5):
//! - `b(w) = (High_Decrease - 0.5) (ln w - ln Low_Window) / (ln High_Window - ln Low_Window) + 0.5`
//! - `p(w) = 0.078 / w^1.2`
//! - `a(w) = w^2 p(w) 2 b(w) / (2 - b(w))`
//!
//! RFC 3649 Appendix B tabulates these with a(w) rounded to an integer and b(w) to two
//! decimals, and ns-3 and Linux look the values up in that table; we compute them from the
//! formulas with the same rounding, so the table's rows (e.g. w = 38: a = 1, b = 0.50;
//! w = 118: a = 2, b = 0.44; w = 1058: b = 0.33; w = 83000: b = 0.10) are reproduced.
//!
//! Per ACK in congestion avoidance: cwnd += a(w) / w; on loss: cwnd = (1 - b(w)) w.

use super::util::{add_segments, half_flight, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "highspeed",
    aliases: &["hstcp", "hs-tcp", "tcp-highspeed"],
    source: "RFC 3649 (ns-3 TcpHighSpeed, Linux tcp_highspeed.c)",
    params: &[],
    build: |_p: &Params| Box::new(HighSpeed::default()),
};

const LOW_WINDOW: f64 = 38.0;
const HIGH_WINDOW: f64 = 83_000.0;
const HIGH_DECREASE: f64 = 0.1;

/// RFC 3649 section 5: b(w), rounded to two decimals as in Appendix B.
pub fn b(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 0.5;
    }
    let w = w.min(HIGH_WINDOW);
    let v = (HIGH_DECREASE - 0.5) * (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln()) + 0.5;
    (v * 100.0).round() / 100.0
}

/// RFC 3649 section 5: a(w) = w^2 p(w) 2 b(w) / (2 - b(w)), p(w) = 0.078 / w^1.2, rounded to an
/// integer (at least 1) as in Appendix B.
pub fn a(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        return 1.0;
    }
    let w = w.min(HIGH_WINDOW);
    let p = 0.078 / w.powf(1.2);
    let bw = b(w);
    (w * w * p * 2.0 * bw / (2.0 - bw)).round().max(1.0)
}

#[derive(Default)]
pub struct HighSpeed {
    acc: FracAcc,
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if slow_start_then_ca(cc, ack.segments_acked) {
            let w = cc.cwnd_segments();
            add_segments(&mut self.acc, cc, a(w) / w); // RFC 3649: cwnd += a(w)/w per ACK
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        let w = cc.cwnd_segments();
        if w <= LOW_WINDOW {
            return half_flight(cc);
        }
        // RFC 3649: cwnd = (1 - b(w)) w
        ((cc.cwnd as f64 * (1.0 - b(w))) as u64).max(cc.min_ssthresh())
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;

    #[test]
    fn rfc3649_checkpoints() {
        assert_eq!((a(38.0), b(38.0)), (1.0, 0.5));
        assert_eq!((a(118.0), b(118.0)), (2.0, 0.44));
        assert_eq!(b(1058.0), 0.33);
        assert_eq!(b(83_000.0), 0.10);
        // further Appendix B rows: a rises by one per row (221 -> 3, 347 -> 4, ... 1058 -> 8)
        assert_eq!((a(221.0), b(221.0)), (3.0, 0.41));
        assert_eq!((a(347.0), b(347.0)), (4.0, 0.38));
        assert_eq!(a(1058.0), 8.0);
        assert_eq!(a(83_000.0), 71.0);
    }

    #[test]
    fn a_grows_and_b_shrinks_with_the_window() {
        let mut prev = (0.0, 1.0);
        for w in [39.0, 100.0, 500.0, 2000.0, 10_000.0, 50_000.0] {
            assert!(a(w) >= prev.0 && b(w) <= prev.1, "w = {w}");
            prev = (a(w), b(w));
        }
    }

    #[test]
    fn increase_and_decrease_at_w_1058() {
        let mut h = HighSpeed::default();
        let mut cc = state(1000, 1058, 10);
        h.increase_window(&mut cc, &ack(1, 1000, None));
        // a(1058) / 1058 = 8 / 1058 segment = 7.56 bytes
        assert_eq!(cc.cwnd, 1_058_000 + 7);
        let cc = state(1000, 1058, 10);
        // (1 - b(1058)) w = 0.67 w
        assert_eq!(h.ssthresh(&cc), (1_058_000.0 * (1.0 - 0.33)) as u64);
    }
}
