//! The rules of a run configuration: every range and relation a scenario must satisfy, in one
//! place. The Python layer (`mmcc.scenario`) only reads the file's syntax (units, node names,
//! tables) into a [`SimConfig`] and asks [`SimConfig::validate_with`]; Rust callers (tests,
//! benchmarks) get the same checks when they build a [`crate::sim::Simulation`].
//!
//! Each message starts with the key as the scenario file names it (`links[1].forward.queue`,
//! `flows[0].tcp.segment_size`, `radios[0].carrier`) and says what is allowed, so the Python
//! layer only prefixes the file name.

use super::config::{FlowConfig, LinkConfig, SimConfig, MAX_BINS, MAX_FLOWS};
use crate::net::packet::HEADER_BYTES;
use crate::net::{DirectionConfig, NodeId, QueueConfig, Routes};
use crate::radio::{ObstacleKind, PathLossModel, RadioConfig};
use crate::tcp::app::AppConfig;
use crate::tcp::TcpSettings;
use crate::text::{show, within, within_dur};
use crate::time::Dur;

type Check = Result<(), String>;

/// Coordinates in metres: finite and within 10,000 km of the origin on each axis.
fn point(key: &str, p: &[f64; 3]) -> Check {
    if p.iter().all(|x| x.abs() <= 1e7) {
        Ok(())
    } else {
        Err(format!(
            "{key}: {p:?} is out of range; allowed: finite coordinates of at most 1e7 m"
        ))
    }
}

impl SimConfig {
    /// Every rule of a run configuration.
    pub fn validate(&self) -> Result<(), String> {
        self.validate_with(&|_| false).map(|_| ())
    }

    /// As [`SimConfig::validate`], not checking the algorithm names of flows for which
    /// `custom(i)` is true (their algorithm object is supplied by the caller).
    /// Returns the flows' routes, which the checks find anyway (the simulation uses them).
    pub fn validate_with(&self, custom: &dyn Fn(usize) -> bool) -> Result<Routes, String> {
        if self.duration.0 == 0 {
            return Err("duration: must be positive".into());
        }
        self.check_nodes()?;
        self.check_links_and_radios()?;
        self.check_flows(custom)?;
        let routes = self.routes()?;
        self.check_pcap()?;
        Ok(routes)
    }

    /// Whether `a` and `b` are two different nodes of the scenario.
    fn two_nodes(&self, a: u16, b: u16) -> bool {
        let n = self.nodes.len();
        (a as usize) < n && (b as usize) < n && a != b
    }

    fn check_nodes(&self) -> Check {
        let n = self.nodes.len();
        if n < 2 {
            return Err("nodes: a scenario needs at least two nodes".into());
        }
        if n > u16::MAX as usize {
            return Err(format!("nodes: {n} nodes; allowed: at most {}", u16::MAX));
        }
        let mut names: Vec<&str> = self.nodes.iter().map(String::as_str).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "nodes: node names must be unique ({:?} appears twice)",
                w[0]
            ));
        }
        Ok(())
    }

    fn check_links_and_radios(&self) -> Check {
        if self.links.is_empty() && self.radios.is_empty() {
            return Err("links: a scenario needs at least one link".into());
        }
        for (i, l) in self.links.iter().enumerate() {
            if !self.two_nodes(l.a, l.b) {
                return Err(format!(
                    "links[{i}].between: must name two different nodes"
                ));
            }
            link(&format!("links[{i}]"), l)?;
        }
        // the series have duration / bin rows per flow: keep them bounded
        if self.record.bin < Dur::from_micros(1)
            || self.duration.0 / self.record.bin.0.max(1) > MAX_BINS
        {
            return Err(format!(
                "record.bin: {} gives more than {MAX_BINS} bins over the run; allowed: at least 1us and at most {MAX_BINS} bins (duration / bin)",
                show(self.record.bin)
            ));
        }
        for (i, r) in self.radios.iter().enumerate() {
            if !self.two_nodes(r.gnb, r.ue) {
                return Err(format!(
                    "radios[{i}].ue: gnb and ue must be two different nodes"
                ));
            }
            radio(&format!("radios[{i}]"), &r.radio)?;
        }
        Ok(())
    }

    /// Every flow's settings, and its algorithm built once (unless the run supplies it).
    fn check_flows(&self, custom: &dyn Fn(usize) -> bool) -> Check {
        if self.flows.is_empty() {
            return Err("flows: a scenario needs at least one flow".into());
        }
        if self.flows.len() > MAX_FLOWS {
            return Err(format!("flows: {} flows; allowed: at most {MAX_FLOWS}", self.flows.len()));
        }
        // a segment must fit every link it may cross; radio-only paths have no MTU
        let smallest_mtu = self.links.iter().map(|l| l.mtu).min().unwrap_or(65_535);
        for (i, f) in self.flows.iter().enumerate() {
            let key = format!("flows[{i}]");
            if !self.two_nodes(f.src, f.dst) {
                return Err(format!("{key}.to: a flow needs two different nodes"));
            }
            self.flow(&key, f, smallest_mtu)?;
            if !custom(i) {
                crate::cca::build(&f.cca, &f.cca_params, f.tcp.profile).map_err(|e| {
                    let k = if e.contains("parameter") { "cca_params" } else { "cca" };
                    format!("{key}.{k}: {e}")
                })?;
            }
        }
        Ok(())
    }

    /// The flows' paths over the links and radios (net/routing.rs).
    fn routes(&self) -> Result<Routes, String> {
        let pairs: Vec<(NodeId, NodeId)> = self.flows.iter().map(|f| (f.src, f.dst)).collect();
        Routes::build(self.nodes.len(), &self.port_ends(), &pairs).map_err(|(from, to)| {
            let i = pairs.iter().position(|&p| p == (from, to) || p == (to, from)).unwrap_or(0);
            format!(
                "flows[{i}]: no path from node '{}' to node '{}' over the links and radios",
                self.nodes[from as usize], self.nodes[to as usize]
            )
        })
    }

    fn check_pcap(&self) -> Check {
        if let Some(p) = &self.pcap {
            if p.link >= self.links.len() {
                return Err(format!(
                    "pcap.link: link {} does not exist ({} links)",
                    p.link,
                    self.links.len()
                ));
            }
            if !(p.direction == "ab" || p.direction == "ba") {
                return Err(format!(
                    "pcap.direction: {:?}; allowed: forward, reverse",
                    p.direction
                ));
            }
        }
        Ok(())
    }

    fn flow(&self, key: &str, f: &FlowConfig, smallest_mtu: u32) -> Check {
        if let Some(stop) = f.stop {
            if stop <= f.start {
                return Err(format!("{key}.stop: must be after start"));
            }
        }
        if let AppConfig::Rate {
            rate, write_size, ..
        } = f.app
        {
            if rate.0 == 0 {
                return Err(format!("{key}.app.rate: {ZERO_RATE}"));
            }
            within(&format!("{key}.app.write_size"), write_size, 1, 10_000_000, "B")?;
        }
        if let AppConfig::Bulk { write_size: Some(w), .. } = f.app {
            within(&format!("{key}.app.write_size"), w, 1, 1 << 30, "B")?;
        }
        Self::flow_tcp(&format!("{key}.tcp"), &f.tcp.resolve(), smallest_mtu)?;
        if let Some(feed) = &f.sinr_feed {
            if feed.radio >= self.radios.len() {
                return Err(format!(
                    "{key}.sinr_feed.radio: radio {} does not exist ({} radios)",
                    feed.radio,
                    self.radios.len()
                ));
            }
        }
        if let Some(d) = f.receiver_feed {
            within_dur(
                &format!("{key}.receiver_feed"),
                d,
                Dur::from_millis(1),
                Dur::from_secs(60),
            )?;
        }
        Ok(())
    }

    /// A flow's TCP settings (`tk`: their key): sizes, counts, buffers of at least a segment,
    /// timers that cannot re-fire at the same instant.
    fn flow_tcp(tk: &str, t: &TcpSettings, smallest_mtu: u32) -> Check {
        // each knob's own range (declared with the knob, `tcp::knobs`), then the relations
        t.check_ranges(tk)?;
        // IPv4 + TCP headers and the padded options of a data segment, as `Packet::wire_bytes`
        let hdr = HEADER_BYTES + t.option_bytes().div_ceil(4) * 4;
        if t.mss + hdr > smallest_mtu {
            return Err(format!(
                "{tk}.segment_size: {}B plus {hdr}B of IP/TCP headers and options exceeds the smallest link MTU ({smallest_mtu}B)",
                t.mss
            ));
        }
        for (name, b) in [
            ("send_buffer", t.snd_buf),
            ("recv_buffer", t.rcv_buf),
            ("recv_buffer_initial", t.rcv_buf_initial),
        ] {
            if b < t.mss as u64 {
                return Err(format!(
                    "{tk}.{name}: {b}B is out of range; allowed: at least one segment ({}B)",
                    t.mss
                ));
            }
        }
        if t.max_rto < t.min_rto {
            return Err(format!(
                "{tk}.max_rto: {} is below min_rto ({}); allowed: at least min_rto",
                show(t.max_rto),
                show(t.min_rto)
            ));
        }
        Ok(())
    }
}

/// Rates are whole bits per second: what a rate of 0 (or one that rounds to 0) is told.
const ZERO_RATE: &str = "must be positive; allowed: at least 1bps (rates are whole bits per second)";

fn link(key: &str, l: &LinkConfig) -> Check {
    if l.rate.0 == 0 {
        return Err(format!("{key}.rate: {ZERO_RATE}"));
    }
    within(&format!("{key}.mtu"), l.mtu, 100, 65_535, "B")?;
    // one key in the scenario, kept per direction in the core
    within(&format!("{key}.framing"), l.ab.framing.max(l.ba.framing), 0, 1000, "B")?;
    for (dir, d) in [("forward", &l.ab), ("reverse", &l.ba)] {
        direction(&format!("{key}.{dir}"), d)?;
    }
    Ok(())
}

impl DirectionConfig {
    /// The rules of one link direction (queue, error model, reordering, outages, rate steps);
    /// messages start with `key`. For users of a direction outside a [`SimConfig`] (the
    /// testbed's link emulator).
    pub fn validate(&self, key: &str) -> Result<(), String> {
        direction(key, self)
    }
}

fn direction(key: &str, d: &DirectionConfig) -> Check {
    queue(&format!("{key}.queue"), &d.queue)?;
    if let Some(e) = &d.error {
        within(&format!("{key}.error.rate"), e.rate, 0.0, 1.0, "")?;
    }
    if let Some(r) = &d.reorder {
        within(&format!("{key}.reorder.probability"), r.probability, 0.0, 1.0, "")?;
    }
    for (j, o) in d.outages.iter().enumerate() {
        if o.end <= o.start {
            return Err(format!("{key}.outages[{j}].end: must be after start"));
        }
    }
    for (j, w) in d.rate_steps.iter().enumerate() {
        if w.1 .0 == 0 {
            return Err(format!("{key}.rate_schedule[{j}].rate: {ZERO_RATE}"));
        }
        if j > 0 && d.rate_steps[j - 1].0 >= w.0 {
            return Err(format!("{key}.rate_schedule[{j}].t: times must increase"));
        }
    }
    Ok(())
}

fn queue(key: &str, q: &QueueConfig) -> Check {
    let (QueueConfig::DropTail { limit_packets, .. } | QueueConfig::CoDel { limit_packets, .. }) = *q;
    if let Some(p) = limit_packets {
        within(&format!("{key}.limit_packets"), p, 1, 1_000_000_000, "")?;
    }
    if let QueueConfig::DropTail { limit_bytes, room_bytes: Some(room), .. } = *q {
        // without a byte limit the room would change nothing; above it, refuse every packet
        let Some(limit) = limit_bytes else {
            return Err(format!("{key}.admit_room: needs a byte limit (`limit`) on the queue"));
        };
        if room == 0 || room > limit {
            return Err(format!(
                "{key}.admit_room: {room} B is out of range; allowed: 1 B up to the queue's byte limit ({limit} B)"
            ));
        }
    }
    if let QueueConfig::CoDel {
        target, interval, ..
    } = *q
    {
        let (lo, hi) = (Dur::from_micros(1), Dur::from_secs(60));
        within_dur(&format!("{key}.target"), target, lo, hi)?;
        within_dur(&format!("{key}.interval"), interval, lo, hi)?;
    }
    Ok(())
}

fn radio(key: &str, r: &RadioConfig) -> Check {
    let k = |name: &str| format!("{key}.{name}");
    within(&k("carrier"), r.carrier_ghz, 0.1, 1000.0, " GHz")?;
    within(&k("bandwidth"), r.bandwidth_hz, 1e3, 1e11, " Hz")?;
    point(&k("gnb_position"), &r.gnb_position)?;
    point(&k("ue_position"), &r.ue_position)?;
    for (j, m) in r.mobility.iter().enumerate() {
        point(&k(&format!("mobility[{j}].v")), &m.v)?;
    }
    for (j, o) in r.obstacles.iter().enumerate() {
        point(&k(&format!("obstacles[{j}].min")), &o.min)?;
        point(&k(&format!("obstacles[{j}].max")), &o.max)?;
        if (0..3).any(|a| o.min[a] > o.max[a]) {
            return Err(format!(
                "{key}.obstacles[{j}]: min must not exceed max on any axis"
            ));
        }
    }
    within(&k("gnb_tx_power_dbm"), r.gnb_tx_power_dbm, -50.0, 80.0, "")?;
    within(&k("ue_tx_power_dbm"), r.ue_tx_power_dbm, -50.0, 80.0, "")?;
    within(&k("gnb_antennas"), r.gnb_antennas, 1, 4096, "")?;
    within(&k("ue_antennas"), r.ue_antennas, 1, 4096, "")?;
    if let Some(g) = r.bf_gain_db {
        within(&k("bf_gain_db"), g, -20.0, 80.0, "")?;
    }
    within(&k("gnb_noise_figure_db"), r.gnb_noise_figure_db, 0.0, 30.0, "")?;
    within(&k("ue_noise_figure_db"), r.ue_noise_figure_db, 0.0, 30.0, "")?;
    within(&k("blockage_db"), r.blockage_db, 0.0, 100.0, "")?;
    within(&k("interference_db"), r.interference_db, 0.0, 100.0, "")?;
    // a 10 us / 1 us floor keeps the per-update and per-slot work of a run bounded
    within_dur(&k("update"), r.update, Dur::from_micros(10), Dur::from_millis(1))?;
    within_dur(&k("slot"), r.slot, Dur::from_micros(1), Dur::from_millis(1))?;
    within_dur(&k("cqi_delay"), r.cqi_delay, Dur(0), Dur::from_secs(1))?;
    within(&k("eta"), r.eta, 0.0, 1.0, "")?;
    within(&k("se_cap"), r.se_cap, 0.01, 20.0, " bit/s/Hz")?;
    within(&k("outage_sinr_db"), r.outage_sinr_db, -50.0, 50.0, "")?;
    within(&k("harq_rtt_slots"), r.harq_rtt_slots, 1, 1000, "")?;
    within(&k("harq_max_tx"), r.harq_max_tx, 1, 32, "")?;
    within_dur(&k("rlc_status"), r.rlc_status, Dur(0), Dur::from_secs(10))?;
    within(&k("rlc_max_retx"), r.rlc_max_retx, 0, 1000, "")?;
    queue(&k("rlc_buffer"), &r.rlc_buffer)?;
    within(&k("pdcp_header"), r.pdcp_header, 0, 64, " B")?;
    within(&k("ul_scheduling_slots"), r.ul_scheduling_slots, 0, 1000, "")?;
    within(&k("data_symbols"), r.data_symbols, 1, 1000, "")?;
    if let Some(e) = r.cqi_expiry {
        within_dur(&k("cqi_expiry"), e, Dur::from_micros(1), Dur::from_secs(10))?;
    }
    within_dur(&k("cqi_report_delay"), r.cqi_report_delay, Dur(0), Dur::from_secs(1))?;
    within_dur(&k("rlc_report_timer"), r.rlc_report_timer, Dur::from_micros(1), Dur::from_secs(10))?;
    within_dur(&k("rlc_status_prohibit"), r.rlc_status_prohibit, Dur(0), Dur::from_secs(10))?;
    if let Some(t) = r.rlc_poll_retransmit {
        within_dur(&k("rlc_poll_retransmit"), t, Dur::from_micros(1), Dur::from_secs(10))?;
    }
    // fading: a phasor per chunk and path is computed every update (ns3-mmwave: 72 chunks, 100 ms)
    within(&k("fading_chunks"), r.fading_chunks, 1, 4096, "")?;
    // each realisation builds every path's array response and a beam per side (beams.rs)
    within(&k("gnb_antennas"), r.gnb_antennas, 1, 4096, "")?;
    within(&k("ue_antennas"), r.ue_antennas, 1, 4096, "")?;
    within_dur(&k("fading_period"), r.fading_period, Dur::from_millis(1), Dur::from_secs(3600))?;
    for (j, s) in r.sinr_schedule.iter().enumerate() {
        within(&k(&format!("sinr_schedule[{j}].sinr_db")), s.sinr_db, -100.0, 100.0, "")?;
    }
    if r.pathloss == PathLossModel::BuildingsObstacle {
        if !crate::radio::los_tracker::carrier_supported(r.carrier_ghz) {
            return Err(format!(
                "{key}.pathloss: \"buildings-obstacle\" is defined at 28 and 73 GHz only (ns3-mmwave's model), not {} GHz",
                r.carrier_ghz
            ));
        }
        if r.obstacles.iter().any(|o| o.kind == ObstacleKind::Foliage) {
            return Err(format!("{key}.pathloss: \"buildings-obstacle\" treats every obstacle as a building (ns3-mmwave has no foliage); use kind = \"building\""));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> SimConfig {
        SimConfig::from_json(
            r#"{"duration": 1000000000, "nodes": ["server", "client"],
                "links": [{"a": 0, "b": 1, "rate": 100000000, "delay": 1000000}],
                "flows": [{"src": 0, "dst": 1}]}"#,
        )
        .expect("base")
    }

    fn err(f: impl FnOnce(&mut SimConfig)) -> String {
        let mut c = base();
        f(&mut c);
        c.validate().expect_err("must be refused")
    }

    #[test]
    fn base_is_valid() {
        base().validate().expect("valid");
    }

    #[test]
    fn messages_name_the_scenario_key_and_what_is_allowed() {
        assert_eq!(
            err(|c| c.flows[0].tcp.initial_rto = Some(Dur(0))),
            "flows[0].tcp.initial_rto: 0s is out of range; allowed: 1ms..3600s"
        );
        assert_eq!(
            err(|c| c.links[0].mtu = 99),
            "links[0].mtu: 99B is out of range; allowed: 100B..65535B"
        );
        assert_eq!(
            err(|c| c.flows[0].tcp.mss = Some(1500)),
            "flows[0].tcp.segment_size: 1500B plus 52B of IP/TCP headers and options exceeds the smallest link MTU (1500B)"
        );
        assert_eq!(
            err(|c| c.nodes[1] = "server".into()),
            "nodes: node names must be unique (\"server\" appears twice)"
        );
        assert!(err(|c| c.flows[0].cca = "renoo".into()).starts_with("flows[0].cca: "));
    }

    #[test]
    fn non_finite_numbers_are_out_of_every_range() {
        let e = err(|c| {
            c.links[0].ab.error = Some(crate::net::ErrorModelConfig {
                unit: crate::net::ErrorUnit::Packet,
                rate: f64::NAN,
            })
        });
        assert!(e.starts_with("links[0].forward.error.rate: NaN is out of range"), "{e}");
        let mut r = crate::radio::RadioLinkConfig {
            gnb: 0,
            ue: 1,
            radio: RadioConfig::default(),
        };
        r.radio.ue_position[0] = f64::INFINITY;
        let e = err(|c| c.radios.push(r));
        assert!(e.starts_with("radios[0].ue_position: "), "{e}");
    }

    /// Fading's sizes are bounded (a billion chunks or antennas would allocate before running).
    #[test]
    fn fading_chunks_period_and_arrays_are_bounded() {
        let radio = |f: &dyn Fn(&mut RadioConfig)| {
            let mut r = crate::radio::RadioLinkConfig { gnb: 0, ue: 1, radio: RadioConfig::default() };
            f(&mut r.radio);
            err(|c| c.radios.push(r))
        };
        assert_eq!(
            radio(&|r| r.fading_chunks = 1_000_000_000),
            "radios[0].fading_chunks: 1000000000 is out of range; allowed: 1..4096"
        );
        assert_eq!(radio(&|r| r.fading_chunks = 0), "radios[0].fading_chunks: 0 is out of range; allowed: 1..4096");
        assert!(radio(&|r| r.fading_period = Dur(0)).starts_with("radios[0].fading_period: 0s is out of range"));
        assert_eq!(
            radio(&|r| r.gnb_antennas = 4_000_000_000),
            "radios[0].gnb_antennas: 4000000000 is out of range; allowed: 1..4096"
        );
        assert_eq!(radio(&|r| r.ue_antennas = 0), "radios[0].ue_antennas: 0 is out of range; allowed: 1..4096");
    }

    #[test]
    fn every_flow_needs_a_path_both_ways() {
        let e = err(|c| {
            c.nodes.push("island".into());
            c.flows[0].dst = 2;
        });
        assert_eq!(
            e,
            "flows[0]: no path from node 'server' to node 'island' over the links and radios"
        );
    }

    #[test]
    fn rate_steps_must_increase_and_be_positive() {
        use crate::time::{Bandwidth, Time};
        let e = err(|c| c.links[0].ba.rate_steps = vec![(Time(5), Bandwidth(1)), (Time(5), Bandwidth(2))]);
        assert_eq!(e, "links[0].reverse.rate_schedule[1].t: times must increase");
        let e = err(|c| c.links[0].ab.rate_steps = vec![(Time(5), Bandwidth(0))]);
        assert_eq!(e, format!("links[0].forward.rate_schedule[0].rate: {ZERO_RATE}"));
    }

    #[test]
    fn timers_and_bins_are_bounded() {
        assert!(err(|c| c.record.bin = Dur(1)).starts_with("record.bin: 1ns gives more than"));
        assert!(err(|c| c.flows[0].tcp.max_rto = Some(Dur::from_millis(100)))
            .starts_with("flows[0].tcp.max_rto: 100ms is below min_rto (200ms)"));
    }
}
