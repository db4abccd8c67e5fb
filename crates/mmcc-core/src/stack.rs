//! The reference stack a flow follows. Its own module, below both the TCP stack (`tcp::rules`,
//! `tcp::profile`'s defaults) and the algorithms (`cca`, whose ns-3 and Linux arithmetic differ),
//! so that neither depends on the other for it.

use serde::{Deserialize, Serialize};

/// The reference stack a flow follows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    /// ns-3 3.35-3.37 `TcpSocketBase` and its `TcpCongestionOps` classes.
    Ns3,
    /// Linux 6.x `net/ipv4/tcp_*.c`.
    #[default]
    Linux,
}

impl Profile {
    pub fn name(self) -> &'static str {
        match self {
            Profile::Ns3 => "ns3",
            Profile::Linux => "linux",
        }
    }
    /// True for ns-3's classes (an algorithm's variant is chosen once, when it is built).
    pub fn is_ns3(self) -> bool {
        self == Profile::Ns3
    }
}
