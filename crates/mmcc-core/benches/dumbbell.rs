//! Benchmark: one NewReno flow over the 1 Gb/s, 20 ms RTT, 2.5 MB drop-tail dumbbell for 60 s
//! of simulated time. Prints wall seconds per simulated second and packets per wall second.
//!
//!     cargo bench -p mmcc-core --bench dumbbell [-- --cca NAME --seconds S --repeat N]
//!
//! Wall time is measured here on purpose (this is a benchmark, not part of the engine).
#![allow(clippy::disallowed_methods)]

#[path = "../tests/common/mod.rs"]
mod common;

use mmcc_core::sim::Simulation;
use mmcc_core::{Bandwidth, Dur};
use std::time::Instant;

fn main() {
    let get = common::bench_arg;
    let cca = get("--cca", "newreno");
    let secs: u64 = get("--seconds", "60").parse().expect("--seconds N");
    let repeat: usize = get("--repeat", "3").parse().expect("--repeat N");
    let mut best = f64::MAX;
    let mut packets = 0;
    let mut events = 0;
    for _ in 0..repeat {
        let mut cfg = common::dumbbell(Bandwidth::gbps(1), Dur::from_millis(20), 2_500_000, Dur::from_secs(secs));
        cfg.flows[0].cca = cca.clone();
        let t0 = Instant::now();
        let mut sim = Simulation::new(cfg).expect("config");
        sim.run();
        let wall = t0.elapsed().as_secs_f64();
        let a = sim.accounting(0);
        packets = a[0].emitted + a[1].emitted;
        events = sim.events_processed();
        best = best.min(wall);
    }
    println!("benchmark: dumbbell 1 Gb/s, 20 ms RTT, 2.5 MB buffer, cca {cca}, {secs} s simulated");
    println!("  wall time (best of {repeat}): {best:.3} s");
    println!("  wall s per simulated s:     {:.4}", best / secs as f64);
    println!("  simulated s per wall s:     {:.1}", secs as f64 / best);
    println!("  packets (data + ACK):       {packets}  -> {:.2} M packets per wall s", packets as f64 / best / 1e6);
    println!("  events:                     {events}  -> {:.2} M events per wall s", events as f64 / best / 1e6);
}
