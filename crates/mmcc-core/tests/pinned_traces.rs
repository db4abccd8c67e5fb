//! The pinned reference traces, run by the Rust suite (python/mmcc/experiments/pinned.py writes
//! them and documents the format):
//! - `tests/data/ns3-cwnd/`: ns-3 3.37's own CongestionWindow traces; the `ns3` profile must
//!   reproduce each change at the same nanosecond;
//! - `tests/data/linux-cwnd/`: the `linux` profile's golden cwnd / ssthresh trajectories.
//!
//! Each trace's case is stored as the core's run configuration (`NAME.config.json.gz`, checked
//! against the scenario by the Python suite), so a change of the stack's rules that moves any of
//! these trajectories fails `cargo test` as well as `make test`.

use flate2::read::GzDecoder;
use mmcc_core::sim::{SimConfig, Simulation};
use std::io::Read;
use std::path::{Path, PathBuf};

fn data(folder: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/data").join(folder)
}

fn gunzip(path: &Path) -> String {
    let mut s = String::new();
    GzDecoder::new(std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .read_to_string(&mut s)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    s
}

/// (t_ns, values) rows of a trace file; `dt_ns` rows made absolute.
fn read_trace(path: &Path) -> Vec<(i64, Vec<i64>)> {
    let text = gunzip(path);
    let mut lines = text.lines();
    let head = lines.next().expect("a header line");
    let delta = head.contains("dt_ns");
    let mut t = 0;
    lines
        .map(|l| {
            let v: Vec<i64> = l.split_whitespace().map(|x| x.parse().expect("an integer")).collect();
            t = if delta { t + v[0] } else { v[0] };
            (t, v[1..].to_vec())
        })
        .collect()
}

/// The distinct changes of a trace: the last value at each instant (within 1 ns: ns-3 schedules
/// some settings 1 ns after their cause), repeats dropped; the rule of pinned.py's `cwnd_changes`.
fn changes(rows: Vec<(i64, Vec<i64>)>) -> Vec<(i64, Vec<i64>)> {
    let mut out: Vec<(i64, Vec<i64>)> = Vec::new();
    for (t, v) in rows {
        match out.last_mut() {
            Some(last) if t - last.0 <= 1 => last.1 = v,
            Some(last) if last.1 == v => {}
            _ => out.push((t, v)),
        }
    }
    let mut dedup: Vec<(i64, Vec<i64>)> = Vec::with_capacity(out.len());
    for p in out {
        if dedup.last().is_none_or(|l| l.1 != p.1) {
            dedup.push(p);
        }
    }
    dedup
}

/// Flow 0's recorded (t_ns, [cwnd] or [cwnd, ssthresh]) rows of a stored configuration.
fn run(config: &Path, with_ssthresh: bool) -> Vec<(i64, Vec<i64>)> {
    let cfg = SimConfig::from_json(&gunzip(config)).unwrap_or_else(|e| panic!("{}: {e}", config.display()));
    let mut sim = Simulation::new(cfg).unwrap_or_else(|e| panic!("{}: {e}", config.display()));
    sim.run();
    let r = sim.recorder(0);
    (0..r.cwnd_t.len())
        .map(|i| {
            let v = if with_ssthresh { vec![r.cwnd_v[i], r.ssthresh_v[i]] } else { vec![r.cwnd_v[i]] };
            (r.cwnd_t[i], v)
        })
        .collect()
}

fn names(folder: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".txt.gz").map(String::from))
        .collect();
    v.sort();
    v
}

fn check(folder: &str, with_ssthresh: bool, min_cases: usize) {
    let dir = data(folder);
    let cases: Vec<(String, PathBuf, PathBuf)> = names(&dir)
        .into_iter()
        .map(|n| {
            let (t, c) = (dir.join(format!("{n}.txt.gz")), dir.join(format!("{n}.config.json.gz")));
            (n, t, c)
        })
        .collect();
    assert!(cases.len() >= min_cases, "{}: {} traces", dir.display(), cases.len());
    compare(&cases, with_ssthresh);
}

/// Each (name, trace, configuration): the run's changes must be the trace's.
fn compare(cases: &[(String, PathBuf, PathBuf)], with_ssthresh: bool) {
    let mut failed = Vec::new();
    for (name, trace, config) in cases {
        let reference = changes(read_trace(trace));
        let ours = changes(run(config, with_ssthresh));
        let n = reference.len().min(ours.len());
        let first = (0..n).find(|&i| reference[i] != ours[i]);
        // the reference is cut at its span: the last change may fall on either side of the cut
        if first.is_some() || reference.len().abs_diff(ours.len()) > 1 {
            failed.push(format!(
                "{name}: {} reference changes, {} mmcc; first difference at change {first:?}: reference {:?}, mmcc {:?}",
                reference.len(),
                ours.len(),
                first.map(|i| &reference[i]),
                first.map(|i| &ours[i])
            ));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// The `ns3` profile against ns-3 3.37's own cwnd traces (17 cases; docs/tcp-profiles.md says
/// what each pins).
#[test]
fn ns3_profile_reproduces_ns3s_cwnd_traces() {
    check("ns3-cwnd", false, 17);
}

/// ns-3's own trace of the stall after a timeout (20 timeouts in 5 s, docs/tcp-profiles.md),
/// stored with its case in validation/ns3-cases.
#[test]
fn ns3_profile_reproduces_the_stall_after_a_timeout() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/ns3-cases/stall-after-timeout.ns3");
    compare(&[("stall-after-timeout".into(), dir.join("cwnd.txt.gz"), dir.join("config.json.gz"))], false);
}

/// Every stored ns-3 run (validation/ns3-runs, 78 runs of the matrix) checked by its goodput, to
/// the byte, and its timeouts, from the configurations `python -m mmcc.experiments.pinned
/// --write-configs` keeps in tests/data/ns3-runs; among them BBR on the 1000/50 Mb/s square wave,
/// where ns-3 3.37 times out with nothing in flight while data waits (`ReTxTimeout` returns only
/// when the transmit buffer is empty).
#[test]
fn ns3_profile_reproduces_stored_ns3_runs() {
    let cfgs = data("ns3-runs");
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../validation/ns3-runs");
    let mut names: Vec<String> = std::fs::read_dir(&cfgs)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".config.json.gz").map(String::from))
        .collect();
    names.sort();
    assert!(!names.is_empty(), "{}: no configurations", cfgs.display());
    for name in names {
        let reference: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(runs.join(format!("{name}-ns3.json"))).unwrap()).unwrap();
        let cfg = SimConfig::from_json(&gunzip(&cfgs.join(format!("{name}.config.json.gz")))).unwrap();
        let (secs, flows) = (cfg.duration.secs_f64(), cfg.flows.len());
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run();
        // over all flows, as the stored run sums them
        let delivered: u64 = (0..flows).map(|i| sim.receiver(i).delivered).sum();
        let goodput = delivered as f64 * 8.0 / secs / 1e6;
        let want = reference["goodput_mbps"].as_f64().unwrap();
        assert!((goodput - want).abs() < 1e-7, "{name}: {goodput} Mb/s, ns-3 {want} (to the byte)");
        let rtos: u64 = (0..flows).map(|i| sim.recorder(i).counters.rtos as u64).sum();
        assert_eq!(rtos, reference["rtos"].as_u64().unwrap(), "{name}: timeouts");
    }
}

/// The `linux` profile against its golden trajectories (cwnd and ssthresh).
#[test]
fn linux_profile_keeps_its_golden_trajectories() {
    check("linux-cwnd", true, 10);
}
