//! BBR v1 (Cardwell et al., "BBR: congestion-based congestion control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), in the variant of the flow's reference stack,
//! chosen when the algorithm is built: `linux.rs` follows Linux `tcp_bbr.c` (the `linux`
//! profile), `ns3.rs` ns-3 3.37's `TcpBbr` (the `ns3` profile). What both share lives here.

pub mod linux;
pub mod ns3;

pub use linux::Bbr;

use crate::cca::{AlgorithmInfo, ParamSpec, Params, Profile};
use crate::time::{Dur, Time};

/// BBR's state machine (both variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

/// ProbeRTT lasts at least this long once the flight has drained (Linux `bbr_probe_rtt_mode_ms`,
/// ns-3 `TcpBbr::m_probeRttDuration`: 200 ms).
const PROBE_RTT_TIME: Dur = Dur::from_millis(200);

/// When ProbeRTT's deadline counts as passed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deadline {
    /// At the deadline or after (Linux: `!before(tcp_jiffies32, bbr->probe_rtt_done_stamp)`).
    AtOrAfter,
    /// Strictly after (ns-3: `Simulator::Now () > m_probeRttDoneStamp`).
    After,
}

/// ProbeRTT's timer, the same in both variants (Linux `bbr_update_min_rtt`, ns-3
/// `TcpBbr::HandleProbeRTT`): it starts when the flight has drained to the minimum window and
/// ends after `PROBE_RTT_TIME` and at least one round trip.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProbeRttTimer {
    done: Option<Time>,
    round_done: bool,
}

impl ProbeRttTimer {
    /// A new ProbeRTT: the timer waits for the flight to drain.
    pub fn reset(&mut self) {
        self.done = None;
    }

    /// One ACK in ProbeRTT (`drained`: the flight is at the minimum window; the round counter
    /// restarts with the timer, from `delivered`); true when ProbeRTT is over.
    pub fn on_ack(&mut self, now: Time, drained: bool, round_start: bool, delivered: u64, next_round_delivered: &mut u64, deadline: Deadline) -> bool {
        match self.done {
            None if drained => {
                self.done = Some(now + PROBE_RTT_TIME);
                self.round_done = false;
                *next_round_delivered = delivered;
                false
            }
            Some(_) => {
                if round_start {
                    self.round_done = true;
                }
                self.over(now, deadline)
            }
            None => false,
        }
    }

    /// A round has passed since the timer started and the deadline has.
    pub fn over(&self, now: Time, deadline: Deadline) -> bool {
        self.round_done
            && self.done.is_some_and(|d| match deadline {
                Deadline::AtOrAfter => now >= d,
                Deadline::After => now > d,
            })
    }
}

pub static INFO: AlgorithmInfo = AlgorithmInfo {
    name: "bbr",
    aliases: &["bbrv1", "bbr1", "tcp-bbr"],
    source: "Cardwell et al., ACM Queue 14(5) 2016; draft-cardwell-iccrg-bbr-congestion-control-00 (Linux tcp_bbr.c)",
    params: &[ParamSpec {
        name: "probe_rtt_app_limited",
        default: 1.0,
        min: 0.0,
        max: 1.0,
        help: "1: ProbeRTT marks its flight application-limited (Linux; the default of the linux profile); \
               0: it does not, as ns-3 3.37's TcpBbr behaves (it sets its own m_appLimited, which the rate \
               sampler never reads; the default of the ns3 profile), so short-RTT ProbeRTTs can collapse \
               the bandwidth estimate",
    }],
    // The ns3 profile runs ns-3's TcpBbr (ns3.rs), the linux profile Linux's tcp_bbr.c (linux.rs).
    build: |p: &Params| {
        let marked = p.given("probe_rtt_app_limited").map(|v| v != 0.0);
        match p.profile {
            Profile::Ns3 => ns3::build(marked.unwrap_or(false)),
            Profile::Linux => {
                let mut b = Bbr::new();
                b.probe_rtt_app_limited = marked.unwrap_or(true);
                Box::new(b)
            }
        }
    },
};
