//! Benchmark of every congestion-control algorithm:
//! 1. per-ACK cost: ns per (on_ack + increase_window + on_rate_sample) call on a fake state;
//! 2. the 60 s, 1 Gb/s dumbbell run with the algorithm, and its ratio to NewReno's.
//!
//!     cargo bench -p mmcc-core --bench algorithms [-- --seconds S --repeat N --cca NAME]
#![allow(clippy::disallowed_methods)]

#[path = "../tests/common/mod.rs"]
mod common;

use mmcc_core::cca::{self, AckEvent, CcState};
use mmcc_core::sim::Simulation;
use mmcc_core::cca::RateSample;
use mmcc_core::{Bandwidth, Dur, Time};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

fn per_ack_ns(name: &str) -> f64 {
    let mut a = cca::build(name, &BTreeMap::new(), cca::Profile::Linux).unwrap();
    let mut cc = CcState::new(1448, 10);
    cc.ssthresh = 500 * 1448;
    cc.cwnd = 1000 * 1448;
    cc.min_rtt = Some(Dur::from_millis(20));
    cc.max_rtt = Some(Dur::from_millis(40));
    a.init(&mut cc);
    let n = 2_000_000u64;
    let t0 = Instant::now();
    for i in 0..n {
        cc.now = Time(i * 10_000);
        cc.snd_una = i * 1448;
        cc.snd_nxt = cc.snd_una + cc.cwnd;
        cc.delivered = cc.snd_una;
        let rtt = Dur::from_micros(20_000 + (i % 97) * 50);
        cc.latest_rtt = Some(rtt);
        let ack = AckEvent { segments_acked: 1, bytes_acked: 1448, rtt: Some(rtt) };
        a.on_ack(&mut cc, &ack);
        a.increase_window(&mut cc, &ack);
        let rs = RateSample {
            delivered: 1448 * 1000,
            interval: Dur::from_millis(20),
            prior_delivered: cc.delivered.saturating_sub(1448 * 1000),
            rtt: Some(rtt),
            acked_sacked: 1448,
            prior_in_flight: cc.cwnd,
            valid: true,
            timed: true,
            ..Default::default()
        };
        a.on_rate_sample(&mut cc, &rs);
        if cc.cwnd > 20_000 * 1448 || cc.cwnd < 100 * 1448 {
            cc.cwnd = 1000 * 1448; // keep the window in a realistic range
        }
        black_box(&cc);
    }
    t0.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn run_once(name: &str, secs: u64) -> f64 {
    let mut cfg = common::dumbbell(Bandwidth::gbps(1), Dur::from_millis(20), 2_500_000, Dur::from_secs(secs));
    cfg.flows[0].cca = name.into();
    let t0 = Instant::now();
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run();
    t0.elapsed().as_secs_f64()
}

/// Best of `repeat` runs of `name`, each paired with a NewReno run right after it (the
/// machine's speed drifts; the ratio is taken against NewReno's best within the pairing).
fn paired(name: &str, secs: u64, repeat: usize) -> (f64, f64) {
    let (mut best, mut base) = (f64::MAX, f64::MAX);
    for _ in 0..repeat {
        best = best.min(run_once(name, secs));
        base = base.min(run_once("newreno", secs));
    }
    (best, base)
}

fn main() {
    let get = common::bench_arg;
    let secs: u64 = get("--seconds", "60").parse().expect("--seconds N");
    let repeat: usize = get("--repeat", "3").parse().expect("--repeat N");
    let only = get("--cca", "");
    println!("benchmark: every algorithm; per-ACK cost on a fake state, and the {secs} s 1 Gb/s dumbbell run");
    println!("(best of {repeat} runs, each followed by a NewReno run; ratio to NewReno's best of those)");
    println!("{:10} {:>12} {:>12} {:>12} {:>10}", "cca", "ns per ACK", "run wall s", "newreno s", "vs newreno");
    for a in cca::algorithms() {
        if !only.is_empty() && a.name != only {
            continue;
        }
        let ns = per_ack_ns(a.name);
        let (w, base) = paired(a.name, secs, repeat);
        println!("{:10} {:12.1} {:12.3} {:12.3} {:10.2}", a.name, ns, w, base, w / base);
    }
}
