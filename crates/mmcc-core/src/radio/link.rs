//! One radio link: the channel state (updated every `update`, 1 ms by default) and two
//! directions (0 = downlink gNB -> UE, 1 = uplink UE -> gNB) with a per-slot scheduler.
//!
//! Per slot (125 us), a direction with work sends one transport block (TB):
//! 1. a HARQ retransmission that is due, else
//! 2. a new TB of `TBS = SE * B * eta * slot / 8` bytes, SE chosen from the SINR estimate of
//!    `cqi_delay` ago (`LinkAdaptation`: attenuated Shannon `0.6 log2(1 + SINR)`, capped, 0
//!    below the outage SINR; or ns3-mmwave's MCS table), filled with RLC retransmissions that
//!    are due, then new data (IP packets segmented).
//!
//! The TB fails with `BLER = 1 / (1 + exp(2 (delta + 1.1)))`, `delta = SINR_now + 10 log10(n) -
//! SINR_ref` (n transmissions, chase combining; SINR_ref is the estimate), or with the MCS table
//! with ns3-mmwave's steeper curve against the chosen MCS's 10 % threshold (`mcs.rs`,
//! `ns3_mmwave_bler`). A failed TB is retransmitted after the
//! HARQ round trip (8 slots) up to 4 transmissions; then its bytes go back to RLC, resent after
//! the status cycle (5 ms), at most 8 times per packet, after which the packet is discarded
//! (a loss TCP sees, cause `rlc_discard`). The receiver delivers packets to IP in order: a
//! missing packet holds back the ones behind it. Below the outage SINR nothing is sent.
//!
//! Trace-driven mode replaces SINR, BLER and HARQ with a per-millisecond capacity (Mahimahi
//! delivery opportunities of 1500 bytes).

use super::channel::{self, Budget, Shadowing};
use super::fading::Fading;
use super::mi;
use super::geometry::{self, Trajectory, Vec3};
use super::los_tracker::LosTracker;
use super::direction::{Direction, Harq};
pub use super::direction::DirStats;
use super::mcs::{generic_bler, ns3_mmwave_bler, ns3_mmwave_mac_subheader, TbSize};
pub use super::mcs::{ns3_mmwave_dl_mcs, LinkAdaptation, Quality, NS3_MMWAVE_MCS};
use super::rlc_poll::PollRetransmit;
use super::rlc_report::{GnbStatus, RlcReporting, RlcReports, GNB_STATUS_TB_BYTES, PDU_SLACK, UE_STATUS_BYTES};
use super::ul_grants::{Grant, UeRecord, UlGrants, UplinkScheduling};
use super::{PathLossModel, RadioConfig};
use crate::net::{DropCause, NodeId, Packet};
use crate::rng::Rng;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// One recorded millisecond of the radio channel.
#[derive(Clone, Copy, Debug, Default)]
pub struct RadioSample {
    pub t: Time,
    pub x: f64,
    pub y: f64,
    pub los: bool,
    pub pathloss_db: f64,
    pub sinr_dl_db: f64,
    pub sinr_ul_db: f64,
    /// Spectral efficiency link adaptation would choose now (downlink), b/s/Hz.
    pub se_dl: f64,
    /// The MCS index chosen (ns3-mmwave's table, 0-28) with `link_adaptation = "ns3-mmwave-mcs"`;
    /// -1 otherwise or when the UE is out of range.
    pub mcs_dl: i64,
    /// Bytes the downlink could carry in this millisecond (offered capacity).
    pub capacity_dl_bytes: u64,
    pub rlc_dl_bytes: u64,
    pub rlc_ul_bytes: u64,
}


/// Small-scale fading across the band.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FadingModel {
    /// One flat SINR per update.
    None,
    /// ns3-mmwave's `MmWaveBeamforming` channel structure (`fading.rs`): per chunk gains,
    /// judged by their mutual-information effective SINR (`mi.rs`).
    Ns3Mmwave,
}



/// Channel state at the last update.
#[derive(Clone, Copy, Debug, Default)]
pub struct ChannelState {
    pub pos: Vec3,
    pub los: bool,
    pub pathloss_db: f64,
    pub sinr_dl: f64,
    pub sinr_ul: f64,
    pub trace_dl_bytes: u64,
    pub trace_ul_bytes: u64,
    /// Downlink and uplink quality (with fading, per modulation).
    pub quality: [Quality; 2],
}

/// What reaches the UE's RLC at a boundary (`RadioLink::ue_event`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum UeEvent {
    /// An SDU for the uplink, this many symbols into its subframe.
    Sdu(u32),
    /// A polled downlink PDU.
    Poll,
}

pub struct RadioLink {
    pub cfg: RadioConfig,
    pub gnb: NodeId,
    pub ue: NodeId,
    traj: Trajectory,
    shadow: Shadowing,
    /// ns3-mmwave's LoS tracker (pathloss "buildings-obstacle").
    tracker: Option<LosTracker>,
    budget: [Budget; 2],
    pub state: ChannelState,
    /// Per-update quality history (dl, ul), newest last, long enough for the CQI delay.
    history: VecDeque<[Quality; 2]>,
    fading: Option<Fading>,
    /// Chunk gains of the last update, in dB (fading only).
    gains_db: Vec<f64>,
    pub dirs: [Direction; 2],
    pub samples: Vec<RadioSample>,
    slots_per_update: u64,
    trace_mode: bool,
    cqi: DlCqi,
    /// ns3-mmwave's uplink grants (`RadioConfig::uplink`), and the block the UE filled at the
    /// last boundary, sent in the subframe after it.
    ul: Option<UlGrants>,
    /// The block the UE filled at the last boundary and the symbol it ends before.
    ul_staged: Option<(Harq, u32)>,
    /// With grants: the last few downlink blocks (the subframe they are on air in, symbols),
    /// newest last.
    dl_blocks: VecDeque<(Time, u32)>,
    /// With grants (ns3-mmwave's timing), what a block takes beyond its slot, per direction: a
    /// downlink block goes on air two subframes after the scheduler fills it
    /// (`L1L2CtrlLatency`), an uplink block reaches the gNB's RLC a subframe after it ends
    /// (`TbDecodeLatency`, 100 us); without grants nothing.
    extra: [Dur; 2],
    /// Blocks on their way, per direction.
    in_flight: [VecDeque<InFlight>; 2],
    /// Uplink blocks the gNB decodes at their exact time (`ul_received_at`), with the packets
    /// their bytes complete; the simulation takes them with `take_decoded`.
    ul_decoded: VecDeque<(Time, Vec<Packet>)>,
    /// Whether the simulation holds an event for `ul_decoded`'s front.
    pub decoded_scheduled: bool,
    /// The UE reported for its STATUS with the uplink's slots stopped: its next slot
    /// (`uplink_wake`).
    ul_wake: Option<Time>,
    /// The UE's reports and polls at a boundary whose grant it has not filled yet: they come
    /// with the block decoded in that subframe, after the fill (`uplink.rs`).
    ul_deferred: Vec<(Time, UeEvent)>,
    /// The symbol the uplink block being sent ends before (`ul_received_at`).
    ul_sending_end: u32,
}

/// A block on its way (`RadioLink::in_flight`): the boundary at which its bytes join the
/// receiver's reassembly, the time the receiver has them, its bytes, and whether its PDU polls
/// (a downlink block: every PDU of new data, a copy as `rlc_poll.rs` says).
type InFlight = (Time, Time, Vec<(u64, u32)>, bool);

/// The gNB's knowledge of the UE's downlink CQI (`RadioConfig::cqi_expiry`): reports are made
/// on each downlink block and become usable `cqi_report_delay` later.
#[derive(Default)]
struct DlCqi {
    /// Blocks whose reports are not usable yet (oldest first).
    in_flight: VecDeque<Time>,
    /// When the newest usable report became usable.
    usable: Option<Time>,
}

impl DlCqi {
    /// A downlink block was sent at `at`: the UE reports on it.
    fn on_block(&mut self, at: Time) {
        if self.in_flight.back() != Some(&at) {
            self.in_flight.push_back(at);
        }
    }

    /// Whether the scheduler holds an unexpired CQI at `now`.
    fn known(&mut self, now: Time, delay: Dur, expiry: Dur) -> bool {
        while let Some(&r) = self.in_flight.front() {
            if r + delay > now {
                break;
            }
            self.in_flight.pop_front();
            self.usable = Some(r + delay);
        }
        self.usable.is_some_and(|u| now < u + expiry)
    }
}

impl RadioLink {
    /// The downlink's and the uplink's link budgets.
    fn budgets(cfg: &RadioConfig) -> (Budget, Budget) {
        // G_bf = 10 log10(N_gNB) + 10 log10(N_UE) (ideal alignment), unless given
        let bf = cfg.bf_gain_db.unwrap_or(
            10.0 * (cfg.gnb_antennas.max(1) as f64).log10()
                + 10.0 * (cfg.ue_antennas.max(1) as f64).log10(),
        );
        let dl = Budget {
            tx_power_dbm: cfg.gnb_tx_power_dbm,
            bf_gain_db: bf,
            noise_dbm: channel::noise_dbm(cfg.bandwidth_hz, cfg.ue_noise_figure_db),
            // ns3-mmwave's obstacle model has no blockage constant: its tracker gives NLoS losses
            blockage_db: if cfg.pathloss == PathLossModel::BuildingsObstacle {
                0.0
            } else {
                cfg.blockage_db
            },
            interference_db: cfg.interference_db,
        };
        let ul = Budget {
            tx_power_dbm: cfg.ue_tx_power_dbm,
            noise_dbm: channel::noise_dbm(cfg.bandwidth_hz, cfg.gnb_noise_figure_db),
            ..dl
        };
        (dl, ul)
    }

    pub fn new(cfg: &RadioConfig, gnb: NodeId, ue: NodeId, seed: u64, name: &str) -> RadioLink {
        let (dl, ul) = Self::budgets(cfg);
        let sched = Dur(cfg.slot.0 * cfg.ul_scheduling_slots as u64);
        let trace_mode = !cfg.trace_dl.is_empty();
        // with grants a packet waits for its grant, not for a fixed delay
        let granted = cfg.uplink == UplinkScheduling::Ns3Mmwave && !trace_mode;
        let mut r = RadioLink {
            cfg: cfg.clone(),
            gnb,
            ue,
            traj: Trajectory::new(cfg.ue_position, cfg.mobility.clone()),
            shadow: Shadowing::new(
                Rng::stream(seed, &format!("{name}/shadowing")),
                cfg.shadowing,
            ),
            tracker: (cfg.pathloss == PathLossModel::BuildingsObstacle).then(LosTracker::default),
            budget: [dl, ul],
            state: ChannelState::default(),
            history: VecDeque::new(),
            // a replayed capacity trace has no SINR to fade
            fading: (cfg.fading == FadingModel::Ns3Mmwave && cfg.trace_dl.is_empty())
                .then(|| {
                    Fading::new(
                        cfg.fading_chunks as usize,
                        cfg.bandwidth_hz,
                        cfg.carrier_ghz,
                        cfg.fading_period,
                        [cfg.gnb_antennas, cfg.ue_antennas],
                        Rng::stream(seed, &format!("{name}/fading")),
                    )
                }),
            gains_db: Vec::new(),
            dirs: [
                Direction::new(
                    gnb,
                    ue,
                    &cfg.rlc_buffer,
                    Dur::ZERO,
                    Rng::stream(seed, &format!("{name}/dl/bler")),
                ),
                Direction::new(
                    ue,
                    gnb,
                    &cfg.rlc_buffer,
                    if granted { Dur::ZERO } else { sched },
                    Rng::stream(seed, &format!("{name}/ul/bler")),
                ),
            ],
            samples: Vec::new(),
            slots_per_update: (cfg.update.0 / cfg.slot.0).max(1),
            trace_mode,
            cqi: DlCqi::default(),
            ul: granted.then(|| UlGrants::new(cfg.slot, cfg.data_symbols)),
            ul_staged: None,
            dl_blocks: VecDeque::new(),
            extra: if granted { [Dur(2 * cfg.slot.0), cfg.slot] } else { [Dur::ZERO; 2] },
            in_flight: [VecDeque::new(), VecDeque::new()],
            ul_decoded: VecDeque::new(),
            decoded_scheduled: false,
            ul_wake: None,
            ul_deferred: Vec::new(),
            ul_sending_end: cfg.data_symbols + 1,
        };
        r.dirs[1].rlc_headers = granted;
        if cfg.rlc_reporting == RlcReporting::Ns3Mmwave && !r.trace_mode {
            // the UE's STATUS PDU goes through the uplink's scheduling delay
            r.dirs[0].reports =
                Some(RlcReports::new(cfg.rlc_report_timer, cfg.rlc_status_prohibit, sched, cfg.rlc_poll_retransmit));
        }
        r.update(Time::ZERO);
        r
    }

    /// Downlink spectral efficiency for an estimated SINR.
    pub fn spectral_efficiency(&self, sinr_db: f64) -> f64 {
        self.choose(sinr_db, 0).0
    }

    /// The ns3-mmwave downlink MCS index `choose` takes for an estimated SINR (-1: another link
    /// adaptation, or below MCS 0 / the outage threshold).
    pub fn mcs_index(&self, est_db: f64) -> i64 {
        self.mcs_index_q(&Quality::flat(est_db))
    }

    fn mcs_index_q(&self, est: &Quality) -> i64 {
        if self.cfg.link_adaptation != LinkAdaptation::Ns3MmwaveMcs || est.mean_db < self.cfg.outage_sinr_db {
            return -1;
        }
        self.mcs_for(est, 0).map_or(-1, |m| m as i64)
    }

    /// Link adaptation for a flat channel (see `choose_q`).
    fn choose(&self, est_db: f64, d: usize) -> (f64, f64) {
        let (se, r, _) = self.choose_q(&Quality::flat(est_db), d);
        (se, r)
    }

    /// Link adaptation: (spectral efficiency, the SINR its block error rate is measured
    /// against, the block's MCS) for an estimated quality, on the downlink (`d` 0) or the
    /// uplink (1).
    fn choose_q(&self, est: &Quality, d: usize) -> (f64, f64, Option<usize>) {
        if est.mean_db < self.cfg.outage_sinr_db {
            return (0.0, est.mean_db, None);
        }
        match self.cfg.link_adaptation {
            // SE = 0.6 log2(1 + SINR) (TR 36.942 A.1 style)
            LinkAdaptation::Shannon => (
                (0.6 * (1.0 + 10f64.powf(est.mean_db / 10.0)).log2()).min(self.cfg.se_cap),
                est.mean_db,
                None,
            ),
            LinkAdaptation::Ns3MmwaveMcs => self.mcs_for(est, d).map_or((0.0, est.mean_db, None), |m| {
                let (se, thr) = self.at_mcs(m);
                (se, thr, Some(m))
            }),
        }
    }

    /// (spectral efficiency, its 10 % BLER threshold) of ns3-mmwave's MCS `m`.
    fn at_mcs(&self, m: usize) -> (f64, f64) {
        let (thr, se) = NS3_MMWAVE_MCS[m];
        (se.min(self.cfg.se_cap), thr)
    }

    /// ns3-mmwave's MCS: the highest whose 10 % threshold is at or below the estimate's
    /// effective SINR for its modulation (`MmWaveAmc::CreateCqiFeedbackWbTdma` under the MI error
    /// model), through the CQI report on the downlink ([`ns3_mmwave_dl_mcs`]); None below MCS 0.
    fn mcs_for(&self, est: &Quality, d: usize) -> Option<usize> {
        let allowed =
            NS3_MMWAVE_MCS.iter().enumerate().rposition(|(m, t)| t.0 <= est.eff_db[mi::modulation_of_mcs(m)])?;
        Some(if d == 0 { ns3_mmwave_dl_mcs(allowed) } else { allowed })
    }

    /// Transport block size in bytes for a spectral efficiency: SE * B * eta * slot / 8.
    pub fn tbs(&self, se: f64) -> u64 {
        (se * self.cfg.bandwidth_hz * self.cfg.eta * self.cfg.slot.secs_f64() / 8.0) as u64
    }

    /// The error rate of a block of MCS `mcs` (None: no MCS table) whose channel quality is
    /// `sinr` after `tx` transmissions (chase combining adds 10 log10(tx) dB) against its
    /// reference `ref_sinr`: ns3-mmwave's steep curve with its MCS table, the generic one
    /// otherwise.
    fn block_error(sinr: &Quality, mcs: Option<usize>, tx: u32, ref_sinr: f64) -> f64 {
        let delta = sinr.for_modulation(mcs.map(mi::modulation_of_mcs)) + 10.0 * (tx as f64).log10() - ref_sinr;
        match mcs {
            Some(m) => ns3_mmwave_bler(delta, m),
            None => generic_bler(delta),
        }
    }

    /// UE position at time `t`.
    pub fn ue_position(&self, t: Time) -> Vec3 {
        self.traj.position(t)
    }

    /// Recompute the channel at `now` and record a sample (called every `update`).
    pub fn update(&mut self, now: Time) {
        let pos = self.traj.position(now);
        self.state.pos = pos;
        self.flat_channel(now, pos);
        self.state.quality = [Quality::flat(self.state.sinr_dl), Quality::flat(self.state.sinr_ul)];
        self.apply_fading(now, pos);
        let keep = (self.cfg.cqi_delay.0 / self.cfg.update.0) as usize + 1;
        self.history.push_back(self.state.quality);
        while self.history.len() > keep {
            self.history.pop_front();
        }
        self.record_sample(now, pos);
    }

    /// LoS state, path loss and the flat (unfaded) SINR of both directions at `now`: from the
    /// replayed trace, the SINR schedule, or the geometry and the link budget.
    fn flat_channel(&mut self, now: Time, pos: Vec3) {
        let s = &mut self.state;
        let f = self.cfg.carrier_ghz;
        if self.trace_mode {
            let ms = (now.0 / 1_000_000) as usize;
            let dl = self.cfg.trace_dl[ms % self.cfg.trace_dl.len()] as u64 * 1500;
            let ul = if self.cfg.trace_ul.is_empty() {
                125_000 // 1 Gb/s
            } else {
                self.cfg.trace_ul[ms % self.cfg.trace_ul.len()] as u64 * 1500
            };
            s.trace_dl_bytes = dl;
            s.trace_ul_bytes = ul;
            s.los = dl > 0;
            s.sinr_dl = if dl > 0 { 30.0 } else { -30.0 };
            s.sinr_ul = s.sinr_dl;
        } else if !self.cfg.sinr_schedule.is_empty() {
            // SINR schedule: the latest step at or before now; LoS while SINR >= 0 dB
            let v = self
                .cfg
                .sinr_schedule
                .iter()
                .take_while(|x| x.t <= now)
                .last()
                .map_or(self.cfg.sinr_schedule[0].sinr_db, |x| x.sinr_db);
            s.sinr_dl = v;
            // uplink: 7 dB less power, 2 dB better noise figure
            s.sinr_ul = v - (self.cfg.gnb_tx_power_dbm - self.cfg.ue_tx_power_dbm)
                + (self.cfg.ue_noise_figure_db - self.cfg.gnb_noise_figure_db);
            s.los = v >= 0.0;
        } else {
            let (gnb, obstacles) = (self.cfg.gnb_position, &self.cfg.obstacles);
            let (vis, pl, sigma) = match &mut self.tracker {
                // ns3-mmwave: its own (2D) LoS rule; NLoS and the return to LoS follow the
                // tracker's blockage traces relative to the LoS loss; no shadowing, no foliage
                Some(tr) => {
                    let nlos = geometry::ns3_mmwave_blocked(gnb, pos, obstacles);
                    let pl = tr.loss_db(now, !nlos, geometry::dist(gnb, pos), f);
                    (geometry::Visibility { nlos, foliage_m: 0.0 }, pl, 0.0)
                }
                None => {
                    let vis = geometry::visibility(gnb, pos, obstacles);
                    let (pl, sigma) = channel::path_loss(self.cfg.pathloss, !vis.nlos, gnb, pos, f);
                    (vis, pl, sigma)
                }
            };
            let sf = self.shadow.sample(pos, !vis.nlos, sigma);
            s.los = !vis.nlos;
            s.pathloss_db = pl;
            s.sinr_dl = channel::sinr_db(&self.budget[0], pl, sf, vis, f);
            s.sinr_ul = channel::sinr_db(&self.budget[1], pl, sf, vis, f);
        }
    }

    /// With small-scale fading: the chunks' gains of the current realisation (beams included)
    /// turn each direction's flat SINR into its mean and MI effective SINRs (`fading.rs`,
    /// `mi.rs`); the recorded SINR is the chunks' mean.
    fn apply_fading(&mut self, now: Time, pos: Vec3) {
        let Some(fad) = &mut self.fading else { return };
        let s = &mut self.state;
        let speed = self.traj.speed(now);
        let [gx, gy, gz] = self.cfg.gnb_position;
        let elev = (gz - pos[2]).atan2((gx - pos[0]).hypot(gy - pos[1]));
        let mut g = std::mem::take(&mut self.gains_db);
        fad.gains(now, speed, elev, &mut g);
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        g.iter_mut().for_each(|x| *x = 10.0 * x.max(1e-30).log10());
        for (q, flat) in s.quality.iter_mut().zip([s.sinr_dl, s.sinr_ul]) {
            *q = Quality {
                mean_db: flat + 10.0 * mean.log10(),
                eff_db: std::array::from_fn(|m| mi::effective_sinr_db(m, flat, &g)),
            };
        }
        s.sinr_dl = s.quality[0].mean_db;
        s.sinr_ul = s.quality[1].mean_db;
        self.gains_db = g;
    }

    fn record_sample(&mut self, now: Time, pos: Vec3) {
        let est = self.estimate(0);
        let se = self.choose_q(&est, 0).0;
        let cap = if self.trace_mode {
            self.state.trace_dl_bytes
        } else {
            self.tbs(se) * self.slots_per_update
        };
        self.samples.push(RadioSample {
            t: now,
            x: pos[0],
            y: pos[1],
            los: self.state.los,
            pathloss_db: self.state.pathloss_db,
            sinr_dl_db: self.state.sinr_dl,
            sinr_ul_db: self.state.sinr_ul,
            se_dl: if self.trace_mode { 0.0 } else { se },
            mcs_dl: if self.trace_mode { -1 } else { self.mcs_index_q(&est) },
            capacity_dl_bytes: cap,
            rlc_dl_bytes: self.dirs[0].buffered_bytes(),
            rlc_ul_bytes: self.dirs[1].buffered_bytes(),
        });
    }

    fn current(&self, d: usize) -> Quality {
        self.state.quality[d]
    }

    /// The quality estimate link adaptation uses (the value `cqi_delay` ago).
    fn estimate(&self, d: usize) -> Quality {
        self.history.front().expect("updated at creation")[d]
    }

    /// Downlink SINR recorded at time `t` (for cross-layer feeds), if the run has reached it.
    pub fn sinr_dl_at(&self, t: Time) -> Option<f64> {
        let i = (t.0 / self.cfg.update.0) as usize;
        self.samples
            .get(i.min(self.samples.len().saturating_sub(1)))
            .map(|s| s.sinr_dl_db)
    }

    /// Offer a packet to direction `d`; returns whether a slot event must be scheduled (and
    /// when), or the drop cause.
    pub fn enqueue(
        &mut self,
        d: usize,
        pkt: &Packet,
        now: Time,
    ) -> Result<Option<Time>, DropCause> {
        let header = if self.trace_mode { 0 } else { self.cfg.pdcp_header };
        self.dirs[d].enqueue(pkt, header, now)?;
        if let Some(t) = self.dirs[0].reports.as_mut().and_then(|r| r.take_idle_status()) {
            // the STATUS's block went at the decision after the timer (rlc_report.rs)
            self.cqi.on_block(self.boundary_from(t));
        }
        if d == 1 {
            if let Some(r) = self.dirs[0].reports.as_mut() {
                r.on_uplink_sdu(now);
            }
            let arrival = Self::arrival_symbol(&self.cfg, &self.dl_blocks, now);
            self.ue_event(now, UeEvent::Sdu(arrival));
        }
        Ok(self.wake(d, now))
    }

    /// How many symbols into its slot a packet reaching the UE's uplink at `now` arrives: at a
    /// boundary it came from the downlink block of the slot before and arrives as many symbols
    /// in as that block ended (its decoding takes a slot, `ul_grants.rs`); otherwise its own
    /// offset. Symbols of a slot: the data symbols and two control symbols.
    fn arrival_symbol(cfg: &RadioConfig, dl_blocks: &VecDeque<(Time, u32)>, now: Time) -> u32 {
        let (s, per) = (cfg.slot.0, cfg.data_symbols as u64 + 2);
        let sf = now.0 / s * s;
        if now.0 > sf {
            return ((now.0 - sf) * per).div_ceil(s) as u32;
        }
        let prev = dl_blocks.iter().find(|b| b.0 .0 + s == sf).map_or(0, |b| b.1);
        if prev == 0 { 0 } else { 1 + prev }
    }

    /// With grants, remember the symbols of a downlink block filled at `now` (`arrival_symbol`).
    fn note_dl_block(&mut self, now: Time, symbols: u32) {
        if self.ul.is_none() {
            return;
        }
        // kept until the packets of its subframe have arrived, a subframe after it (blocks of
        // the two subframes before are on their way, `L1L2CtrlLatency`)
        let s = self.cfg.slot.0;
        while self.dl_blocks.front().is_some_and(|b| b.0 .0 + s < now.0) {
            self.dl_blocks.pop_front();
        }
        self.dl_blocks.push_back((now + self.extra[0], symbols));
    }

    /// Whether direction `d` has anything to do at the next slot: data, or the gNB's poll
    /// timer and its copies (`rlc_poll.rs`).
    fn has_work(&self, d: usize) -> bool {
        self.has_data(d) || (d == 0 && self.poll().is_some_and(|p| p.busy()))
    }

    /// Whether direction `d` has data to send or deliver.
    fn has_data(&self, d: usize) -> bool {
        self.dirs[d].has_work()
            || !self.in_flight[d].is_empty()
            || (d == 1 && (self.ul_staged.is_some() || self.ul.as_ref().is_some_and(|u| u.busy())))
    }

    /// The gNB's poll timer (`rlc_poll.rs`), if modelled.
    fn poll(&self) -> Option<&PollRetransmit> {
        self.dirs[0].reports.as_ref().and_then(|r| r.poll.as_ref())
    }

    fn poll_mut(&mut self) -> Option<&mut PollRetransmit> {
        self.dirs[0].reports.as_mut().and_then(|r| r.poll.as_mut())
    }

    fn wake(&mut self, d: usize, now: Time) -> Option<Time> {
        if self.dirs[d].slot_scheduled || !self.has_work(d) {
            return None;
        }
        self.dirs[d].slot_scheduled = true;
        Some(self.boundary_from(now))
    }

    /// The slot boundary at or after `t`.
    fn boundary_from(&self, t: Time) -> Time {
        let s = self.cfg.slot.0;
        Time(t.0.div_ceil(s) * s)
    }

    /// One slot of direction `d` at `now`: packets delivered in order to the far end go to
    /// `out`, discarded and AQM-dropped packets to `drops`. Returns the next slot time if there
    /// is more work.
    pub fn slot(
        &mut self,
        d: usize,
        now: Time,
        out: &mut Vec<Packet>,
        drops: &mut Vec<(Packet, DropCause)>,
    ) -> Option<Time> {
        self.dirs[d].slot_scheduled = false;
        let mut polled = false;
        while self.in_flight[d].front().is_some_and(|b| b.0 <= now) {
            let (_, at, segs, polls) = self.in_flight[d].pop_front().expect("front");
            self.dirs[d].pending.extend(segs);
            polled |= polls;
            if d == 1 {
                // reassembled at this boundary, handed on when the gNB has decoded the block
                let n = out.len();
                self.dirs[1].deliver(out, drops);
                self.ul_decoded.push_back((at, out.drain(n..).collect()));
            }
        }
        if d == 1 {
            self.take_decoded(now, out);
            if self.dirs[1].has_pending() {
                self.uplink_polled(now);
            }
        }
        if d == 0 && self.ul.is_some() && (self.dirs[0].has_pending() || polled) {
            self.ue_polled(now);
        }
        self.dirs[d].deliver(out, drops);
        let retx = self.dirs[d].retx_waiting();
        self.dirs[d].with_reports(|r, queued, held| {
            r.due(now, queued, held);
            // the poll timer after the STATUS PDUs due now; idle: nothing new or resent waits
            if let Some(p) = r.poll.as_mut() {
                p.due(now, queued == 0 && !retx);
            }
        });
        if let Some(t) = self.dirs[d].reports.as_mut().and_then(|r| r.take_idle_status()) {
            // the report timer's STATUS went in a block of its own (rlc_report.rs)
            self.cqi.on_block(self.boundary_from(t));
        }
        let sinr = self.current(d);
        let outage = sinr.mean_db < self.cfg.outage_sinr_db;
        self.decide_grants(now);
        if self.trace_mode {
            self.trace_slot(d, now, drops);
        } else if d == 1 && self.ul.is_some() {
            self.granted_slot(now, sinr, drops);
        } else if !outage {
            if self.dirs[d].harq.front().is_some_and(|h| h.due <= now) {
                self.harq_retransmission(d, now, sinr);
            } else {
                self.new_block(d, now, sinr, drops);
            }
        }
        if self.has_work(d) {
            self.dirs[d].slot_scheduled = true;
            Some(now + self.cfg.slot)
        } else {
            None
        }
    }

    /// A replayed trace: the slot carries its share of the millisecond's delivery opportunities.
    fn trace_slot(&mut self, d: usize, now: Time, drops: &mut Vec<(Packet, DropCause)>) {
        let per_update = if d == 0 {
            self.state.trace_dl_bytes
        } else {
            self.state.trace_ul_bytes
        };
        let dir = &mut self.dirs[d];
        dir.credit = dir.credit.min(per_update) + per_update / self.slots_per_update;
        if per_update > 0 {
            let segs = dir.fill(dir.credit, now, drops);
            let sent: u64 = segs.iter().map(|s| s.1 as u64).sum();
            dir.credit -= sent.min(dir.credit);
            if !segs.is_empty() {
                dir.stats.tbs += 1;
                dir.stats.air_bytes += sent;
            }
            dir.pending = segs;
        }
    }

    /// The oldest failed block whose HARQ round trip is over goes again; chase combining adds
    /// 10 log10(n) dB after n transmissions.
    fn harq_retransmission(&mut self, d: usize, now: Time, sinr: Quality) {
        if d == 0 {
            self.cqi.on_block(now); // the UE reports on a retransmitted block too
            self.note_dl_block(now, self.cfg.data_symbols);
        }
        let dir = &mut self.dirs[d];
        let mut h = dir.harq.pop_front().expect("due");
        h.tx += 1;
        dir.stats.harq_retx += 1;
        dir.stats.air_bytes += h.air_bytes();
        let failed = dir.rng.bernoulli(Self::block_error(&sinr, h.mcs, h.tx, h.ref_sinr));
        self.settle(d, h, failed, now);
    }

    /// A transmission's outcome: delivered, or (failed) another try after the HARQ round trip,
    /// or after `harq_max_tx` tries the RLC's retransmission.
    fn settle(&mut self, d: usize, mut h: Harq, failed: bool, now: Time) {
        // a downlink block is on air `extra` (two subframes) on; the UE has it at the boundary
        // after it (at the next slot without those latencies)
        let at_ue = now + self.extra[0] + self.cfg.slot;
        if !failed && h.pdu != 0 {
            let new = h.air_bytes() - h.copy;
            if let Some(p) = self.poll_mut() {
                p.received(h.pdu, new, at_ue);
            }
        }
        if !failed && self.extra[d] > Dur::ZERO {
            let (boundary, at) = if d == 0 {
                (at_ue, at_ue)
            } else {
                let at = self.ul_received_at(now, self.ul_sending_end);
                let s = self.cfg.slot.0;
                (Time(at.0 / s * s), at)
            };
            self.in_flight[d].push_back((boundary, at, h.segs, h.polls));
            return;
        }
        let dir = &mut self.dirs[d];
        if !failed {
            dir.pending.extend(h.segs);
            // every PDU polls (rlc_report.rs); the UE has it at the next slot (with uplink
            // grants, whose blocks are `in_flight` above, its STATUS is requested then,
            // `ue_polled`; only the downlink keeps reports, and here `extra` is zero)
            if let Some(r) = dir.reports.as_mut().filter(|_| h.polls) {
                r.polled(at_ue);
            }
            return;
        }
        dir.stats.tb_failures += 1;
        if h.tx < self.cfg.harq_max_tx {
            h.due = now + Dur(self.cfg.slot.0 * self.cfg.harq_rtt_slots as u64);
            dir.harq.push_back(h);
        } else {
            dir.harq_gave_up(&h.segs, now, self.cfg.rlc_status, self.cfg.rlc_max_retx);
        }
    }

    /// A new block at the MCS link adaptation chooses (ns3-mmwave without a valid downlink CQI:
    /// CQI 1, MCS 0), filled from the RLC buffer; a failed one waits for its HARQ round trip.
    fn new_block(&mut self, d: usize, now: Time, sinr: Quality, drops: &mut Vec<(Packet, DropCause)>) {
        let (se, ref_sinr, mcs) = match self.cfg.cqi_expiry {
            Some(exp) if d == 0 && !self.cqi.known(now, self.cfg.cqi_report_delay, exp) => {
                let (se, thr) = self.at_mcs(0);
                (se, thr, Some(0))
            }
            _ => {
                let est = self.estimate(d);
                self.choose_q(&est, d)
            }
        };
        let tb = self.tb_size(se, mcs);
        let mut cap = tb.bytes(self.cfg.data_symbols);
        if let (0, Some(u)) = (d, self.ul.as_mut()) {
            // the symbols the uplink's grants left (ul_grants.rs)
            cap = tb.bytes(u.downlink_symbols(now + self.extra[0]));
        }
        if cap == 0 {
            return;
        }
        let status = match self.dirs[0].reports.as_mut() {
            Some(r) if d == 0 => r.gnb_status_now(now),
            _ => GnbStatus::No,
        };
        if status == GnbStatus::Alone {
            // the gNB's STATUS for the uplink takes the data's opportunity (rlc_report.rs)
            let r = self.dirs[0].reports.as_mut().expect("reports");
            let asked = r.allowance(cap);
            r.scheduled(asked);
            self.status_block(now, asked, tb);
            return;
        }
        if status == GnbStatus::WithData {
            // its own PDU in the block, before the data's
            cap = cap.saturating_sub(GNB_STATUS_TB_BYTES);
        }
        if d == 0 && !self.dirs[0].retx_waiting() {
            // the retransmission buffer goes first, one PDU per opportunity (rlc_poll.rs)
            if let Some((copy, polls)) = self.poll_mut().and_then(|p| p.next_copy(cap)) {
                self.cqi.on_block(now);
                self.note_dl_block(now, self.block_symbols(copy, tb));
                let pdu = self.poll_mut().map_or(0, |p| p.sent(now, polls));
                let h = Harq { copy, pdu, polls, ..Harq::data(now, ref_sinr, mcs, Vec::new()) };
                self.send_block(d, h, sinr, now);
                return;
            }
        }
        let segs = self.dirs[d].fill(cap, now, drops);
        if segs.is_empty() {
            if status == GnbStatus::WithData {
                self.status_block(now, GNB_STATUS_TB_BYTES, tb);
            }
            return;
        }
        let mut h = Harq::data(now, ref_sinr, mcs, segs);
        if d == 0 {
            self.cqi.on_block(now);
            self.note_dl_block(now, self.block_symbols(h.air_bytes(), tb));
            // every new PDU polls (`PollPdu` 1)
            h.pdu = self.poll_mut().map_or(0, |p| p.sent(now, true));
        }
        self.send_block(d, h, sinr, now);
    }

    /// A downlink block filled at `now` that carries the gNB's STATUS and no data, sized for
    /// `bytes`: counted, its symbols taken, and the UE reports its CQI on it.
    fn status_block(&mut self, now: Time, bytes: u64, tb: TbSize) {
        self.cqi.on_block(now);
        self.note_dl_block(now, self.block_symbols(bytes, tb));
        self.dirs[0].stats.tbs += 1;
    }

    /// A block's first transmission: counted, judged by its error curve and settled.
    fn send_block(&mut self, d: usize, h: Harq, sinr: Quality, now: Time) {
        let dir = &mut self.dirs[d];
        dir.stats.tbs += 1;
        dir.stats.air_bytes += h.air_bytes();
        let failed = dir.rng.bernoulli(Self::block_error(&sinr, h.mcs, h.tx, h.ref_sinr));
        self.settle(d, h, failed, now);
    }

    /// The data symbols a downlink block of `bytes` takes when `full` bytes fill all of them
    /// (at least one).
    fn block_symbols(&self, bytes: u64, tb: TbSize) -> u32 {
        tb.min_symbols(bytes, self.cfg.data_symbols + 2).min(self.cfg.data_symbols)
    }

    /// How a block's size follows its symbols at spectral efficiency `se` and MCS `mcs`:
    /// ns3-mmwave's transport block sizes with its MCS table, else linear in the symbols.
    pub(super) fn tb_size(&self, se: f64, mcs: Option<usize>) -> TbSize {
        match (self.cfg.link_adaptation, mcs) {
            (LinkAdaptation::Ns3MmwaveMcs, Some(mcs)) => TbSize::Ns3Mmwave { re: self.re_per_symbol(), mcs },
            _ => TbSize::Linear { full: self.tbs(se), symbols: self.cfg.data_symbols },
        }
    }

    /// Data resource elements per symbol: eta x bandwidth x slot over the data symbols
    /// (ns3-mmwave's frame: 2592 of 3456 subcarriers, `MmWavePhyMacCommon`).
    fn re_per_symbol(&self) -> u64 {
        let per_slot = self.cfg.eta * self.cfg.bandwidth_hz * self.cfg.slot.secs_f64();
        (per_slot / self.cfg.data_symbols.max(1) as f64).round() as u64
    }

    /// Stop a direction's slots (its packets stay where they are).
    pub fn for_each_inside(&self, mut f: impl FnMut(&Packet)) {
        for d in &self.dirs {
            d.for_each_inside(&mut f);
        }
        self.ul_decoded.iter().flat_map(|b| &b.1).for_each(f);
    }
}

mod uplink;

#[cfg(test)]
mod tests;
