//! The thesis' urban scenario (scenario family T, docs/experiments.md) built in Rust.
#![allow(dead_code)]
use mmcc_core::net::{DirectionConfig, ErrorModelConfig, ErrorUnit, QueueConfig};
use mmcc_core::radio::RadioLinkConfig;
use mmcc_core::radio::{
    FadingModel, LinkAdaptation, Obstacle, ObstacleKind, PathLossModel, RadioConfig, VelocityChange,
};
use mmcc_core::sim::{FlowConfig, LinkConfig, SimConfig};
use mmcc_core::tcp::app::AppConfig;
use mmcc_core::tcp::{Profile, TcpConfig};
use mmcc_core::{Bandwidth, Dur, Time};

pub fn obstacles() -> Vec<Obstacle> {
    let mut v: Vec<Obstacle> = [2.2, 5.6, 10.0, 13.8, 17.6]
        .iter()
        .map(|&y| Obstacle {
            kind: ObstacleKind::Building,
            min: [49.0, y, 0.0],
            max: [49.5, y + 0.5, 10.0],
        })
        .collect();
    v.push(Obstacle {
        kind: ObstacleKind::Building,
        min: [34.0, 17.8, 0.0],
        max: [40.5, 23.8, 30.0],
    });
    v
}

pub fn mobility() -> Vec<VelocityChange> {
    // (time in ms, velocity): still; walk +y; stop behind a tree; walk +y; walk -x; stop behind
    // the building; walk -x; drive away
    [
        (0, [0.0, 0.0, 0.0]),
        (1000, [0.0, 1.5, 0.0]),
        (5300, [0.0, 0.0, 0.0]),
        (9000, [0.0, 1.5, 0.0]),
        (19000, [-1.5, 0.0, 0.0]),
        (26000, [0.0, 0.0, 0.0]),
        (30000, [-1.5, 0.0, 0.0]),
        (35000, [-30.0, 0.0, 0.0]),
    ]
    .into_iter()
    .map(|(ms, v)| VelocityChange { t: Time::from_millis(ms), v })
    .collect()
}

/// edge: 10 ms one-way server link; remote: 40 ms. `rlc` bytes; `per` per byte. (Over 80 lines:
/// one configuration literal, kept whole so it reads against the preset.)
pub fn thesis(remote: bool, rlc: u64, per: f64, secs: u64, cca: &str) -> SimConfig {
    let radio = RadioConfig {
        ue_position: [52.0, -0.2, 1.5],
        mobility: mobility(),
        obstacles: obstacles(),
        rlc_buffer: QueueConfig::DropTail {
            limit_bytes: Some(rlc),
            limit_packets: None,
            room_bytes: None,
        },
        // the thesis' channel, as in the preset: ns3-mmwave's obstacle model and MCS table, its
        // CQI expiry, its small-scale fading and beams, its UE noise figure and transmit power,
        // its uplink grants
        pathloss: PathLossModel::BuildingsObstacle,
        shadowing: false,
        link_adaptation: LinkAdaptation::Ns3MmwaveMcs,
        eta: 0.57024,
        cqi_expiry: Some(Dur::from_millis(10)),
        cqi_report_delay: Dur::from_micros(300),
        rlc_reporting: mmcc_core::radio::RlcReporting::Ns3Mmwave,
        rlc_poll_retransmit: Some(Dur::from_millis(4)),
        fading: FadingModel::Ns3Mmwave,
        ue_noise_figure_db: 5.0,
        ue_tx_power_dbm: 30.0,
        slot: Dur::from_micros(100),
        harq_rtt_slots: 10,
        ul_scheduling_slots: 5,
        uplink: mmcc_core::radio::UplinkScheduling::Ns3Mmwave,
        data_symbols: 22,
        ..Default::default()
    };
    let tcp = TcpConfig {
        mss: Some(1400),
        snd_buf: Some(6_553_600),
        rcv_buf: Some(6_553_600),
        ..TcpConfig::with_profile(Profile::Ns3)
    };
    // wired queues large: the RLC buffer is the bottleneck under study
    let big = || QueueConfig::DropTail {
        limit_bytes: Some(100_000_000),
        limit_packets: None,
        room_bytes: None,
    };
    let server_link = DirectionConfig {
        queue: big(),
        error: (per > 0.0).then_some(ErrorModelConfig {
            unit: ErrorUnit::Byte,
            rate: per,
        }),
        ..Default::default()
    };
    let wired = || DirectionConfig {
        queue: big(),
        ..Default::default()
    };
    SimConfig {
        name: "thesis".into(),
        seed: 1,
        duration: Dur::from_secs(secs),
        nodes: vec!["server".into(), "pgw".into(), "gnb".into(), "ue".into()],
        links: vec![
            LinkConfig {
                a: 0,
                b: 1,
                rate: Bandwidth::gbps(100),
                delay: Dur::from_millis(if remote { 40 } else { 10 }),
                mtu: 1500,
                ab: server_link,
                ba: wired(),
            },
            // S1-U: MmWavePointToPointEpcHelper's defaults, as the preset
            LinkConfig {
                a: 1,
                b: 2,
                rate: Bandwidth::gbps(10),
                delay: Dur::from_millis(1),
                mtu: 1500,
                ab: wired(),
                ba: wired(),
            },
        ],
        flows: vec![FlowConfig {
            src: 0,
            dst: 3,
            start: Time::from_millis(100),
            stop: None,
            cca: cca.into(),
            cca_params: Default::default(),
            tcp,
            app: AppConfig::Rate {
                rate: Bandwidth::gbps(1),
                write_size: 1400,
                bytes: None,
                // as the preset: the scripts' MyApp stops after 5,000,000 writes
                writes: Some(5_000_000),
            },
            sinr_feed: None,
            // as the preset: the receiving application's throughput every 100 ms (FB-TCP's input)
            receiver_feed: Some(Dur::from_millis(100)),
        }],
        radios: vec![RadioLinkConfig {
            gnb: 2,
            ue: 3,
            radio,
        }],
        record: Default::default(),
        pcap: None,
        engine: Default::default(),
    }
}
