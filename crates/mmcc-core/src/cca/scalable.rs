//! Scalable TCP (Kelly, "Scalable TCP: improving performance in highspeed wide area networks",
//! ACM CCR 33(2), 2003).
//!
//! - Congestion avoidance, per acknowledged segment: cwnd += a (Kelly eq. 1). Below the legacy
//!   window 1/a the increase is Reno's 1/cwnd: cwnd += max(a, 1/cwnd). The default a follows
//!   the profile's reference: Linux `tcp_scalable.c` counts `TCP_SCALABLE_AI_CNT` = 100
//!   segments per increase (a = 0.01, Kelly's value); ns-3 `TcpScalable` has `AIFactor` = 50
//!   (a = 0.02). A given `a` overrides both. The `ns3` profile counts as `TcpScalable` does, in
//!   whole segments (an integer count, cwnd set to whole segments when it grows; AIFactor =
//!   round(1/a)), the `linux` profile as `tcp_cong_avoid_ai` with Kelly's a.
//! - Loss: cwnd -= b * cwnd, b = 0.125 (Kelly eq. 2): ssthresh = max((1 - b) w, 2 segments),
//!   w = cwnd (Linux) or the bytes in flight in whole segments (ns-3 `GetSsThresh`).
//! - Slow start and RTO: as common conventions.

use super::util::{add_segments, ca_segments, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, ParamSpec, Params, Profile};

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
    build: |p: &Params| Box::new(Scalable { stack: p.profile, a: p.given("a"), b: p.get("b"), acc: FracAcc::default(), ack_cnt: 0 }),
};

pub struct Scalable {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    /// None: the profile's reference value ([`Scalable::a`]).
    a: Option<f64>,
    b: f64,
    acc: FracAcc,
    /// ns-3's `m_ackCnt` (the `ns3` profile's arithmetic, [`ns3_stcp_ca`]).
    ack_cnt: u32,
}

impl Scalable {
    pub fn new(a: f64, b: f64) -> Self {
        Scalable { stack: Profile::Linux, a: Some(a), b, acc: FracAcc::default(), ack_cnt: 0 }
    }

    /// Kelly's a: as given, else 1/100 (Linux TCP_SCALABLE_AI_CNT) or 1/50 (ns-3 AIFactor).
    pub fn a(&self) -> f64 {
        self.a.unwrap_or(if self.stack.is_ns3() { 1.0 / 50.0 } else { 1.0 / 100.0 })
    }
}

/// Scalable TCP's increase for one ACK (shared with mmS-TCP's reference and YeAH's fast mode).
pub fn stcp_increase(acc: &mut FracAcc, cc: &mut CcState, a: f64) {
    // Kelly eq. (1): cwnd += a per ACK; Reno's 1/cwnd below the legacy window (Linux).
    let inc = a.max(1.0 / cc.cwnd_segments());
    add_segments(acc, cc, inc);
}

/// ns-3 `TcpScalable::CongestionAvoidance` in its own arithmetic: an integer count of
/// acknowledged segments; when it reaches w = min(cwnd in whole segments, `ai_factor`) the
/// window grows by count / w whole segments, the remainder is dropped and cwnd is set to whole
/// segments (its fractional bytes dropped too). A count already at w from an earlier call (a
/// smaller w now) first adds one segment. Shared by the `ns3` profile's Scalable (AIFactor 50)
/// and YeAH's fast mode (`TcpYeah`'s StcpAiFactor 100).
pub fn ns3_stcp_ca(ack_cnt: &mut u32, cc: &mut CcState, segments_acked: u32, ai_factor: u32) {
    let old = (cc.cwnd / cc.mss).max(1) as u32;
    let mut seg = old;
    let w = seg.min(ai_factor).max(1);
    if *ack_cnt >= w {
        *ack_cnt = 0;
        seg += 1;
    }
    *ack_cnt = ack_cnt.saturating_add(segments_acked);
    if *ack_cnt >= w {
        seg += *ack_cnt / w;
        *ack_cnt = 0;
    }
    if seg != old {
        cc.cwnd = seg as u64 * cc.mss;
    }
}

impl CongestionControl for Scalable {
    fn name(&self) -> &'static str {
        "scalable"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        // ns-3 TcpScalable and Linux tcp_scalable both count acknowledged segments.
        let segs = ca_segments(self.stack, cc, ack.segments_acked);
        let a = self.a();
        if self.stack.is_ns3() {
            // ns-3 TcpNewReno::IncreaseWindow -> TcpScalable::CongestionAvoidance with the
            // segments slow start left over (called with none too, once cwnd >= ssthresh),
            // AIFactor = 1/a (50 by default)
            if !cc.in_slow_start() {
                let ai_factor = (1.0 / a).round().clamp(1.0, u32::MAX as f64) as u32;
                ns3_stcp_ca(&mut self.ack_cnt, cc, segs, ai_factor);
            }
            return;
        }
        for _ in 0..segs {
            stcp_increase(&mut self.acc, cc, a);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        if self.stack.is_ns3() {
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
        let mut s = Scalable { stack: crate::cca::Profile::Linux, a: None, b: 0.125, acc: FracAcc::default(), ack_cnt: 0 };
        let mut cc = state(1000, 1000, 10);
        assert_eq!(s.a(), 0.01); // Linux TCP_SCALABLE_AI_CNT = 100
        s.stack = crate::cca::Profile::Ns3;
        assert_eq!(s.a(), 0.02); // ns-3 AIFactor = 50
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

    /// ns-3 TcpScalable::CongestionAvoidance: an integer count; cwnd in whole segments.
    #[test]
    fn ns3_counts_whole_segments_and_drops_the_remainders() {
        let mut cnt = 0;
        let mut cc = state(1000, 10, 1);
        cc.cwnd += 500; // 10.5 segments: w = min(10, 50) = 10
        ns3_stcp_ca(&mut cnt, &mut cc, 4, 50);
        assert_eq!((cc.cwnd, cnt), (10_500, 4)); // no growth: cwnd untouched
        ns3_stcp_ca(&mut cnt, &mut cc, 7, 50);
        // 11 >= 10: one segment, the remainder (1) and the 500 bytes dropped
        assert_eq!((cc.cwnd, cnt), (11_000, 0));
        // a count left at w from a larger window first adds a segment, then counts
        let mut cnt = 12;
        let mut cc = state(1000, 10, 1);
        ns3_stcp_ca(&mut cnt, &mut cc, 3, 50);
        assert_eq!((cc.cwnd, cnt), (11_000, 3));
        // at 200 segments w = AIFactor: 2 segments per ACK, one segment every 25 ACKs
        let mut cnt = 0;
        let mut cc = state(1000, 200, 1);
        for _ in 0..24 {
            ns3_stcp_ca(&mut cnt, &mut cc, 2, 50);
        }
        assert_eq!(cc.cwnd, 200_000);
        ns3_stcp_ca(&mut cnt, &mut cc, 2, 50);
        assert_eq!((cc.cwnd, cnt), (201_000, 0));
    }

    /// The ns3 profile's Scalable grows as TcpScalable: the ACK that ends a recovery (17
    /// segments at once, cwnd = ssthresh = 2,518.x segments) adds nothing in ns-3, where a
    /// per-segment a = 0.02 would add 0.34 of a segment (found comparing cwnd traces with
    /// ns-3 3.37: 100 Mb/s, 1e-4, seed 1).
    #[test]
    fn ns3_profile_grows_in_whole_segments() {
        let mut s = Scalable { stack: crate::cca::Profile::Ns3, a: None, b: 0.125, acc: FracAcc::default(), ack_cnt: 0 };
        let mut cc = state(1400, 2518, 2518);
        s.increase_window(&mut cc, &ack(17, 1400, None));
        assert_eq!(cc.cwnd, 2518 * 1400);
        for _ in 0..16 {
            s.increase_window(&mut cc, &ack(2, 1400, None));
        }
        assert_eq!(cc.cwnd, 2518 * 1400); // 17 + 2 x 16 = 49 < 50
        s.increase_window(&mut cc, &ack(2, 1400, None));
        assert_eq!(cc.cwnd, 2519 * 1400); // 51 >= 50
        let mut linux = Scalable { stack: crate::cca::Profile::Linux, a: None, b: 0.125, acc: FracAcc::default(), ack_cnt: 0 };
        let mut cc = state(1400, 2518, 2518);
        linux.increase_window(&mut cc, &ack(17, 1400, None));
        assert_eq!(cc.cwnd, 2518 * 1400 + 238); // Linux: 17 x 0.01 x 1400
    }
}
