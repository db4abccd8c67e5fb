//! HighSpeed TCP (RFC 3649).
//!
//! For w <= Low_Window = 38 segments: a = 1, b = 0.5 (standard TCP). Above, a(w) and b(w) come
//! from the table of RFC 3649 Appendix B (High_Window = 83000, High_Decrease = 0.1), as ns-3
//! (`TcpHighSpeed::TableLookupA/B`) and Linux (`hstcp_aimd_vals`) look them up: the row of the
//! smallest tabulated window >= w. E.g. w = 60: a = 2, b = 0.44 (the formulas of section 5
//! would give 1.4 and 0.48).
//!
//! Per ACK in congestion avoidance: cwnd += a(w) / w (RFC 3649 section 5); on loss:
//! cwnd = (1 - b(w)) w. How the increase is counted follows the reference of the profile:
//! - `ns3` (`TcpHighSpeed::CongestionAvoidance`): a(w) per acknowledged segment, whole
//!   segments; ssthresh from the bytes in flight (`GetSsThresh`);
//! - `linux` (`hstcp_cong_avoid`): a(w) once per ACK; ssthresh from cwnd (`hstcp_ssthresh`).

use super::util::{ca_segments, half_flight, loss_window};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "highspeed",
    aliases: &["hstcp", "hs-tcp", "tcp-highspeed"],
    source: "RFC 3649 (ns-3 TcpHighSpeed, Linux tcp_highspeed.c)",
    params: &[],
    build: |p: &Params| Box::new(HighSpeed::new(p.profile)),
};

const LOW_WINDOW: u64 = 38;

/// RFC 3649 Appendix B: (w, a(w), b(w) in hundredths), one row per integer a(w). Windows
/// above the last row use its values.
const TABLE: [(u64, u8, u8); 73] = [
    (38, 1, 50), (118, 2, 44), (221, 3, 41), (347, 4, 38), (495, 5, 37), (663, 6, 35),
    (851, 7, 34), (1058, 8, 33), (1284, 9, 32), (1529, 10, 31), (1793, 11, 30), (2076, 12, 29),
    (2378, 13, 28), (2699, 14, 28), (3039, 15, 27), (3399, 16, 27), (3778, 17, 26),
    (4177, 18, 26), (4596, 19, 25), (5036, 20, 25), (5497, 21, 24), (5979, 22, 24),
    (6483, 23, 23), (7009, 24, 23), (7558, 25, 22), (8130, 26, 22), (8726, 27, 22),
    (9346, 28, 21), (9991, 29, 21), (10661, 30, 21), (11358, 31, 20), (12082, 32, 20),
    (12834, 33, 20), (13614, 34, 19), (14424, 35, 19), (15265, 36, 19), (16137, 37, 19),
    (17042, 38, 18), (17981, 39, 18), (18955, 40, 18), (19965, 41, 17), (21013, 42, 17),
    (22101, 43, 17), (23230, 44, 17), (24402, 45, 16), (25618, 46, 16), (26881, 47, 16),
    (28193, 48, 16), (29557, 49, 15), (30975, 50, 15), (32450, 51, 15), (33986, 52, 15),
    (35586, 53, 14), (37253, 54, 14), (38992, 55, 14), (40808, 56, 14), (42707, 57, 13),
    (44694, 58, 13), (46776, 59, 13), (48961, 60, 13), (51258, 61, 13), (53667, 62, 12),
    (56230, 63, 12), (58932, 64, 12), (61799, 65, 12), (64851, 66, 11), (68113, 67, 11),
    (71617, 68, 11), (75401, 69, 10), (79517, 70, 10), (84035, 71, 10), (89053, 72, 10),
    (94717, 73, 9),
];

/// The table row for a window of `w` segments: the smallest tabulated window >= w.
fn row(w: u64) -> (u64, u8, u8) {
    let i = TABLE.partition_point(|r| r.0 < w);
    TABLE[i.min(TABLE.len() - 1)]
}

/// RFC 3649 a(w), segments per RTT.
pub fn a(w: u64) -> u64 {
    row(w).1 as u64
}

/// RFC 3649 b(w), the decrease factor.
pub fn b(w: u64) -> f64 {
    row(w).2 as f64 / 100.0
}

#[derive(Default)]
pub struct HighSpeed {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    /// ns-3 m_ackCnt / Linux snd_cwnd_cnt: weighted acknowledgements towards the next segment.
    ack_cnt: u64,
}

impl HighSpeed {
    /// HighSpeed following `stack`'s arithmetic.
    pub fn new(stack: Profile) -> HighSpeed {
        HighSpeed { stack, ack_cnt: 0 }
    }
}

impl CongestionControl for HighSpeed {
    fn name(&self) -> &'static str {
        "highspeed"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        let segs = ca_segments(self.stack, cc, ack.segments_acked) as u64;
        if segs == 0 {
            return;
        }
        let mut w = cc.cwnd / cc.mss;
        // RFC 3649: cwnd += a(w)/w per ACK, counted as a(w) units towards w units per segment:
        // ns-3 per acknowledged segment, Linux once per ACK.
        self.ack_cnt += a(w) * if self.stack.is_ns3() { segs } else { 1 };
        let before = w;
        while self.ack_cnt >= w.max(1) {
            self.ack_cnt -= w.max(1);
            w += 1;
        }
        if w != before {
            cc.cwnd = if self.stack.is_ns3() { w * cc.mss } else { cc.cwnd + (w - before) * cc.mss };
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        // ns-3: w from the bytes in flight; Linux: from cwnd (util::loss_window).
        let w = loss_window(self.stack, cc) / cc.mss;
        if w <= LOW_WINDOW {
            return half_flight(self.stack, cc);
        }
        // RFC 3649: cwnd = (1 - b(w)) w, in whole segments as ns-3 and Linux compute it
        (((w as f64 * (1.0 - b(w))) as u64).max(2)) * cc.mss
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;
    use crate::cca::Profile;

    #[test]
    fn rfc3649_table_rows() {
        assert_eq!((a(38), b(38)), (1, 0.5));
        // w = 60 lies in the row of 118 (a = 2, b = 0.44), not on the formula (1.4, 0.48)
        assert_eq!((a(60), b(60)), (2, 0.44));
        assert_eq!((a(118), b(118)), (2, 0.44));
        assert_eq!((a(119), b(119)), (3, 0.41));
        assert_eq!((a(1058), b(1058)), (8, 0.33));
        assert_eq!((a(83_000), b(83_000)), (71, 0.10));
        assert_eq!((a(200_000), b(200_000)), (73, 0.09));
    }

    #[test]
    fn table_is_monotone() {
        for r in TABLE.windows(2) {
            assert!(r[0].0 < r[1].0 && r[0].1 + 1 == r[1].1 && r[0].2 >= r[1].2, "{r:?}");
        }
    }

    #[test]
    fn ns3_counts_a_per_acknowledged_segment_in_whole_segments() {
        let mut h = HighSpeed::default();
        let mut cc = state(1000, 60, 10);
        h.stack = Profile::Ns3;
        // a(60) = 2: 30 ACKs of 1 segment give 60 units = one segment
        for i in 0..30 {
            h.increase_window(&mut cc, &ack(1, 1000, None));
            assert_eq!(cc.cwnd, if i < 29 { 60_000 } else { 61_000 }, "ack {i}");
        }
        // 2-segment ACKs count double: 61 units after 16 ACKs (64 >= 61)
        for _ in 0..16 {
            h.increase_window(&mut cc, &ack(2, 1000, None));
        }
        assert_eq!(cc.cwnd, 62_000);
    }

    #[test]
    fn linux_counts_a_once_per_ack() {
        let mut h = HighSpeed::default();
        let mut cc = state(1000, 60, 10);
        for _ in 0..30 {
            h.increase_window(&mut cc, &ack(2, 1000, None));
        }
        assert_eq!(cc.cwnd, 61_000, "30 ACKs x a(60) = 60 units, whatever each acknowledged");
    }

    #[test]
    fn decrease_uses_the_table_b_on_the_profile_window() {
        let mut h = HighSpeed::default();
        let mut cc = state(1000, 1058, 10);
        // Linux: from cwnd, (1 - 0.33) * 1058 = 708.86 -> 708 segments
        assert_eq!(h.ssthresh(&cc), 708_000);
        // ns-3: from the bytes in flight (here 100 segments: row 118, b = 0.44 -> 56)
        h.stack = Profile::Ns3;
        cc.bytes_in_flight = 100_000;
        assert_eq!(h.ssthresh(&cc), 56_000);
    }
}
