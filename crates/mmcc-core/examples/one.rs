#[path = "../tests/common/mod.rs"]
mod common;
use common::*;
use mmcc_core::net::ErrorUnit;
use mmcc_core::{run, Bandwidth, Dur};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (cca, p, secs, rtt_ms, mbps): (String, f64, u64, u64, u64) = (a[1].clone(), a[2].parse().unwrap(), a[3].parse().unwrap(), a[4].parse().unwrap(), a[5].parse().unwrap());
    let mut cfg = with_loss(dumbbell(Bandwidth::mbps(mbps), Dur::from_millis(rtt_ms), 50_000_000, Dur::from_secs(secs)), ErrorUnit::Packet, p);
    cfg.flows[0].cca = cca;
    let out = run(cfg).unwrap();
    for c in ["throughput_mbps", "rtt_mean_ms", "rtt_min_ms", "retransmits", "fast_retransmits", "rtos", "final_cwnd_bytes"] {
        print!("{c}={:.1} ", flow_stat(&out, c));
    }
    println!();
    let s = out.table("series").unwrap();
    let t = s.f64_col("t_s").unwrap(); let tp = s.f64_col("throughput_mbps").unwrap(); let cw = s.f64_col("cwnd_segments").unwrap(); let r = s.f64_col("rtt_mean_ms").unwrap();
    for i in (0..t.len()).step_by((t.len() / 15).max(1)) { println!("t={:.1} tput={:.1} cwnd={:.0} rtt={:.1}", t[i], tp[i], cw[i], r[i]); }
}
