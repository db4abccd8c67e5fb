//! The TCP sender: segmentation, transmission under cwnd / rwnd / pacing, ACK processing,
//! loss recovery (RFC 6675 with PRR, RFC 6937; NewReno partial ACKs, RFC 6582, without SACK),
//! retransmission timeout (RFC 6298) and the congestion-control hooks.
//!
//! This file holds the sender's state, the connection set-up, the send buffer, the ACK path
//! and the timers; `output.rs` decides what may be sent and sends it, `recovery.rs` marks losses
//! and runs the congestion state machine, PRR, undo and the retransmission timer.

use super::app::{App, AppConfig};
use super::prr::{Prr, Ssrb};
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::rules::{AckFacts, Hook, Rules, StackRules};
use super::scoreboard::{AckOutcome, Scoreboard, SegRec};
use super::sndbuf::{self, GSO_MAX_SIZE};
use super::{Ctx, TcpSettings, TimerKind};
use crate::cca::{AckEvent, CaState, CcState, CongestionControl, CongestionEvent, CongestionKind};
use crate::engine::timer::Fired;
use crate::engine::LazyTimer;
use crate::net::{FlowId, NodeId, Packet};
use crate::time::{Bandwidth, Dur, Time};

mod output;
mod recovery;

/// One jiffy of the `linux` profile's kernel: CONFIG_HZ = 250 (Debian's kernels and the testbed
/// machine's). RACK's reordering timer counts in jiffies (`usecs_to_jiffies`, `TCP_TIMEOUT_MIN`).
const LINUX_JIFFY: Dur = Dur::from_millis(4);

/// Counts of what stopped the sender while it had data to send.
#[derive(Clone, Copy, Debug, Default)]
pub struct SendStops {
    pub cwnd: u64,
    pub rwnd: u64,
    pub sndbuf: u64,
}

impl SendStops {
    /// Shares of the stops due to the receive window and to the send buffer.
    pub fn ratios(&self) -> (f64, f64) {
        let n = (self.cwnd + self.rwnd + self.sndbuf) as f64;
        if n == 0.0 {
            return (0.0, 0.0);
        }
        (self.rwnd as f64 / n, self.sndbuf as f64 / n)
    }
}

pub struct TcpSender {
    pub flow: FlowId,
    pub node: NodeId,
    pub peer: NodeId,
    cfg: TcpSettings,
    mss: u64,
    /// TCP option bytes on every segment (timestamps).
    opt_bytes: u8,
    /// How this sender's reference stack decides what the RFCs leave open (`tcp/rules/`).
    rules: Rules,
    pub cca: Box<dyn CongestionControl>,
    pub cc: CcState,
    pub sb: Scoreboard,
    pub rtt: RttEstimator,
    rate: RateSampler,
    pub app: App,
    app_stopped: bool,
    dupacks: u32,
    /// Without SACK: bytes that duplicate ACKs say have left the network (Linux
    /// `tcp_add_reno_sack`: one segment per duplicate ACK), subtracted from the pipe.
    dup_bytes: u64,
    /// RFC 6582 `recover` (ns-3 `m_recover`, Linux `high_seq`): the highest byte sent when the
    /// latest loss episode (fast recovery or RTO) began; `None` before the first episode.
    recover: Option<u64>,
    prr: Prr,
    rwnd: u64,
    /// The latest ACK's TSval (`Packet::ts_ms`), echoed on data.
    ts_recent_ms: u32,
    /// Congestion-window validation (Linux `tcp_cwnd_validate`): whether the sender was
    /// cwnd-limited during the current window, the most it had outstanding, and the sequence
    /// that ends the window.
    cwnd_limited: bool,
    /// What ended each sending opportunity that left data unsent: cwnd, the peer's receive
    /// window, the send buffer (data waiting in the application, none writable). For the
    /// summary's "limited by" ratios and the warning on buffer-limited flows.
    pub stops: SendStops,
    max_outstanding: u64,
    cwnd_usage_seq: u64,
    rto_timer: LazyTimer,
    pace_timer: LazyTimer,
    app_timer: LazyTimer,
    /// SYN retransmission timer, and the SYNs sent while the connection is opening (None once
    /// open, or without a handshake).
    syn_timer: LazyTimer,
    /// RACK's reordering timer (`rack`).
    reo_timer: LazyTimer,
    /// `tso_defer`: the time of the latest transmission (`tcp_wstamp_ns`, unpaced) and the
    /// head skb of the unsent data: where it starts and ends.
    last_tx: Time,
    skb_start: u64,
    skb_end: u64,
    /// `send_buffer_truesize`: segments the current skb of new data still takes.
    skb_room: u64,
    syn_tries: Option<u32>,
    next_send_time: Time,
    /// ns3 profile: when the pacing timer last ran its action. ns-3's pacing timer event for
    /// `next_send_time` runs after the ACK arrivals of that instant (they were scheduled first),
    /// so until it has run a forced send at that instant finds the timer still running.
    pace_ran_at: Time,
    active: bool,
    /// Transmissions that left more in the pipe than cwnd allows (other than the one RFC 6675
    /// 4.3 sends regardless); an invariant checks it stays 0.
    pub over_cwnd_sends: u64,
    /// Spurious-timeout detection and undo (the `frto` switch).
    undo: Undo,
    /// ns3 profile: bytes in flight as ns-3's `m_bytesInFlight` reads while an ACK is processed
    /// (only `BytesInFlight()` recomputes it): after the ACK's scoreboard update, re-read when
    /// fast recovery marks the head lost and before each retransmission, so never counting this
    /// ACK's own transmissions.
    ns3_flight: u64,
    /// ns3 profile: `m_nextTxSequence`, where ns-3's next transmission starts: the end of the
    /// last segment `SendPendingData` sent, the start of the last one `DoRetransmit` sent, at
    /// least the cumulative ACK after `NewAck`. Its application-limited test reads it.
    ns3_next_tx: u64,
    /// Cumulatively acknowledged segments waiting for ns-3's rate-sampler order (a reused buffer).
    ns3_cum_delivered: Vec<crate::tcp::scoreboard::SegRec>,
    /// When the SYN went out, if it was not retransmitted (its RTT sample, `ns3` profile).
    syn_sent: Option<Time>,
    /// ns3 profile: the next partial ACK of this recovery episode is its first, the one that
    /// restarts the retransmission timer (`m_isFirstPartialAck`).
    first_partial_ack: bool,
}

/// Linux's undo state for a timeout (`tcp_sock`: `undo_marker`, `prior_cwnd`,
/// `prior_ssthresh`, `retrans_stamp`, `frto`).
#[derive(Debug, Default)]
struct Undo {
    /// The reduction of the current episode may still be undone (`undo_marker`).
    armed: bool,
    prior_cwnd: u64,
    prior_ssthresh: u64,
    /// Send time of the episode's first retransmission.
    retrans_stamp: Option<Time>,
    /// F-RTO (RFC 5682) is watching this timeout.
    frto: bool,
    /// F-RTO step 2b: this ACK sends new data, not retransmissions (`REXMIT_NEW`).
    send_new: bool,
}

impl TcpSender {
    pub fn new(
        flow: FlowId,
        node: NodeId,
        peer: NodeId,
        cfg: &TcpSettings,
        app: &AppConfig,
        start: Time,
        cca: Box<dyn CongestionControl>,
    ) -> TcpSender {
        let mss = cfg.mss as u64;
        let mut cc = CcState::new(mss, cfg.initial_cwnd as u64);
        if let Some(s) = cfg.initial_ssthresh {
            cc.ssthresh = s;
        }
        let rules = Rules::for_settings(cfg);
        TcpSender {
            flow,
            node,
            peer,
            cfg: cfg.clone(),
            mss,
            opt_bytes: cfg.option_bytes() as u8,
            rules,
            cca,
            cc,
            sb: {
                let mut sb = Scoreboard::with_sacked_retransmissions(rules.sacked_retransmission());
                if cfg.rack && cfg.sack {
                    sb = sb.with_rack();
                }
                if cfg.send_buffer_truesize {
                    sb = sb.with_skbs();
                }
                sb
            },
            rtt: RttEstimator::with_rule(
                cfg.rto_estimator,
                cfg.initial_rto,
                cfg.min_rto,
                cfg.max_rto,
                cfg.clock_granularity,
            ),
            rate: RateSampler::new(cfg.profile),
            app: App::new(app, start),
            app_stopped: false,
            dupacks: 0,
            dup_bytes: 0,
            ns3_flight: 0,
            ns3_next_tx: 0,
            syn_sent: None,
            ns3_cum_delivered: Vec::new(),
            recover: None,
            prr: Prr::default(),
            rwnd: u64::MAX,
            ts_recent_ms: 0,
            cwnd_limited: false,
            stops: SendStops::default(),
            max_outstanding: 0,
            cwnd_usage_seq: 0,
            rto_timer: LazyTimer::new(),
            pace_timer: LazyTimer::new(),
            app_timer: LazyTimer::new(),
            syn_timer: LazyTimer::new(),
            reo_timer: LazyTimer::new(),
            last_tx: Time::ZERO,
            skb_start: 0,
            skb_end: 0,
            skb_room: 0,
            syn_tries: None,
            next_send_time: Time::ZERO,
            pace_ran_at: Time::MAX,
            active: false,
            over_cwnd_sends: 0,
            undo: Undo::default(),
            first_partial_ack: true,
        }
    }

    /// The retransmission (and window-probe) timeout in effect, back-off included.
    pub fn rto(&self) -> Dur {
        self.rtt.rto()
    }

    /// Bytes estimated in the network: RFC 6675 pipe, less what duplicate ACKs reported
    /// delivered when SACK is off.
    pub fn pipe(&self) -> u64 {
        self.sb.pipe().saturating_sub(self.dup_bytes)
    }

    /// The application starts at `ctx.now`: with a handshake the connection opens first (SYN,
    /// then data once the SYN-ACK is back), else data flows at once.
    pub fn start(&mut self, ctx: &mut Ctx) {
        self.cc.now = ctx.now;
        if self.cfg.handshake {
            self.syn_tries = Some(0);
            self.send_syn(ctx);
        } else {
            self.established(ctx);
        }
    }

    /// ns-3 `TcpSocketBase::SendEmptyPacket(SYN)`: retransmitted after `ConnTimeout` (3 s),
    /// doubled per retry, at most `SynRetries` (6) times; Linux `tcp_connect`: after
    /// `TCP_TIMEOUT_INIT` (the initial RTO, 1 s), doubled, `tcp_syn_retries` (6) times. The
    /// SYN-ACK gives the first RTT sample unless the SYN was retransmitted (ns-3: the SYN enters
    /// the RTT history and `ProcessSynSent` calls `EstimateRtt`; Linux: `tcp_clean_rtx_queue`
    /// acknowledging the SYN).
    fn send_syn(&mut self, ctx: &mut Ctx) {
        let tries = self.syn_tries.unwrap_or(0);
        if tries > 6 {
            return; // ns-3 gives the connection up
        }
        let opt = crate::net::packet::syn_option_bytes(self.cfg.timestamps);
        let p = Packet::handshake(crate::net::Kind::Syn, self.flow, self.node, self.peer, ctx.now, opt, tries > 0);
        self.syn_sent = (tries == 0).then_some(ctx.now);
        ctx.out.push(p);
        let first = self.rules.syn_timeout(self.cfg.initial_rto);
        let t = ctx.now + Dur(first.0 << tries);
        self.syn_tries = Some(tries + 1);
        if let Some((at, g)) = self.syn_timer.arm(t) {
            ctx.timers.push((TimerKind::Syn, at, g));
        }
    }

    /// The SYN-ACK: the connection is open (ns-3 ProcessSynSent), data may flow.
    pub fn on_synack(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        if self.syn_tries.take().is_none() {
            return; // a duplicate SYN-ACK
        }
        self.ts_recent_ms = pkt.ts_ms;
        if self.rules.synack_sets_rwnd() {
            self.rwnd = pkt.rwnd as u64;
        }
        self.syn_timer.cancel();
        if let Some(sent) = self.syn_sent {
            let r = self.rules.handshake_rtt(ctx.now, sent);
            self.rtt.sample(r);
            ctx.rec.on_rtt(ctx.now, r);
            self.sync_rtt();
        }
        // the handshake's ACK goes out first (ns-3 TcpSocketBase::ProcessSynSent: SendEmptyPacket
        // (ACK), then SendPendingData)
        let kind = crate::net::Kind::HandshakeAck;
        ctx.out.push(Packet::handshake(kind, self.flow, self.node, self.peer, ctx.now, self.opt_bytes, false));
        self.established(ctx);
    }

    fn established(&mut self, ctx: &mut Ctx) {
        self.active = true;
        self.cc.now = ctx.now;
        self.cca.init(&mut self.cc);
        self.record_window(ctx);
        self.notify_send(ctx.now); // ns-3: the connect callback (ProcessSynSent's NotifySend)
        self.try_send(ctx);
    }

    /// The application stops writing; data already written is still delivered.
    pub fn stop(&mut self, ctx: &mut Ctx) {
        self.app.catch_up(ctx.now, self.buffer_space());
        self.app_stopped = true;
        self.app_timer.cancel();
    }

    fn buffer_space(&self) -> u64 {
        if self.cfg.send_buffer_truesize {
            return self.linux_buffer_space();
        }
        self.cfg.snd_buf.saturating_sub(self.send_buffer_queued())
    }

    /// Memory the send buffer holds now: Linux's `sk_wmem_queued` with `send_buffer_truesize`,
    /// else the bytes written and not acknowledged.
    pub fn send_buffer_queued(&self) -> u64 {
        if self.cfg.send_buffer_truesize {
            self.linux_wmem_queued()
        } else {
            self.app.written - self.sb.snd_una
        }
    }

    /// Linux's `sk_wmem_queued` (see `sndbuf`).
    fn linux_wmem_queued(&self) -> u64 {
        let (unacked, unsent) = (self.sb.outstanding(), self.app.written - self.sb.snd_nxt);
        sndbuf::wmem_queued(unacked, unsent, self.sb.skbs(), self.mss)
    }

    /// What a Linux writer adds now (`sndbuf::writable`): a bulk writer polls and writes its
    /// write size while the socket is writable, so the queues hold about two thirds of the buffer
    /// plus one write and data may run out while a recovery holds snd_una (measured on the
    /// testbed: `wmem_queued` 2.8-3.2 MB of 4 MiB, nothing left unsent). The buffer is at its
    /// ceiling: Linux's autotuning (`tcp_sndbuf_expand`, 2 x cwnd x 4,352 bytes) stays ahead of any
    /// window below it.
    fn linux_buffer_space(&self) -> u64 {
        let write = self.app.wants_more().then(|| self.app.bulk_write_size());
        sndbuf::writable(self.cfg.snd_buf, self.linux_wmem_queued(), self.mss, write)
    }

    /// The application writes what it has and the send buffer takes. ns-3's bulk sender writes
    /// only when the socket asks it (`notify_send`, see `ns3_bulk`), so not here in the `ns3` profile.
    fn write_app_data(&mut self, now: Time) {
        if !self.ns3_bulk() {
            self.notify_send(now);
        }
    }

    /// A bulk application in the `ns3` profile: it writes on the socket's `NotifySend` only, as
    /// the runner's `BulkSender` fills the buffer from its send callback. ns-3 3.37 calls it when
    /// the connection opens (`ProcessSynSent`), in `NewAck` (every ACK that advances snd_una,
    /// except one that leaves the socket in CA_DISORDER: `ProcessAck` calls no `NewAck` there)
    /// and in `SendPendingData` when NextSeg found a segment and "there's less app data than the
    /// full window" (`ns3_pending_notify`). So room an ACK frees in Disorder stays empty until
    /// one of these, which matters only when the window outgrows the send buffer.
    fn ns3_bulk(&self) -> bool {
        self.rules.bulk_writes_when_asked() && self.app.wants_more()
    }

    /// The application writes what it has and the send buffer takes (ns-3: `NotifySend`).
    fn notify_send(&mut self, now: Time) {
        if !self.app_stopped && self.active {
            let before = self.app.written;
            let added = self.app.catch_up(now, self.buffer_space());
            if added > 0 && self.rules.app_limited_at_write() {
                self.ns3_check_app_limited(before + added.min(self.app.bulk_write_size()));
            }
        }
    }

    /// ns-3 3.37 `TcpSocketBase::Send` -> `TcpRateLinux::CalculateAppLimited`, after each
    /// write (the first one decides: later writes only add data): the flight is application-
    /// limited when less than a segment is left to send from `m_nextTxSequence` to the end of
    /// the buffer (`tail`), cwnd is not full and every lost byte has been retransmitted. ns-3
    /// marks the bubble here only, never when `SendPendingData` runs out of data (Linux
    /// `tcp_rate_check_app_limited` at the start of `tcp_sendmsg` is the model it follows).
    #[inline(never)]
    fn ns3_check_app_limited(&mut self, tail: u64) {
        let pipe = self.pipe();
        if tail.saturating_sub(self.ns3_next_tx) < self.mss
            && pipe < self.cc.cwnd
            && self.sb.lost_bytes() <= self.sb.retrans_bytes()
        {
            self.rate.on_app_limited(pipe);
        }
    }

    /// ns-3 `NewAck`: after its `NotifySend`, `m_nextTxSequence` moves up to the ACK.
    fn ns3_new_ack(&mut self) {
        self.ns3_next_tx = self.ns3_next_tx.max(self.sb.snd_una);
    }

    fn pacing_rate(&self) -> Option<Bandwidth> {
        if let Some(r) = self.cc.pacing_rate {
            return Some(r);
        }
        if !self.cfg.pacing {
            return None;
        }
        let srtt = self.rtt.srtt()?;
        // Linux tcp_update_pacing_rate: 200 % of cwnd/srtt in slow start, 120 % after.
        let factor = if self.cc.cwnd < self.cc.ssthresh / 2 {
            2.0
        } else {
            1.2
        };
        let bps = factor * self.cc.cwnd as f64 * 8.0 / srtt.secs_f64().max(1e-9);
        Some(Bandwidth(bps as u64))
    }

    fn set_state(&mut self, new: CaState, ctx: &mut Ctx) {
        if new == CaState::Open {
            self.undo.retrans_stamp = None; // Linux tcp_try_to_open: no retransmission left
        }
        if new != self.cc.state {
            let from = self.cc.state;
            self.cc.state = new;
            self.cca.on_state_change(&mut self.cc, from);
            ctx.rec.event(ctx.now, "state", new as u8 as f64);
        }
    }

    fn sync_rtt(&mut self) {
        self.cc.srtt = self.rtt.srtt();
        self.rules.sync_rtt(&self.rtt, &mut self.cc);
    }

    /// An ACK arrived. Split as Linux splits `tcp_ack`: process the ACK (scoreboard, duplicate
    /// ACKs, RTT), detect losses, run the state machine, congestion control, re-arm the timer.
    /// Where the two stacks order these differently, `self.rules` decides (`tcp/rules/`).
    pub fn on_ack(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        if pkt.ack() < self.sb.snd_una {
            ctx.rec.on_ack(ctx.now, false);
            return; // an old ACK overtaken by a newer one
        }
        let lost_before = self.sb.lost_bytes();
        let idle = self.sb.outstanding() == 0;
        let mut ack = self.process_ack(pkt, ctx);
        let above = self.sb.snd_una.saturating_sub(self.recover.unwrap_or(0));
        if let Some(n) = self.rules.loss_exit_segments(self.cc.state, self.episode_over(), above, self.mss) {
            ack.ev.segments_acked = n;
        }
        let newly_lost = self.detect_losses(&ack, ctx);
        // ns-3's m_bytesInFlight as this ACK's processing reads it (`ns3` rules only)
        self.ns3_flight = self.pipe();
        let in_recovery = self.cc.state == CaState::Recovery;
        let hook = self.rules.hook(ack.ev, ack.pkts_acked, ack.advanced, in_recovery, self.episode_over());
        if let Hook::Before(ev) = hook {
            self.cca.on_ack(&mut self.cc, &ev);
        }
        let grow = self.run_state_machine(&ack, newly_lost, ctx);
        if let Hook::After(ev) = hook {
            self.cca.on_ack(&mut self.cc, &ev);
        }
        let newly_lost = self.rules.rate_sample_lost(lost_before, self.sb.lost_bytes(), newly_lost);
        self.congestion_control(&ack, grow, newly_lost);
        self.rearm_rto(ack.advanced, ack.new_sack, ctx);
        if idle {
            self.ack_probe(ctx);
        }
        if self.rules.new_ack_runs(ack.advanced, self.cc.state) {
            // ns-3 ProcessAck's NewAck -> NotifySend, before SendPendingData (a partial ACK in
            // recovery has called it already, after DoRetransmit)
            if self.ns3_bulk() {
                self.notify_send(ctx.now);
            }
            self.ns3_new_ack();
        }
        self.try_send(ctx);
        self.record_window(ctx);
    }

    /// Apply the ACK to the scoreboard; count duplicate ACKs; take the RTT sample.
    fn process_ack(&mut self, pkt: &Packet, ctx: &mut Ctx) -> AckInfo {
        // Writes due before this ACK see the buffer as it was before the ACK frees space.
        self.write_app_data(ctx.now);
        let rwnd_changed = self.rwnd != pkt.rwnd as u64 && self.rwnd != u64::MAX;
        self.rwnd = pkt.rwnd as u64;
        // RFC 7323 TS.Recent of an ACK (Linux tcp_replace_ts_recent): echoed on the next data
        self.ts_recent_ms = pkt.ts_ms;
        let now = ctx.now;
        self.cc.now = now;
        let prior_in_flight = self.pipe();
        let outstanding_before = self.sb.outstanding();
        let res = self.apply_to_scoreboard(pkt, now);
        let advanced = res.cum_acked > 0;
        // a duplicate ACK: with SACK (RFC 6675 section 2, ns-3 `isDupack`, Linux `sacked_out`)
        // one whose SACK blocks report data not SACKed before, whatever its cumulative part (a
        // duplicate of an old segment is not one); without SACK (RFC 5681 section 2) nothing new
        // acknowledged, data outstanding, no payload and the same advertised window
        let is_dup = if self.cfg.sack {
            res.new_sack
        } else {
            !advanced && outstanding_before > 0 && pkt.len == 0 && !rwnd_changed
        };
        ctx.rec.on_ack(now, is_dup && !advanced);
        let delivered = self.count_duplicates(&res, is_dup, advanced);
        let facts = AckFacts {
            now,
            res: &res,
            echo: pkt.sent_at,
            timestamps: self.cfg.timestamps,
            advanced,
            delivered,
            outstanding: self.sb.outstanding(),
            mss: self.mss,
        };
        let rtt_sample = self.rules.ack_rtt(&facts);
        if let Some(r) = rtt_sample {
            self.rtt.sample_at(r, self.sb.snd_una, self.sb.snd_nxt);
            ctx.rec.on_rtt(now, r);
        }
        self.sync_rtt();
        self.cc.snd_una = self.sb.snd_una;
        self.cc.snd_nxt = self.sb.snd_nxt;
        self.cc.delivered = self.rate.delivered;
        self.cc.bytes_in_flight = prior_in_flight;
        self.cc.acked_sacked = res.delivered;
        let ev = AckEvent {
            segments_acked: self.rules.segments_acked(&facts),
            bytes_acked: res.cum_acked,
            rtt: self.rules.cc_rtt(rtt_sample, self.rtt.srtt()),
        };
        let pkts_acked = self.rules.pkts_acked(&facts);
        if pkts_acked && self.rules.hook_before_loss_detection() {
            self.cca.on_ack(&mut self.cc, &ev);
        }
        AckInfo {
            pkts_acked,
            ev,
            advanced,
            new_sack: res.new_sack,
            is_dup,
            retransmitted_acked: res.cum_retransmitted,
            delivered,
            prior_in_flight,
            echo: pkt.sent_at,
            orig_min_end: res.orig_min_end,
        }
    }

    /// The scoreboard takes the ACK's cumulative part and SACK blocks; each newly delivered
    /// segment goes to the rate sampler. ns-3 hands its sampler the newly SACKed packets first
    /// (`ReadOptions`), then the cumulatively acknowledged ones (`DiscardUpTo`); the scoreboard
    /// walks the cumulative part first. The order matters to ns-3's sampler, whose ack-elapsed
    /// time chains from one delivered packet to the next.
    fn apply_to_scoreboard(&mut self, pkt: &Packet, now: Time) -> AckOutcome {
        let (blocks, nblocks) = pkt.sack_blocks();
        let blocks = if self.cfg.sack { &blocks[..nblocks] } else { &[] };
        let echo = self.cfg.timestamps.then_some(pkt.sent_at);
        self.sb.rack_clock(now, self.linux_min_rtt(), echo);
        let rate = &mut self.rate;
        let ack_no = pkt.ack();
        let later = &mut self.ns3_cum_delivered;
        let res = self.sb.on_ack(ack_no, blocks, |s| {
            if rate.follows_ns3() && s.end() <= ack_no {
                later.push(*s);
            } else {
                rate.on_delivered(s, now);
            }
        });
        for s in self.ns3_cum_delivered.drain(..) {
            self.rate.on_delivered(&s, now);
        }
        res
    }

    /// Count a duplicate ACK; returns the ACK's DeliveredData. Without SACK a duplicate ACK
    /// delivered one segment (RFC 6937), which the cumulative ACK that follows does not count
    /// again (Linux `tcp_remove_reno_sacks`: max(acked - sacked_out, 1)).
    fn count_duplicates(&mut self, res: &AckOutcome, is_dup: bool, advanced: bool) -> u64 {
        let mut delivered = res.delivered;
        if is_dup {
            if self.cc.state != CaState::Recovery && self.cc.state != CaState::Loss {
                self.dupacks += 1;
            }
            if !self.cfg.sack {
                let room = self.sb.outstanding().saturating_sub(self.mss + self.dup_bytes);
                let d = self.mss.min(room);
                self.dup_bytes += d;
                delivered += d;
            }
        } else if advanced {
            self.dupacks = 0;
        }
        if advanced {
            if !self.cfg.sack {
                delivered = res.delivered.saturating_sub(self.dup_bytes).max(self.mss.min(res.delivered));
            }
            self.dup_bytes = self.dup_bytes.saturating_sub(res.cum_acked);
        }
        delivered
    }

    /// A timer wake-up for this sender.
    pub fn on_timer(&mut self, kind: TimerKind, gen: u32, ctx: &mut Ctx) {
        let timer = match kind {
            TimerKind::Rto => &mut self.rto_timer,
            TimerKind::Pace => &mut self.pace_timer,
            TimerKind::App => &mut self.app_timer,
            TimerKind::Syn => &mut self.syn_timer,
            TimerKind::Reo => &mut self.reo_timer,
            TimerKind::DelAck => return,
        };
        match timer.fire(ctx.now, gen) {
            Fired::Ignore => {}
            Fired::Reschedule(t, g) => ctx.timers.push((kind, t, g)),
            Fired::Expired => match kind {
                TimerKind::Rto => self.on_rto(ctx),
                TimerKind::Reo => self.on_reo_timeout(ctx),
                TimerKind::Syn => {
                    if self.syn_tries.is_some() {
                        self.send_syn(ctx);
                    }
                }
                _ => {
                    if kind == TimerKind::Pace {
                        self.pace_ran_at = ctx.now;
                    }
                    self.try_send(ctx);
                    self.record_window(ctx);
                }
            },
        }
    }

    fn record_window(&mut self, ctx: &mut Ctx) {
        ctx.rec.on_window(
            ctx.now,
            self.cc.cwnd,
            self.cc.ssthresh,
            self.pipe(),
            self.cc.state,
        );
    }

    /// All written data has been acknowledged.
    pub fn done(&self) -> bool {
        self.app.finished() && self.sb.snd_una >= self.app.written
    }
}

/// What [`TcpSender::process_ack`] found, for the later steps of the ACK.
struct AckInfo {
    ev: AckEvent,
    /// The algorithm's ACK hook is due for this ACK (`PktsAcked` / `pkts_acked`).
    pkts_acked: bool,
    advanced: bool,
    new_sack: bool,
    /// A duplicate ACK (RFC 6675 with SACK, RFC 5681 without).
    is_dup: bool,
    /// The cumulative ACK covered retransmitted data (ns-3 `m_isRetransDataAcked`).
    retransmitted_acked: bool,
    /// RFC 6937 DeliveredData (plus one segment per duplicate ACK without SACK).
    delivered: u64,
    prior_in_flight: u64,
    /// The send time of the segment whose timestamp the ACK echoes.
    echo: Time,
    /// Smallest end of a newly delivered, never-retransmitted segment.
    orig_min_end: Option<u64>,
}
