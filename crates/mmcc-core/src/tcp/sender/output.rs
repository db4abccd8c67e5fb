//! The sender's output: what may be sent now (cwnd, receive window, send buffer, pacing, Linux's
//! TSO deferral and cwnd validation) and the transmission of new and retransmitted segments.

use super::*;

/// What `tcp_tso_should_defer` decided.
enum Defer {
    No,
    /// Wait for more ACKs; cwnd is what the skb waits for (`is_cwnd_limited`).
    CwndLimited,
    /// Wait for more ACKs; the receive window is what it waits for (`is_rwnd_limited`).
    RwndLimited,
    Yes,
}

impl TcpSender {
    pub(super) fn arm(timer: &mut LazyTimer, kind: TimerKind, at: Time, ctx: &mut Ctx) {
        if let Some((t, g)) = timer.arm(at) {
            ctx.timers.push((kind, t, g));
        }
    }

    /// Send whatever cwnd, the receive window, pacing and the application allow.
    pub(super) fn try_send(&mut self, ctx: &mut Ctx) {
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
            if self.ns3_bulk() {
                self.ns3_pending_notify(pipe, ctx.now);
            }
            // RFC 6675 NextSeg() rule 1: retransmit the first lost segment.
            if let Some(id) = self.sb.next_lost().filter(|_| !new_only) {
                if self.retransmission_blocked(id, pipe) {
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
                    if self.retransmission_blocked(id, pipe) {
                        return true;
                    }
                    self.tx_start_event();
                    self.retransmit(id, false, ctx);
                    continue;
                }
                self.nothing_new_to_send(pipe, ctx);
                return false;
            }
            let len = avail.min(self.mss);
            if pipe + len > self.cc.cwnd {
                return true;
            }
            if self.sb.outstanding() + len > self.rwnd {
                self.receive_window_stop(ctx);
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

    /// All written data is out and cwnd has room: the send buffer is full of unacknowledged
    /// data (a stop counted), or the flight is application-limited (the application has no data
    /// although the buffer has room; a full buffer is not the application's doing): mark the
    /// bubble where the rules do and wait for the next write.
    fn nothing_new_to_send(&mut self, pipe: u64, ctx: &mut Ctx) {
        if pipe + self.mss > self.cc.cwnd {
            return;
        }
        if self.buffer_space() == 0 {
            if self.app.wants_more() {
                self.stops.sndbuf += 1;
            }
            return;
        }
        if self.rules.app_limited_when_idle() {
            self.rate.on_app_limited(pipe);
        }
        self.cc.app_limited = true;
        if let Some(t) = self.app.next_write_time().filter(|_| !self.app_stopped) {
            Self::arm(&mut self.app_timer, TimerKind::App, t.max(ctx.now), ctx);
        }
    }

    /// The peer's receive window stops new data. With nothing in flight to bring a window
    /// update, the window is probed after an RTO (Linux `tcp_check_probe_timer`; RFC 9293
    /// 3.8.6.1).
    fn receive_window_stop(&mut self, ctx: &mut Ctx) {
        self.stops.rwnd += 1;
        if self.sb.outstanding() == 0 && !self.rto_timer.is_armed() {
            let at = ctx.now + self.rtt.rto();
            Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        }
    }

    /// Whether the window keeps segment `id` from going out again now (`pipe` in flight).
    /// Linux (`tcp_xmit_retransmit_queue`): the segment as sent must fit cwnd. ns-3
    /// (`SendPendingData`): its silly-window check asks room for a full segment unless all the
    /// data from there to the end of the buffer fits, and the retransmission then takes up to
    /// one MSS from the lost byte ([`Self::retransmit`]).
    fn retransmission_blocked(&self, id: u64, pipe: u64) -> bool {
        let window = self.cc.cwnd.saturating_sub(pipe);
        let s = self.sb.get(id);
        self.rules.retransmission_blocked(window, s.len as u64, s.seq, self.app.written, self.mss)
    }

    /// ns-3 3.37 `SendPendingData`, each round of its loop while `AvailableWindow()` (min(cwnd,
    /// rwnd) - BytesInFlight) is above 0: when NextSeg gives a segment (a lost one, new data,
    /// rule 3) and the data from it to the end of the buffer is less than that window, "ask
    /// the app for more data before trying to send" (`NotifySend`).
    fn ns3_pending_notify(&mut self, pipe: u64, now: Time) {
        let window = self.cc.cwnd.min(self.rwnd).saturating_sub(pipe);
        // with the buffer full the application would write nothing: skip NextSeg's search
        if window == 0 || self.buffer_space() == 0 {
            return;
        }
        let next = if let Some(id) = self.sb.next_lost() {
            Some(self.sb.get(id).seq)
        } else if self.app.written > self.sb.snd_nxt {
            // NextSeg's new data, while the receive window covers what was sent
            (self.sb.outstanding() <= self.rwnd).then_some(self.sb.snd_nxt)
        } else if self.ns3_rule3() {
            self.sb.first_unmarked().map(|id| self.sb.get(id).seq)
        } else {
            None
        };
        if next.is_some_and(|seq| self.app.written - seq < window) {
            self.notify_send(now);
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
    pub(super) fn may_grow_cwnd(&self) -> bool {
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
        self.rules.starts_transmission(self.pipe(), self.sb.outstanding())
    }

    /// Send `len` new bytes; `forced`: a transmission that does not ask cwnd (ns-3's
    /// `DoRetransmit` on a partial ACK).
    pub(super) fn send_new(&mut self, len: u32, forced: bool, ctx: &mut Ctx) {
        let seq = self.sb.snd_nxt;
        let mut rec = SegRec::new(seq, len, ctx.now);
        if self.cfg.send_buffer_truesize {
            // `tcp_write_xmit` -> `tso_fragment`: each transmission sends an skb of its own, at
            // most `tso_segs` segments; paced ones fill it over their pacing slots. With nothing
            // outstanding the previous skb is gone (`tcp_clean_rtx_queue` freed it once fully
            // acknowledged), so the segment begins a new one whatever room that skb had left.
            let paced = self.pacing_rate().is_some();
            rec.skb_start = self.skb_room == 0
                || self.sb.outstanding() == 0
                || (!paced && self.last_tx != ctx.now);
            if rec.skb_start {
                self.skb_room = self.tso_segs();
            }
            self.skb_room -= 1;
        }
        let idle = self.starts_transmission();
        self.rate.on_send(&mut rec, ctx.now, idle);
        self.sb.push_new(rec);
        self.cc.high_tx = self.sb.snd_nxt;
        // SendPendingData advances m_nextTxSequence past the segment, DoRetransmit does not
        self.ns3_next_tx = if forced { seq } else { seq + len as u64 };
        if !forced && self.pipe() > self.cc.cwnd {
            self.over_cwnd_sends += 1;
        }
        self.emit(seq, len, false, forced, ctx);
    }

    /// Retransmit segment `id`; `forced`: RFC 6675 (4.3), sent whatever cwnd says.
    pub(super) fn retransmit(&mut self, id: u64, forced: bool, ctx: &mut Ctx) {
        let now = ctx.now;
        if self.rules.recuts_retransmissions() {
            // ns-3: up to one MSS (SendPendingData's min(window, MSS) is a full MSS once the
            // window check passed; DoRetransmit asks NextSeg's one MSS), no further than what
            // was sent (`Scoreboard::resegment`)
            let want = self.mss.min(self.sb.snd_nxt - self.sb.get(id).seq) as u32;
            self.sb.resegment(id, want);
        }
        self.undo.retrans_stamp.get_or_insert(now); // Linux tcp_retransmit_skb
        let idle = self.starts_transmission();
        self.rate.on_send(self.sb.get_mut(id), now, idle);
        self.sb.on_retransmit(id, now);
        let (seq, len) = (self.sb.get(id).seq, self.sb.get(id).len);
        self.ns3_next_tx = if forced { seq } else { seq + len as u64 };
        if !forced && self.pipe() > self.cc.cwnd {
            self.over_cwnd_sends += 1;
        }
        self.emit(seq, len, true, forced, ctx);
    }

    /// Put a segment on the wire. `forced`: sent outside cwnd and pacing (RFC 6675 4.3, ns-3's
    /// `DoRetransmit`).
    fn emit(&mut self, seq: u64, len: u32, retx: bool, forced: bool, ctx: &mut Ctx) {
        let mut pkt = Packet::data(self.flow, self.node, self.peer, seq, len, ctx.now, retx);
        pkt.opt = self.opt_bytes;
        pkt.ts_ms = self.ts_recent_ms;
        // Pacing rates are payload rates (delivery-rate samples count payload bytes), so a
        // segment takes its payload's time; when pacing starts and how the clock advances are
        // the rules'.
        let paced = self.rules.paces(self.sb.snd_nxt, self.cc.initial_cwnd);
        if let Some(rate) = self.pacing_rate().filter(|_| paced) {
            let ran = self.pace_ran_at == ctx.now;
            self.next_send_time = self.rules.next_departure(rate, len as u64, self.next_send_time, ctx.now, forced, ran);
        }
        self.last_tx = ctx.now;
        ctx.out.push(pkt);
        ctx.rec.on_send(ctx.now, len, retx, self.pipe());
        if self.cc.state == CaState::Recovery {
            self.prr.on_sent(len as u64);
        }
        // RFC 6298 (5.1): start the timer when data is sent and it is not running.
        if !self.rto_timer.is_armed() {
            let at = ctx.now + self.rtt.rto();
            Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
        }
    }
}
