//! What a run records, per flow.
//!
//! By default only aggregates: per-bin series (100 ms), a cwnd/ssthresh/state series decimated
//! to at most one point per `cwnd_interval` (every state change is kept), exact histograms of
//! RTT and one-way delay, sparse events and counters. `trace = true` adds every RTT sample,
//! every delivered segment's one-way delay and every cwnd change.

pub mod aggregate;
pub mod histogram;
pub mod pcap;
pub mod table;

pub use aggregate::{Aggregate, SeriesMode};
pub use histogram::Histogram;
pub use table::{Column, Labels, Table};

use crate::cca::CaState;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordConfig {
    /// Width of the time bins of the series (the publications use 100 ms).
    #[serde(default = "default_bin")]
    pub bin: Dur,
    /// Minimum spacing of recorded cwnd points (state changes are always recorded).
    #[serde(default = "default_cwnd_interval")]
    pub cwnd_interval: Dur,
    /// Record every RTT sample, every delivered segment and every cwnd change.
    #[serde(default)]
    pub trace: bool,
    /// The `series` table per flow or for all flows together (with the spread across flows);
    /// `auto` aggregates above [`aggregate::AUTO_PER_FLOW_MAX`] flows.
    #[serde(default)]
    pub series: SeriesMode,
}

fn default_bin() -> Dur {
    Dur::from_millis(100)
}
fn default_cwnd_interval() -> Dur {
    Dur::from_millis(1)
}

impl Default for RecordConfig {
    fn default() -> Self {
        RecordConfig { bin: default_bin(), cwnd_interval: default_cwnd_interval(), trace: false, series: SeriesMode::Auto }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct Bin {
    pub delivered_bytes: u64,
    pub sent_bytes: u64,
    pub retx_bytes: u64,
    pub rtt_sum_ns: u64,
    pub rtt_n: u64,
    pub owd_sum_ns: u64,
    pub owd_n: u64,
    /// Last values seen in the bin (None: no change in this bin).
    pub cwnd: Option<u64>,
    pub ssthresh: u64,
    pub inflight: u64,
    pub acks: u64,
    pub dupacks: u64,
}

/// Per-flow counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Counters {
    pub segments_sent: u64,
    pub bytes_sent: u64,
    pub retransmits: u64,
    pub retx_bytes: u64,
    pub fast_retransmits: u64,
    pub rtos: u64,
    pub acks_received: u64,
    pub dupacks: u64,
    pub data_received: u64,
    pub dup_data_received: u64,
    pub acks_sent: u64,
    pub delivered_bytes: u64,
    pub first_send: Option<Time>,
    pub last_delivery: Option<Time>,
    /// Deliveries that did not start where the previous one ended (must stay 0).
    pub stream_violations: u64,
    /// The longest chain of consecutive timeouts between which the flight never exceeded one
    /// segment (0 without a timeout, 1 for a timeout followed by a larger flight): a flow stuck
    /// at one segment per timeout shows a large value (docs/tcp-profiles.md, "a window of one
    /// segment after a timeout").
    pub one_segment_timeouts: u64,
    /// When that longest chain began and its latest timeout.
    pub one_segment_span: Option<(Time, Time)>,
}

/// Follows the flight between timeouts for `Counters::one_segment_timeouts`.
#[derive(Clone, Copy, Debug, Default)]
struct TimeoutChain {
    /// Timeouts in the current chain, and the time of its first.
    len: u64,
    since: Time,
    /// The largest flight (RFC 6675 pipe, bytes) after a transmission since the latest timeout.
    flight_max: u64,
}

#[derive(Default)]
pub struct FlowRecorder {
    cfg: RecordConfig,
    /// The series for all flows together ([`Aggregate`]): `bins` holds only the current bin,
    /// the bins left are queued in `done`, and no cwnd points are kept (but with `trace`).
    aggregate: bool,
    pub bins: Vec<Bin>,
    /// Bins left, (index, bin), waiting for the run's [`Aggregate`].
    pub done: Vec<(usize, Bin)>,
    /// Index and [start, end) of the bin last written: avoids a division per record.
    cur: usize,
    cur_start: u64,
    cur_end: u64,
    pub cwnd_t: Vec<i64>,
    pub cwnd_v: Vec<i64>,
    pub ssthresh_v: Vec<i64>,
    pub inflight_v: Vec<i64>,
    pub state_v: Vec<i64>,
    last_cwnd_t: Option<Time>,
    last_state: Option<CaState>,
    pub rtt: Histogram,
    pub owd: Histogram,
    pub rtt_trace: Vec<(i64, i64)>,
    pub owd_trace: Vec<(i64, i64)>,
    pub events: Vec<(i64, &'static str, f64)>,
    pub counters: Counters,
    chain: TimeoutChain,
}

impl FlowRecorder {
    /// A recorder; `aggregate`: for a run whose series is recorded for all flows together.
    pub fn new(cfg: &RecordConfig, aggregate: bool) -> Self {
        FlowRecorder { cfg: cfg.clone(), aggregate, ..Default::default() }
    }

    #[inline]
    fn bin(&mut self, t: Time) -> &mut Bin {
        if t.0 < self.cur_start || t.0 >= self.cur_end || self.bins.is_empty() {
            self.move_to(t);
        }
        let i = if self.aggregate { 0 } else { self.cur };
        &mut self.bins[i]
    }

    #[cold]
    fn move_to(&mut self, t: Time) {
        let w = self.cfg.bin.0.max(1);
        let next = (t.0 / w) as usize;
        if self.aggregate {
            if let Some(b) = self.bins.pop() {
                self.done.push((self.cur, b));
            }
            self.bins.push(Bin::default());
        } else if next >= self.bins.len() {
            self.bins.resize(next + 1, Bin::default());
        }
        self.cur = next;
        self.cur_start = next as u64 * w;
        self.cur_end = self.cur_start + w;
    }

    /// In an aggregating run: queue the current bin too (the run has ended).
    pub fn finish_bins(&mut self) {
        if self.aggregate {
            if let Some(b) = self.bins.pop() {
                self.done.push((self.cur, b));
            }
        }
    }

    /// A segment left with `pipe` bytes in flight after it.
    #[inline]
    pub fn on_send(&mut self, t: Time, bytes: u32, retx: bool, pipe: u64) {
        self.chain.flight_max = self.chain.flight_max.max(pipe);
        let b = self.bin(t);
        b.sent_bytes += bytes as u64;
        if retx {
            b.retx_bytes += bytes as u64;
        }
        let c = &mut self.counters;
        c.segments_sent += 1;
        c.bytes_sent += bytes as u64;
        if retx {
            c.retransmits += 1;
            c.retx_bytes += bytes as u64;
        }
        if c.first_send.is_none() {
            c.first_send = Some(t);
        }
    }

    /// A retransmission timeout (before the retransmission it triggers is sent):
    /// extends the chain if the flight since the previous timeout stayed within one `mss`.
    pub fn on_rto(&mut self, t: Time, mss: u64) {
        let c = &mut self.chain;
        if c.len > 0 && c.flight_max <= mss {
            c.len += 1;
        } else {
            *c = TimeoutChain { len: 1, since: t, flight_max: 0 };
        }
        c.flight_max = 0;
        self.counters.rtos += 1;
        if c.len > self.counters.one_segment_timeouts {
            self.counters.one_segment_timeouts = c.len;
        }
        if c.len == self.counters.one_segment_timeouts {
            self.counters.one_segment_span = Some((c.since, t));
        }
    }

    #[inline]
    pub fn on_rtt(&mut self, t: Time, rtt: Dur) {
        self.rtt.record(rtt);
        let b = self.bin(t);
        b.rtt_sum_ns += rtt.0;
        b.rtt_n += 1;
        if self.cfg.trace {
            self.rtt_trace.push((t.0 as i64, rtt.0 as i64));
        }
    }

    /// Bytes delivered in order to the receiving application; `owd` of the segment.
    #[inline]
    pub fn on_delivered(&mut self, t: Time, bytes: u64, owd: Dur) {
        self.owd.record(owd);
        let b = self.bin(t);
        b.delivered_bytes += bytes;
        b.owd_sum_ns += owd.0;
        b.owd_n += 1;
        self.counters.delivered_bytes += bytes;
        self.counters.last_delivery = Some(t);
        if self.cfg.trace {
            self.owd_trace.push((t.0 as i64, owd.0 as i64));
        }
    }

    /// cwnd / ssthresh / in-flight / state after an event.
    #[inline]
    pub fn on_window(&mut self, t: Time, cwnd: u64, ssthresh: u64, inflight: u64, state: CaState) {
        let b = self.bin(t);
        b.cwnd = Some(cwnd);
        b.ssthresh = ssthresh;
        b.inflight = inflight;
        if self.aggregate && !self.cfg.trace {
            return;
        }
        let state_changed = self.last_state != Some(state);
        let due = self.last_cwnd_t.is_none_or(|l| t - l >= self.cfg.cwnd_interval);
        let changed = self.cwnd_v.last() != Some(&(cwnd as i64));
        if state_changed || (changed && (due || self.cfg.trace)) {
            self.cwnd_t.push(t.0 as i64);
            self.cwnd_v.push(cwnd as i64);
            self.ssthresh_v.push(if ssthresh == u64::MAX { -1 } else { ssthresh as i64 });
            self.inflight_v.push(inflight as i64);
            self.state_v.push(state as i64);
            self.last_cwnd_t = Some(t);
            self.last_state = Some(state);
        }
    }

    /// An ACK reached the sender (`dup`: a duplicate ACK).
    #[inline]
    pub fn on_ack(&mut self, t: Time, dup: bool) {
        let b = self.bin(t);
        b.acks += 1;
        b.dupacks += dup as u64;
        self.counters.acks_received += 1;
        self.counters.dupacks += dup as u64;
    }

    pub fn event(&mut self, t: Time, kind: &'static str, value: f64) {
        self.events.push((t.0 as i64, kind, value));
    }

    pub fn bin_width(&self) -> Dur {
        self.cfg.bin
    }
    pub fn trace(&self) -> bool {
        self.cfg.trace
    }
}
