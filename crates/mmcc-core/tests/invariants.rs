//! Property tests: under random loss and reordering, over many seeds and TCP settings, the
//! receiver gets the exact byte stream once and in order, every packet is accounted for
//! (delivered, dropped with a cause, or in flight), and runs are deterministic.

mod common;
use common::*;
use mmcc_core::net::{ErrorModelConfig, ErrorUnit, Outage, QueueConfig, ReorderConfig};
use mmcc_core::rng::Rng;
use mmcc_core::sim::{SimConfig, Simulation};
use mmcc_core::tcp::app::AppConfig;
use mmcc_core::tcp::Profile;
use mmcc_core::{run, Bandwidth, Dur, Time};

/// A random scenario drawn from `seed`: a finite transfer over a lossy, reordering dumbbell.
fn random_case(seed: u64) -> (SimConfig, u64) {
    let mut r = Rng::stream(seed, "case");
    let rate = Bandwidth::mbps([10, 50, 100, 400][r.below(4) as usize]);
    let rtt = Dur::from_millis(4 + r.below(80));
    let buffer = 20_000 + r.below(400_000);
    let mut cfg = dumbbell(rate, rtt, buffer, Dur::from_secs(3600));
    cfg.seed = seed;
    let bytes = 200_000 + r.below(3_000_000);
    let f = &mut cfg.flows[0];
    f.app = AppConfig::Bulk { bytes: Some(bytes), write_size: None };
    f.tcp.sack = Some(r.below(4) != 0);
    f.tcp.delack_count = Some(1 + r.below(3) as u32);
    f.tcp.mss = Some([536, 1000, 1448][r.below(3) as usize]);
    f.tcp.min_rto = Some(Dur::from_millis([200, 1000][r.below(2) as usize]));
    f.tcp.initial_cwnd = Some(1 + r.below(20) as u32);
    f.tcp.snd_buf = Some(64_000 + r.below(4_000_000));
    f.tcp.rcv_buf = Some(64_000 + r.below(4_000_000));
    let loss = [0.0, 0.001, 0.01, 0.05][r.below(4) as usize];
    cfg.links[1].ab.error = Some(ErrorModelConfig { unit: ErrorUnit::Packet, rate: loss });
    if r.below(2) == 0 {
        cfg.links[1].ba.error = Some(ErrorModelConfig { unit: ErrorUnit::Packet, rate: loss / 2.0 });
    }
    if r.below(2) == 0 {
        cfg.links[1].ab.reorder = Some(ReorderConfig { probability: 0.02, delay: Dur::from_micros(1 + r.below(3000)) });
    }
    if r.below(4) == 0 {
        cfg.links[1].ab.queue = QueueConfig::CoDel {
            limit_bytes: Some(buffer),
            limit_packets: None,
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
        };
    }
    if r.below(5) == 0 {
        let s = Time::from_millis(100 + r.below(2000));
        cfg.links[1].ab.outages.push(Outage { start: s, end: s + Dur::from_millis(50 + r.below(2000)) });
    }
    // drawn last, so the cases above are the ones they always were: the ns3 profile (its SYN /
    // SYN-ACK handshake, which a link neither counts nor randomly drops, and its first ACK at
    // once) and ns-3's 2-byte link framing
    if r.below(3) == 0 {
        cfg.flows[0].tcp.profile = Profile::Ns3;
    }
    if r.below(2) == 0 {
        cfg.links[1].ab.framing = 2;
        cfg.links[1].ba.framing = 2;
    }
    (cfg, bytes)
}

#[test]
fn random_loss_and_reordering_deliver_the_exact_stream_once() {
    for seed in 0..120u64 {
        let (cfg, bytes) = random_case(seed);
        let mut sim = Simulation::new(cfg.clone()).unwrap();
        // check invariants part-way too, not only at the end
        for k in 1..=4u64 {
            sim.run_until(Time::from_millis(k * 250));
            sim.check_invariants().unwrap_or_else(|e| panic!("seed {seed} at {k}x250ms: {e}"));
        }
        // run until the transfer completes (lossy, small-window cases take minutes of
        // simulated time), with an hour as the cap
        let mut t = Time::from_secs(1);
        while !sim.sender(0).done() && t < Time::from_secs(3600) {
            t += Dur::from_secs(10);
            sim.run_until(t);
        }
        sim.check_invariants().unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let delivered = sim.receiver(0).delivered;
        assert_eq!(delivered, bytes, "seed {seed}: transfer incomplete ({delivered}/{bytes}) cfg {:?}", cfg.flows[0].tcp);
        assert!(sim.sender(0).done(), "seed {seed}: sender not done");
    }
}

#[test]
fn same_configuration_and_seed_give_identical_results() {
    for seed in [3u64, 17, 99] {
        let (cfg, _) = random_case(seed);
        let a = run(cfg.clone()).unwrap();
        let b = run(cfg).unwrap();
        assert_eq!(a.events_processed, b.events_processed);
        for (ta, tb) in a.tables.iter().zip(&b.tables) {
            assert_eq!(format!("{:?}", ta.columns), format!("{:?}", tb.columns), "table {}", ta.name);
        }
    }
}

#[test]
fn different_seeds_draw_different_losses() {
    let mk = |seed| {
        let mut c = with_loss(dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 500_000, Dur::from_secs(5)), ErrorUnit::Packet, 0.01);
        c.seed = seed;
        c
    };
    let a = run(mk(1)).unwrap();
    let b = run(mk(2)).unwrap();
    assert_ne!(flow_stat(&a, "retransmits"), flow_stat(&b, "retransmits"));
}

#[test]
fn every_drop_has_a_cause_and_tables_are_rectangular() {
    let (cfg, _) = random_case(7);
    let out = run(cfg).unwrap();
    for t in &out.tables {
        assert!(t.is_rectangular(), "table {} has ragged columns", t.name);
    }
    let drops = out.table("drops").unwrap();
    let f = out.table("flows").unwrap();
    let total: i64 = drops.i64_col("packets").unwrap().iter().sum();
    let by_cause: f64 = ["drops_queue_full", "drops_aqm", "drops_error_model", "drops_link_down", "drops_mtu", "ack_drops"]
        .iter()
        .map(|c| f.f64_col(c).unwrap()[0])
        .sum();
    assert_eq!(total as f64, by_cause);
}

#[test]
fn per_byte_error_model_drops_at_the_expected_rate() {
    // 1e-5 per byte on 1488-byte packets: 1 - (1 - 1e-5)^1488 = 1.477 % of data packets.
    let cfg = with_loss(dumbbell(Bandwidth::mbps(100), Dur::from_millis(10), 1_000_000, Dur::from_secs(20)), ErrorUnit::Byte, 1e-5);
    let mut sim = Simulation::new(cfg).unwrap();
    sim.run();
    let drops: u64 = sim.drops().iter().filter(|(k, _)| k.1 == 0 && k.2 == 0 && k.3 == mmcc_core::net::DropCause::ErrorModel).map(|(_, v)| v.0).sum();
    let arrived = sim.accounting(0)[0].arrived;
    let n = (drops + arrived) as f64;
    let p = drops as f64 / n;
    let expect = 1.0 - (1.0f64 - 1e-5).powi(1488);
    // binomial: within 4 standard deviations
    let sd = (expect * (1.0 - expect) / n).sqrt();
    assert!((p - expect).abs() < 4.0 * sd, "measured {p} over {n} packets, expected {expect} +- {sd}");
}

#[test]
fn cut_through_changes_speed_not_results() {
    for seed in 0..40u64 {
        let (mut cfg, _) = random_case(seed);
        cfg.duration = Dur::from_secs(20);
        cfg.record.trace = true;
        let fast = run(cfg.clone()).unwrap();
        cfg.engine.cut_through = false;
        let slow = run(cfg).unwrap();
        for (a, b) in fast.tables.iter().zip(&slow.tables) {
            assert_eq!(format!("{:?}", a.columns), format!("{:?}", b.columns), "seed {seed}, table {}", a.name);
        }
    }
    // and on the benchmark dumbbell it removes one event per hop
    let cfg = dumbbell(Bandwidth::gbps(1), Dur::from_millis(20), 2_500_000, Dur::from_secs(2));
    let fast = run(cfg.clone()).unwrap();
    let mut c2 = cfg;
    c2.engine.cut_through = false;
    let slow = run(c2).unwrap();
    assert!(fast.events_processed * 10 < slow.events_processed * 6, "{} vs {}", fast.events_processed, slow.events_processed);
}

#[test]
fn running_in_chunks_changes_nothing() {
    // `run` goes through run_interruptible (chunks of events with an interrupt check between
    // them); one uninterrupted run_until and chunks of 7 events give the same tables
    for seed in [5u64, 23] {
        let (cfg, _) = random_case(seed);
        let reference = run(cfg.clone()).unwrap();
        let mut sim = Simulation::new(cfg.clone()).unwrap();
        let end = Time(cfg.duration.0);
        while !sim.run_some(end, 7) {}
        let chunked = mmcc_core::RunOutput::collect(&mut sim, None);
        let mut whole = Simulation::new(cfg).unwrap();
        whole.run();
        let once = mmcc_core::RunOutput::collect(&mut whole, None);
        for ((a, b), c) in reference.tables.iter().zip(&chunked.tables).zip(&once.tables) {
            assert_eq!(format!("{:?}", a.columns), format!("{:?}", b.columns), "seed {seed}, table {}", a.name);
            assert_eq!(format!("{:?}", a.columns), format!("{:?}", c.columns), "seed {seed}, table {}", a.name);
        }
    }
}

#[test]
fn an_interrupted_run_stops_where_it_was_asked() {
    let cfg = dumbbell(Bandwidth::gbps(1), Dur::from_millis(20), 2_500_000, Dur::from_secs(30));
    let mut calls = 0;
    let (out, at) = mmcc_core::sim::run_interruptible(cfg, Default::default(), || {
        calls += 1;
        calls == 2
    })
    .unwrap();
    let at = at.expect("interrupted");
    assert!(at > Time::ZERO && at < Time(Dur::from_secs(30).0), "{at:?}");
    assert_eq!(out.events_processed, 2 * mmcc_core::sim::INTERRUPT_CHECK_EVENTS);
}

#[test]
fn the_aggregate_series_is_the_per_flow_series_added_up() {
    // five flows starting 300 ms apart, one stopping early, over a lossy dumbbell: recording
    // the series for all flows together changes nothing else, and each of its bins is the sum
    // of the per-flow bins (windows carried over silent bins as the per-flow series carries them)
    use mmcc_core::record::SeriesMode;
    let mut cfg = with_loss(dumbbell(Bandwidth::mbps(50), Dur::from_millis(30), 150_000, Dur::from_secs(4)), ErrorUnit::Packet, 0.002);
    for i in 1..5 {
        let mut f = cfg.flows[0].clone();
        f.start = Time(i * 300_000_000);
        cfg.flows.push(f);
    }
    cfg.flows[2].stop = Some(Time(2_500_000_000));
    cfg.flows[2].tcp.snd_buf = Some(64_000); // little left to send at its stop
    // flow 4 writes 1,400 bytes every 280 ms: silent bins between its writes
    cfg.flows[4].app = AppConfig::Rate { rate: Bandwidth(40_000), write_size: 1400, bytes: None, writes: None };
    let mut per = cfg.clone();
    per.record.series = SeriesMode::PerFlow;
    cfg.record.series = SeriesMode::Aggregate;
    let (a, p) = (run(cfg).unwrap(), run(per).unwrap());
    for t in ["flows", "events", "rtt_hist", "drops", "links"] {
        assert_eq!(format!("{:?}", a.table(t).unwrap().columns), format!("{:?}", p.table(t).unwrap().columns), "{t}");
    }
    assert_eq!(a.table("cwnd").unwrap().rows(), 0);
    assert_eq!(p.table("spread").unwrap().rows(), 0);
    let (sa, sp) = (a.table("series").unwrap(), p.table("series").unwrap());
    assert_eq!(sa.rows(), 40);
    assert!(sa.i64_col("flow_id").unwrap().iter().all(|&f| f == -1));
    let flow = sp.i64_col("flow_id").unwrap();
    for col in ["delivered_bytes", "sent_bytes", "retx_bytes", "acks", "dupacks", "rtt_samples"] {
        let (x, y) = (sa.i64_col(col).unwrap(), sp.i64_col(col).unwrap());
        for (b, &v) in x.iter().enumerate() {
            let sum: i64 = (0..5).map(|f| y[f * 40 + b]).sum();
            assert_eq!(v, sum, "{col}, bin {b}");
        }
    }
    // flow 2 stops writing at 2.5 s (bin 25) and its flight drains after: the aggregate counts
    // it up to its last active bin, the per-flow series carries its window on to the end
    let active = |f: usize, b: usize| ["sent_bytes", "acks", "delivered_bytes"].iter().any(|c| sp.i64_col(c).unwrap()[f * 40 + b] > 0);
    let last2 = (0..40).rfind(|&b| active(2, b)).unwrap();
    assert!((13..40).any(|b| !active(4, b)), "flow 4 has silent bins");
    assert!((25..30).contains(&last2), "flow 2 drains after its stop: last active bin {last2}");
    let (x, y) = (sa.f64_col("cwnd_bytes").unwrap(), sp.f64_col("cwnd_bytes").unwrap());
    for (b, &v) in x.iter().enumerate().skip(1) {
        let sum: f64 = (0..5).filter(|&f| f != 2 || b <= last2).map(|f| y[f * 40 + b]).filter(|c| !c.is_nan()).sum();
        assert_eq!(v, sum, "cwnd, bin {b}");
    }
    let spread = a.table("spread").unwrap();
    let n = spread.i64_col("flows").unwrap();
    assert_eq!((n[0], n[5], n[20], n[39]), (1, 2, 5, 4), "flows counted per bin");
    let p50 = spread.f64_col("throughput_p50_mbps").unwrap();
    let jain = spread.f64_col("jain_index").unwrap();
    assert!(p50[20] > 0.0 && jain[20] > 0.2 && jain[20] <= 1.0, "{} {}", p50[20], jain[20]);
    assert_eq!(flow.len(), 200);
}
