//! BBR v1 (Cardwell et al., "BBR: congestion-based congestion control", ACM Queue 14(5), 2016;
//! draft-cardwell-iccrg-bbr-congestion-control-00), in the variant of the flow's reference stack,
//! chosen when the algorithm is built: `linux.rs` follows Linux `tcp_bbr.c` (the `linux`
//! profile), `ns3.rs` ns-3 3.37's `TcpBbr` (the `ns3` profile). What both share lives here.

pub mod linux;
pub mod ns3;

pub use linux::Bbr;

use crate::cca::{AlgorithmInfo, ParamSpec, Params, Profile};

/// BBR's state machine (both variants).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
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
