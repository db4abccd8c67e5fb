//! The mmWave radio link model (docs/radio.md): geometry and mobility, the channel
//! (path loss, shadowing, SINR) and a per-slot link abstraction (link adaptation from a delayed
//! SINR estimate, BLER, HARQ with chase combining, RLC AM retransmission and discard, a finite
//! RLC buffer, in-order delivery with head-of-line blocking, outage), or a replayed capacity
//! trace (Mahimahi `mm-link` format).

pub mod channel;
pub mod geometry;
pub mod link;
pub mod los_tracker;

pub use channel::PathLossModel;
pub use geometry::{Obstacle, ObstacleKind, VelocityChange};
pub use link::{LinkAdaptation, RadioLink, RadioSample};

use crate::net::QueueConfig;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

/// A radio link between a gNB node and a UE node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RadioLinkConfig {
    pub gnb: u16,
    pub ue: u16,
    #[serde(default)]
    pub radio: RadioConfig,
}

/// Every parameter of the radio model, with the defaults of docs/radio.md.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RadioConfig {
    pub carrier_ghz: f64,
    pub bandwidth_hz: f64,
    pub gnb_position: [f64; 3],
    pub ue_position: [f64; 3],
    pub mobility: Vec<VelocityChange>,
    pub obstacles: Vec<Obstacle>,
    pub pathloss: PathLossModel,
    pub shadowing: bool,
    pub gnb_tx_power_dbm: f64,
    pub ue_tx_power_dbm: f64,
    pub gnb_antennas: u32,
    pub ue_antennas: u32,
    /// Effective beamforming gain in dB instead of the ideal array gain
    /// 10 log10(gnb_antennas) + 10 log10(ue_antennas).
    pub bf_gain_db: Option<f64>,
    pub gnb_noise_figure_db: f64,
    pub ue_noise_figure_db: f64,
    pub blockage_db: f64,
    pub interference_db: f64,
    /// Channel condition update period (<= 1 ms).
    pub update: Dur,
    pub slot: Dur,
    /// Share of resources left after control, reference signals and guard band.
    pub eta: f64,
    /// Age of the SINR estimate used by link adaptation (CQI delay).
    pub cqi_delay: Dur,
    /// How the SINR estimate becomes a spectral efficiency and a block error rate.
    pub link_adaptation: LinkAdaptation,
    /// Spectral efficiency cap, b/s/Hz (256-QAM, rate 948/1024).
    pub se_cap: f64,
    /// Below this SINR nothing is delivered (outage); SE is 0.
    pub outage_sinr_db: f64,
    pub harq_rtt_slots: u32,
    pub harq_max_tx: u32,
    /// RLC AM status cycle: poll-retransmit + status-prohibit.
    pub rlc_status: Dur,
    pub rlc_max_retx: u32,
    /// gNB RLC transmit buffer (downlink); the UE's uses the same discipline.
    pub rlc_buffer: QueueConfig,
    pub ul_scheduling_slots: u32,
    /// SINR schedule instead of geometry: (time, SINR dB) steps, LoS when SINR >= 0 dB... (see
    /// `sinr_schedule_los_db`).
    pub sinr_schedule: Vec<SinrStep>,
    /// Trace-driven mode: downlink delivery opportunities per millisecond (each 1500 bytes),
    /// repeating (Mahimahi `mm-link`); empty: geometric model.
    pub trace_dl: Vec<u32>,
    /// Uplink opportunities per millisecond in trace mode; empty: 1 Gb/s.
    pub trace_ul: Vec<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SinrStep {
    pub t: Time,
    pub sinr_db: f64,
}

impl Default for RadioConfig {
    fn default() -> Self {
        RadioConfig {
            carrier_ghz: 28.0,
            bandwidth_hz: 1e9,
            gnb_position: [0.0, 0.0, 15.0],
            ue_position: [50.0, 0.0, 1.5],
            mobility: Vec::new(),
            obstacles: Vec::new(),
            pathloss: PathLossModel::UmiStreetCanyon,
            shadowing: true,
            gnb_tx_power_dbm: 30.0,
            ue_tx_power_dbm: 23.0,
            gnb_antennas: 64,
            ue_antennas: 16,
            bf_gain_db: None,
            gnb_noise_figure_db: 5.0,
            ue_noise_figure_db: 7.0,
            blockage_db: 30.0,
            interference_db: 0.0,
            update: Dur::from_millis(1),
            slot: Dur::from_micros(125),
            eta: 0.75,
            cqi_delay: Dur::from_millis(1),
            link_adaptation: LinkAdaptation::Shannon,
            se_cap: 7.4063,
            outage_sinr_db: -10.0,
            harq_rtt_slots: 8,
            harq_max_tx: 4,
            rlc_status: Dur::from_millis(5),
            rlc_max_retx: 8,
            rlc_buffer: QueueConfig::DropTail {
                limit_bytes: Some(2_621_440),
                limit_packets: None,
            },
            ul_scheduling_slots: 4,
            sinr_schedule: Vec::new(),
            trace_dl: Vec::new(),
            trace_ul: Vec::new(),
        }
    }
}

impl RadioConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.carrier_ghz > 0.0 && self.bandwidth_hz > 0.0) {
            return Err("radio: carrier and bandwidth must be positive".into());
        }
        // a 1 us floor keeps the per-update and per-slot work of a run bounded
        if self.slot < Dur::from_micros(1) || self.slot > Dur::from_millis(1) {
            return Err("radio: slot must be in 1us..1ms".into());
        }
        if self.update < Dur::from_micros(10) || self.update > Dur::from_millis(1) {
            return Err("radio: update must be in 10us..1ms".into());
        }
        if !(0.0..=1.0).contains(&self.eta) || self.se_cap <= 0.0 {
            return Err("radio: eta must be in [0, 1] and se_cap positive".into());
        }
        if self.harq_max_tx == 0 || self.harq_rtt_slots == 0 {
            return Err("radio: harq_max_tx and harq_rtt_slots must be at least 1".into());
        }
        for o in &self.obstacles {
            if (0..3).any(|k| o.min[k] > o.max[k]) {
                return Err("radio: an obstacle has min > max".into());
            }
        }
        if self.pathloss == PathLossModel::BuildingsObstacle {
            if !los_tracker::carrier_supported(self.carrier_ghz) {
                return Err(format!(
                    "radio: pathloss \"buildings-obstacle\" is defined at 28 and 73 GHz only (ns3-mmwave's model), not {} GHz",
                    self.carrier_ghz
                ));
            }
            if self
                .obstacles
                .iter()
                .any(|o| o.kind == ObstacleKind::Foliage)
            {
                return Err("radio: pathloss \"buildings-obstacle\" treats every obstacle as a building (ns3-mmwave has no foliage); use kind = \"building\"".into());
            }
        }
        Ok(())
    }
}
