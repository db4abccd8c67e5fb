//! MRVHS (Alramli et al., PeerJ Computer Science 2025, doi 10.7717/peerj-cs.2956; PhD thesis,
//! UPM 2025, ch. 6): HighSpeed TCP (RFC 3649) whose additive increase is replaced by the
//! MSS-CCA increment.
//!
//! - Congestion avoidance, per ACK: `alpha = sqrt(MSS * TimeRatio)`, `cwnd += alpha / cwnd`.
//! - Loss: HighSpeed's b(w): `ssthresh = max(2, cwnd (1 - b(cwnd)))` (the papers print
//!   `cwnd - beta/cwnd`; the text says the decrease follows HighSpeed, which is normative here).
//! - Slow start: standard (HighSpeed in ns-3). RTO: common conventions.

use super::highspeed;
use super::msscca::mss_increment;
use super::util::{per_rtt_increment, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "mrvhs",
    aliases: &[],
    source: "Alramli et al., PeerJ Comput. Sci. (2025) doi 10.7717/peerj-cs.2956; thesis ch. 6",
    params: &[],
    build: |p: &Params| Box::new(Mrvhs::new(p.profile)),
};

#[derive(Default)]
pub struct Mrvhs {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    acc: FracAcc,
    hs: highspeed::HighSpeed,
}

impl Mrvhs {
    /// MRVHS following `stack`'s arithmetic, its HighSpeed decrease included.
    pub fn new(stack: Profile) -> Mrvhs {
        Mrvhs { stack, acc: FracAcc::default(), hs: highspeed::HighSpeed::new(stack) }
    }
}

impl CongestionControl for Mrvhs {
    fn name(&self) -> &'static str {
        "mrvhs"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if !slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            return;
        }
        // alpha = sqrt(MSS * TimeRatio); cwnd += alpha / cwnd
        per_rtt_increment(&mut self.acc, cc, mss_increment(cc));
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        self.hs.ssthresh(cc) // RFC 3649: (1 - b(w)) w
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;

    #[test]
    fn cuts_to_0_67_w_at_w_1058() {
        let m = Mrvhs::default();
        let cc = state(1400, 1058, 10);
        // b(1058) = 0.33 (RFC 3649 Appendix B), whole segments: 0.67 * 1058 = 708.86 -> 708
        assert_eq!(m.ssthresh(&cc), 708 * 1400);
    }

    #[test]
    fn small_windows_halve_like_reno() {
        let m = Mrvhs::default();
        let mut cc = state(1400, 30, 10);
        cc.bytes_in_flight = 30 * 1400;
        assert_eq!(m.ssthresh(&cc), 15 * 1400);
    }

    /// Built for ns-3, the HighSpeed decrease inside reads ns-3's loss window too (the bytes in
    /// flight, `TcpHighSpeed::GetSsThresh`), not cwnd (the stored ns-3 runs of MRVHS show it).
    #[test]
    fn the_ns3_variant_cuts_the_bytes_in_flight() {
        let mut cc = state(1400, 1058, 10);
        cc.bytes_in_flight = 100 * 1400; // row 118: b = 0.44, 0.56 * 100 = 56 segments
        assert_eq!(Mrvhs::new(Profile::Ns3).ssthresh(&cc), 56 * 1400);
        assert_eq!(Mrvhs::new(Profile::Linux).ssthresh(&cc), 708 * 1400);
    }
}
