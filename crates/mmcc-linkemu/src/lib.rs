//! The link model of mmcc's kernel testbed (`mmcc testbed`): one direction of a scenario's
//! bottleneck as the simulator's drop-tail channel computes it (crates/mmcc-core/src/net/
//! channel.rs), applied to real packets with a real clock:
//! - drop-tail admission against the packets whose transmission has not started yet
//!   ([`Limits::admits`], the simulator's backlog rule);
//! - serialization at the rate in effect when the transmission starts (a constant rate or the
//!   direction's `rate_steps`, ns-3 `PointToPointNetDevice` semantics), `Bandwidth::tx_time`;
//! - the error model of the scenario, with its unit (bit, byte, packet) over the IP packet's size
//!   (the simulator's wire size: IP + TCP headers, options and payload), drawn from a seeded
//!   stream; a corrupted packet occupies the link and is dropped at the far end, as in the
//!   simulator;
//! - a constant one-way propagation delay.
//!
//! Time is nanoseconds since the emulator's start command, supplied by the caller, so that the
//! model is tested with a fake clock (`tests` below) and the binary only adds the I/O.

use mmcc_core::net::queue::Limits;
use mmcc_core::net::{DirectionConfig, ErrorModel, QueueConfig};
use mmcc_core::rng::Rng;
use mmcc_core::time::{Bandwidth, Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One direction of the emulated link: the simulator's per-direction options plus the link's
/// rate and delay.
#[derive(Clone, Debug, Deserialize)]
pub struct DirectionSpec {
    pub rate: Bandwidth,
    pub delay: Dur,
    #[serde(flatten)]
    pub dir: DirectionConfig,
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
    pub fn new(spec: &DirectionSpec, seed: u64, name: &str) -> Result<Direction, String> {
        if spec.rate.0 == 0 {
            return Err(format!("{name}.rate: must be positive"));
        }
        spec.dir.validate_rate_steps().map_err(|e| format!("{name}.{e}"))?;
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
            .map(|e| ErrorModel::new(e, Rng::stream(seed, &format!("testbed/{name}/error"))));
        Ok(Direction {
            rate: spec.rate,
            steps: spec.dir.rate_steps.clone(),
            delay: spec.delay,
            limits: spec.dir.queue.limits(),
            error,
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
        let end = start + self.rate_at(start).tx_time(size);
        self.busy_until = end;
        if start > now {
            self.waiting.push_back((start, size));
            self.backlog_bytes += size;
            self.stats.max_backlog_bytes = self.stats.max_backlog_bytes.max(self.backlog_bytes);
        }
        if self.error.as_mut().is_some_and(|e| e.corrupts(size as u32)) {
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
    pub fn new(specs: &[DirectionSpec], seed: u64, name: &str) -> Result<Path, String> {
        if specs.is_empty() {
            return Err(format!("{name}: a path needs at least one link"));
        }
        let hops = specs
            .iter()
            .enumerate()
            .map(|(i, s)| Direction::new(s, seed, &format!("{name}[{i}]")))
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

    /// Move every packet due by `now` along the path; those leaving the last link go to `out`.
    pub fn advance(&mut self, now: Time, out: &mut Vec<Vec<u8>>) {
        let last = self.hops.len() - 1;
        for i in 0..last {
            while let Some((due, pkt)) = self.hops[i].pop_due(now) {
                self.hops[i + 1].arrive(due, pkt);
            }
        }
        while let Some((_, pkt)) = self.hops[last].pop_due(now) {
            out.push(pkt);
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use mmcc_core::net::{ErrorModelConfig, ErrorUnit};

    fn spec(rate_bps: u64, delay_ms: u64, limit_bytes: Option<u64>) -> DirectionSpec {
        DirectionSpec {
            rate: Bandwidth(rate_bps),
            delay: Dur::from_millis(delay_ms),
            dir: DirectionConfig {
                queue: QueueConfig::DropTail { limit_bytes, limit_packets: None },
                ..Default::default()
            },
        }
    }

    #[test]
    fn serializes_back_to_back_then_adds_the_delay() {
        let mut d = Direction::new(&spec(12_000_000, 10, None), 1, "forward").unwrap();
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
        let mut p = Path::new(&[spec(12_000_000, 10, None), spec(24_000_000, 5, None)], 1, "forward").unwrap();
        p.arrive(Time::ZERO, vec![0; 1500]);
        let mut out = Vec::new();
        p.advance(Time(15_000_000), &mut out); // polled late: the second link still starts at 11 ms
        assert!(out.is_empty());
        assert_eq!(p.next_due(), Some(Time(16_500_000)));
        p.advance(Time(16_500_000), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(p.next_due(), None);
        assert_eq!(p.stats()[1].delivered_packets, 1);
    }

    #[test]
    fn drop_tail_counts_only_packets_not_yet_started() {
        // room for two waiting packets of 1500 B
        let mut d = Direction::new(&spec(12_000_000, 0, Some(3000)), 1, "forward").unwrap();
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
        let mut d = Direction::new(&s, 1, "forward").unwrap();
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
            let mut d = Direction::new(&s, seed, "forward").unwrap();
            for i in 0..100_000u64 {
                d.arrive(Time(i * 20_000), vec![0; 1500]);
            }
            d.stats.drops_error_model
        };
        assert_eq!(run(7), run(7));
        let lost = run(7) as f64 / 100_000.0;
        assert!((lost - 0.01).abs() < 0.001, "{lost}");
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
        let e = Direction::new(&s, 1, "reverse").err().unwrap();
        assert!(e.contains("reverse.queue"), "{e}");
    }
}
