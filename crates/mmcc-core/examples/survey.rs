#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use mmcc_core::net::ErrorUnit;
use mmcc_core::{run, Bandwidth, Dur};

fn main() {
    let names: Vec<&str> = mmcc_core::cca::algorithms().iter().map(|a| a.name).collect();
    println!("{:10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}", "cca", "clean", "1e-4", "1e-3", "1e-2", "rtt_ms", "retx");
    for n in names {
        let mut row = vec![];
        let mut rtt = 0.0;
        let mut retx = 0.0;
        for p in [0.0, 1e-4, 1e-3, 1e-2] {
            let mut cfg = with_loss(dumbbell(Bandwidth::gbps(1), Dur::from_millis(80), 50_000_000, Dur::from_secs(30)), ErrorUnit::Packet, p);
            cfg.flows[0].cca = n.to_string();
            let out = run(cfg).unwrap();
            row.push(flow_stat(&out, "throughput_mbps"));
            if p == 0.0 { rtt = flow_stat(&out, "rtt_mean_ms"); retx = flow_stat(&out, "retransmits"); }
        }
        println!("{:10} {:9.1} {:9.1} {:9.1} {:9.1} {:9.1} {:8}", n, row[0], row[1], row[2], row[3], rtt, retx);
    }
}
