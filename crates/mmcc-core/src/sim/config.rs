//! The normalized run configuration: every quantity in base units (ns, bytes, bit/s). The
//! Python layer parses TOML scenarios with units into this structure (as JSON); Rust benchmarks
//! and tests build it directly.

use crate::net::DirectionConfig;
use crate::record::RecordConfig;
use crate::tcp::app::AppConfig;
use crate::tcp::TcpConfig;
use crate::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    pub fn from_json(s: &str) -> Result<SimConfig, String> {
        serde_json::from_str(s).map_err(|e| format!("invalid run configuration: {e}"))
    }

    /// Structural checks the type system cannot express.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_with(&|_| false)
    }

    /// As [`SimConfig::validate`], not checking the algorithm names of flows for which
    /// `custom(i)` is true (their algorithm object is supplied by the caller).
    pub fn validate_with(&self, custom: &dyn Fn(usize) -> bool) -> Result<(), String> {
        let n = self.nodes.len();
        if n < 2 {
            return Err("a scenario needs at least two nodes".into());
        }
        if n > u16::MAX as usize {
            return Err("too many nodes".into());
        }
        for (i, l) in self.links.iter().enumerate() {
            if l.a as usize >= n || l.b as usize >= n || l.a == l.b {
                return Err(format!(
                    "links[{i}]: ends must be two different existing nodes"
                ));
            }
            if l.rate.0 == 0 {
                return Err(format!("links[{i}].rate must be positive"));
            }
            if l.mtu < 100 {
                return Err(format!("links[{i}].mtu must be at least 100 bytes"));
            }
            for (dir, d) in [("forward", &l.ab), ("reverse", &l.ba)] {
                d.validate_rate_steps()
                    .map_err(|e| format!("links[{i}].{dir}.{e}"))?;
            }
        }
        // the series have duration / bin rows per flow: keep them bounded
        if self.record.bin < Dur::from_micros(1)
            || self.duration.0 / self.record.bin.0.max(1) > MAX_BINS
        {
            return Err(format!(
                "record.bin: {} ns gives more than {MAX_BINS} bins over the run; allowed: at least 1us and at most {MAX_BINS} bins (duration / bin)",
                self.record.bin.0
            ));
        }
        for (i, r) in self.radios.iter().enumerate() {
            if r.gnb as usize >= n || r.ue as usize >= n || r.gnb == r.ue {
                return Err(format!(
                    "radios[{i}]: gnb and ue must be two different existing nodes"
                ));
            }
            r.radio
                .validate()
                .map_err(|e| format!("radios[{i}]: {e}"))?;
        }
        if self.flows.is_empty() {
            return Err("a scenario needs at least one flow".into());
        }
        for (i, f) in self.flows.iter().enumerate() {
            if f.src as usize >= n || f.dst as usize >= n || f.src == f.dst {
                return Err(format!(
                    "flows[{i}]: src and dst must be two different existing nodes"
                ));
            }
            if f.tcp.mss == 0 || f.tcp.mss > 65_000 {
                return Err(format!("flows[{i}].tcp.mss must be in 1..=65000"));
            }
            if f.tcp.initial_cwnd == 0 {
                return Err(format!("flows[{i}].tcp.initial_cwnd must be at least 1"));
            }
            let tcp = f.tcp.resolve();
            if tcp.snd_buf < tcp.mss as u64 || tcp.rcv_buf < tcp.mss as u64 {
                return Err(format!(
                    "flows[{i}].tcp: snd_buf and rcv_buf must hold at least one segment"
                ));
            }
            // A zero timer would re-fire at the same instant forever.
            for (name, d) in [
                ("initial_rto", tcp.initial_rto),
                ("min_rto", tcp.min_rto),
                ("max_rto", tcp.max_rto),
            ] {
                if d < Dur::from_millis(1) || d > Dur::from_secs(3600) {
                    return Err(format!(
                        "flows[{i}].tcp.{name} = {d} is out of range; allowed: 1ms..1h"
                    ));
                }
            }
            if tcp.max_rto < tcp.min_rto {
                return Err(format!("flows[{i}].tcp: max_rto is below min_rto"));
            }
            if let Some(feed) = &f.sinr_feed {
                if feed.radio >= self.radios.len() {
                    return Err(format!(
                        "flows[{i}].sinr_feed: radio {} does not exist",
                        feed.radio
                    ));
                }
            }
            if let Some(d) = f.receiver_feed {
                if d < Dur::from_millis(1) || d > Dur::from_secs(60) {
                    return Err(format!(
                        "flows[{i}].receiver_feed = {d} is out of range; allowed: 1ms..60s"
                    ));
                }
            }
            if let Some(stop) = f.stop {
                if stop < f.start {
                    return Err(format!("flows[{i}]: stop is before start"));
                }
            }
            if !custom(i) {
                crate::cca::build(&f.cca, &f.cca_params).map_err(|e| format!("flows[{i}]: {e}"))?;
            }
        }
        if let Some(p) = &self.pcap {
            if p.link >= self.links.len() || !(p.direction == "ab" || p.direction == "ba") {
                return Err(
                    "pcap: link must be an existing link index and direction 'ab' or 'ba'".into(),
                );
            }
        }
        Ok(())
    }
}
