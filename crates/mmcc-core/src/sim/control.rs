//! Stepping a simulation from outside: what an agent reads about a flow between two calls of
//! [`Simulation::run_until`] ([`FlowSnapshot`]) and the window and pacing rate it sets
//! ([`Simulation::set_window`], [`Simulation::set_pacing`]). Used by `mmcc.gym` through the
//! Python extension; the run itself is unchanged by reading it.

use super::*;
use crate::time::Bandwidth;

/// A flow's cumulative counters and current state at one instant. Differences of two snapshots
/// give what happened in between (a monitor interval).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlowSnapshot {
    pub now_ns: u64,
    pub cwnd: u64,
    /// u64::MAX while no loss has set it.
    pub ssthresh: u64,
    /// RFC 6675 pipe, bytes.
    pub in_flight: u64,
    pub mss: u64,
    pub srtt_ns: Option<u64>,
    pub min_rtt_ns: Option<u64>,
    pub latest_rtt_ns: Option<u64>,
    /// RTT samples taken so far and their sum (ns), for an interval's mean RTT.
    pub rtt_samples: u64,
    pub rtt_sum_ns: u128,
    /// Bytes put on the wire (new data and retransmissions), retransmitted bytes.
    pub bytes_sent: u64,
    pub retx_bytes: u64,
    /// Bytes cumulatively acknowledged (snd_una).
    pub bytes_acked: u64,
    /// Bytes the receiving application got in order.
    pub delivered: u64,
    pub retransmits: u64,
    pub fast_retransmits: u64,
    pub rtos: u64,
    /// Congestion state: 0 open, 1 disorder, 2 recovery, 3 loss.
    pub ca_state: u8,
    pub pacing_bps: Option<u64>,
    /// The radio link whose UE is one end of the flow, at its last channel update.
    pub sinr_db: Option<f64>,
    pub los: Option<bool>,
    /// The flow has stopped sending (stop time passed or a finite transfer completed).
    pub done: bool,
}

impl Simulation {
    /// The current state of flow `flow` (panics on an index beyond [`Simulation::flow_count`]).
    pub fn flow_snapshot(&self, flow: usize) -> FlowSnapshot {
        let f = &self.flows[flow];
        let s = &f.sender;
        let c = &f.rec.counters;
        let radio = self.flow_radio(flow).map(|r| &self.radios[r].state);
        FlowSnapshot {
            now_ns: self.now().0,
            cwnd: s.cc.cwnd,
            ssthresh: s.cc.ssthresh,
            in_flight: s.pipe(),
            mss: s.cc.mss,
            srtt_ns: s.rtt.srtt().map(|d| d.0),
            min_rtt_ns: s.rtt.min().map(|d| d.0),
            latest_rtt_ns: s.rtt.latest().map(|d| d.0),
            rtt_samples: f.rec.rtt.count(),
            rtt_sum_ns: f.rec.rtt.sum_ns(),
            bytes_sent: c.bytes_sent,
            retx_bytes: c.retx_bytes,
            bytes_acked: s.sb.snd_una,
            delivered: f.receiver.delivered,
            retransmits: c.retransmits,
            fast_retransmits: c.fast_retransmits,
            rtos: c.rtos,
            ca_state: s.cc.state as u8,
            pacing_bps: s.cc.pacing_rate.map(|b| b.as_bps()),
            sinr_db: radio.map(|r| r.sinr_dl),
            los: radio.map(|r| r.los),
            done: s.done(),
        }
    }

    /// The radio link whose UE sends or receives flow `flow`, if any.
    pub fn flow_radio(&self, flow: usize) -> Option<usize> {
        let f = &self.cfg.flows[flow];
        self.cfg.radios.iter().position(|r| r.ue == f.dst || r.ue == f.src)
    }

    /// Set flow `flow`'s congestion window (bytes, at least one segment). With a held window
    /// ([`crate::cca::held::Held`]) it stays until set again; with a built-in algorithm the
    /// algorithm goes on from it (Orca's use of the kernel's Cubic). The sender acts on it at
    /// its next ACK or timer.
    pub fn set_window(&mut self, flow: usize, cwnd: u64) {
        let cc = &mut self.flows[flow].sender.cc;
        cc.cwnd = cwnd.max(cc.mss);
    }

    /// Set (Some, bits per second, at least 1) or clear (None: the stack's default) flow
    /// `flow`'s pacing rate. A built-in algorithm that paces (BBR) overwrites it on its next ACK.
    pub fn set_pacing(&mut self, flow: usize, bps: Option<u64>) {
        self.flows[flow].sender.cc.pacing_rate = bps.map(|b| Bandwidth(b.max(1)));
    }

    /// Name flow `flow`'s algorithm in the run's tables (`cca` column), e.g. the policy that
    /// drives a built-in algorithm's window.
    pub fn set_label(&mut self, flow: usize, name: &str) {
        self.flows[flow].cca_name = name.to_string();
    }
}
