//! Stepping a simulation from outside (`sim/control.rs`, used by `mmcc.gym`): reading flow
//! snapshots between steps changes nothing, and a held window is exactly what was set.

mod common;
use common::*;
use mmcc_core::cca::held::Held;
use mmcc_core::cca::CongestionControl;
use mmcc_core::sim::Simulation;
use mmcc_core::{run, Bandwidth, Dur, Time};
use std::collections::BTreeMap;

/// A table's columns as text (NaN, "no value", compares equal to itself there).
fn columns(out: &mmcc_core::RunOutput, table: &str) -> String {
    format!("{:?}", out.table(table).expect("table").columns)
}

#[test]
fn stepping_and_reading_snapshots_leaves_the_run_unchanged() {
    let cfg = thesis::thesis(false, 2_621_440, 1e-7, 2, "cubic");
    let whole = run(cfg.clone()).unwrap();
    let mut sim = Simulation::new(cfg).unwrap();
    let mut t = Time::ZERO;
    let mut last = sim.flow_snapshot(0);
    while t.0 < 2_000_000_000 {
        t = Time(t.0 + 10_000_000);
        sim.run_until(t);
        let s = sim.flow_snapshot(0);
        assert_eq!(s.now_ns, t.0);
        assert!(s.delivered >= last.delivered && s.bytes_sent >= last.bytes_sent && s.rtt_samples >= last.rtt_samples);
        assert!(s.sinr_db.is_some() && s.los.is_some(), "the UE's radio link is found");
        last = s;
    }
    let stepped = mmcc_core::sim::RunOutput::collect(&mut sim, None);
    for table in ["flows", "series"] {
        assert_eq!(columns(&whole, table), columns(&stepped, table), "table {table}");
    }
    assert_eq!(last.delivered as f64, {
        let flows = whole.table("flows").unwrap();
        let (_, c) = flows.columns.iter().find(|(n, _)| n == "delivered_bytes").unwrap();
        match c {
            mmcc_core::record::Column::I64(v) => v[0] as f64,
            mmcc_core::record::Column::F64(v) => v[0],
            _ => unreachable!(),
        }
    });
}

#[test]
fn a_held_window_stays_what_the_controller_set() {
    // 100 Mb/s, 20 ms: a 50-segment window (72 kB) is far below the 250 kB BDP, so no loss
    let cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 1_000_000, Dur::from_secs(2));
    let mut custom: BTreeMap<usize, Box<dyn CongestionControl>> = BTreeMap::new();
    custom.insert(0, Box::new(Held::new("agent")));
    let mut sim = Simulation::with_algorithms(cfg, custom).unwrap();
    sim.run_until(Time(100_000_000));
    let mss = sim.flow_snapshot(0).mss;
    assert_eq!(sim.flow_snapshot(0).cwnd, 10 * mss, "the initial window, never grown");
    sim.set_window(0, 50 * mss);
    sim.set_pacing(0, Some(20_000_000));
    for k in 1..=19 {
        sim.run_until(Time(100_000_000 * (k + 1)));
        let s = sim.flow_snapshot(0);
        assert_eq!((s.cwnd, s.pacing_bps, s.rtos), (50 * mss, Some(20_000_000), 0));
    }
    // paced at 20 Mb/s: about 20 Mb/s delivered over the last second
    let a = sim.flow_snapshot(0);
    sim.set_window(0, 0);
    assert_eq!(sim.flow_snapshot(0).cwnd, mss, "at least one segment");
    assert!(a.delivered > 3_000_000 && a.delivered < 5_000_000, "{}", a.delivered);
}
