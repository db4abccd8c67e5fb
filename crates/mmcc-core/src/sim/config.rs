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

    /// The hops a packet from node `src` to node `dst` takes, by the simulator's own routing
    /// ([`crate::net::routing::Routes`]: shortest in hops, ties to the lower port): a wired hop as
    /// (link index, "ab" | "ba"), a radio hop as (radio index, "down" | "up") with
    /// [`Hop::Radio`]. None when there is no path.
    pub fn route(&self, src: NodeId, dst: NodeId) -> Option<Vec<Hop>> {
        let n = self.nodes.len();
        if src as usize >= n || dst as usize >= n {
            return None;
        }
        let routes = crate::net::routing::Routes::build(n, &self.port_ends(), &[(src, dst)]).ok()?;
        let wired = 2 * self.links.len() as u32;
        let hop = |p: u32| match p {
            p if p < wired => Hop::Link(p as usize / 2, if p.is_multiple_of(2) { "ab" } else { "ba" }),
            p => Hop::Radio((p - wired) as usize / 2, if (p - wired).is_multiple_of(2) { "down" } else { "up" }),
        };
        Some(routes.path(0, false).iter().map(|&(_, p)| hop(p)).collect())
    }

    pub fn from_json(s: &str) -> Result<SimConfig, String> {
        let mut cfg: SimConfig = serde_json::from_str(s).map_err(|e| format!("invalid run configuration: {e}"))?;
        for l in &mut cfg.links {
            l.ab.queue.fill_default_limit();
            l.ba.queue.fill_default_limit();
        }
        for r in &mut cfg.radios {
            r.radio.rlc_buffer.fill_default_limit();
        }
        Ok(cfg)
    }
}

/// One hop of a route ([`SimConfig::route`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Hop {
    /// A wired link's direction.
    Link(usize, &'static str),
    /// A radio link's direction (downlink from the gNB, uplink to it).
    Radio(usize, &'static str),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a - r1 - b and a - r2 - b: the simulator's tie (the lower port, via r1) and the way back.
    #[test]
    fn routes_are_the_simulators_own() {
        let link = |a: u16, b: u16| format!(r#"{{"a": {a}, "b": {b}, "rate": 1000000, "delay": 1000000}}"#);
        let cfg = SimConfig::from_json(&format!(
            r#"{{"duration": 1000000000, "nodes": ["a", "r1", "r2", "b"], "links": [{}, {}, {}, {}],
                "flows": [{{"src": 0, "dst": 3}}]}}"#,
            link(0, 1), link(1, 3), link(0, 2), link(2, 3)
        ))
        .unwrap();
        assert_eq!(cfg.route(0, 3), Some(vec![Hop::Link(0, "ab"), Hop::Link(1, "ab")]));
        assert_eq!(cfg.route(3, 0), Some(vec![Hop::Link(1, "ba"), Hop::Link(0, "ba")]));
        assert_eq!(cfg.route(2, 2), Some(vec![]));
        let apart = SimConfig::from_json(
            r#"{"duration": 1000000000, "nodes": ["a", "b", "c"], "links": [{"a": 0, "b": 1, "rate": 1000000, "delay": 1}],
                "flows": [{"src": 0, "dst": 1}]}"#,
        )
        .unwrap();
        assert_eq!((apart.route(0, 2), apart.route(0, 9)), (None, None));
        assert_eq!(serde_json::to_string(&cfg.route(0, 3)).unwrap(), r#"[{"link":[0,"ab"]},{"link":[1,"ab"]}]"#);
    }
}
