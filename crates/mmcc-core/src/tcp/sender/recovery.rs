//! The sender's loss detection and recovery: RFC 6675 IsLost() marking or RACK (RFC 8985, as
//! Linux), the congestion state machine (Open / Disorder / Recovery / Loss, as ns-3 3.37 or Linux
//! per profile), PRR (RFC 6937), undo, the retransmission timer (RFC 6298) and its timeout.

use super::*;

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
    pub(super) fn episode_over(&self) -> bool {
        self.recover.is_some_and(|r| self.sb.snd_una >= r)
    }

    /// The congestion state machine (RFC 6675 section 5, RFC 6937, RFC 6582); returns whether
    /// this ACK may grow cwnd.
    pub(super) fn run_state_machine(&mut self, ack: &AckInfo, newly_lost: u64, ctx: &mut Ctx) -> bool {
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
                        self.sb.mark_head_lost(self.head_retransmission());
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
    pub(super) fn rearm_rto(&mut self, advanced: bool, new_sack: bool, ctx: &mut Ctx) {
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

    /// ns-3's `SendPendingData` asks NextSeg for rule 3 in SACK fast recovery only
    /// (`enableRule3`); RFC 6675 makes it a SHOULD, Linux has no such rule.
    pub(super) fn ns3_rule3(&self) -> bool {
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
            self.sb.mark_head_lost(self.head_retransmission());
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
            self.sb.mark_head_lost(self.head_retransmission());
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
        // RFC 6675 (4.3): the first retransmission goes out whatever the window says. ns-3's
        // EnterRecovery calls DoRetransmit: NextSeg's rule 2 sends new data when nothing lost is
        // left to retransmit (the head already lost and retransmitted before), else the head
        // goes again; either way outside the window and the pacing timer.
        if self.cfg.profile == Profile::Ns3 {
            self.ns3_do_retransmit(ctx);
        } else if let Some(id) = self.sb.next_lost() {
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
            if self.cfg.profile != Profile::Ns3 || !self.tx_buffer_holds_data() {
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
