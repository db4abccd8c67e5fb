//! The link model of mmcc's kernel testbed (`mmcc testbed`): one direction of a scenario's
//! bottleneck as the simulator's drop-tail channel computes it (crates/mmcc-core/src/net/
//! channel.rs), applied to real packets with a real clock:
//! - drop-tail admission against the packets whose transmission has not started yet
//!   ([`Limits::admits`], the simulator's backlog rule);
//! - serialization at the rate in effect when the transmission starts (a constant rate or the
//!   direction's `rate_steps`, ns-3 `PointToPointNetDevice` semantics), `Bandwidth::tx_time_nearest`;
//! - the error model of the scenario, with its unit (bit, byte, packet) over the IP packet's size
//!   (the simulator's wire size: IP + TCP headers, options and payload), drawn from the same
//!   seeded stream as the simulator's channel (`link/<i>/<ab|ba>/error`) for the packets the
//!   simulator has on that direction: TCP segments with data on the data path, pure ACKs on the
//!   ACK path (connection set-up and tear-down, which the simulator does not model, are never
//!   lost; other protocols are subject to the model). The i-th data packet therefore meets the
//!   i-th draw in both worlds (common random numbers: the first losses coincide, until
//!   retransmissions shift the two sequences apart); a corrupted packet occupies the link and is
//!   dropped at the far end, as in the simulator;
//! - a constant one-way propagation delay.
//!
//! Time is nanoseconds since the emulator's start command, supplied by the caller, so that the
//! model is tested with a fake clock (`tests` below) and the binary only adds the I/O.

pub mod emulator;

use mmcc_core::net::queue::Limits;
use mmcc_core::net::{DirectionConfig, ErrorModel, QueueConfig};
use mmcc_core::rng::Rng;
use mmcc_core::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One direction of the emulated link: the simulator's per-direction options plus the link's
/// rate and delay, and the name of the simulator's random stream for this link direction.
#[derive(Clone, Debug, Deserialize)]
pub struct DirectionSpec {
    pub rate: Bandwidth,
    pub delay: Dur,
    #[serde(default)]
    pub stream: Option<String>,
    #[serde(flatten)]
    pub dir: DirectionConfig,
}

/// Which TCP packets a path carries in the simulator (the rest is exempt from the error model).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Carries {
    /// The data path: TCP segments with payload.
    Data,
    /// The ACK path: pure ACKs (no payload, no SYN or FIN).
    Acks,
}

/// Is `pkt` (an IPv4 packet) one the simulator does not have on a path that carries `carries`?
/// Non-TCP packets are never exempt.
pub fn exempt_from_errors(pkt: &[u8], carries: Carries) -> bool {
    if pkt.len() < 20 || pkt[0] >> 4 != 4 || pkt[9] != 6 {
        return false;
    }
    let ihl = ((pkt[0] & 0x0f) as usize) * 4;
    if pkt.len() < ihl + 14 {
        return false;
    }
    let total = u16::from_be_bytes([pkt[2], pkt[3]]) as usize;
    let doff = ((pkt[ihl + 12] >> 4) as usize) * 4;
    let flags = pkt[ihl + 13];
    let syn_fin = flags & 0x03 != 0;
    let payload = total.min(pkt.len()).saturating_sub(ihl + doff);
    match carries {
        Carries::Data => payload == 0 || syn_fin,
        Carries::Acks => payload > 0 || syn_fin,
    }
}

/// How late the emulator wrote packets to their TUN device: wall-clock time of the write minus
/// the time the emulated path had them due (the emulator's timing error towards the kernel).
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct Lateness {
    pub packets: u64,
    pub mean_ns: u64,
    pub max_ns: u64,
    /// Packets written more than 100 us, 500 us and 1 ms late.
    pub over_100us: u64,
    pub over_500us: u64,
    pub over_1ms: u64,
    #[serde(skip)]
    sum_ns: u128,
}

impl Lateness {
    pub fn record(&mut self, late_ns: u64) {
        self.packets += 1;
        self.sum_ns += late_ns as u128;
        self.max_ns = self.max_ns.max(late_ns);
        self.over_100us += (late_ns > 100_000) as u64;
        self.over_500us += (late_ns > 500_000) as u64;
        self.over_1ms += (late_ns > 1_000_000) as u64;
    }

    /// The report, with the mean over what was recorded.
    pub fn summary(&self) -> Lateness {
        let mean_ns = self.sum_ns.checked_div(self.packets as u128).unwrap_or(0) as u64;
        Lateness { mean_ns, ..self.clone() }
    }
}

/// What the emulator reports per direction when it stops.
#[derive(Clone, Debug, Default, Serialize, PartialEq, Eq)]
pub struct DirectionStats {
    pub arrived_packets: u64,
    pub arrived_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub drops_queue_full: u64,
    pub drops_error_model: u64,
    pub max_backlog_bytes: u64,
}

/// One direction: queue, transmitter, error model and propagation.
pub struct Direction {
    rate: Bandwidth,
    steps: Vec<(Time, Bandwidth)>,
    delay: Dur,
    limits: Limits,
    error: Option<ErrorModel>,
    carries: Carries,
    /// Transmission starts and sizes of packets that have not started yet, in order.
    waiting: VecDeque<(Time, u64)>,
    backlog_bytes: u64,
    busy_until: Time,
    /// Packets in propagation with their delivery time, in order (FIFO: constant delay).
    flight: VecDeque<(Time, Vec<u8>)>,
    pub stats: DirectionStats,
}

impl Direction {
    /// Build a direction; unsupported options (CoDel, reordering, outages, drop lists) are errors
    /// naming the option.
    pub fn new(spec: &DirectionSpec, seed: u64, name: &str, carries: Carries) -> Result<Direction, String> {
        if spec.rate.0 == 0 {
            return Err(format!("{name}.rate: must be positive"));
        }
        spec.dir.validate(name)?;
        if matches!(spec.dir.queue, QueueConfig::CoDel { .. }) {
            return Err(format!("{name}.queue: the testbed emulates drop-tail queues only"));
        }
        if spec.dir.reorder.is_some() || !spec.dir.outages.is_empty() || !spec.dir.drop_list.is_empty() {
            return Err(format!("{name}: reordering, outages and drop lists are not emulated by the testbed"));
        }
        let error = spec
            .dir
            .error
            .as_ref()
            .map(|e| {
                let stream = spec.stream.clone().unwrap_or_else(|| format!("testbed/{name}"));
                ErrorModel::new(e, Rng::stream(seed, &format!("{stream}/error")))
            });
        Ok(Direction {
            rate: spec.rate,
            steps: spec.dir.rate_steps.clone(),
            delay: spec.delay,
            limits: spec.dir.queue.limits(),
            error,
            carries,
            waiting: VecDeque::new(),
            backlog_bytes: 0,
            busy_until: Time::ZERO,
            flight: VecDeque::new(),
            stats: DirectionStats::default(),
        })
    }

    /// The rate in effect at `t`.
    pub fn rate_at(&self, t: Time) -> Bandwidth {
        let i = self.steps.partition_point(|s| s.0 <= t);
        if i == 0 {
            self.rate
        } else {
            self.steps[i - 1].1
        }
    }

    /// A packet arrives at the queue at `now`.
    pub fn arrive(&mut self, now: Time, pkt: Vec<u8>) {
        let size = pkt.len() as u64;
        self.stats.arrived_packets += 1;
        self.stats.arrived_bytes += size;
        while let Some(&(start, sz)) = self.waiting.front() {
            if start > now {
                break;
            }
            self.waiting.pop_front();
            self.backlog_bytes -= sz;
        }
        if !self.limits.admits(self.backlog_bytes, self.waiting.len() as u64, size) {
            self.stats.drops_queue_full += 1;
            return;
        }
        let start = now.max(self.busy_until);
        let end = start + self.rate_at(start).tx_time_nearest(size); // as the simulator's links
        self.busy_until = end;
        if start > now {
            self.waiting.push_back((start, size));
            self.backlog_bytes += size;
            self.stats.max_backlog_bytes = self.stats.max_backlog_bytes.max(self.backlog_bytes);
        }
        let subject = !exempt_from_errors(&pkt, self.carries);
        if subject && self.error.as_mut().is_some_and(|e| e.corrupts(size as u32)) {
            self.stats.drops_error_model += 1; // transmitted, lost on the way
            return;
        }
        self.flight.push_back((end + self.delay, pkt));
    }

    /// When the next packet is due at the far end.
    pub fn next_due(&self) -> Option<Time> {
        self.flight.front().map(|p| p.0)
    }

    /// The next packet due by `now`, if any, with the time it was due.
    pub fn pop_due(&mut self, now: Time) -> Option<(Time, Vec<u8>)> {
        if self.flight.front().is_some_and(|p| p.0 <= now) {
            let (due, pkt) = self.flight.pop_front()?;
            self.stats.delivered_packets += 1;
            self.stats.delivered_bytes += pkt.len() as u64;
            return Some((due, pkt));
        }
        None
    }
}

/// The links of one direction of a path, in order (a scenario's server link, then its
/// bottleneck, ...): a packet leaving one enters the next at the time it was due there, so a
/// multi-link path is emulated as the simulator chains its channels, whatever the poll jitter.
pub struct Path {
    pub hops: Vec<Direction>,
}

impl Path {
    pub fn new(specs: &[DirectionSpec], seed: u64, name: &str, carries: Carries) -> Result<Path, String> {
        if specs.is_empty() {
            return Err(format!("{name}: a path needs at least one link"));
        }
        let hops = specs
            .iter()
            .enumerate()
            .map(|(i, s)| Direction::new(s, seed, &format!("{name}[{i}]"), carries))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Path { hops })
    }

    /// A packet enters the first link at `now`.
    pub fn arrive(&mut self, now: Time, pkt: Vec<u8>) {
        self.hops[0].arrive(now, pkt);
    }

    /// When something next happens on the path.
    pub fn next_due(&self) -> Option<Time> {
        self.hops.iter().filter_map(Direction::next_due).min()
    }

    /// Move every packet due by `now` along the path; those leaving the last link go to `out`
    /// with the time they were due there.
    pub fn advance(&mut self, now: Time, out: &mut Vec<(Time, Vec<u8>)>) {
        let last = self.hops.len() - 1;
        for i in 0..last {
            while let Some((due, pkt)) = self.hops[i].pop_due(now) {
                self.hops[i + 1].arrive(due, pkt);
            }
        }
        while let Some(due_pkt) = self.hops[last].pop_due(now) {
            out.push(due_pkt);
        }
    }

    pub fn stats(&self) -> Vec<DirectionStats> {
        self.hops.iter().map(|h| h.stats.clone()).collect()
    }
}

/// The emulator's configuration (JSON), written by `mmcc testbed`.
#[derive(Clone, Debug, Deserialize)]
pub struct Config {
    pub seed: u64,
    /// Network namespace files (`/run/netns/NAME`) and TUN device names of the two ends: `a` is
    /// the sender's side, `b` the receiver's.
    pub netns_a: String,
    pub tun_a: String,
    pub netns_b: String,
    pub tun_b: String,
    /// The links from a to b (data) and from b to a (ACKs), in the order packets cross them.
    pub forward: Vec<DirectionSpec>,
    pub reverse: Vec<DirectionSpec>,
    /// Where to write the statistics (JSON) when the emulator stops.
    pub stats: String,
    /// Opt-in captures (pcap, IPv4 headers only) of the packets entering the data path and the
    /// ACK path, time-stamped on the scenario's clock.
    #[serde(default)]
    pub pcap_forward: Option<String>,
    #[serde(default)]
    pub pcap_reverse: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmcc_core::net::{ErrorModelConfig, ErrorUnit};

    fn spec(rate_bps: u64, delay_ms: u64, limit_bytes: Option<u64>) -> DirectionSpec {
        DirectionSpec {
            rate: Bandwidth(rate_bps),
            delay: Dur::from_millis(delay_ms),
            stream: None,
            dir: DirectionConfig {
                queue: QueueConfig::DropTail { limit_bytes, limit_packets: None, room_bytes: None },
                ..Default::default()
            },
        }
    }

    #[test]
    fn serializes_back_to_back_then_adds_the_delay() {
        let mut d = Direction::new(&spec(12_000_000, 10, None), 1, "forward", Carries::Data).unwrap();
        // 1500 B at 12 Mb/s = 1 ms each
        d.arrive(Time::ZERO, vec![0; 1500]);
        d.arrive(Time::ZERO, vec![0; 1500]);
        assert_eq!(d.next_due(), Some(Time(11_000_000)));
        assert!(d.pop_due(Time(10_999_999)).is_none());
        assert!(d.pop_due(Time(11_000_000)).is_some());
        assert_eq!(d.next_due(), Some(Time(12_000_000)));
    }

    #[test]
    fn a_path_hands_packets_on_at_the_time_they_were_due() {
        // 1 ms at 12 Mb/s + 10 ms, then 0.5 ms at 24 Mb/s + 5 ms
        let mut p = Path::new(&[spec(12_000_000, 10, None), spec(24_000_000, 5, None)], 1, "forward", Carries::Data).unwrap();
        p.arrive(Time::ZERO, vec![0; 1500]);
        let mut out = Vec::new();
        p.advance(Time(15_000_000), &mut out); // polled late: the second link still starts at 11 ms
        assert!(out.is_empty());
        assert_eq!(p.next_due(), Some(Time(16_500_000)));
        p.advance(Time(16_500_000), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, Time(16_500_000), "the time it was due at the path's end");
        assert_eq!(p.next_due(), None);
        assert_eq!(p.stats()[1].delivered_packets, 1);
    }

    #[test]
    fn drop_tail_counts_only_packets_not_yet_started() {
        // room for two waiting packets of 1500 B
        let mut d = Direction::new(&spec(12_000_000, 0, Some(3000)), 1, "forward", Carries::Data).unwrap();
        for _ in 0..4 {
            d.arrive(Time::ZERO, vec![0; 1500]);
        }
        // the first is on the wire, two wait, the fourth is dropped
        assert_eq!(d.stats.drops_queue_full, 1);
        // 1 ms later the second has started: one more fits
        d.arrive(Time(1_000_000), vec![0; 1500]);
        assert_eq!(d.stats.drops_queue_full, 1);
        assert_eq!(d.stats.max_backlog_bytes, 3000);
    }

    #[test]
    fn a_rate_step_applies_to_transmissions_starting_after_it() {
        let mut s = spec(12_000_000, 0, None);
        s.dir.rate_steps = vec![(Time(500_000), Bandwidth(6_000_000))];
        let mut d = Direction::new(&s, 1, "forward", Carries::Data).unwrap();
        d.arrive(Time::ZERO, vec![0; 1500]); // starts at 0 at 12 Mb/s: ends at 1 ms
        d.arrive(Time::ZERO, vec![0; 1500]); // starts at 1 ms at 6 Mb/s: ends at 3 ms
        assert_eq!(d.pop_due(Time(1_000_000)).map(|p| p.1.len()), Some(1500));
        assert_eq!(d.next_due(), Some(Time(3_000_000)));
    }

    #[test]
    fn packet_loss_is_seeded_and_near_its_rate() {
        let mut s = spec(1_000_000_000, 0, None);
        s.dir.error = Some(ErrorModelConfig { unit: ErrorUnit::Packet, rate: 0.01 });
        let run = |seed| {
            let mut d = Direction::new(&s, seed, "forward", Carries::Data).unwrap();
            for i in 0..100_000u64 {
                d.arrive(Time(i * 20_000), vec![0; 1500]);
            }
            d.stats.drops_error_model
        };
        assert_eq!(run(7), run(7));
        let lost = run(7) as f64 / 100_000.0;
        assert!((lost - 0.01).abs() < 0.001, "{lost}");
    }

    /// An IPv4/TCP packet with `payload` bytes and TCP `flags`.
    fn tcp(payload: usize, flags: u8) -> Vec<u8> {
        let total = 20 + 32 + payload;
        let mut p = vec![0u8; total];
        p[0] = 0x45;
        p[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        p[9] = 6;
        p[20 + 12] = 8 << 4; // 32-byte TCP header (timestamps)
        p[20 + 13] = flags;
        p
    }

    #[test]
    fn the_error_model_sees_the_packets_the_simulator_has_on_each_path() {
        let (ack, syn, fin, psh) = (0x10, 0x02, 0x01, 0x18);
        assert!(!exempt_from_errors(&tcp(1448, psh), Carries::Data));
        assert!(exempt_from_errors(&tcp(0, ack), Carries::Data)); // the handshake's last ACK
        assert!(exempt_from_errors(&tcp(0, syn), Carries::Data));
        assert!(exempt_from_errors(&tcp(10, fin | ack), Carries::Data));
        assert!(!exempt_from_errors(&tcp(0, ack), Carries::Acks));
        assert!(exempt_from_errors(&tcp(0, syn | ack), Carries::Acks));
        let mut udp = tcp(100, 0);
        udp[9] = 17;
        assert!(!exempt_from_errors(&udp, Carries::Data) && !exempt_from_errors(&udp, Carries::Acks));
        // with every subject packet lost, the exempt ones still pass
        let mut s = spec(1_000_000_000, 0, None);
        s.dir.error = Some(ErrorModelConfig { unit: ErrorUnit::Packet, rate: 1.0 });
        let mut d = Direction::new(&s, 1, "forward", Carries::Data).unwrap();
        d.arrive(Time::ZERO, tcp(0, syn));
        d.arrive(Time::ZERO, tcp(1448, psh));
        assert_eq!((d.stats.delivered_packets, d.stats.drops_error_model), (0, 1));
        assert!(d.pop_due(Time(1_000_000)).is_some());
    }

    #[test]
    fn the_simulators_stream_gives_the_simulators_draws() {
        // the same stream name and seed as the simulator's channel: the same sequence of losses
        let mut s = spec(1_000_000_000, 0, None);
        s.dir.error = Some(ErrorModelConfig { unit: ErrorUnit::Packet, rate: 0.01 });
        s.stream = Some("link/0/ab".into());
        let mut d = Direction::new(&s, 3, "forward", Carries::Data).unwrap();
        let mut sim = ErrorModel::new(&ErrorModelConfig { unit: ErrorUnit::Packet, rate: 0.01 }, Rng::stream(3, "link/0/ab/error"));
        let mut want = 0;
        for i in 0..5000u64 {
            want += sim.corrupts(1500) as u64;
            d.arrive(Time(i * 20_000), tcp(1448, 0x18));
        }
        assert_eq!(d.stats.drops_error_model, want);
    }

    #[test]
    fn unsupported_options_are_named() {
        let mut s = spec(1_000_000, 0, None);
        s.dir.queue = QueueConfig::CoDel {
            limit_bytes: None,
            limit_packets: None,
            target: Dur::from_millis(5),
            interval: Dur::from_millis(100),
        };
        let e = Direction::new(&s, 1, "reverse", Carries::Acks).err().unwrap();
        assert!(e.contains("reverse.queue"), "{e}");
    }

    #[test]
    fn lateness_counts_the_late_writes_and_reports_their_mean() {
        let mut l = Lateness::default();
        assert_eq!(l.summary().mean_ns, 0, "nothing written yet");
        for ns in [10_000, 200_000, 600_000, 2_000_000] {
            l.record(ns);
        }
        let r = l.summary();
        assert_eq!((r.packets, r.mean_ns, r.max_ns), (4, 702_500, 2_000_000));
        assert_eq!((r.over_100us, r.over_500us, r.over_1ms), (3, 2, 1));
    }
}
