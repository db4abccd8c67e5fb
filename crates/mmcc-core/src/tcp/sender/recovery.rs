//! The sender's loss detection and recovery: RFC 6675 IsLost() marking or RACK (RFC 8985, as
//! Linux), the congestion state machine (Open / Disorder / Recovery / Loss, as ns-3 3.37 or Linux
//! per profile), PRR (RFC 6937), undo, the retransmission timer (RFC 6298) and its timeout.

use super::*;
use crate::tcp::rules::{ts_ms, FirstRetransmission, PartialAck, RecoveryExit, RecoveryFacts};

impl TcpSender {
    /// RFC 6675 IsLost() marking, and lost retransmissions by send order when enabled.
    pub(super) fn detect_losses(&mut self, ack: &AckInfo, ctx: &mut Ctx) -> u64 {
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
    pub(super) fn rack(&self) -> bool {
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
    pub(super) fn linux_min_rtt(&self) -> Dur {
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
    pub(super) fn on_reo_timeout(&mut self, ctx: &mut Ctx) {
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
        self.recover.is_none_or(|r| self.rules.past_recover(self.sb.snd_una, r))
    }

    /// RFC 6675 (A) / RFC 6582: the cumulative ACK covers the point where the current loss
    /// episode (fast recovery or RTO) began.
    pub(super) fn episode_over(&self) -> bool {
        self.recover.is_some_and(|r| self.sb.snd_una >= r)
    }

    /// The congestion state machine (RFC 6675 section 5, RFC 6937, RFC 6582); returns whether
    /// this ACK may grow cwnd. Where ns-3 and Linux differ, `self.rules` decides.
    pub(super) fn run_state_machine(&mut self, ack: &AckInfo, newly_lost: u64, ctx: &mut Ctx) -> bool {
        match self.cc.state {
            CaState::Open | CaState::Disorder => self.open_or_disorder_ack(ack, ctx),
            CaState::Recovery if self.episode_over() => self.exit_recovery(ack, ctx),
            CaState::Recovery => {
                if !self.cfg.sack && ack.advanced {
                    // RFC 6582: a partial ACK retransmits the next unacknowledged segment.
                    self.sb.mark_head_lost(self.rules.head_retransmission());
                }
                let controls = self.cca.controls_window();
                match self.rules.partial_ack() {
                    PartialAck::Ns3DoRecovery => self.ns3_recovery_ack(ack, controls, ctx),
                    PartialAck::Prr if !controls => {
                        let ssrb = self.rules.ssrb(ack.advanced && newly_lost == 0, ack.retransmitted_acked);
                        self.cc.cwnd = self.prr.on_ack(ack.delivered, self.pipe(), self.cc.ssthresh, self.mss, ssrb);
                    }
                    PartialAck::Prr => {}
                }
                false
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

    /// An ACK in Open or Disorder: fast recovery starts (RFC 6675 section 5 (1)-(2)), or the
    /// state follows the ACK; returns whether cwnd may grow.
    fn open_or_disorder_ack(&mut self, ack: &AckInfo, ctx: &mut Ctx) -> bool {
        let facts = RecoveryFacts {
            dupacks: self.dupacks,
            dupthresh: self.cfg.dupthresh,
            past_recover: self.past_recover(),
            sack: self.cfg.sack,
            rack: self.rack(),
            mss: self.mss,
        };
        if self.sb.outstanding() > 0 && self.rules.starts_recovery(&self.sb, &facts) {
            self.enter_recovery(ack.prior_in_flight, ack.delivered, ctx);
            return false;
        }
        let st = self.rules.open_or_disorder(self.cc.state, ack.is_dup, ack.advanced, self.dupacks, self.sb.sacked_bytes());
        self.set_state(st, ctx);
        ack.advanced && self.rules.grows_in(st)
    }

    /// RFC 6675 / RFC 6937: the ACK ends fast recovery; cwnd = ssthresh (ns-3 `ExitRecovery`,
    /// Linux `tcp_end_cwnd_reduction`) and the same ACK may grow it (both). The order, and
    /// whether a loss already marked starts the next recovery at once, are the rules'
    /// (`RecoveryExit`). The algorithm sees Recovery -> Open/Disorder -> Recovery then, as Linux
    /// calls `set_state` for both (`tcp_try_undo_recovery`, `tcp_enter_recovery`); Linux's BBR
    /// looks at the state once per ACK instead (`prev_ca_state`), which mmcc's BBR does not yet.
    fn exit_recovery(&mut self, ack: &AckInfo, ctx: &mut Ctx) -> bool {
        let order = self.rules.recovery_exit();
        if order == RecoveryExit::WindowThenState && !self.cca.controls_window() {
            self.cc.cwnd = self.cc.ssthresh.max(self.mss);
        }
        self.dup_bytes = 0;
        self.dupacks = 0;
        let st = self.rules.state_after_recovery(self.sb.sacked_bytes());
        self.set_state(st, ctx);
        match order {
            RecoveryExit::StateThenWindow => self.cc.cwnd = self.cc.ssthresh.max(self.mss),
            RecoveryExit::WindowThenState if self.sb.outstanding() > 0 && self.sb.lost_bytes() > 0 => {
                self.enter_recovery(ack.prior_in_flight, ack.delivered, ctx);
                return false;
            }
            RecoveryExit::WindowThenState => {}
        }
        ack.advanced
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
    pub(super) fn congestion_control(&mut self, ack: &AckInfo, grow: bool, newly_lost: u64) {
        if grow && !self.cca.controls_window() && self.may_grow_cwnd() {
            self.cca.increase_window(&mut self.cc, &ack.ev);
        }
        // ns-3 validates the interval against m_minRtt, the smallest smoothed RTT
        let min_rtt = if self.rate.follows_ns3() { self.rtt.min_srtt() } else { self.rtt.min() };
        let mut rs = self.rate.finish(min_rtt);
        rs.rtt = ack.ev.rtt;
        rs.acked_sacked = ack.delivered;
        rs.newly_lost = newly_lost;
        rs.prior_in_flight = ack.prior_in_flight;
        rs.in_flight = self.rules.sample_in_flight(self.ns3_flight, self.pipe());
        self.cca.on_rate_sample(&mut self.cc, &rs);
        if std::mem::take(&mut self.cc.request_app_limited) {
            // The algorithm asks that the samples of the current flight not count as
            // bandwidth samples (Linux `tp->app_limited`, set by BBR in ProbeRTT).
            self.rate.on_app_limited(self.pipe());
        }
    }

    /// RFC 6298 (5.2, 5.3): restart the timer on new data acknowledged; stop when all is. The
    /// stacks differ in recovery, in Disorder and with data waiting (`rules`).
    pub(super) fn rearm_rto(&mut self, advanced: bool, new_sack: bool, ctx: &mut Ctx) {
        let recovery = self.cc.state == CaState::Recovery;
        if !advanced && new_sack && recovery && self.rules.rto_from_head_in_sack_recovery() {
            if let Some(head) = self.sb.head() {
                let at = head.sent_at + self.rtt.rto();
                if at > ctx.now {
                    Self::arm(&mut self.rto_timer, TimerKind::Rto, at, ctx);
                }
            }
            return;
        }
        if advanced
            && recovery
            && self.rules.rto_restarts_on_first_partial_ack_only()
            && !std::mem::take(&mut self.first_partial_ack)
        {
            return;
        }
        if advanced && self.cc.state == CaState::Disorder && self.rules.disorder_ack_keeps_rto() {
            return;
        }
        if advanced {
            if self.rules.new_ack_resets_backoff() {
                self.rtt.reset_backoff();
            }
            // with data waiting and nothing in flight the timer may keep running (see `on_rto`)
            let waiting = self.rules.rto_runs_while_data_waits() && self.tx_buffer_holds_data();
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
    pub(super) fn ack_probe(&mut self, ctx: &mut Ctx) {
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
            // The partial ACK ends in NewAck, whose NotifySend has the application fill the room
            // the ACK freed; TcpSocketBase::Send asks AvailableWindow(), so BytesInFlight()
            // re-reads m_bytesInFlight, now with DoRetransmit's segment (what TcpBbr's
            // ModulateCwndForRecovery then reads).
            if self.active && !self.app_stopped && self.app.wants_more() {
                self.notify_send(ctx.now);
                self.ns3_flight = self.pipe();
            }
            self.ns3_new_ack();
        }
    }

    /// NextSeg's rule 3 applies: in SACK fast recovery, where the rules use it.
    pub(super) fn ns3_rule3(&self) -> bool {
        self.rules.next_seg_rule3() && self.cfg.sack && self.cc.state == CaState::Recovery
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
        let flight = self.rules.recovery_flight(self.pipe(), prior_in_flight);
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
            self.sb.mark_head_lost(self.rules.head_retransmission());
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
        self.prr.start(self.rules.recover_fs(self.sb.outstanding(), prior_cwnd));
        if !self.rack() {
            // RFC 6675 (4.2): the head is lost; with RACK the check that started the recovery
            // has marked what is lost (Linux 6.18 marks nothing more)
            self.sb.mark_head_lost(self.rules.head_retransmission());
        }
        self.set_state(CaState::Recovery, ctx);
        self.ns3_flight = self.pipe(); // EnterRecovery's BytesInFlight(), head marked lost
        if !controls {
            // the ACK that starts recovery acknowledges no retransmission
            let ssrb = self.rules.ssrb(false, false);
            self.cc.cwnd =
                self.prr
                    .on_ack(delivered, self.pipe(), self.cc.ssthresh, self.mss, ssrb);
        }
        // RFC 6675 (4.3): the first retransmission goes out whatever the window (and the
        // pacing timer) says
        match self.rules.first_retransmission() {
            FirstRetransmission::Ns3DoRetransmit => self.ns3_do_retransmit(ctx),
            FirstRetransmission::FirstLost => {
                if let Some(id) = self.sb.next_lost() {
                    self.retransmit(id, true, ctx);
                }
            }
        }
    }

    /// Whether this timeout lowers ssthresh (the rules: ns-3 `ReTxTimeout`, Linux
    /// `tcp_enter_loss`).
    fn rto_lowers_ssthresh(&self) -> bool {
        let previous_over = self.recover.is_none_or(|r| self.sb.snd_una >= r);
        self.rules.rto_lowers_ssthresh(self.cc.state, previous_over, self.rtt.backoff_count())
    }

    pub(super) fn on_rto(&mut self, ctx: &mut Ctx) {
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
            if !self.rules.rto_runs_while_data_waits() || !self.tx_buffer_holds_data() {
                return;
            }
        }
        ctx.rec.on_rto(ctx.now, self.mss);
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
}
