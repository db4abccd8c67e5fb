//! A window held by an outside controller: the congestion control of a flow whose cwnd and
//! pacing rate a learning agent sets between simulation steps (`mmcc.gym`,
//! [`crate::sim::Simulation::set_window`]).
//!
//! The algorithm never changes the window on its own: no growth on ACKs, no reduction on a
//! loss (it sets [`CongestionControl::controls_window`], so the stack skips PRR and the
//! recovery-exit step, as for BBR). The one thing the stack does regardless is a retransmission
//! timeout's window of one segment (RFC 6298 5.7 / RFC 5681 (7)); the first ACK after the
//! timeout restores the window the controller had set, as Linux BBR restores its saved window
//! when it leaves the Loss state (`bbr_set_cwnd` with `prior_cwnd`, from `bbr_save_cwnd`).
//! The agent's pacing rate stays in [`CcState::pacing_rate`], which the stack reads per send.

use super::{AckEvent, CcState, CongestionControl, CongestionEvent, CongestionKind, RateSample};

/// See the module documentation.
#[derive(Clone, Debug)]
pub struct Held {
    name: String,
    /// The window to restore after a timeout (bytes); 0 when none is pending.
    restore: u64,
}

impl Held {
    pub fn new(name: &str) -> Held {
        Held { name: name.to_string(), restore: 0 }
    }
}

impl CongestionControl for Held {
    fn name(&self) -> &str {
        &self.name
    }

    fn increase_window(&mut self, _cc: &mut CcState, _ack: &AckEvent) {}

    /// The threshold is not used to size the window (`controls_window`); the current window
    /// keeps the stack's slow-start test (`cwnd < ssthresh`) false.
    fn ssthresh(&self, cc: &CcState) -> u64 {
        cc.cwnd.max(cc.min_ssthresh())
    }

    fn on_congestion_event(&mut self, _cc: &mut CcState, ev: &CongestionEvent) {
        if ev.kind == CongestionKind::Timeout {
            self.restore = ev.prior_cwnd;
        }
    }

    fn on_rate_sample(&mut self, cc: &mut CcState, _rs: &RateSample) {
        if self.restore != 0 {
            cc.cwnd = cc.cwnd.max(self.restore);
            self.restore = 0;
        }
    }

    fn controls_window(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{ack, state};
    use super::*;

    #[test]
    fn acks_leave_the_window_alone() {
        let mut h = Held::new("agent");
        let mut cc = state(1000, 10, 1000);
        for _ in 0..50 {
            h.increase_window(&mut cc, &ack(1, 1000, Some(20)));
            h.on_rate_sample(&mut cc, &RateSample::default());
        }
        assert_eq!(cc.cwnd, 10_000);
        assert!(h.controls_window());
    }

    #[test]
    fn the_first_ack_after_a_timeout_restores_the_window() {
        let mut h = Held::new("agent");
        let mut cc = state(1000, 40, 1000);
        let ev = CongestionEvent { kind: CongestionKind::Timeout, prior_cwnd: 40_000, bytes_in_flight: 40_000 };
        cc.cwnd = 1000; // the stack's window after the timeout
        h.on_congestion_event(&mut cc, &ev);
        assert_eq!(cc.cwnd, 1000);
        h.on_rate_sample(&mut cc, &RateSample::default());
        assert_eq!(cc.cwnd, 40_000);
        // once only: a later, smaller window set by the controller stays
        cc.cwnd = 5000;
        h.on_rate_sample(&mut cc, &RateSample::default());
        assert_eq!(cc.cwnd, 5000);
    }

    #[test]
    fn a_fast_retransmit_changes_nothing() {
        let mut h = Held::new("agent");
        let mut cc = state(1000, 40, 1000);
        let ev = CongestionEvent { kind: CongestionKind::FastRetransmit, prior_cwnd: 40_000, bytes_in_flight: 40_000 };
        cc.ssthresh = h.ssthresh(&cc);
        h.on_congestion_event(&mut cc, &ev);
        h.on_rate_sample(&mut cc, &RateSample::default());
        assert_eq!((cc.cwnd, cc.ssthresh), (40_000, 40_000));
    }
}
