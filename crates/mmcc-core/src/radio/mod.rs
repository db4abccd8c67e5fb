//! The mmWave radio link model (docs/radio.md): geometry and mobility, the channel
//! (path loss, shadowing, SINR) and a per-slot link abstraction (link adaptation from a delayed
//! SINR estimate, BLER, HARQ with chase combining, RLC AM retransmission and discard, a finite
//! RLC buffer, in-order delivery with head-of-line blocking, outage), or a replayed capacity
//! trace (Mahimahi `mm-link` format).

pub mod beams;
pub mod channel;
pub mod direction;
pub mod fading;
pub mod geometry;
pub mod link;
pub mod los_tracker;
pub mod mcs;
pub mod mi;
pub mod rlc_poll;
pub mod rlc_report;
pub mod ul_grants;

pub use channel::PathLossModel;
pub use geometry::{Obstacle, ObstacleKind, VelocityChange};
pub use link::{FadingModel, LinkAdaptation, RadioLink, RadioSample};
pub use rlc_report::RlcReporting;
pub use ul_grants::UplinkScheduling;

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
    /// PDCP header bytes on every RLC SDU (each IP packet), counted in the RLC buffer and
    /// carried over the air: 2 with a 12-bit sequence number (3GPP TS 38.323 6.2.2.2; ns-3
    /// `LtePdcp::DoTransmitPdcpSdu` adds its 2-byte `LtePdcpHeader`). Not in trace mode,
    /// whose opportunities count IP packets.
    pub pdcp_header: u32,
    /// `UplinkScheduling::FixedDelay`: slots from a packet reaching the UE's buffer to its first
    /// chance to go; with `Ns3Mmwave` only the UE's STATUS PDUs take this delay.
    pub ul_scheduling_slots: u32,
    /// How the uplink gets its resources: a direction of its own after a fixed delay, or
    /// ns3-mmwave's buffer status reports and grants in symbols shared with the downlink
    /// (`ul_grants.rs`).
    pub uplink: UplinkScheduling,
    /// `UplinkScheduling::Ns3Mmwave`: data symbols per slot, shared by the two directions
    /// (ns3-mmwave: 24 per subframe less one downlink and one uplink control symbol).
    pub data_symbols: u32,
    /// How long the gNB keeps the UE's downlink CQI after its last report (ns3-mmwave:
    /// `MmWaveFlexTtiMacScheduler::CqiTimerThreshold` subframes, `RefreshDlCqiMaps`); the UE
    /// reports only while it receives downlink blocks, so after a longer gap the scheduler has no
    /// CQI and sends at MCS 0 (CQI 1) until a new report is usable. None: the CQI never expires.
    pub cqi_expiry: Option<Dur>,
    /// From a downlink block to the scheduler using the UE's report on it (ns3-mmwave: the UE's
    /// uplink control message, then `L1L2CtrlLatency` subframes of scheduling ahead).
    pub cqi_report_delay: Dur,
    /// How the downlink scheduler knows the RLC buffer: `Ideal` (every byte, always) or
    /// ns3-mmwave's record of the RLC's reports (`rlc_report.rs`).
    pub rlc_reporting: RlcReporting,
    /// `RlcReporting::Ns3Mmwave`: the RLC's `ReportBufferStatusTimer`.
    pub rlc_report_timer: Dur,
    /// `RlcReporting::Ns3Mmwave`: the UE's t-StatusProhibit.
    pub rlc_status_prohibit: Dur,
    /// `RlcReporting::Ns3Mmwave`: the gNB RLC AM's t-PollRetransmit (`rlc_poll.rs`): on expiry
    /// with nothing new to send, the PDUs no STATUS has acknowledged go again. None: not
    /// modelled.
    pub rlc_poll_retransmit: Option<Dur>,
    /// Small-scale fading across the band (`fading.rs`); none: one flat SINR per update.
    pub fading: FadingModel,
    /// Chunks the band is divided into for fading (ns3-mmwave: 72).
    pub fading_chunks: u32,
    /// How often a new fading realisation is drawn (ns3-mmwave: 100 ms).
    pub fading_period: Dur,
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
                room_bytes: None,
            },
            pdcp_header: 2,
            ul_scheduling_slots: 4,
            uplink: UplinkScheduling::FixedDelay,
            data_symbols: 22,
            cqi_expiry: None,
            cqi_report_delay: Dur::ZERO,
            rlc_reporting: RlcReporting::Ideal,
            rlc_report_timer: Dur::from_millis(4),
            rlc_status_prohibit: Dur::from_millis(1),
            rlc_poll_retransmit: None,
            fading: FadingModel::None,
            fading_chunks: 72,
            fading_period: Dur::from_millis(100),
            sinr_schedule: Vec::new(),
            trace_dl: Vec::new(),
            trace_ul: Vec::new(),
        }
    }
}

