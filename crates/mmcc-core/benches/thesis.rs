//! Benchmark: the 60 s thesis-edge run (urban 28 GHz path, 2.5 MiB RLC buffer, no PER) with
//! one NewReno flow; prints wall seconds and events per second.
//!
//!     cargo bench -p mmcc-core --bench thesis [-- --cca NAME --repeat N]
#![allow(clippy::disallowed_methods)]

#[path = "../tests/common/mod.rs"]
mod common;

use mmcc_core::sim::Simulation;
use std::time::Instant;

fn main() {
    let get = common::bench_arg;
    let cca = get("--cca", "newreno");
    let repeat: usize = get("--repeat", "3").parse().expect("--repeat N");
    let mut best = f64::MAX;
    let mut events = 0;
    for _ in 0..repeat {
        let cfg = common::thesis::thesis(false, 2_621_440, 0.0, 60, &cca);
        let t0 = Instant::now();
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run();
        best = best.min(t0.elapsed().as_secs_f64());
        events = sim.events_processed();
    }
    println!("benchmark: thesis-edge, 60 s simulated, cca {cca}");
    println!("  wall time (best of {repeat}): {best:.3} s   ({:.1} simulated s per wall s)", 60.0 / best);
    println!("  events: {events} -> {:.2} M events per wall s", events as f64 / best / 1e6);
}
