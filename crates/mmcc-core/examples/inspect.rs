#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use mmcc_core::net::ErrorUnit;
use mmcc_core::{run, Bandwidth, Dur};

fn main() {
    let cfg = dumbbell(Bandwidth::gbps(1), Dur::from_millis(20), 2_500_000, Dur::from_secs(10));
    let out = run(cfg).unwrap();
    let t = out.table("flows").unwrap();
    for (n, c) in &t.columns {
        println!("{n}: {c:?}");
    }
    println!("events {}", out.events_processed);
    for &p in &[1e-4, 1e-3, 4e-3] {
        let rtt = Dur::from_millis(40);
        let cfg = with_loss(dumbbell(Bandwidth::gbps(1), rtt, 50_000_000, Dur::from_secs(60)), ErrorUnit::Packet, p);
        let out = run(cfg).unwrap();
        let mathis = 1448.0 * 8.0 / rtt.secs_f64() * (3.0 / (4.0 * p)).sqrt() / 1e6;
        println!("p={p} tput={:.2} mathis={mathis:.2} rtos={} fr={} retx={}", flow_stat(&out, "throughput_mbps"), flow_stat(&out, "rtos"), flow_stat(&out, "fast_retransmits"), flow_stat(&out, "retransmits"));
    }
}
