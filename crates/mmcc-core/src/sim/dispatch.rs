//! The event loop's dispatch: each event to its channel, radio link or endpoint, and packets
//! on along their routes.

use super::*;

impl Simulation {
    pub(super) fn handle(&mut self, ev: Event) {
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
            Event::RadioSlot { radio, dir } => self.radio_slot(radio, dir),
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
            Event::ReceiverFeed { flow } => self.receiver_feed(flow),
            Event::FlowStop { flow } => {
                self.with_flow(flow, |f, ctx| {
                    ctx.rec.event(ctx.now, "stop", 0.0);
                    f.sender.stop(ctx)
                });
            }
        }
    }

    /// A radio direction's slot: what it delivered goes on, what it dropped is counted, and its
    /// next slot and the gNB's next decoded uplink block are scheduled.
    fn radio_slot(&mut self, radio: u32, dir: u8) {
        let now = self.sched.now();
        let mut out = Vec::new();
        let mut drops = Vec::new();
        let next = self.radios[radio as usize].slot(dir as usize, now, &mut out, &mut drops);
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
        if let Some(t) = self.radios[radio as usize].uplink_wake() {
            self.sched.schedule(t, Event::RadioSlot { radio, dir: 1 });
        }
        self.radio_out(radio, dir, out);
    }

    /// The receiving application's throughput over the last interval, handed to the sender at
    /// once (the authors' scripts set a static in the algorithm).
    fn receiver_feed(&mut self, flow: u32) {
        let now = self.sched.now();
        let d = self.cfg.flows[flow as usize].receiver_feed.expect("scheduled with a feed");
        let f = &mut self.flows[flow as usize];
        let got = f.receiver.delivered - f.feed_delivered;
        f.feed_delivered = f.receiver.delivered;
        f.sender.cc.receiver_rate = Some(got as f64 / d.secs_f64());
        let next = now + d;
        if next.0 < self.cfg.duration.0 {
            self.sched.schedule(next, Event::ReceiverFeed { flow });
        }
    }

    /// Run `f` on a flow's endpoints, then queue what it sent and the timers it armed.
    pub(super) fn with_flow(&mut self, flow: u32, f: impl FnOnce(&mut FlowParts, &mut Ctx)) {
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
            if let (Some(a), false) = (&mut self.series, fl.rec.done.is_empty()) {
                a.absorb(flow as usize, fl.sender.cc.mss, &mut fl.rec.done);
            }
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
    pub(super) fn arrives_first(&self, from: (u32, u32), next: u32, pkt: &Packet) -> bool {
        (from.0 as usize) < self.chans.len()
            && self.chans[from.0 as usize].reception_lead(from.1) > self.chans[next as usize].serialization(pkt)
    }

    /// Put a packet leaving `node` into the next channel of its route. Channels always take
    /// time (serialization), so this never re-enters an endpoint: no recursion, no staging queue.
    #[inline]
    pub(super) fn send_from(&mut self, node: NodeId, pkt: &Packet) {
        self.forward(node, pkt, None);
    }

    /// Packets a radio direction delivered: to their endpoint, or on from the receiving node.
    pub(super) fn radio_out(&mut self, radio: u32, dir: u8, out: Vec<Packet>) {
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
    pub(super) fn forward(&mut self, node: NodeId, pkt: &Packet, from: Option<(u32, u32)>) {
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

    pub(super) fn radio_port(&self, radio: u32, dir: u8) -> u32 {
        (self.chans.len() + 2 * radio as usize + dir as usize) as u32
    }

    pub(super) fn at_endpoint(&mut self, pkt: &Packet) {
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
    pub(super) fn after_channel(&mut self, chan: u32, p: &Packet, v: Verdict) {
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
    pub(super) fn apply_wakes(&mut self, chan: u32, w: Wakes) {
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
    pub(super) fn handoff(&mut self, chan: u32) {
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

    pub(super) fn count_drop(&mut self, chan: u32, p: &Packet, cause: DropCause) {
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
}
