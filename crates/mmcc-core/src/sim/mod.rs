//! The simulation world: nodes, channels, flows, and the event loop that ties the engine, the
//! network and the TCP endpoints together.

mod build;
pub mod config;
mod control;
mod dispatch;
mod inspect;
mod output;
mod validate;

pub use config::{EngineConfig, FlowConfig, LinkConfig, PcapConfig, SimConfig};
pub use control::FlowSnapshot;
pub use output::RunOutput;

use crate::cca::{self, CongestionControl};
use crate::engine::Scheduler;
use crate::net::{Channel, DropCause, Kind, NodeId, Packet, Routes, Verdict, Wakes};
use crate::radio::RadioLink;
use crate::record::pcap::PcapWriter;
use crate::record::{Aggregate, FlowRecorder};
use crate::tcp::{Ctx, TcpReceiver, TcpSender, TimerKind};
use crate::time::Time;
use std::collections::BTreeMap;

/// Events of the simulation. Ordering among simultaneous events: see [`crate::engine`].
#[derive(Clone, Copy, Debug)]
enum Event {
    /// The head of channel `chan`'s propagation FIFO arrives at the far end.
    Arrive {
        chan: u32,
    },
    /// End of a transmission on a channel with a real queue (CoDel).
    TxDone {
        chan: u32,
    },
    /// A reordered packet (held in `delayed[slot]`) arrives.
    Delayed {
        chan: u32,
        slot: u32,
    },
    /// A TCP timer.
    Timer {
        flow: u32,
        kind: TimerKind,
        gen: u32,
    },
    FlowStart {
        flow: u32,
    },
    FlowStop {
        flow: u32,
    },
    /// A flow's receiver feed tick (`FlowConfig::receiver_feed`).
    ReceiverFeed {
        flow: u32,
    },
    /// A radio direction's slot.
    RadioSlot {
        radio: u32,
        dir: u8,
    },
    /// A radio link's channel update.
    RadioTick {
        radio: u32,
    },
    /// The gNB has decoded a radio link's uplink block (`RadioLink::take_decoded`).
    RadioDecoded {
        radio: u32,
    },
}

struct Flow {
    sender: TcpSender,
    receiver: TcpReceiver,
    rec: FlowRecorder,
    cca_name: String,
    /// Bytes the receiving application had at the last receiver-feed tick.
    feed_delivered: u64,
}

/// Packet accounting per (flow, kind) for the conservation invariant.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accounting {
    pub emitted: u64,
    pub arrived: u64,
    pub dropped: u64,
    pub emitted_bytes: u64,
    pub arrived_bytes: u64,
    pub dropped_bytes: u64,
}

/// Key of the drop counters: (channel or radio port, flow, 1 for ACKs, cause).
pub type DropKey = (u32, u32, u8, DropCause);

pub struct Simulation {
    cfg: SimConfig,
    sched: Scheduler<Event>,
    chans: Vec<Channel>,
    radios: Vec<RadioLink>,
    /// The ports each flow's data and ACKs take: a wired channel (< chans.len()) or a radio
    /// direction (chans.len() + 2 * radio + dir).
    routes: Routes,
    flows: Vec<Flow>,
    delayed: Vec<Option<Packet>>,
    delayed_free: Vec<u32>,
    /// (chan, flow, kind, cause) -> (packets, bytes); the latest key's counts accumulate in
    /// `drop_memo` (drops come in long runs of one key) and are merged into the map when the
    /// key changes and when read.
    drops: BTreeMap<DropKey, (u64, u64)>,
    drop_memo: Option<(DropKey, (u64, u64))>,
    /// per flow: [data, ack]
    acct: Vec<[Accounting; 2]>,
    outbox: Vec<Packet>,
    /// While an endpoint handles a packet that arrived on a channel: that channel and the
    /// packet's wire bytes, which order what the endpoint sends in reply against a transmission
    /// ending now (`forward`). None for timers and radio arrivals.
    trigger: Option<(u32, u32)>,
    timer_reqs: Vec<(TimerKind, Time, u32)>,
    codel_dropped: Vec<Packet>,
    pcap: Option<(u32, PcapWriter)>,
    /// Cut-through: channel -> the channel its packets are handed to.
    handoff_to: Vec<Option<u32>>,
    /// The series for all flows together, when the run records it so (`record.series`).
    series: Option<Aggregate>,
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Result<Simulation, String> {
        Self::with_algorithms(cfg, BTreeMap::new())
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    /// Run to the configured duration.
    pub fn run(&mut self) {
        let end = Time(self.cfg.duration.0);
        self.run_until(end);
    }

    /// Run events up to and including time `until`.
    pub fn run_until(&mut self, until: Time) {
        while let Some((_, ev)) = self.sched.pop_until(until) {
            self.handle(ev);
        }
        self.sched.advance_to(until);
    }

    /// Run at most `budget` events due by `until`. Returns true when none is left (the clock is
    /// then at `until`); false when the budget ran out first (call again to continue: the
    /// events are the same as with one [`Simulation::run_until`]).
    pub fn run_some(&mut self, until: Time, budget: u64) -> bool {
        for _ in 0..budget {
            match self.sched.pop_until(until) {
                Some((_, ev)) => self.handle(ev),
                None => {
                    self.sched.advance_to(until);
                    return true;
                }
            }
        }
        false
    }

}

/// Mutable access to a flow's two endpoints.
struct FlowParts<'a> {
    sender: &'a mut TcpSender,
    receiver: &'a mut TcpReceiver,
}

/// Build, run and collect a configuration in one call.
pub fn run(cfg: SimConfig) -> Result<RunOutput, String> {
    run_with_algorithms(cfg, BTreeMap::new())
}

/// [`run`] with caller-supplied algorithm objects for some flows.
pub fn run_with_algorithms(
    cfg: SimConfig,
    custom: BTreeMap<usize, Box<dyn CongestionControl>>,
) -> Result<RunOutput, String> {
    run_interruptible(cfg, custom, || false).map(|(out, _)| out)
}

/// Events between two calls of the interrupt check of [`run_interruptible`].
pub const INTERRUPT_CHECK_EVENTS: u64 = 200_000;

/// [`run_with_algorithms`] that asks `interrupted` every [`INTERRUPT_CHECK_EVENTS`] events; when
/// it answers true the run stops there and its output so far is returned with the simulated
/// time it reached (the output of an uninterrupted run is identical to [`run_with_algorithms`]).
pub fn run_interruptible(
    cfg: SimConfig,
    custom: BTreeMap<usize, Box<dyn CongestionControl>>,
    mut interrupted: impl FnMut() -> bool,
) -> Result<(RunOutput, Option<Time>), String> {
    let mut sim = Simulation::with_algorithms(cfg, custom)?;
    let end = Time(sim.cfg.duration.0);
    let mut stopped = None;
    while !sim.run_some(end, INTERRUPT_CHECK_EVENTS) {
        if interrupted() {
            stopped = Some(sim.now());
            break;
        }
    }
    sim.check_invariants()
        .map_err(|e| format!("internal invariant violated: {e}"))?;
    let pcap = sim.close_pcap()?;
    Ok((RunOutput::collect(&mut sim, pcap), stopped))
}
