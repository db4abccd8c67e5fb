//! NewReno (RFC 5681 congestion control, RFC 6582 fast-recovery semantics).
//!
//! Source: RFC 5681 sections 3.1-3.2; ns-3 `TcpNewReno`. Choices where the RFC leaves room:
//! - Slow start grows cwnd by one MSS per newly acknowledged segment (RFC 3465 byte counting
//!   without the L limit, as docs/algorithms.md states), capped at ssthresh; the
//!   remainder of the ACK is used for congestion avoidance (Linux `tcp_slow_start`).
//! - Congestion avoidance grows cwnd by MSS*MSS/cwnd once per ACK (RFC 5681 eq. 3), with the
//!   fractional part carried in an integer accumulator (Linux `snd_cwnd_cnt`) instead of being
//!   truncated as ns-3 does.
//! - Loss: ssthresh = max(FlightSize / 2, 2 * MSS) (RFC 5681 eq. 4).

use super::util::{ca_segments, half_flight, reno_ca_acked, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "newreno",
    aliases: &["reno", "tcp-newreno"],
    source: "RFC 5681 / RFC 6582 (ns-3 TcpNewReno)",
    params: &[],
    build: |p: &Params| Box::new(NewReno { stack: p.profile, ..NewReno::default() }),
};

#[derive(Clone, Debug, Default)]
pub struct NewReno {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    acc: FracAcc,
}

impl CongestionControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }

    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        // RFC 5681 eq. (3): once per ACK in ns-3, per acknowledged segment in Linux
        let segs = ca_segments(self.stack, cc, ack.segments_acked);
        reno_ca_acked(self.stack, &mut self.acc, cc, segs);
    }

    fn ssthresh(&self, cc: &CcState) -> u64 {
        half_flight(self.stack, cc)
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;
    use crate::cca::Profile;

    #[test]
    fn slow_start_adds_one_mss_per_acked_segment() {
        let mut r = NewReno::default();
        let mut cc = state(1000, 10, 1000);
        r.increase_window(&mut cc, &ack(2, 1000, Some(20)));
        assert_eq!(cc.cwnd, 12_000);
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_uses_the_rest_for_avoidance() {
        let mut r = NewReno::default();
        let mut cc = state(1000, 10, 11);
        r.increase_window(&mut cc, &ack(2, 1000, None));
        // one segment reaches ssthresh (11000), the second gives 1000*1000/11000 = 90.9 bytes
        assert_eq!(cc.cwnd, 11_090);
    }

    #[test]
    fn congestion_avoidance_adds_one_mss_per_window_of_acks() {
        let mut r = NewReno::default();
        let mut cc = state(1000, 100, 50);
        // 100 ACKs of one segment each at cwnd = 100 segments: cwnd grows by ~1 MSS
        for _ in 0..100 {
            r.increase_window(&mut cc, &ack(1, 1000, Some(20)));
        }
        assert!(cc.cwnd >= 100_990 && cc.cwnd <= 101_000, "{}", cc.cwnd);
    }

    #[test]
    fn fractional_increase_is_carried_not_lost() {
        let mut r = NewReno::default();
        let mut cc = state(1000, 1500, 50); // 1000*1000/1.5e6 = 0.667 byte per ACK
        for _ in 0..3 {
            r.increase_window(&mut cc, &ack(1, 1000, None));
        }
        // 1e6/1.5e6 carried, then 2e6/1.5e6 -> 1 byte (0.5e6 carried), then 1.5e6/1500001 -> 0:
        // 1 byte where ns-3's max(1, adder) would add 3.
        assert_eq!(cc.cwnd, 1_500_001);
    }

    #[test]
    fn ssthresh_is_half_the_flight_with_a_two_segment_floor() {
        let mut r = NewReno::default();
        let mut cc = state(1000, 100, 1000);
        r.stack = Profile::Ns3; // ns-3: half the bytes in flight
        cc.bytes_in_flight = 80_000;
        assert_eq!(r.ssthresh(&cc), 40_000);
        cc.bytes_in_flight = 3_000;
        assert_eq!(r.ssthresh(&cc), 2_000);
        r.stack = Profile::Linux; // Linux tcp_reno_ssthresh: half of cwnd
        assert_eq!(r.ssthresh(&cc), 50_000);
    }

    #[test]
    fn ns3_grows_once_per_ack_linux_per_segment() {
        let mut r = NewReno::default();
        // slow start: ns-3 adds one MSS per ACK, Linux one per acknowledged segment
        let mut cc = state(1000, 10, 100);
        r.stack = Profile::Ns3;
        r.increase_window(&mut cc, &ack(2, 1000, None));
        assert_eq!(cc.cwnd, 11_000);
        let mut cc = state(1000, 10, 100);
        r.stack = Profile::Linux;
        r.increase_window(&mut cc, &ack(2, 1000, None));
        assert_eq!(cc.cwnd, 12_000);
        // congestion avoidance at w = 100: ns-3 floor(1000*1000/100000) = 10 bytes per ACK;
        // Linux 10 bytes per acknowledged segment
        let mut cc = state(1000, 100, 10);
        r.stack = Profile::Ns3;
        r.increase_window(&mut cc, &ack(2, 1000, None));
        assert_eq!(cc.cwnd, 100_010);
        let mut r = NewReno::default();
        let mut cc = state(1000, 100, 10);
        r.increase_window(&mut cc, &ack(2, 1000, None));
        assert_eq!(cc.cwnd, 100_020);
    }
}
