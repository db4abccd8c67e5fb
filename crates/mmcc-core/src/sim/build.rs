//! Building a simulation from its configuration: channels, radio links, flows with their
//! algorithms, the pcap writer, the first events, and the cut-through plan.

use super::*;

impl Simulation {
    /// Build with caller-supplied algorithm objects for some flows (flow index -> algorithm),
    /// e.g. algorithms written in Python; the other flows use the registry.
    pub fn with_algorithms(
        cfg: SimConfig,
        custom: BTreeMap<usize, Box<dyn CongestionControl>>,
    ) -> Result<Simulation, String> {
        let routes = cfg.validate_with(&|i| custom.contains_key(&i))?;
        let mut chans = Self::build_channels(&cfg);
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
        let aggregate = cfg.record.series.aggregates(cfg.flows.len());
        let flows = Self::build_flows(&cfg, custom, aggregate)?;
        let pcap = Self::open_pcap(&cfg)?;
        let sched = Self::first_events(&cfg, &radios);
        let nflows = flows.len();
        let bin = cfg.record.bin.0.max(1);
        let series = aggregate.then(|| {
            let starts: Vec<usize> = cfg.flows.iter().map(|f| (f.start.0 / bin) as usize).collect();
            Aggregate::new(&starts, cfg.record.bin, cfg.duration.0.div_ceil(bin) as usize)
        });
        Ok(Simulation {
            series,
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

    /// Two channels per link, `ab` then `ba`, each with its own random stream.
    fn build_channels(cfg: &SimConfig) -> Vec<Channel> {
        let mut chans = Vec::new();
        for (i, l) in cfg.links.iter().enumerate() {
            for (from, to, q, dir) in [(l.a, l.b, &l.ab, "ab"), (l.b, l.a, &l.ba, "ba")] {
                chans.push(Channel::new(from, to, l.rate, l.delay, l.mtu, q, cfg.seed, &format!("link/{i}/{dir}")));
            }
        }
        chans
    }

    /// Each flow's sender (with its algorithm: the caller's, else the registry's for its TCP
    /// profile), receiver and recorder.
    /// `aggregate`: the run records its series for all flows together ([`Aggregate`]).
    fn build_flows(
        cfg: &SimConfig,
        mut custom: BTreeMap<usize, Box<dyn CongestionControl>>,
        aggregate: bool,
    ) -> Result<Vec<Flow>, String> {
        let mut flows = Vec::new();
        for (i, f) in cfg.flows.iter().enumerate() {
            let tcp = f.tcp.resolve();
            let algo = match custom.remove(&i) {
                Some(a) => a,
                None => cca::build(&f.cca, &f.cca_params, tcp.profile).map_err(|e| format!("flows[{i}]: {e}"))?,
            };
            let cca_name = algo.name().to_string();
            let mut sender = TcpSender::new(i as u32, f.src, f.dst, &tcp, &f.app, f.start, algo);
            sender.cc.rng = crate::rng::Rng::stream(cfg.seed, &format!("flow/{i}/cca"));
            sender.cc.run_seed = cfg.seed;
            flows.push(Flow {
                sender,
                receiver: TcpReceiver::new(i as u32, f.dst, f.src, &tcp),
                rec: FlowRecorder::new(&cfg.record, aggregate),
                cca_name,
                feed_delivered: 0,
            });
        }
        Ok(flows)
    }

    /// The pcap writer and the channel it captures, if asked for.
    fn open_pcap(cfg: &SimConfig) -> Result<Option<(u32, PcapWriter)>, String> {
        let Some(p) = &cfg.pcap else { return Ok(None) };
        let w = PcapWriter::create(&p.path).map_err(|e| format!("pcap: cannot create '{}': {e}", p.path))?;
        Ok(Some(((2 * p.link + usize::from(p.direction == "ba")) as u32, w)))
    }

    /// The first radio ticks and every flow's start, stop and receiver feed.
    fn first_events(cfg: &SimConfig, radios: &[RadioLink]) -> Scheduler<Event> {
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
        sched
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
    pub(super) fn cut_through_plan(
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
}
