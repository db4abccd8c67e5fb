//! The TCP sender: segmentation, transmission under cwnd / rwnd / pacing, ACK processing,
//! loss recovery (RFC 6675 with PRR, RFC 6937; NewReno partial ACKs, RFC 6582, without SACK),
//! retransmission timeout (RFC 6298) and the congestion-control hooks.

use super::app::{App, AppConfig};
use super::prr::{Prr, Ssrb};
use super::rate::RateSampler;
use super::rtt::RttEstimator;
use super::scoreboard::{Scoreboard, SegRec};
use super::sndbuf::{self, GSO_MAX_SIZE};
use super::{Ctx, Profile, TcpSettings, TimerKind};
use crate::cca::{AckEvent, CaState, CcState, CongestionControl, CongestionEvent, CongestionKind};
use crate::engine::timer::Fired;
use crate::engine::LazyTimer;
use crate::net::{FlowId, NodeId, Packet};
use crate::time::{Bandwidth, Dur, Time};

/// What `tcp_tso_should_defer` decided.
enum Defer {
    No,
    /// Wait for more ACKs; cwnd is what the skb waits for (`is_cwnd_limited`).
    CwndLimited,
    /// Wait for more ACKs; the receive window is what it waits for (`is_rwnd_limited`).
    RwndLimited,
    Yes,
}

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
    /// RTT from the echoed timestamp in whole milliseconds (ns-3 with timestamps).
    ns3_timestamps: bool,
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
        cc.profile = cfg.profile;
        if let Some(s) = cfg.initial_ssthresh {
            cc.ssthresh = s;
        }
        TcpSender {
            flow,
            node,
            peer,
            cfg: cfg.clone(),
            mss,
            opt_bytes: cfg.option_bytes() as u8,
            ns3_timestamps: cfg.profile == Profile::Ns3 && cfg.timestamps,
            cca,
            cc,
            sb: {
                let mut sb = Scoreboard::keeping_sacked_retransmissions(cfg.profile == Profile::Ns3);
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
            rate: RateSampler::new(cfg.profile == Profile::Ns3),
            app: App::new(app, start),
            app_stopped: false,
            dupacks: 0,
            dup_bytes: 0,
            ns3_flight: 0,
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
        let first = match self.cfg.profile {
            Profile::Ns3 => Dur::from_secs(3),
            Profile::Linux => self.cfg.initial_rto,
        };
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
        if self.cfg.profile == Profile::Linux {
            // the SYN-ACK's window (never scaled) bounds the first flight (tcp_ack_update_window)
            self.rwnd = pkt.rwnd as u64;
        }
        self.syn_timer.cancel();
        if let Some(sent) = self.syn_sent {
            // ns-3 TcpSocketBase::EstimateRtt on the SYN-ACK (whole ms with timestamps); Linux
            // tcp_ack_update_rtt from the SYN's send time (us)
            let r = match self.cfg.profile {
                Profile::Ns3 if self.ns3_timestamps => ns3_ts_rtt(ctx.now, sent),
                _ => ctx.now - sent,
            };
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

    fn write_app_data(&mut self, now: Time) {
        if !self.app_stopped && self.active {
            self.app.catch_up(now, self.buffer_space());
        }
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

    fn arm(timer: &mut LazyTimer, kind: TimerKind, at: Time, ctx: &mut Ctx) {
        if let Some((t, g)) = timer.arm(at) {
            ctx.timers.push((kind, t, g));
        }
    }

    /// Send whatever cwnd, the receive window, pacing and the application allow.
    fn try_send(&mut self, ctx: &mut Ctx) {
        if !self.active {
            return;
        }
        self.write_app_data(ctx.now);
        // F-RTO step 2b (Linux tcp_xmit_recovery with REXMIT_NEW): new data first; if none can
        // go out, F-RTO gives up and the lost segments are retransmitted as usual.
        let new_only = std::mem::take(&mut self.undo.send_new);
        let nxt = self.sb.snd_nxt;
        let mut cwnd_blocked = self.send_loop(new_only, ctx);
        if new_only && self.sb.snd_nxt == nxt {
            self.undo.frto = false;
            cwnd_blocked = self.send_loop(false, ctx);
        }
        if cwnd_blocked {
            self.stops.cwnd += 1;
        }
        self.cwnd_validate(cwnd_blocked);
    }

    /// Send what cwnd, pacing and the windows allow: lost segments first (unless `new_only`),
    /// then new data (RFC 6675 NextSeg). Returns whether cwnd stopped it.
    #[inline]
    fn send_loop(&mut self, new_only: bool, ctx: &mut Ctx) -> bool {
        loop {
            let pacing = self.pacing_rate();
            if pacing.is_some() && ctx.now < self.next_send_time {
                let at = self.next_send_time;
                Self::arm(&mut self.pace_timer, TimerKind::Pace, at, ctx);
                return false;
            }
            let pipe = self.pipe();
            // RFC 6675 NextSeg() rule 1: retransmit the first lost segment.
            if let Some(id) = self.sb.next_lost().filter(|_| !new_only) {
                if pipe + self.sb.get(id).len as u64 > self.cc.cwnd {
                    return true;
                }
                self.tx_start_event();
                self.retransmit(id, false, ctx);
                continue;
            }
            // Rule 2: new data.
            let avail = self.app.written - self.sb.snd_nxt;
            if avail == 0 {
                // ns-3 3.37 NextSeg rule 3 (RFC 6675): in SACK recovery with nothing new to
                // send, the first segment neither SACKed, retransmitted nor marked lost goes
                // again, once cwnd has room for a full segment (SendPendingData's SWS check).
                let rule3 = if !new_only && self.ns3_rule3() { self.sb.first_unmarked() } else { None };
                if let Some(id) = rule3 {
                    if pipe + self.mss > self.cc.cwnd {
                        return true;
                    }
                    self.tx_start_event();
                    self.retransmit(id, false, ctx);
                    continue;
                }
                if pipe + self.mss <= self.cc.cwnd
                    && self.buffer_space() == 0
                    && self.app.wants_more()
                {
                    self.stops.sndbuf += 1; // the buffer is full of unacknowledged data
                }
                if pipe + self.mss <= self.cc.cwnd && self.buffer_space() > 0 {
                    // Application-limited (the application has no data although the send
                    // buffer has room; a full buffer is not the application's doing): mark
                    // the bubble and wait for the next write.
                    self.rate.on_app_limited(pipe);
                    self.cc.app_limited = true;
                    if let Some(t) = self.app.next_write_time().filter(|_| !self.app_stopped) {
                        Self::arm(&mut self.app_timer, TimerKind::App, t.max(ctx.now), ctx);
                    }
                }
                return false;
            }
            let len = avail.min(self.mss);
            if pipe + len > self.cc.cwnd {
                return true;
            }
            if self.sb.outstanding() + len > self.rwnd {
                self.stops.rwnd += 1;
                if self.sb.outstanding() == 0 && !self.rto_timer.is_armed() {
                    // Nothing in flight to bring a window update: probe the window after an
                    // RTO (Linux tcp_check_probe_timer; RFC 9293 3.8.6.1)
                    let at = ctx.now + self.rtt.rto();
                    Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
                }
                return false;
            }
            if self.cfg.tso_defer && pacing.is_none() {
                match self.tso_should_defer(avail, pipe, ctx.now) {
                    Defer::No => {}
                    Defer::CwndLimited => return true,
                    Defer::RwndLimited => {
                        self.stops.rwnd += 1;
                        return false;
                    }
                    Defer::Yes => return false,
                }
            }
            self.cc.app_limited = false;
            self.tx_start_event();
            self.send_new(len as u32, false, ctx);
        }
    }

    /// Linux's `sk_pacing_rate` without pacing (`tcp_update_pacing_rate`), in bytes per second:
    /// mss x max(cwnd, packets out) / srtt, 200 % while cwnd < ssthresh / 2, else 120 %; the
    /// algorithm's own rate if it sets one.
    fn linux_pacing_bytes_per_s(&self) -> u64 {
        if let Some(r) = self.cc.pacing_rate {
            return r.0 / 8;
        }
        let Some(srtt) = self.rtt.srtt().filter(|d| d.0 >= 1000) else { return 0 };
        let ratio = if self.cc.cwnd < self.cc.ssthresh / 2 { 200 } else { 120 };
        // in u64 through microseconds (the kernel divides by srtt_us too)
        self.cc.cwnd.max(self.sb.outstanding()).saturating_mul(ratio) / 100 * 1_000_000 / (srtt.0 / 1000)
    }

    /// Linux `tcp_tso_autosize` / `tcp_tso_segs`: segments per GSO skb, about 1 ms of the
    /// pacing rate (`sk_pacing_shift` 10), plus `gso_max_size >> (min_rtt_us >> 9)` on short
    /// paths (`tcp_tso_rtt_log` 9), at most 64 KiB (`gso_max_size`), at least 2
    /// (`tcp_min_tso_segs`).
    fn tso_segs(&self) -> u64 {
        let mut bytes = self.linux_pacing_bytes_per_s() >> 10;
        let r = self.rtt.min().map_or(u64::MAX, |m| (m.0 / 1000) >> 9);
        if r < 32 {
            bytes += GSO_MAX_SIZE >> r;
        }
        (bytes.min(GSO_MAX_SIZE) / self.mss).max(2)
    }

    /// Linux `tcp_tso_should_defer` for the head skb of the unsent data (`avail` bytes
    /// written and not sent; `pipe` in flight): TCP always builds GSO skbs (software GSO when
    /// the device has none), and an skb that the windows cannot take whole waits for more ACKs
    /// unless the last transmission is 1 ms old, a full-sized skb or a third of the window fits,
    /// or the next ACK is not due within min(1 ms, SRTT / 2). So an ACK-clocked Linux sender sends
    /// bursts of about 1 ms of its pacing rate (measured on the testbed, docs/validation.md).
    /// The skbs are cut at send time, `tso_segs` long (the kernel cuts them at write time).
    fn tso_should_defer(&mut self, avail: u64, pipe: u64, now: Time) -> Defer {
        let nxt = self.sb.snd_nxt;
        if nxt > self.skb_start && nxt < self.skb_end && self.last_tx == now {
            return Defer::No; // the rest of an skb that is going out now (tcp_write_xmit)
        }
        let goal = self.tso_segs() * self.mss;
        if nxt >= self.skb_end || nxt == self.skb_start {
            // a new head skb, or a tail skb nothing of which went out yet (it grows with writes)
            self.skb_start = nxt;
            self.skb_end = nxt + avail.min(goal);
        }
        let skb_len = self.skb_end - nxt;
        if skb_len <= self.mss || self.cc.state >= CaState::Recovery {
            return Defer::No;
        }
        // "allow defer only if the last write was recent (1 ms)"
        if now.0 > self.last_tx.0 + 1_000_000 {
            return Defer::No;
        }
        let send_win = (self.sb.snd_una + self.rwnd.min(u64::MAX / 2)).saturating_sub(nxt);
        let cong_win = (self.cc.cwnd.saturating_sub(pipe) / self.mss) * self.mss;
        let limit = send_win.min(cong_win);
        let is_tail = self.skb_end >= self.app.written;
        if limit >= goal || (!is_tail && limit >= skb_len) {
            return Defer::No;
        }
        // tcp_tso_win_divisor = 3: a third of the window is enough
        if limit >= self.rwnd.min(self.cc.cwnd) / 3 {
            return Defer::No;
        }
        let (Some(head), Some(srtt)) = (self.sb.head(), self.rtt.srtt()) else { return Defer::No };
        // the next ACK (the head's, one SRTT after it was sent) is due in more than min(1 ms,
        // SRTT / 2): send now ("tcp: fix tcp_tso_should_defer() vs large RTT", 2025; an
        // overdue ACK still lets the skb wait)
        let expected_ack = head.sent_at + srtt;
        let threshold = Dur(srtt.0 / 2).min(Dur::from_millis(1));
        if expected_ack > now + threshold {
            return Defer::No;
        }
        if cong_win < send_win {
            if cong_win <= skb_len {
                return Defer::CwndLimited;
            }
        } else if send_win <= skb_len {
            return Defer::RwndLimited;
        }
        if is_tail && self.app.finished() {
            return Defer::No; // the last data: nothing more will join it (FIN)
        }
        Defer::Yes
    }

    /// Linux `tcp_cwnd_validate`: once per window (or sooner when the flow turns cwnd-limited
    /// or sends more than before), remember whether it was cwnd-limited and its largest flight.
    fn cwnd_validate(&mut self, blocked: bool) {
        let limited = blocked || self.pipe() >= self.cc.cwnd;
        let out = self.sb.outstanding();
        if self.sb.snd_una >= self.cwnd_usage_seq
            || limited
            || (!self.cwnd_limited && out > self.max_outstanding)
        {
            self.cwnd_limited = limited;
            self.max_outstanding = out;
            self.cwnd_usage_seq = self.sb.snd_nxt;
        }
    }

    /// Linux `tcp_is_cwnd_limited` (include/net/tcp.h, RFC 7661) as Linux 6.x has it: the flow
    /// was cwnd-limited in the window, or, in slow start, cwnd is below twice the largest flight
    /// of the window. The cwnd-limited test comes first (Linux's "tcp: fix tcp_cwnd_validate()
    /// to not forget is_cwnd_limited", 2022), so a cwnd-limited flow in slow start grows past
    /// twice its flight; the BPF programs' `mmcc_cwnd_limited` do the same.
    /// Without congestion-window validation (ns-3), always true.
    fn may_grow_cwnd(&self) -> bool {
        if !self.cfg.cwnd_validation || self.cwnd_limited {
            return true;
        }
        self.cc.in_slow_start() && self.cc.cwnd < 2 * self.max_outstanding
    }

    /// `CA_EVENT_TX_START` before a transmission that starts one (`starts_transmission`): ns-3
    /// `SendPendingData` (any segment NextSeg picks), Linux `tcp_event_data_sent`.
    fn tx_start_event(&mut self) {
        if self.starts_transmission() {
            self.cca.on_tx_start(&mut self.cc);
        }
    }

    /// Whether the packet about to go out starts a transmission for the rate sampler. Linux
    /// (`tcp_rate_skb_sent`): nothing is outstanding (`packets_out == 0`), not when the pipe
    /// estimate is zero (after an RTO everything is marked lost, but the flight continues); ns-3
    /// (`SendDataPacket`): `BytesInFlight() == 0`, so the retransmission after a timeout starts
    /// one (its delivery-rate sample then spans that retransmission, not the timeout).
    fn starts_transmission(&self) -> bool {
        match self.cfg.profile {
            Profile::Ns3 => self.pipe() == 0,
            Profile::Linux => self.sb.outstanding() == 0,
        }
    }

    /// Send `len` new bytes; `forced`: a transmission that does not ask cwnd (ns-3's
    /// `DoRetransmit` on a partial ACK).
    fn send_new(&mut self, len: u32, forced: bool, ctx: &mut Ctx) {
        let seq = self.sb.snd_nxt;
        let mut rec = SegRec::new(seq, len, ctx.now);
        if self.cfg.send_buffer_truesize {
            // `tcp_write_xmit` -> `tso_fragment`: each transmission sends an skb of its own, at
            // most `tso_segs` segments; paced ones fill it over their pacing slots
            let paced = self.pacing_rate().is_some();
            rec.skb_start = self.skb_room == 0 || (!paced && self.last_tx != ctx.now);
            if rec.skb_start {
                self.skb_room = self.tso_segs();
            }
            self.skb_room -= 1;
        }
        let idle = self.starts_transmission();
        self.rate.on_send(&mut rec, ctx.now, idle);
        self.sb.push_new(rec);
        self.cc.high_tx = self.sb.snd_nxt;
        if !forced && self.pipe() > self.cc.cwnd {
            self.over_cwnd_sends += 1;
        }
        self.emit(seq, len, false, ctx);
    }

    /// Retransmit segment `id`; `forced`: RFC 6675 (4.3), sent whatever cwnd says.
    fn retransmit(&mut self, id: u64, forced: bool, ctx: &mut Ctx) {
        let now = ctx.now;
        self.undo.retrans_stamp.get_or_insert(now); // Linux tcp_retransmit_skb
        let idle = self.starts_transmission();
        self.rate.on_send(self.sb.get_mut(id), now, idle);
        self.sb.on_retransmit(id, now);
        let (seq, len) = (self.sb.get(id).seq, self.sb.get(id).len);
        if !forced && self.pipe() > self.cc.cwnd {
            self.over_cwnd_sends += 1;
        }
        self.emit(seq, len, true, ctx);
    }

    fn emit(&mut self, seq: u64, len: u32, retx: bool, ctx: &mut Ctx) {
        let mut pkt = Packet::data(self.flow, self.node, self.peer, seq, len, ctx.now, retx);
        pkt.opt = self.opt_bytes;
        pkt.ts_ms = self.ts_recent_ms;
        // ns-3 paces only once the initial window has gone out (`IsPacingEnabled`: highTxMark
        // above the initial window; `PaceInitialWindow` is off by default); Linux from the start
        let paced = self.cfg.profile == Profile::Linux || self.sb.snd_nxt >= self.cc.initial_cwnd;
        if let Some(rate) = self.pacing_rate().filter(|_| paced) {
            // Pacing rates are payload rates (delivery-rate samples count payload bytes), so a
            // segment takes its payload's time: ns-3 SendPendingData schedules
            // CalculateBytesTxTime(payload), to the nearest ns; Linux converts BBR's packet rate
            // to bytes per MSS and rounds down (tcp_update_skb_after_send).
            let gap = match self.cfg.profile {
                Profile::Ns3 => rate.tx_time_nearest(len as u64),
                Profile::Linux => rate.tx_time_floor(len as u64),
            };
            // Linux adds every packet's time to the departure clock (tcp_wstamp_ns =
            // max(tcp_wstamp_ns, now) + len / rate); ns-3's `SendDataPacket` starts the pacing
            // timer only if it has expired, so a retransmission that goes out while it runs
            // (`DoRetransmit` in recovery) does not delay the next packet.
            self.next_send_time = match self.cfg.profile {
                Profile::Ns3 if ctx.now < self.next_send_time => self.next_send_time,
                _ => self.next_send_time.max(ctx.now) + gap,
            };
        }
        self.last_tx = ctx.now;
        ctx.out.push(pkt);
        ctx.rec.on_send(ctx.now, len, retx);
        if self.cc.state == CaState::Recovery {
            self.prr.on_sent(len as u64);
        }
        // RFC 6298 (5.1): start the timer when data is sent and it is not running.
        if !self.rto_timer.is_armed() {
            let at = ctx.now + self.rtt.rto();
            Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        }
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
        if self.cfg.profile == Profile::Ns3 {
            // ns-3: m_lastRtt is the estimate and m_minRtt the smallest estimate; a class that
            // tracks a maximum can only take it over the estimates PktsAcked passes.
            self.cc.latest_rtt = self.rtt.srtt();
            self.cc.min_rtt = self.rtt.min_srtt();
            self.cc.max_rtt = self.rtt.max_srtt();
        } else {
            self.cc.latest_rtt = self.rtt.latest();
            self.cc.min_rtt = self.rtt.min();
            self.cc.max_rtt = self.rtt.max();
        }
    }

    /// An ACK arrived. Split as Linux splits `tcp_ack`: process the ACK (scoreboard, duplicate
    /// ACKs, RTT), detect losses, run the state machine, congestion control, re-arm the timer.
    pub fn on_ack(&mut self, pkt: &Packet, ctx: &mut Ctx) {
        if pkt.ack() < self.sb.snd_una {
            ctx.rec.on_ack(ctx.now, false);
            return; // an old ACK overtaken by a newer one
        }
        let lost_before = self.sb.lost_bytes();
        let idle = self.sb.outstanding() == 0;
        let mut ack = self.process_ack(pkt, ctx);
        if self.cfg.profile == Profile::Ns3 && self.cc.state == CaState::Loss && self.episode_over() {
            // ns-3 ProcessAck, leaving CA_LOSS: the window grows by the segments above the
            // recovery point only, (ack - m_recover) / MSS
            let above = self.sb.snd_una.saturating_sub(self.recover.unwrap_or(0));
            ack.ev.segments_acked = (above / self.mss) as u32;
        }
        let newly_lost = self.detect_losses(&ack, ctx);
        if self.cfg.profile == Profile::Ns3 {
            self.ns3_flight = self.pipe();
        }
        // ns-3's PktsAcked: before cwnd = ssthresh when the ACK ends fast recovery, else after
        // the state machine (after DoRecovery / EnterRecovery); one segment for an ACK that
        // does not advance snd_una and for a partial ACK in recovery (`PktsAcked(tcb, 1, ..)`).
        let ns3_hook = (self.cfg.profile == Profile::Ns3 && ack.pkts_acked).then(|| {
            let mut ev = ack.ev;
            let in_recovery = self.cc.state == CaState::Recovery;
            if !ack.advanced || (in_recovery && !self.episode_over()) {
                ev.segments_acked = 1;
            }
            (ev, in_recovery && self.episode_over())
        });
        if let Some((ev, true)) = ns3_hook {
            self.cca.on_ack(&mut self.cc, &ev);
        }
        let grow = self.run_state_machine(&ack, newly_lost, ctx);
        if let Some((ev, false)) = ns3_hook {
            self.cca.on_ack(&mut self.cc, &ev);
        }
        // ns-3's rate sample reports the change of its lost count (`m_lostOut`: lost marks not
        // yet acknowledged or SACKed) over the whole ACK, in either direction
        // (TcpSocketBase::ReceivedAck: `currentLost > previousLost ? .. : previousLost - ..`)
        let newly_lost = match self.cfg.profile {
            Profile::Ns3 => self.sb.lost_bytes().abs_diff(lost_before),
            Profile::Linux => newly_lost,
        };
        self.congestion_control(&ack, grow, newly_lost);
        self.rearm_rto(ack.advanced, ack.new_sack, ctx);
        if idle {
            self.ack_probe(ctx);
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
        let (blocks, nblocks) = pkt.sack_blocks();
        let blocks = if self.cfg.sack {
            &blocks[..nblocks]
        } else {
            &[]
        };
        let echo = self.cfg.timestamps.then_some(pkt.sent_at);
        self.sb.rack_clock(now, self.linux_min_rtt(), echo);
        let rate = &mut self.rate;
        // ns-3 hands the rate sampler the newly SACKed packets first (`ReadOptions`), then the
        // cumulatively acknowledged ones (`DiscardUpTo`); the scoreboard walks the cumulative
        // part first. The order matters to ns-3's sampler, whose ack-elapsed time chains from
        // one delivered packet to the next.
        let ack_no = pkt.ack();
        let later = &mut self.ns3_cum_delivered;
        let res = self.sb.on_ack(ack_no, blocks, |s| {
            if rate.ns3 && s.end() <= ack_no {
                later.push(*s);
            } else {
                rate.on_delivered(s, now);
            }
        });
        for s in self.ns3_cum_delivered.drain(..) {
            self.rate.on_delivered(&s, now);
        }
        let advanced = res.cum_acked > 0;

        // Duplicate ACK. With SACK (RFC 6675 section 2, ns-3 `isDupack`, Linux `sacked_out`):
        // an ACK whose SACK blocks report data not SACKed before, whatever its cumulative
        // part; a duplicate of an old segment (e.g. a go-back-N retransmission of data that was
        // only delayed) is not one. Without SACK (RFC 5681 section 2): nothing new acknowledged,
        // data outstanding, no payload and the same advertised window (no window update).
        let mut delivered = res.delivered;
        let is_dup = if self.cfg.sack {
            res.new_sack
        } else {
            !advanced && outstanding_before > 0 && pkt.len == 0 && !rwnd_changed
        };
        ctx.rec.on_ack(now, is_dup && !advanced);
        if is_dup {
            if self.cc.state != CaState::Recovery && self.cc.state != CaState::Loss {
                self.dupacks += 1;
            }
            if !self.cfg.sack {
                // RFC 6937: without SACK, a duplicate ACK delivered one segment.
                let room = self
                    .sb
                    .outstanding()
                    .saturating_sub(self.mss + self.dup_bytes);
                let d = self.mss.min(room);
                self.dup_bytes += d;
                delivered += d;
            }
        } else if advanced {
            self.dupacks = 0;
        }
        if advanced {
            if !self.cfg.sack {
                // The duplicate ACKs already counted part of this span as delivered (RFC 6937
                // without SACK; Linux tcp_remove_reno_sacks: max(acked - sacked_out, 1)).
                delivered = res
                    .delivered
                    .saturating_sub(self.dup_bytes)
                    .max(self.mss.min(res.delivered));
            }
            self.dup_bytes = self.dup_bytes.saturating_sub(res.cum_acked);
        }

        // RTT sample (Karn's rule is applied by the scoreboard). Linux: the newest newly
        // delivered segment that was never retransmitted (tcp_clean_rtx_queue / tcp_sacktag),
        // else the echoed timestamp.
        // ns-3 (TcpSocketBase::EstimateRtt): only an ACK that cumulatively covers the oldest
        // outstanding segment, never retransmitted, gives a sample (so no SACK-only ACK in
        // recovery does, whose echoed timestamp is old); with timestamps (TcpOptionTS) it is
        // now - TSecr in whole milliseconds, 0 taken as 1 us, else now - that segment's send time.
        let rtt_sample = if self.cfg.profile == Profile::Ns3 {
            match res.cum_front_clean {
                Some(_) if self.ns3_timestamps => Some(ns3_ts_rtt(now, pkt.sent_at)),
                Some(t) => Some(now - t),
                None => None,
            }
        } else {
            // Linux tcp_ack_update_rtt: without a clean sample (Karn), an ACK that advanced
            // snd_una gives one from the echoed timestamp (tcp_rtt_tsopt_us, whole ms, 0 as 1 ms)
            // -- the one that, after a timeout, resets the back-off.
            res.rtt_sent_at.map(|t| now - t).or_else(|| {
                (self.cfg.timestamps && advanced)
                    .then(|| Dur::from_millis(ts_ms(now).saturating_sub(ts_ms(pkt.sent_at)).max(1)))
            })
        };
        if let Some(r) = rtt_sample {
            self.rtt.sample_at(r, self.sb.snd_una, self.sb.snd_nxt);
            ctx.rec.on_rtt(now, r);
        }
        self.sync_rtt();
        // What the algorithm sees as this ACK's RTT: the sample (Linux: rs->rtt_us), or in
        // ns-3 the smoothed estimate on every ACK (PktsAcked gets m_lastRtt = GetEstimate()).
        let rtt_sample = if self.cfg.profile == Profile::Ns3 {
            self.rtt.srtt()
        } else {
            rtt_sample
        };
        self.cc.snd_una = self.sb.snd_una;
        self.cc.snd_nxt = self.sb.snd_nxt;
        self.cc.delivered = self.rate.delivered;
        self.cc.bytes_in_flight = prior_in_flight;
        self.cc.acked_sacked = res.delivered;
        // Segments the algorithm counts: ns-3 the cumulatively acknowledged ones
        // (ProcessAck's segsAcked, SACKed before or not); Linux the newly delivered ones
        // (tcp_ack's acked_sacked: cumulatively acknowledged or SACKed by this ACK).
        let segments_acked = match self.cfg.profile {
            Profile::Ns3 => res.cum_segments,
            Profile::Linux => delivered.div_ceil(self.mss) as u32,
        };
        let ev = AckEvent {
            segments_acked,
            bytes_acked: res.cum_acked,
            rtt: rtt_sample,
        };
        // Linux calls the algorithm's ACK hook here (pkts_acked before the state machine); ns-3
        // from ProcessAck, after DupAck / DoRecovery have set cwnd (`on_ack` below), and for
        // every ACK that does not advance snd_una while data is outstanding.
        let pkts_acked = match self.cfg.profile {
            Profile::Linux => res.delivered > 0 || advanced,
            Profile::Ns3 => advanced || self.sb.outstanding() > 0,
        };
        if pkts_acked && self.cfg.profile == Profile::Linux {
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

    /// RFC 6675 IsLost() marking, and lost retransmissions by send order when enabled.
    fn detect_losses(&mut self, ack: &AckInfo, ctx: &mut Ctx) -> u64 {
        if self.rack() {
            return self.rack_mark_lost(false, ctx);
        }
        let mut newly_lost = if self.cfg.sack && ack.new_sack {
            self.sb.mark_losses(self.cfg.dupthresh)
        } else {
            0
        };
        if self.cfg.sack && self.cfg.detect_lost_retransmissions {
            newly_lost += self
                .sb
                .detect_lost_retransmissions(self.cfg.dupthresh as u64);
        }
        newly_lost
    }

    /// Losses are detected by time with RACK (`rack`, the `linux` profile).
    fn rack(&self) -> bool {
        self.cfg.rack && self.cfg.sack
    }

    /// Linux `tcp_rack_reo_wnd`: RACK's reordering window. Without reordering seen, none in
    /// Recovery and Loss or once `tp->reordering` (3) segments are SACKed; else a quarter of
    /// the minimum RTT, at most the smoothed RTT (no DSACK-driven steps: `reo_wnd_steps` 1).
    fn rack_reo_wnd(&self) -> Dur {
        if !self.sb.reordering_seen()
            && (self.cc.state >= CaState::Recovery
                || self.sb.sacked_bytes() >= self.cfg.dupthresh as u64 * self.mss)
        {
            return Dur::ZERO;
        }
        Dur(self.linux_min_rtt().0 / 4).min(self.rtt.srtt().unwrap_or(Dur::ZERO))
    }

    /// Linux `tcp_min_rtt`: no sample yet reads as the largest value (its minmax starts at ~0U).
    fn linux_min_rtt(&self) -> Dur {
        self.rtt.min().unwrap_or(Dur(u64::MAX))
    }

    /// Linux `tcp_rack_mark_lost` (`force`: the timer's `tcp_rack_detect_loss`): mark the
    /// overdue copies lost and, while others wait, arm the reordering timer the way the kernel
    /// does, in whole jiffies plus `TCP_TIMEOUT_MIN` (two jiffies) from the current tick.
    /// Returns the bytes newly marked lost.
    fn rack_mark_lost(&mut self, force: bool, ctx: &mut Ctx) -> u64 {
        let reo_wnd = self.rack_reo_wnd();
        let found = self.sb.rack_detect_losses(ctx.now, reo_wnd, force);
        if let Some(wait) = found.wait {
            let j = LINUX_JIFFY.0;
            let ticks = wait.0.div_ceil(j) + 2;
            let at = Time((ctx.now.0 / j + ticks) * j);
            Self::arm(&mut self.reo_timer, TimerKind::Reo, at, ctx);
        } else if found.checked {
            self.reo_timer.cancel(); // nothing waits: the RTO is the timer again
        }
        found.newly_lost
    }

    /// Linux `tcp_rack_reo_timeout`: copies that were waiting are now overdue; if any is lost,
    /// start a recovery (or continue one) and retransmit, then re-arm the RTO from the head's
    /// latest transmission (`tcp_rearm_rto`).
    fn on_reo_timeout(&mut self, ctx: &mut Ctx) {
        let prior_in_flight = self.pipe();
        self.cc.now = ctx.now;
        self.rack_mark_lost(true, ctx);
        if self.pipe() != prior_in_flight {
            if self.cc.state != CaState::Recovery && self.cc.state != CaState::Loss {
                // tcp_enter_recovery, then tcp_cwnd_reduction(sk, 1, newly_lost, 0)
                self.enter_recovery(prior_in_flight, 1, ctx);
            }
            self.try_send(ctx);
        }
        if let Some(head) = self.sb.head() {
            let at = (head.sent_at + self.rtt.rto()).max(ctx.now);
            Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        }
        self.record_window(ctx);
    }

    /// RFC 6582 section 3.2 step 2 (ns-3 `m_highRxAckMark >= m_recover`, Linux `high_seq`):
    /// duplicate ACKs start a new fast recovery only once the cumulative ACK has passed the
    /// point where the previous episode began.
    fn past_recover(&self) -> bool {
        match self.recover {
            None => true,
            Some(r) => match self.cfg.profile {
                Profile::Ns3 => self.sb.snd_una >= r,
                Profile::Linux => self.sb.snd_una > r,
            },
        }
    }

    /// RFC 6675 (A) / RFC 6582: the cumulative ACK covers the point where the current loss
    /// episode (fast recovery or RTO) began.
    fn episode_over(&self) -> bool {
        self.recover.is_some_and(|r| self.sb.snd_una >= r)
    }

    /// The congestion state machine (RFC 6675 section 5, RFC 6937, RFC 6582); returns whether
    /// this ACK may grow cwnd.
    fn run_state_machine(&mut self, ack: &AckInfo, newly_lost: u64, ctx: &mut Ctx) -> bool {
        let controls = self.cca.controls_window();
        match self.cc.state {
            CaState::Open | CaState::Disorder => {
                // RFC 6675 section 5 (1)-(2). ns-3 3.37 `DupAck`: exactly the threshold-th
                // duplicate ACK, or `IsLost(m_highRxAckMark + m_segmentSize)`, which asks the
                // segment after the first unacknowledged one (one segment beyond RFC 6675's
                // IsLost(HighACK + 1)); Linux: the head's lost mark (`tcp_time_to_recover`).
                let (by_dupacks, by_sack) = match self.cfg.profile {
                    Profile::Ns3 => (
                        self.dupacks == self.cfg.dupthresh && self.past_recover(),
                        self.cfg.sack && self.sb.lost_from(self.sb.snd_una + self.mss),
                    ),
                    // Linux 6.18 `tcp_time_to_recover`: RACK has marked a loss
                    Profile::Linux if self.rack() => (false, self.sb.lost_bytes() > 0),
                    Profile::Linux => (
                        self.dupacks >= self.cfg.dupthresh && self.past_recover(),
                        self.cfg.sack && self.sb.head_is_lost(),
                    ),
                };
                if self.sb.outstanding() > 0 && (by_dupacks || by_sack) {
                    self.enter_recovery(ack.prior_in_flight, ack.delivered, ctx);
                    return false;
                }
                let st = match self.cfg.profile {
                    // ns-3 ProcessAck: a duplicate ACK (with SACK: new SACK information) moves
                    // Open to Disorder (`DupAck`); an ACK that advances snd_una without being
                    // one moves Disorder back to Open, whatever is still SACKed above it.
                    Profile::Ns3 if ack.is_dup => CaState::Disorder,
                    Profile::Ns3 if ack.advanced => CaState::Open,
                    Profile::Ns3 => self.cc.state,
                    // Linux tcp_try_to_open: Disorder while SACKed or duplicate-ACKed data is
                    // outstanding (tcp_left_out).
                    Profile::Linux if self.dupacks > 0 || self.sb.sacked_bytes() > 0 => CaState::Disorder,
                    Profile::Linux => CaState::Open,
                };
                self.set_state(st, ctx);
                // ns-3 grows cwnd only once back in Open (TcpSocketBase::ProcessAck); Linux
                // also in Disorder (tcp_may_raise_cwnd).
                ack.advanced && (st == CaState::Open || self.cfg.profile == Profile::Linux)
            }
            CaState::Recovery => {
                if self.episode_over() {
                    // RFC 6675 / RFC 6937: recovery ends; cwnd = ssthresh (ns-3 ExitRecovery,
                    // Linux tcp_end_cwnd_reduction), and the same ACK may grow it (both). ns-3
                    // 3.37's ProcessAck does it for every algorithm, also one with CongControl
                    // (BBR, whose ssthresh is the initial one or the BDP it set when draining),
                    // after the algorithm has heard of the end (`CA_EVENT_COMPLETE_CWR`, where
                    // ns-3's BBR restores its window, which this then overrides).
                    let ns3 = self.cfg.profile == Profile::Ns3;
                    if !controls && !ns3 {
                        self.cc.cwnd = self.cc.ssthresh.max(self.mss);
                    }
                    self.dup_bytes = 0;
                    self.dupacks = 0;
                    // ns-3 goes to Open (ProcessAck: CA_RECOVERY -> CA_OPEN); Linux to Disorder
                    // while data above is SACKed (tcp_try_to_open).
                    let st = if !ns3 && self.sb.sacked_bytes() > 0 {
                        CaState::Disorder
                    } else {
                        CaState::Open
                    };
                    self.set_state(st, ctx);
                    if ns3 {
                        self.cc.cwnd = self.cc.ssthresh.max(self.mss);
                    }
                    // Linux tcp_fastretrans_alert: the state it has just left is processed on
                    // the same ACK ("E. Process state"), so segments already marked lost beyond
                    // the old recovery point start the next recovery at once
                    // (`tcp_time_to_recover`: lost_out), from cwnd = ssthresh, before any
                    // growth or transmission. The algorithm sees Recovery -> Open/Disorder ->
                    // Recovery, as Linux calls `set_state` for both (`tcp_try_undo_recovery`,
                    // `tcp_enter_recovery`); Linux's BBR looks at the state once per ACK
                    // instead (`prev_ca_state`), which mmcc's BBR does not yet. ns-3 waits for
                    // the next duplicate ACK.
                    if self.cfg.profile == Profile::Linux
                        && self.sb.outstanding() > 0
                        && self.sb.lost_bytes() > 0
                    {
                        self.enter_recovery(ack.prior_in_flight, ack.delivered, ctx);
                        return false;
                    }
                    ack.advanced
                } else {
                    if !self.cfg.sack && ack.advanced {
                        // RFC 6582: a partial ACK retransmits the next unacknowledged segment.
                        self.sb.mark_head_lost();
                    }
                    if self.cfg.profile == Profile::Ns3 {
                        self.ns3_recovery_ack(ack, controls, ctx);
                    } else if !controls {
                        let ssrb =
                            self.ssrb(ack.advanced && newly_lost == 0, ack.retransmitted_acked);
                        self.cc.cwnd = self.prr.on_ack(
                            ack.delivered,
                            self.pipe(),
                            self.cc.ssthresh,
                            self.mss,
                            ssrb,
                        );
                    }
                    false
                }
            }
            CaState::Loss => {
                if self.cfg.frto {
                    return self.process_loss(ack, ctx);
                }
                if self.episode_over() {
                    self.dupacks = 0;
                    self.set_state(CaState::Open, ctx);
                }
                ack.advanced
            }
        }
    }

    /// An ACK in the Loss state with spurious-timeout detection (Linux `tcp_process_loss`,
    /// F-RTO as RFC 5682 section 3 with SACK); returns whether this ACK may grow cwnd.
    fn process_loss(&mut self, ack: &AckInfo, ctx: &mut Ctx) -> bool {
        let high_seq = self.recover.unwrap_or(self.sb.snd_nxt);
        let recovered = self.sb.snd_una >= high_seq;
        // The echoed timestamp predates the first retransmission: the original was delivered.
        if ack.advanced && self.try_undo_loss(false, ack, ctx) {
            return true;
        }
        if self.undo.frto {
            // Step 3b: never-retransmitted data sent before the timeout was (S)ACKed.
            if ack.orig_min_end.is_some_and(|e| e <= high_seq) && self.try_undo_loss(true, ack, ctx)
            {
                return ack.advanced;
            }
            if self.sb.snd_nxt > high_seq {
                // Step 3a: new data went out after the timeout and a duplicate ACK or SACK came
                // back: the loss was real.
                if ack.new_sack || !ack.advanced {
                    self.undo.frto = false;
                }
            } else if ack.advanced && !recovered {
                // Step 2b: the retransmission was acknowledged; send new data before
                // retransmitting more (deferred to this ACK's transmissions).
                self.recover = Some(self.sb.snd_nxt);
                if self.app.written > self.sb.snd_nxt {
                    self.undo.send_new = true;
                    return ack.advanced;
                }
                self.undo.frto = false;
            }
        }
        if recovered {
            // Step 2a / tcp_try_undo_recovery: the episode is over, undone if it may be.
            if self.may_undo(ack) {
                self.undo_reduction(ctx);
            }
            self.dupacks = 0;
            self.set_state(CaState::Open, ctx);
        }
        ack.advanced
    }

    /// Linux `tcp_may_undo` without DSACK: the reduction is still armed and the ACK echoes a
    /// timestamp (whole milliseconds, as Linux sends them) older than the first retransmission
    /// (`tcp_packet_delayed`, RFC 4015 Eifel detection).
    fn may_undo(&self, ack: &AckInfo) -> bool {
        self.undo.armed
            && self.cfg.timestamps
            && self
                .undo
                .retrans_stamp
                .is_some_and(|r| ts_ms(ack.echo) < ts_ms(r))
    }

    /// Linux `tcp_try_undo_loss`: undo the timeout's reduction when F-RTO proved it spurious
    /// (`frto_undo`) or [`Self::may_undo`]; back to Open.
    fn try_undo_loss(&mut self, frto_undo: bool, ack: &AckInfo, ctx: &mut Ctx) -> bool {
        if !(self.undo.armed && (frto_undo || self.may_undo(ack))) {
            return false;
        }
        self.undo_reduction(ctx);
        self.dupacks = 0;
        self.set_state(CaState::Open, ctx);
        true
    }

    /// Linux `tcp_undo_cwnd_reduction(sk, true)`: loss marks withdrawn, cwnd from the
    /// algorithm's `undo_cwnd`, ssthresh back to the one before if that was larger.
    fn undo_reduction(&mut self, ctx: &mut Ctx) {
        self.sb.unmark_all_lost();
        let cwnd = self.cca.undo_cwnd(&mut self.cc, self.undo.prior_cwnd);
        self.cc.cwnd = cwnd.max(self.mss);
        self.cc.ssthresh = self.cc.ssthresh.max(self.undo.prior_ssthresh);
        self.undo.armed = false;
        self.undo.frto = false;
        ctx.rec.event(ctx.now, "undo", self.cc.cwnd as f64);
    }

    /// Window growth (gated by congestion-window validation) and the rate sample.
    fn congestion_control(&mut self, ack: &AckInfo, grow: bool, newly_lost: u64) {
        if grow && !self.cca.controls_window() && self.may_grow_cwnd() {
            self.cca.increase_window(&mut self.cc, &ack.ev);
        }
        // ns-3 validates the interval against m_minRtt, the smallest smoothed RTT
        let min_rtt = if self.rate.ns3 { self.rtt.min_srtt() } else { self.rtt.min() };
        let mut rs = self.rate.finish(min_rtt);
        rs.rtt = ack.ev.rtt;
        rs.acked_sacked = ack.delivered;
        rs.newly_lost = newly_lost;
        rs.prior_in_flight = ack.prior_in_flight;
        rs.in_flight = match self.cfg.profile {
            Profile::Ns3 => self.ns3_flight,
            Profile::Linux => self.pipe(),
        };
        self.cca.on_rate_sample(&mut self.cc, &rs);
        if std::mem::take(&mut self.cc.request_app_limited) {
            // The algorithm asks that the samples of the current flight not count as
            // bandwidth samples (Linux `tp->app_limited`, set by BBR in ProbeRTT).
            self.rate.on_app_limited(self.pipe());
        }
    }

    /// RFC 6298 (5.2, 5.3): restart the timer on new data acknowledged; stop when all is. In
    /// fast recovery ns-3 restarts it on the first partial ACK only (RFC 6582 section 4's
    /// "Impatient" variant: `NewAck(ackNumber, m_isFirstPartialAck)`); Linux on every ACK that
    /// advances snd_una (`tcp_rearm_rto`).
    fn rearm_rto(&mut self, advanced: bool, new_sack: bool, ctx: &mut Ctx) {
        if !advanced
            && new_sack
            && self.cfg.profile == Profile::Linux
            && self.cc.state == CaState::Recovery
        {
            // Linux in SACK recovery: RACK's reorder timeout stands in for the RTO and, when it
            // fires, `tcp_rearm_rto` sets the RTO again from the head's latest transmission
            // with the RTO of the moment (`tcp_rto_delta_us`), so a retransmission timeout
            // counts from the head, not from the last cumulative ACK.
            if let Some(head) = self.sb.head() {
                let at = head.sent_at + self.rtt.rto();
                if at > ctx.now {
                    Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
                }
            }
            return;
        }
        if advanced
            && self.cfg.profile == Profile::Ns3
            && self.cc.state == CaState::Recovery
            && !std::mem::take(&mut self.first_partial_ack)
        {
            return;
        }
        if advanced && self.cfg.profile == Profile::Ns3 && self.cc.state == CaState::Disorder {
            // ns-3 3.37 ProcessAck: an ACK that advances snd_una but leaves the socket in
            // CA_DISORDER (it also brought new SACK information, so it counts as a duplicate)
            // calls no NewAck: the timer and m_rto stay as they were.
            return;
        }
        if advanced {
            if self.cfg.profile == Profile::Ns3 {
                self.rtt.reset_backoff(); // NewAck: m_rto from the estimator
            }
            // ns-3 3.37 `NewAck` restarts the timer on every new ACK and stops it only when the
            // transmit buffer is empty (`m_txBuffer->Size() == 0`): with data waiting and
            // nothing in flight it keeps running (see `on_rto`).
            let waiting = self.cfg.profile == Profile::Ns3 && self.tx_buffer_holds_data();
            if self.sb.outstanding() > 0 || waiting {
                let at = ctx.now + self.rtt.rto();
                Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
            } else {
                self.rto_timer.cancel();
            }
        }
    }

    /// ns-3's `m_txBuffer->Size() > 0`: data unacknowledged or not yet sent, counting what a
    /// bulk application writes as soon as the buffer has room (ns-3's `NotifySend` fills it
    /// within the same ACK).
    fn tx_buffer_holds_data(&self) -> bool {
        self.app.written > self.sb.snd_una || self.app.wants_more()
    }

    /// Linux `tcp_ack_probe`: an ACK arrived with nothing in flight while data waits (the
    /// answer to a zero-window probe, or a window update). If the window now takes the next
    /// segment, the probe's back-off is forgotten and its timer stopped; otherwise the probe
    /// timer restarts from now with the back-off reached.
    fn ack_probe(&mut self, ctx: &mut Ctx) {
        let avail = self.app.written.saturating_sub(self.sb.snd_nxt);
        if avail == 0 || self.sb.outstanding() > 0 {
            return;
        }
        if avail.min(self.mss) <= self.rwnd {
            self.rtt.reset_backoff();
            self.rto_timer.cancel();
        } else if self.rto_timer.is_armed() {
            let at = ctx.now + self.rtt.rto();
            Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        }
    }

    /// The profile's PRR-SSRB rule for this ACK (see `prr.rs`).
    fn ssrb(&self, una_advanced_no_new_loss: bool, retransmitted_data_acked: bool) -> Ssrb {
        match self.cfg.profile {
            Profile::Linux => Ssrb::Linux {
                una_advanced_no_new_loss,
            },
            Profile::Ns3 => Ssrb::Ns3 {
                retransmitted_data_acked,
            },
        }
    }

    /// An ACK in fast recovery that does not end it, as ns-3 3.37's `TcpSocketBase` handles it:
    /// a duplicate ACK runs PRR (`DupAck` -> `DoRecovery`); a partial ACK runs PRR again
    /// (`ProcessAck`, so an ACK that is both counts its DeliveredData twice) and then, unless
    /// the segment now at the head was already retransmitted, `DoRetransmit`; an ACK that is
    /// neither leaves cwnd alone.
    fn ns3_recovery_ack(&mut self, ack: &AckInfo, controls: bool, ctx: &mut Ctx) {
        let partial = ack.ev.bytes_acked >= self.mss;
        if !controls {
            let ssrb = Ssrb::Ns3 {
                retransmitted_data_acked: ack.retransmitted_acked,
            };
            // m_bytesInFlight as computed before ProcessAck, the same for both calls
            let pipe = self.pipe();
            for _ in 0..(ack.is_dup as u8 + partial as u8) {
                self.cc.cwnd = self.prr.on_ack(ack.delivered, pipe, self.cc.ssthresh, self.mss, ssrb);
            }
        }
        if partial && !self.sb.head().is_some_and(|h| h.rtx_inflight) {
            self.ns3_do_retransmit(ctx);
        }
    }

    /// ns-3's `SendPendingData` asks NextSeg for rule 3 in SACK fast recovery only
    /// (`enableRule3`); RFC 6675 makes it a SHOULD, Linux has no such rule.
    fn ns3_rule3(&self) -> bool {
        self.cfg.profile == Profile::Ns3 && self.cfg.sack && self.cc.state == CaState::Recovery
    }

    /// ns-3 `TcpSocketBase::DoRetransmit`, whatever cwnd allows: `NextSeg(isRecovery = false)`
    /// gives the first lost segment not retransmitted, else new data (if the receive window
    /// has room), else the head is sent again.
    fn ns3_do_retransmit(&mut self, ctx: &mut Ctx) {
        if let Some(id) = self.sb.next_lost() {
            self.retransmit(id, true, ctx);
            return;
        }
        self.write_app_data(ctx.now);
        let avail = self.app.written - self.sb.snd_nxt;
        if avail > 0 && self.sb.outstanding() < self.rwnd {
            let len = avail.min(self.mss).min(self.rwnd - self.sb.outstanding());
            self.send_new(len as u32, true, ctx);
            return;
        }
        if let Some(head) = self.sb.head_id() {
            self.retransmit(head, true, ctx);
        }
    }

    fn enter_recovery(&mut self, prior_in_flight: u64, delivered: u64, ctx: &mut Ctx) {
        self.first_partial_ack = true;
        ctx.rec.counters.fast_retransmits += 1;
        ctx.rec
            .event(ctx.now, "fast_retransmit", self.sb.snd_una as f64);
        let prior_cwnd = self.cc.cwnd;
        // ns-3: the pipe after this ACK (EnterRecovery's BytesInFlight); Linux reads cwnd.
        let flight = if self.cfg.profile == Profile::Ns3 {
            self.pipe()
        } else {
            prior_in_flight
        };
        self.cc.bytes_in_flight = flight;
        self.recover = Some(self.sb.snd_nxt);
        self.dupacks = 0;
        let ev = CongestionEvent {
            kind: CongestionKind::FastRetransmit,
            prior_cwnd,
            bytes_in_flight: flight,
        };
        if !self.cca.uses_fast_recovery() {
            // Tahoe: ssthresh from the algorithm, cwnd = 1 segment, slow start; the lost
            // segments are retransmitted in order as the window opens (Loss state).
            self.cc.ssthresh = self.cca.ssthresh(&self.cc);
            self.cc.cwnd = self.mss;
            self.cca.on_congestion_event(&mut self.cc, &ev);
            self.sb.mark_head_lost();
            self.dup_bytes = 0;
            self.set_state(CaState::Loss, ctx);
            if let Some(id) = self.sb.next_lost() {
                self.retransmit(id, true, ctx);
            }
            return;
        }
        let controls = self.cca.controls_window();
        self.cc.ssthresh = self.cca.ssthresh(&self.cc);
        self.cca.on_congestion_event(&mut self.cc, &ev);
        // RecoverFS: outstanding data (RFC 6937, ns-3) or the cwnd before (Linux prior_cwnd)
        self.prr.start(match self.cfg.profile {
            Profile::Ns3 => self.sb.outstanding(),
            Profile::Linux => prior_cwnd,
        });
        if !self.rack() {
            // RFC 6675 (4.2): the head is lost; with RACK the check that started the recovery
            // has marked what is lost (Linux 6.18 marks nothing more)
            self.sb.mark_head_lost();
        }
        self.set_state(CaState::Recovery, ctx);
        self.ns3_flight = self.pipe(); // EnterRecovery's BytesInFlight(), head marked lost
        if !controls {
            // the ACK that starts recovery acknowledges no retransmission
            let ssrb = self.ssrb(false, false);
            self.cc.cwnd =
                self.prr
                    .on_ack(delivered, self.pipe(), self.cc.ssthresh, self.mss, ssrb);
        }
        // RFC 6675 (4.3): the first retransmission goes out whatever the window says.
        if let Some(id) = self.sb.next_lost() {
            self.retransmit(id, true, ctx);
        }
    }

    /// Whether this timeout lowers ssthresh. ns-3 3.37 (`ReTxTimeout`) means to spare a sender
    /// already in Loss with the head retransmitted, but asks `IsHeadRetransmitted()` after
    /// `SetSentListLost()` has cleared every retransmitted mark, so every timeout lowers it
    /// (found against ns-3: D-TCP's second timeout in a row set ssthresh to 14,700 bytes
    /// there). Linux (`tcp_enter_loss`): at a new episode only (state below Recovery, or the
    /// previous episode over, or no retransmission yet).
    fn rto_lowers_ssthresh(&self) -> bool {
        match self.cfg.profile {
            Profile::Ns3 => true,
            Profile::Linux => {
                self.cc.state < CaState::Recovery
                    || self.recover.is_none_or(|r| self.sb.snd_una >= r)
                    || (self.cc.state == CaState::Loss && self.rtt.backoff_count() == 0)
            }
        }
    }

    fn on_rto(&mut self, ctx: &mut Ctx) {
        if self.sb.outstanding() == 0 {
            if self.app.written > self.sb.snd_nxt && self.rwnd < self.mss {
                // Linux tcp_probe_timer -> tcp_send_probe0: a segment without data below
                // snd_una makes the receiver ACK with its window; back off and probe again
                let mut probe = Packet::data(self.flow, self.node, self.peer, self.sb.snd_una, 0, ctx.now, false);
                probe.opt = self.opt_bytes;
                probe.ts_ms = self.ts_recent_ms;
                ctx.out.push(probe);
                ctx.rec.event(ctx.now, "window_probe", self.rwnd as f64);
                self.rtt.back_off();
                let at = ctx.now + self.rtt.rto();
                Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
                return;
            }
            // ns-3 3.37 `ReTxTimeout` returns only when the transmit buffer is empty: a sender
            // whose data waits with nothing in flight (e.g. paced at a rate that collapsed)
            // times out like any other -- CA_LOSS, ssthresh from a flight of 0, cwnd one
            // segment -- and sends its next new segment at once. Linux stops the timer instead.
            if self.cfg.profile != Profile::Ns3 || !self.tx_buffer_holds_data() {
                return;
            }
        }
        ctx.rec.counters.rtos += 1;
        ctx.rec.event(ctx.now, "rto", self.rtt.rto().millis_f64());
        self.cc.now = ctx.now;
        let prior_cwnd = self.cc.cwnd;
        self.cc.bytes_in_flight = self.pipe();
        if self.cfg.frto {
            // Linux tcp_enter_loss: F-RTO watches a timeout that starts an episode or repeats
            self.undo.frto = self.cc.state < CaState::Recovery || self.rtt.backoff_count() > 0;
        }
        if self.rto_lowers_ssthresh() {
            if self.cfg.frto {
                // tcp_current_ssthresh, prior_cwnd and tcp_init_undo, before the reduction
                self.undo.prior_ssthresh = if self.cc.state == CaState::Recovery {
                    self.cc.ssthresh
                } else {
                    let w = self.cc.cwnd / self.mss;
                    self.cc.ssthresh.max(((w >> 1) + (w >> 2)) * self.mss)
                };
                self.undo.prior_cwnd = prior_cwnd;
                self.undo.armed = true;
            }
            self.cc.ssthresh = self.cca.ssthresh(&self.cc);
        }
        // RFC 5681: loss window of one segment, slow start.
        self.cc.cwnd = self.mss;
        let ev = CongestionEvent {
            kind: CongestionKind::Timeout,
            prior_cwnd,
            bytes_in_flight: self.cc.bytes_in_flight,
        };
        self.cca.on_congestion_event(&mut self.cc, &ev);
        // RFC 6298 (5.5): back off.
        self.rtt.back_off();
        self.sb.mark_all_lost();
        self.reo_timer.cancel(); // one timer in Linux: the RTO replaced the reordering timer
        self.dupacks = 0;
        self.dup_bytes = 0;
        // RFC 6582 / RFC 6675 section 5.1: RecoveryPoint = HighData.
        self.recover = Some(self.sb.snd_nxt);
        self.set_state(CaState::Loss, ctx);
        self.next_send_time = ctx.now;
        // RFC 6298 (5.6): restart the timer with the backed-off RTO.
        let at = ctx.now + self.rtt.rto();
        self.rto_timer.cancel();
        Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        self.try_send(ctx);
        self.record_window(ctx);
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

/// A time on the TCP timestamp clock both references use: whole milliseconds (ns-3
/// `TcpOptionTS::NowToTsValue`, Linux `tcp_time_stamp_ms`).
fn ts_ms(t: Time) -> u64 {
    t.0 / 1_000_000
}

/// ns-3's RTT from an echoed timestamp (`TcpOptionTS::ElapsedTimeFromTsValue`): now - TSecr in
/// whole milliseconds, and `EstimateRtt` takes 0 as 1 us.
fn ns3_ts_rtt(now: Time, echoed: Time) -> Dur {
    match ts_ms(now).saturating_sub(ts_ms(echoed)) {
        0 => Dur::from_micros(1),
        m => Dur::from_millis(m),
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
