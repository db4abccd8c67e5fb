//! The normalized run configuration: every quantity in base units (ns, bytes, bit/s). The
//! Python layer parses TOML scenarios with units into this structure (as JSON); Rust benchmarks
//! and tests build it directly.

use crate::net::{DirectionConfig, NodeId};
use crate::record::RecordConfig;
use crate::tcp::app::AppConfig;
use crate::tcp::TcpConfig;
use crate::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Most flows in one run: each flow holds a sender, a receiver and its per-bin tables, so the
/// bound keeps a run's memory and set-up time bounded (docs/scenario-format.md states it).
pub const MAX_FLOWS: usize = 100_000;
/// Most time bins a run's series may have (duration / record.bin).
pub const MAX_BINS: u64 = 2_000_000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default = "d_seed")]
    pub seed: u64,
    pub duration: Dur,
    pub nodes: Vec<String>,
    pub links: Vec<LinkConfig>,
    pub flows: Vec<FlowConfig>,
    /// mmWave radio links (gNB node - UE node).
    #[serde(default)]
    pub radios: Vec<crate::radio::RadioLinkConfig>,
    #[serde(default)]
    pub record: RecordConfig,
    #[serde(default)]
    pub pcap: Option<PcapConfig>,
    #[serde(default)]
    pub engine: EngineConfig,
}

fn d_seed() -> u64 {
    1
}

/// Engine options that change speed, never results (tests compare both settings).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineConfig {
    /// Hand packets through single-feeder routers without an arrival event there.
    #[serde(default = "d_true")]
    pub cut_through: bool,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig { cut_through: true }
    }
}

fn d_true() -> bool {
    true
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// Node indices of the two ends.
    pub a: u16,
    pub b: u16,
    pub rate: Bandwidth,
    pub delay: Dur,
    #[serde(default = "d_mtu")]
    pub mtu: u32,
    /// Options of the a -> b direction.
    #[serde(default)]
    pub ab: DirectionConfig,
    /// Options of the b -> a direction.
    #[serde(default)]
    pub ba: DirectionConfig,
}

fn d_mtu() -> u32 {
    1500
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlowConfig {
    pub src: u16,
    pub dst: u16,
    #[serde(default)]
    pub start: Time,
    #[serde(default)]
    pub stop: Option<Time>,
    #[serde(default = "d_cca")]
    pub cca: String,
    #[serde(default)]
    pub cca_params: BTreeMap<String, f64>,
    #[serde(default)]
    pub tcp: TcpConfig,
    #[serde(default)]
    pub app: AppConfig,
    /// Cross-layer feed: the sender sees the UE's downlink SINR of this radio link, `delay` old
    /// (NexGen D-TCP's input). None: no SINR (as on a real kernel).
    #[serde(default)]
    pub sinr_feed: Option<SinrFeed>,
    /// Receiver feed: every `interval` (from t = 0) the sender is told the throughput the
    /// receiving application got over the last interval, as FB-TCP's authors' scripts do
    /// (`CalculateThroughput` on the packet sink every 100 ms -> `Tcpfbtcp::setThreshold`).
    /// None: no feed (as on a real kernel).
    #[serde(default)]
    pub receiver_feed: Option<Dur>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SinrFeed {
    pub radio: usize,
    #[serde(default)]
    pub delay: Dur,
}

fn d_cca() -> String {
    "newreno".into()
}

/// Capture one direction of one link to a pcap file (Wireshark / tshark readable).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapConfig {
    pub link: usize,
    /// "ab" or "ba".
    #[serde(default = "d_dir")]
    pub direction: String,
    pub path: String,
}

fn d_dir() -> String {
    "ab".into()
}

impl SimConfig {
    /// The (from, to) nodes of every output port in the simulation's order: link i's two
    /// directions at 2i (a -> b) and 2i + 1 (b -> a), then each radio's downlink and uplink.
    pub fn port_ends(&self) -> Vec<(NodeId, NodeId)> {
        let mut ends: Vec<(NodeId, NodeId)> = self.links.iter().flat_map(|l| [(l.a, l.b), (l.b, l.a)]).collect();
        ends.extend(self.radios.iter().flat_map(|r| [(r.gnb, r.ue), (r.ue, r.gnb)]));
        ends
    }

    pub fn from_json(s: &str) -> Result<SimConfig, String> {
        serde_json::from_str(s).map_err(|e| format!("invalid run configuration: {e}"))
    }
}
