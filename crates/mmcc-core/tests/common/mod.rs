#![allow(dead_code)]
pub mod thesis;
use mmcc_core::net::{DirectionConfig, ErrorModelConfig, ErrorUnit, QueueConfig};
use mmcc_core::sim::{FlowConfig, LinkConfig, SimConfig};
use mmcc_core::tcp::app::AppConfig;
use mmcc_core::tcp::TcpConfig;
use mmcc_core::{Bandwidth, Dur, Time};

/// server -(access)- router -(bottleneck)- client, the bottleneck's one-way delay chosen so the
/// base RTT is `rtt`.
pub fn dumbbell(rate: Bandwidth, rtt: Dur, buffer_bytes: u64, duration: Dur) -> SimConfig {
    let access = Dur::from_micros(100);
    let bottleneck_delay = Dur(rtt.0 / 2 - access.0);
    let tcp = TcpConfig {
        snd_buf: Some(64 << 20),
        rcv_buf: Some(64 << 20),
        ..Default::default()
    };
    SimConfig {
        name: "dumbbell".into(),
        seed: 1,
        duration,
        nodes: vec!["server".into(), "router".into(), "client".into()],
        links: vec![
            LinkConfig {
                a: 0,
                b: 1,
                rate: Bandwidth(rate.0 * 10),
                delay: access,
                mtu: 1500,
                ab: DirectionConfig::default(),
                ba: DirectionConfig::default(),
            },
            LinkConfig {
                a: 1,
                b: 2,
                rate,
                delay: bottleneck_delay,
                mtu: 1500,
                ab: DirectionConfig {
                    queue: QueueConfig::DropTail {
                        limit_bytes: Some(buffer_bytes),
                        limit_packets: None,
                        room_bytes: None,
                    },
                    ..Default::default()
                },
                ba: DirectionConfig::default(),
            },
        ],
        flows: vec![FlowConfig {
            src: 0,
            dst: 2,
            start: Time::ZERO,
            stop: None,
            cca: "newreno".into(),
            cca_params: Default::default(),
            tcp,
            app: AppConfig::Bulk { bytes: None, write_size: None },
            sinr_feed: None,
            receiver_feed: None,
        }],
        radios: vec![],
        record: Default::default(),
        pcap: None,
        engine: Default::default(),
    }
}

pub fn with_loss(mut cfg: SimConfig, unit: ErrorUnit, rate: f64) -> SimConfig {
    cfg.links[1].ab.error = Some(ErrorModelConfig { unit, rate });
    cfg
}

pub fn f64col(out: &mmcc_core::RunOutput, table: &str, col: &str) -> Vec<f64> {
    out.table(table).unwrap().f64_col(col).unwrap().to_vec()
}

pub fn flow_stat(out: &mmcc_core::RunOutput, col: &str) -> f64 {
    f64col(out, "flows", col)[0]
}

/// Benchmarks: the value following `flag` on the command line (`--cca dtcp`), else `default`.
pub fn bench_arg(flag: &str, default: &str) -> String {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_string())
}
