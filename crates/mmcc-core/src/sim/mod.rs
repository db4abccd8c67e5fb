//! The simulation world: nodes, channels, flows, and the event loop that ties the engine, the
//! network and the TCP endpoints together.

pub mod config;
mod validate;
mod output;

pub use config::{EngineConfig, FlowConfig, LinkConfig, PcapConfig, SimConfig};
pub use output::RunOutput;

use crate::cca::{self, CongestionControl};
use crate::engine::Scheduler;
use crate::net::{Channel, DropCause, Kind, NodeId, Packet, Routes, Verdict, Wakes};
use crate::radio::RadioLink;
use crate::record::pcap::PcapWriter;
use crate::record::FlowRecorder;
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
}

impl Simulation {
    pub fn new(cfg: SimConfig) -> Result<Simulation, String> {
        Self::with_algorithms(cfg, BTreeMap::new())
    }

    /// Build with caller-supplied algorithm objects for some flows (flow index -> algorithm),
    /// e.g. algorithms written in Python; the other flows use the registry.
    pub fn with_algorithms(
        cfg: SimConfig,
        mut custom: BTreeMap<usize, Box<dyn CongestionControl>>,
    ) -> Result<Simulation, String> {
        let routes = cfg.validate_with(&|i| custom.contains_key(&i))?;
        let mut chans = Vec::new();
        for (i, l) in cfg.links.iter().enumerate() {
            chans.push(Channel::new(
                l.a,
                l.b,
                l.rate,
                l.delay,
                l.mtu,
                &l.ab,
                cfg.seed,
                &format!("link/{i}/ab"),
            ));
            chans.push(Channel::new(
                l.b,
                l.a,
                l.rate,
                l.delay,
                l.mtu,
                &l.ba,
                cfg.seed,
                &format!("link/{i}/ba"),
            ));
        }
        let radios: Vec<RadioLink> = cfg
            .radios
            .iter()
            .enumerate()
            .map(|(i, r)| RadioLink::new(&r.radio, r.gnb, r.ue, cfg.seed, &format!("radio/{i}")))
            .collect();
        let ends = cfg.port_ends();
        let handoff_to = if cfg.engine.cut_through {
            Self::cut_through_plan(&cfg, &routes, &chans, &ends)
        } else {
            Vec::new()
        };
        for (c, next) in handoff_to.iter().enumerate() {
            if next.is_some() {
                chans[c].cut_through = true;
                chans[c].cut_through_until = Time(cfg.duration.0);
            }
        }
        let mut flows = Vec::new();
        for (i, f) in cfg.flows.iter().enumerate() {
            let algo = match custom.remove(&i) {
                Some(a) => a,
                None => {
                    cca::build(&f.cca, &f.cca_params, f.tcp.resolve().profile)
                        .map_err(|e| format!("flows[{i}]: {e}"))?
                }
            };
            let cca_name = algo.name().to_string();
            let tcp = f.tcp.resolve();
            let mut sender = TcpSender::new(i as u32, f.src, f.dst, &tcp, &f.app, f.start, algo);
            sender.cc.rng = crate::rng::Rng::stream(cfg.seed, &format!("flow/{i}/cca"));
            sender.cc.run_seed = cfg.seed;
            flows.push(Flow {
                sender,
                receiver: TcpReceiver::new(i as u32, f.dst, f.src, &tcp),
                rec: FlowRecorder::new(&cfg.record),
                cca_name,
                feed_delivered: 0,
            });
        }
        let pcap = match &cfg.pcap {
            Some(p) => {
                let w = PcapWriter::create(&p.path)
                    .map_err(|e| format!("pcap: cannot create '{}': {e}", p.path))?;
                let chan = (2 * p.link + usize::from(p.direction == "ba")) as u32;
                Some((chan, w))
            }
            None => None,
        };
        let mut sched = Scheduler::new();
        for (i, r) in radios.iter().enumerate() {
            sched.schedule(Time(r.cfg.update.0), Event::RadioTick { radio: i as u32 });
        }
        for (i, f) in cfg.flows.iter().enumerate() {
            sched.schedule(f.start, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = f.stop {
                sched.schedule(stop, Event::FlowStop { flow: i as u32 });
            }
            if let Some(d) = f.receiver_feed {
                sched.schedule(Time(d.0), Event::ReceiverFeed { flow: i as u32 });
            }
        }
        let nflows = flows.len();
        Ok(Simulation {
            cfg,
            sched,
            chans,
            radios,
            routes,
            flows,
            delayed: Vec::new(),
            delayed_free: Vec::new(),
            drops: BTreeMap::new(),
            drop_memo: None,
            acct: vec![[Accounting::default(); 2]; nflows],
            outbox: Vec::with_capacity(64),
            trigger: None,
            timer_reqs: Vec::with_capacity(16),
            codel_dropped: Vec::new(),
            pcap,
            handoff_to,
        })
    }

    /// Which channels may hand packets straight to the next channel ("cut-through").
    ///
    /// A packet leaving channel `c` towards router `r` is offered to the next channel `n` at
    /// its arrival time. Offering it earlier (when `c` transmits it) gives the same result if
    /// (1) `c` keeps send order (no reordering), (2) every packet `c` delivers to `r` continues
    /// on the same `n` and `r` is not a destination, (3) `n` receives from nobody but `c`
    /// (no other channel feeds it and no endpoint at `r` sends on it), and (4) `n` is a
    /// drop-tail channel, whose state depends only on the packets offered, in order. The pcap
    /// channel is excluded so its capture stays in event order with the rest of the run.
    fn cut_through_plan(
        cfg: &SimConfig,
        routes: &Routes,
        chans: &[Channel],
        ends: &[(NodeId, NodeId)],
    ) -> Vec<Option<u32>> {
        let nports = ends.len();
        let mut next_of: Vec<Option<Option<u32>>> = vec![None; nports]; // None: unused
        let mut feeders: Vec<Vec<Option<u32>>> = vec![Vec::new(); nports]; // None: an endpoint
        for f in 0..cfg.flows.len() {
            for ack in [false, true] {
                let mut prev: Option<u32> = None;
                for &(_, c) in routes.path(f, ack) {
                    if !feeders[c as usize].contains(&prev) {
                        feeders[c as usize].push(prev);
                    }
                    if let Some(p) = prev {
                        match next_of[p as usize] {
                            None => next_of[p as usize] = Some(Some(c)),
                            Some(Some(x)) if x == c => {}
                            _ => next_of[p as usize] = Some(None),
                        }
                    }
                    prev = Some(c);
                }
                if let Some(p) = prev {
                    next_of[p as usize] = Some(None); // delivers to an endpoint
                }
            }
        }
        let pcap_chan = cfg
            .pcap
            .as_ref()
            .map(|p| (2 * p.link + usize::from(p.direction == "ba")) as u32);
        (0..chans.len())
            .map(|c| {
                let n = next_of[c].flatten()?;
                let ok = chans[c].supports_cut_through()
                    && (n as usize) < chans.len() // radio directions take packets at arrival only
                    && chans[n as usize].accepts_early()
                    && feeders[n as usize] == [Some(c as u32)]
                    && pcap_chan != Some(c as u32);
                ok.then_some(n)
            })
            .collect()
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

    fn handle(&mut self, ev: Event) {
        let now = self.sched.now();
        match ev {
            Event::Arrive { chan } => {
                let mut w = Wakes::default();
                let r = self.chans[chan as usize].arrive(now, &mut w);
                self.apply_wakes(chan, w);
                if let Some((p, v)) = r {
                    self.after_channel(chan, &p, v);
                }
            }
            Event::Delayed { chan, slot } => {
                let pkt = self.delayed[slot as usize].take().expect("delayed packet");
                self.delayed_free.push(slot);
                let v = self.chans[chan as usize].arrive_delayed(&pkt, now);
                self.after_channel(chan, &pkt, v);
            }
            Event::TxDone { chan } => {
                let mut w = Wakes { stamp: self.sched.reserve(), ..Wakes::default() };
                let mut dropped = std::mem::take(&mut self.codel_dropped);
                self.chans[chan as usize].tx_done(now, &mut w, &mut dropped);
                for p in dropped.drain(..) {
                    self.count_drop(chan, &p, DropCause::Aqm);
                }
                self.codel_dropped = dropped;
                self.apply_wakes(chan, w);
            }
            Event::Timer { flow, kind, gen } => {
                self.with_flow(flow, |f, ctx| match kind {
                    TimerKind::DelAck => f.receiver.on_timer(gen, ctx),
                    _ => f.sender.on_timer(kind, gen, ctx),
                });
            }
            Event::FlowStart { flow } => {
                self.with_flow(flow, |f, ctx| {
                    ctx.rec.event(ctx.now, "start", 0.0);
                    f.sender.start(ctx)
                });
            }
            Event::RadioSlot { radio, dir } => {
                let mut out = Vec::new();
                let mut drops = Vec::new();
                let next =
                    self.radios[radio as usize].slot(dir as usize, now, &mut out, &mut drops);
                let port = self.radio_port(radio, dir);
                for (p, cause) in drops {
                    self.count_drop(port, &p, cause);
                }
                if let Some(t) = next {
                    self.sched.schedule(t, Event::RadioSlot { radio, dir });
                }
                if let Some(t) = self.radios[radio as usize].decoded_due() {
                    self.sched.schedule(t, Event::RadioDecoded { radio });
                }
                self.radio_out(radio, dir, out);
            }
            Event::RadioDecoded { radio } => {
                let mut out = Vec::new();
                let r = &mut self.radios[radio as usize];
                r.decoded_scheduled = false;
                r.take_decoded(now, &mut out);
                if let Some(t) = r.decoded_due() {
                    self.sched.schedule(t, Event::RadioDecoded { radio });
                }
                self.radio_out(radio, 1, out);
            }
            Event::RadioTick { radio } => {
                let r = &mut self.radios[radio as usize];
                r.update(now);
                let next = now + r.cfg.update;
                // one sample per update interval [t, t + update) of the run
                if next.0 < self.cfg.duration.0 {
                    self.sched.schedule(next, Event::RadioTick { radio });
                }
            }
            Event::ReceiverFeed { flow } => {
                // the receiving application's throughput over the last interval, handed to
                // the sender at once (the authors' scripts set a static in the algorithm)
                let d = self.cfg.flows[flow as usize]
                    .receiver_feed
                    .expect("scheduled with a feed");
                let f = &mut self.flows[flow as usize];
                let got = f.receiver.delivered - f.feed_delivered;
                f.feed_delivered = f.receiver.delivered;
                f.sender.cc.receiver_rate = Some(got as f64 / d.secs_f64());
                let next = now + d;
                if next.0 < self.cfg.duration.0 {
                    self.sched.schedule(next, Event::ReceiverFeed { flow });
                }
            }
            Event::FlowStop { flow } => {
                self.with_flow(flow, |f, ctx| {
                    ctx.rec.event(ctx.now, "stop", 0.0);
                    f.sender.stop(ctx)
                });
            }
        }
    }

    /// Run `f` on a flow's endpoints, then queue what it sent and the timers it armed.
    fn with_flow(&mut self, flow: u32, f: impl FnOnce(&mut FlowParts, &mut Ctx)) {
        let now = self.sched.now();
        let mut out = std::mem::take(&mut self.outbox);
        let mut timers = std::mem::take(&mut self.timer_reqs);
        {
            let fl = &mut self.flows[flow as usize];
            let mut parts = FlowParts {
                sender: &mut fl.sender,
                receiver: &mut fl.receiver,
            };
            let mut ctx = Ctx {
                now,
                out: &mut out,
                timers: &mut timers,
                rec: &mut fl.rec,
            };
            f(&mut parts, &mut ctx);
        }
        for (kind, t, gen) in timers.drain(..) {
            self.sched.schedule(t, Event::Timer { flow, kind, gen });
        }
        for p in out.drain(..) {
            let k = p.kind.dir();
            let a = &mut self.acct[flow as usize][k];
            a.emitted += 1;
            a.emitted_bytes += p.len as u64;
            self.forward(p.src, &p, self.trigger);
        }
        self.outbox = out;
        self.timer_reqs = timers;
    }

    /// At an instant where `next` ends a transmission, does a packet offered to it come first?
    /// In ns-3 the offer happens in the event of a reception: the packet's own when forwarded,
    /// the one the endpoint answers when an endpoint sends it (`from`: that reception's wired
    /// channel and wire bytes). That event was scheduled when the received packet's transmission
    /// started (`PointToPointChannel::TransmitStart`: serialization + propagation ahead), the
    /// end of `next`'s transmission when that one started (`PointToPointNetDevice::
    /// TransmitStart`: one serialization ahead, the in-service packet taken as this one's
    /// size): the earlier scheduled runs first.
    fn arrives_first(&self, from: (u32, u32), next: u32, pkt: &Packet) -> bool {
        (from.0 as usize) < self.chans.len()
            && self.chans[from.0 as usize].reception_lead(from.1) > self.chans[next as usize].serialization(pkt)
    }

    /// Put a packet leaving `node` into the next channel of its route. Channels always take
    /// time (serialization), so this never re-enters an endpoint: no recursion, no staging queue.
    #[inline]
    fn send_from(&mut self, node: NodeId, pkt: &Packet) {
        self.forward(node, pkt, None);
    }

    /// Packets a radio direction delivered: to their endpoint, or on from the receiving node.
    fn radio_out(&mut self, radio: u32, dir: u8, out: Vec<Packet>) {
        let to = self.radios[radio as usize].dirs[dir as usize].to;
        for p in out {
            if p.dst == to {
                self.at_endpoint(&p);
            } else {
                self.send_from(to, &p);
            }
        }
    }

    /// `send_from` for a packet offered in the event of a reception on channel `from` (a
    /// forwarded packet, or an endpoint's answer to one: the channel and the received packet's
    /// wire bytes), which decides its order against a transmission of the next channel ending at
    /// this instant.
    #[inline]
    fn forward(&mut self, node: NodeId, pkt: &Packet, from: Option<(u32, u32)>) {
        let chan = self.routes.port(pkt.flow as usize, pkt.dst, node);
        let now = self.sched.now();
        if chan as usize >= self.chans.len() {
            let k = chan as usize - self.chans.len();
            let (radio, dir) = ((k / 2) as u32, (k % 2) as u8);
            match self.radios[radio as usize].enqueue(dir as usize, pkt, now) {
                Ok(Some(t)) => self.sched.schedule(t, Event::RadioSlot { radio, dir }),
                Ok(None) => {}
                Err(cause) => self.count_drop(chan, pkt, cause),
            }
            return;
        }
        let arrives_first =
            from.is_some_and(|f| self.chans[chan as usize].dequeues_at(now) && self.arrives_first(f, chan, pkt));
        let mut w = Wakes { stamp: self.sched.reserve(), arrives_first, ..Wakes::default() };
        let r = self.chans[chan as usize].enqueue(pkt, now, &mut w);
        if let Err(cause) = r {
            self.count_drop(chan, pkt, cause);
        }
        self.apply_wakes(chan, w);
    }

    fn radio_port(&self, radio: u32, dir: u8) -> u32 {
        (self.chans.len() + 2 * radio as usize + dir as usize) as u32
    }

    /// (link id, "from->to") of a port, for reports: wired links first, then radio links.
    pub fn port_name(&self, port: u32) -> (i64, String) {
        let p = port as usize;
        let (link, from, to) = if p < self.chans.len() {
            (p / 2, self.chans[p].from, self.chans[p].to)
        } else {
            let k = p - self.chans.len();
            let d = &self.radios[k / 2].dirs[k % 2];
            (self.cfg.links.len() + k / 2, d.from, d.to)
        };
        (
            link as i64,
            format!(
                "{}->{}",
                self.cfg.nodes[from as usize], self.cfg.nodes[to as usize]
            ),
        )
    }

    fn at_endpoint(&mut self, pkt: &Packet) {
        let flow = pkt.flow;
        if pkt.kind == Kind::Ack {
            if let Some(feed) = &self.cfg.flows[flow as usize].sinr_feed {
                // cross-layer: the UE's downlink SINR as it was `delay` ago
                let at = Time(self.sched.now().0.saturating_sub(feed.delay.0));
                let v = self.radios[feed.radio].sinr_dl_at(at);
                self.flows[flow as usize].sender.cc.sinr_db = v;
            }
        }
        let k = pkt.kind.dir();
        let a = &mut self.acct[flow as usize][k];
        a.arrived += 1;
        a.arrived_bytes += pkt.len as u64;
        match pkt.kind {
            Kind::Data => self.with_flow(flow, |f, ctx| f.receiver.on_data(pkt, ctx)),
            Kind::Ack => self.with_flow(flow, |f, ctx| f.sender.on_ack(pkt, ctx)),
            Kind::Syn => self.with_flow(flow, |f, ctx| f.receiver.on_syn(pkt, ctx)),
            Kind::SynAck => self.with_flow(flow, |f, ctx| f.sender.on_synack(pkt, ctx)),
            Kind::HandshakeAck => {}
        }
    }

    #[inline]
    fn after_channel(&mut self, chan: u32, p: &Packet, v: Verdict) {
        match v {
            Verdict::Deliver => {
                if let Some((c, w)) = &mut self.pcap {
                    if *c == chan {
                        w.write(self.sched.now(), p);
                    }
                }
                let to = self.chans[chan as usize].to;
                let from = (chan, p.wire_bytes());
                if p.dst == to {
                    // what the endpoint sends in reply is offered in this reception's event
                    self.trigger = Some(from);
                    self.at_endpoint(p);
                    self.trigger = None;
                } else {
                    self.forward(to, p, Some(from));
                }
            }
            Verdict::Drop(cause) => self.count_drop(chan, p, cause),
        }
    }

    #[inline]
    fn apply_wakes(&mut self, chan: u32, w: Wakes) {
        if w.handoff {
            self.handoff(chan);
        }
        if let Some(t) = w.arrival {
            if w.arrival_stamp != 0 {
                self.sched.schedule_reserved(t, w.arrival_stamp, Event::Arrive { chan });
            } else {
                self.sched.schedule(t, Event::Arrive { chan });
            }
        }
        if let Some(t) = w.tx_done {
            self.sched.schedule(t, Event::TxDone { chan });
        }
        if w.delayed {
            let (t, p) = self.chans[chan as usize]
                .take_delayed()
                .expect("delayed packet");
            let slot = match self.delayed_free.pop() {
                Some(s) => {
                    self.delayed[s as usize] = Some(p);
                    s
                }
                None => {
                    self.delayed.push(Some(p));
                    (self.delayed.len() - 1) as u32
                }
            };
            self.sched.schedule(t, Event::Delayed { chan, slot });
        }
    }

    /// Cut-through: `chan` transmitted a packet; it reaches the router at `at` and is offered
    /// to the next channel with that time (see `cut_through_plan`).
    fn handoff(&mut self, chan: u32) {
        let (at, pkt) = self.chans[chan as usize]
            .take_handoff()
            .expect("handoff packet");
        match self.chans[chan as usize].arrive_handoff(&pkt, at) {
            Verdict::Drop(cause) => self.count_drop(chan, &pkt, cause),
            Verdict::Deliver => {
                let next = self.handoff_to[chan as usize].expect("planned handoff");
                let arrives_first = self.chans[next as usize].dequeues_at(at)
                    && self.arrives_first((chan, pkt.wire_bytes()), next, &pkt);
                let mut w = Wakes { stamp: self.sched.reserve(), arrives_first, ..Wakes::default() };
                if let Err(cause) = self.chans[next as usize].enqueue(&pkt, at, &mut w) {
                    self.count_drop(next, &pkt, cause);
                }
                self.apply_wakes(next, w);
            }
        }
    }

    fn count_drop(&mut self, chan: u32, p: &Packet, cause: DropCause) {
        let k = p.kind.dir() as u8;
        let key = (chan, p.flow, k, cause);
        match &mut self.drop_memo {
            Some((mk, e)) if *mk == key => {
                e.0 += 1;
                e.1 += p.wire_bytes() as u64;
            }
            memo => {
                if let Some((mk, (n, b))) = memo.take() {
                    let e = self.drops.entry(mk).or_default();
                    e.0 += n;
                    e.1 += b;
                }
                *memo = Some((key, (1, p.wire_bytes() as u64)));
            }
        }
        let a = &mut self.acct[p.flow as usize][k as usize];
        a.dropped += 1;
        a.dropped_bytes += p.len as u64;
    }

    /// Packets currently inside the network, per flow and kind: (packets, payload bytes).
    pub fn inside(&self) -> Vec<[(u64, u64); 2]> {
        let mut v = vec![[(0u64, 0u64); 2]; self.flows.len()];
        for c in &self.chans {
            c.for_each_inside(|p| {
                let e = &mut v[p.flow as usize][p.kind.dir()];
                e.0 += 1;
                e.1 += p.len as u64;
            });
        }
        for r in &self.radios {
            r.for_each_inside(|p| {
                let e = &mut v[p.flow as usize][p.kind.dir()];
                e.0 += 1;
                e.1 += p.len as u64;
            });
        }
        for p in self.delayed.iter().flatten() {
            let e = &mut v[p.flow as usize][p.kind.dir()];
            e.0 += 1;
            e.1 += p.len as u64;
        }
        v
    }

    /// The engine invariants; an error names the first one violated.
    ///
    /// - Conservation: every packet (and payload byte) an endpoint emitted arrived at its
    ///   destination, was dropped with a cause, or is still inside the network.
    /// - The receiver delivered a contiguous byte stream, each byte once, in order.
    /// - Every sender's scoreboard counters agree with a recount.
    pub fn check_invariants(&self) -> Result<(), String> {
        let inside = self.inside();
        for (i, f) in self.flows.iter().enumerate() {
            for (k, name) in [(0, "data"), (1, "ack")] {
                let a = self.acct[i][k];
                let (ip, ib) = inside[i][k];
                if a.emitted != a.arrived + a.dropped + ip {
                    return Err(format!(
                        "flow {i} {name}: {} packets emitted != {} arrived + {} dropped + {} inside",
                        a.emitted, a.arrived, a.dropped, ip
                    ));
                }
                if a.emitted_bytes != a.arrived_bytes + a.dropped_bytes + ib {
                    return Err(format!("flow {i} {name}: payload bytes not conserved"));
                }
            }
            if f.rec.counters.stream_violations != 0 {
                return Err(format!(
                    "flow {i}: receiver delivered out of order or twice"
                ));
            }
            if f.receiver.delivered != f.receiver.rcv_nxt {
                return Err(format!("flow {i}: delivered bytes != rcv_nxt"));
            }
            if f.receiver.rcv_nxt > f.sender.sb.snd_nxt {
                return Err(format!("flow {i}: receiver got bytes never sent"));
            }
            if f.sender.sb.snd_una > f.receiver.rcv_nxt {
                return Err(format!(
                    "flow {i}: sender saw an ACK for bytes not received"
                ));
            }
            f.sender
                .sb
                .check()
                .map_err(|e| format!("flow {i}: scoreboard: {e}"))?;
            // the sender never puts more in the pipe than cwnd allows (PRR's sndcnt included:
            // in recovery cwnd = pipe + sndcnt), but for RFC 6675 (4.3)'s first retransmission
            if f.sender.over_cwnd_sends != 0 {
                return Err(format!(
                    "flow {i}: {} transmissions exceeded cwnd",
                    f.sender.over_cwnd_sends
                ));
            }
        }
        Ok(())
    }

    pub fn accounting(&self, flow: usize) -> [Accounting; 2] {
        self.acct[flow]
    }
    pub fn events_processed(&self) -> u64 {
        self.sched.processed()
    }
    pub fn radio(&self, i: usize) -> &RadioLink {
        &self.radios[i]
    }
    pub fn radio_count(&self) -> usize {
        self.radios.len()
    }
    pub fn flow_count(&self) -> usize {
        self.flows.len()
    }
    pub fn sender(&self, flow: usize) -> &TcpSender {
        &self.flows[flow].sender
    }
    pub fn receiver(&self, flow: usize) -> &TcpReceiver {
        &self.flows[flow].receiver
    }
    pub fn recorder(&self, flow: usize) -> &FlowRecorder {
        &self.flows[flow].rec
    }
    /// Drop counts: (channel, flow, is_ack, cause) -> (packets, wire bytes).
    pub fn drops(&self) -> BTreeMap<DropKey, (u64, u64)> {
        let mut all = self.drops.clone();
        if let Some((k, (n, b))) = self.drop_memo {
            let e = all.entry(k).or_default();
            e.0 += n;
            e.1 += b;
        }
        all
    }

    /// Finish the pcap file (if any).
    pub fn close_pcap(&mut self) -> Result<Option<u64>, String> {
        match &mut self.pcap {
            Some((_, w)) => {
                w.finish().map_err(|e| format!("pcap: {e}"))?;
                Ok(Some(w.packets))
            }
            None => Ok(None),
        }
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
    Ok((RunOutput::collect(&sim, pcap), stopped))
}
