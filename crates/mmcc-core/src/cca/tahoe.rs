//! TCP Tahoe (Jacobson 1988; RFC 5681 without fast recovery).
//!
//! Window growth as NewReno (slow start per acknowledged segment, RFC 5681 eq. 3 in congestion
//! avoidance). A loss detected by three duplicate ACKs or SACK retransmits the lost segment and
//! restarts slow start from one segment with ssthresh = max(FlightSize/2, 2 MSS) (RFC 5681 eq. 4):
//! [`CongestionControl::uses_fast_recovery`] is false, so the stack enters the Loss state instead
//! of fast recovery (ns-3 has no Tahoe; this follows the D-TCP paper's benchmark).

use super::util::{half_flight, reno_ca, slow_start_then_ca, FracAcc};
use super::{AckEvent, AlgorithmInfo, CcState, CongestionControl, Params, Profile};

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "tahoe",
    aliases: &["tcp-tahoe"],
    source: "Jacobson 1988 / RFC 5681 without fast recovery",
    params: &[],
    build: |p: &Params| Box::new(Tahoe { stack: p.profile, ..Tahoe::default() }),
};

#[derive(Default)]
pub struct Tahoe {
    /// The reference whose arithmetic this instance follows, chosen when it is built.
    pub(crate) stack: Profile,
    acc: FracAcc,
}

impl CongestionControl for Tahoe {
    fn name(&self) -> &'static str {
        "tahoe"
    }
    fn increase_window(&mut self, cc: &mut CcState, ack: &AckEvent) {
        if slow_start_then_ca(self.stack, cc, ack.segments_acked) {
            reno_ca(&mut self.acc, cc);
        }
    }
    fn ssthresh(&self, cc: &CcState) -> u64 {
        half_flight(self.stack, cc) // RFC 5681 eq. (4)
    }
    fn uses_fast_recovery(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::state;
    use super::*;

    #[test]
    fn tahoe_has_no_fast_recovery_and_halves_ssthresh() {
        let t = Tahoe::default();
        assert!(!t.uses_fast_recovery());
        let mut cc = state(1000, 40, 1000);
        cc.bytes_in_flight = 40_000;
        assert_eq!(t.ssthresh(&cc), 20_000);
    }
}
