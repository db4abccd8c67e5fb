//! ns-3 3.35-3.37's decisions (`TcpSocketBase`, `TcpTxBuffer`, `TcpRateLinux`), the `ns3`
//! profile.

use super::*;

/// ns-3's `TcpSocketBase`.
#[derive(Clone, Copy, Debug)]
pub struct Ns3Rules {
    /// The connection carries timestamps (`TcpOptionTS`): ns-3 then takes its RTT samples from
    /// the echo, in whole milliseconds.
    pub timestamps: bool,
}

impl Ns3Rules {
    /// `TcpOptionTS::ElapsedTimeFromTsValue`: now - TSecr in whole milliseconds, and
    /// `EstimateRtt` takes 0 as 1 us.
    fn echo_rtt(now: Time, echoed: Time) -> Dur {
        match ts_ms(now).saturating_sub(ts_ms(echoed)) {
            0 => Dur::from_micros(1),
            m => Dur::from_millis(m),
        }
    }
}

impl StackRules for Ns3Rules {
    /// `TcpTxBuffer` keeps `m_retrans` until `DiscardUpTo` / `SetSentListLost`, so its
    /// `BytesInFlight` counts a SACKed retransmission as in flight.
    fn sacked_retransmission(&self) -> SackedRetransmission {
        SackedRetransmission::StaysCounted
    }

    /// `TcpTxBuffer::MarkHeadAsLost` clears the head's retransmitted mark.
    fn head_retransmission(&self) -> HeadRetransmission {
        HeadRetransmission::Forgotten
    }

    /// `TcpSocketBase::ConnTimeout`, 3 s.
    fn syn_timeout(&self, _initial_rto: Dur) -> Dur {
        Dur::from_secs(3)
    }

    /// `ProcessSynSent` leaves the window to the first ACK.
    fn synack_sets_rwnd(&self) -> bool {
        false
    }

    /// `EstimateRtt` on the SYN-ACK (whole ms with timestamps).
    fn handshake_rtt(&self, now: Time, sent: Time) -> Dur {
        if self.timestamps {
            Self::echo_rtt(now, sent)
        } else {
            now - sent
        }
    }

    /// `m_lastRtt` is the estimate and `m_minRtt` the smallest estimate; a class that tracks a
    /// maximum can only take it over the estimates `PktsAcked` passes.
    fn sync_rtt(&self, rtt: &RttEstimator, cc: &mut CcState) {
        cc.latest_rtt = rtt.srtt();
        cc.min_rtt = rtt.min_srtt();
        cc.max_rtt = rtt.max_srtt();
    }

    /// The runner's `BulkSender` (like `BulkSendApplication`) writes from the socket's
    /// `NotifySend` only.
    fn bulk_writes_when_asked(&self) -> bool {
        true
    }

    /// `TcpSocketBase::Send` -> `TcpRateLinux::CalculateAppLimited`.
    fn app_limited_at_write(&self) -> bool {
        true
    }

    /// `TcpSocketBase::EstimateRtt`: only an ACK that cumulatively covers the oldest outstanding
    /// segment, never retransmitted, gives a sample (so no SACK-only ACK in recovery does, whose
    /// echo is old); with timestamps it is now - TSecr, else now - that segment's send time.
    fn ack_rtt(&self, a: &AckFacts) -> Option<Dur> {
        match a.res.cum_front_clean {
            Some(_) if self.timestamps => Some(Self::echo_rtt(a.now, a.echo)),
            Some(t) => Some(a.now - t),
            None => None,
        }
    }

    /// `PktsAcked` gets `m_lastRtt`, the smoothed estimate, on every ACK.
    fn cc_rtt(&self, _sample: Option<Dur>, srtt: Option<Dur>) -> Option<Dur> {
        srtt
    }

    /// `ProcessAck`'s `segsAcked`: the cumulatively acknowledged segments, SACKed before or not.
    fn segments_acked(&self, a: &AckFacts) -> u32 {
        a.res.cum_segments
    }

    /// `ProcessAck` calls `PktsAcked` for every ACK that advances snd_una and for every one
    /// that does not while data is outstanding.
    fn pkts_acked(&self, a: &AckFacts) -> bool {
        a.advanced || a.outstanding > 0
    }

    /// From `ProcessAck`, after `DupAck` / `DoRecovery` have set cwnd ([`StackRules::hook`]).
    fn hook_before_loss_detection(&self) -> bool {
        false
    }

    /// `ProcessAck`, leaving CA_LOSS: the window grows by the segments above the recovery point
    /// only, (ack - m_recover) / MSS.
    fn loss_exit_segments(&self, state: CaState, episode_over: bool, above: u64, mss: u64) -> Option<u32> {
        (state == CaState::Loss && episode_over).then(|| (above / mss) as u32)
    }

    /// `PktsAcked` before cwnd = ssthresh when the ACK ends fast recovery, else after the state
    /// machine; one segment for an ACK that does not advance snd_una and for a partial ACK in
    /// recovery (`PktsAcked(tcb, 1, ..)`).
    fn hook(&self, mut ev: AckEvent, pkts_acked: bool, advanced: bool, in_recovery: bool, episode_over: bool) -> Hook {
        if !pkts_acked {
            return Hook::None;
        }
        if !advanced || (in_recovery && !episode_over) {
            ev.segments_acked = 1;
        }
        if in_recovery && episode_over {
            Hook::Before(ev)
        } else {
            Hook::After(ev)
        }
    }

    /// The rate sample reports the change of `m_lostOut` (lost marks not yet acknowledged or
    /// SACKed) over the whole ACK, in either direction (`TcpSocketBase::ReceivedAck`).
    fn rate_sample_lost(&self, lost_before: u64, lost_now: u64, _newly_lost: u64) -> u64 {
        lost_now.abs_diff(lost_before)
    }

    /// `ProcessAck` calls `NewAck` (-> `NotifySend`) for an ACK that advances snd_una and does
    /// not leave the socket in CA_DISORDER.
    fn new_ack_runs(&self, advanced: bool, state: CaState) -> bool {
        advanced && state != CaState::Disorder
    }

    /// `m_highRxAckMark >= m_recover`.
    fn past_recover(&self, snd_una: u64, recover: u64) -> bool {
        snd_una >= recover
    }

    /// ns-3 3.37 `DupAck`: exactly the threshold-th duplicate ACK, or
    /// `IsLost(m_highRxAckMark + m_segmentSize)`, which asks the segment after the first
    /// unacknowledged one (one segment beyond RFC 6675's IsLost(HighACK + 1)).
    fn starts_recovery(&self, sb: &Scoreboard, f: &RecoveryFacts) -> bool {
        (f.dupacks == f.dupthresh && f.past_recover) || (f.sack && sb.lost_from(sb.snd_una + f.mss))
    }

    /// `ProcessAck`: a duplicate ACK (with SACK: new SACK information) moves Open to Disorder
    /// (`DupAck`); an ACK that advances snd_una without being one moves Disorder back to Open,
    /// whatever is still SACKed above it.
    fn open_or_disorder(&self, current: CaState, is_dup: bool, advanced: bool, _dupacks: u32, _sacked: u64) -> CaState {
        if is_dup {
            CaState::Disorder
        } else if advanced {
            CaState::Open
        } else {
            current
        }
    }

    /// `ProcessAck` grows cwnd only once back in Open.
    fn grows_in(&self, st: CaState) -> bool {
        st == CaState::Open
    }

    /// `ProcessAck` does it for every algorithm, also one with `CongControl` (BBR, whose
    /// ssthresh is the initial one or the BDP it set when draining), after the algorithm has
    /// heard of the end (`CA_EVENT_COMPLETE_CWR`, where ns-3's BBR restores its window, which
    /// this then overrides); the next recovery waits for the next duplicate ACK.
    fn recovery_exit(&self) -> RecoveryExit {
        RecoveryExit::StateThenWindow
    }

    /// CA_RECOVERY -> CA_OPEN.
    fn state_after_recovery(&self, _sacked: u64) -> CaState {
        CaState::Open
    }

    /// `TcpPrrRecovery::DoRecovery` from `ProcessAck`.
    fn partial_ack(&self) -> PartialAck {
        PartialAck::Ns3DoRecovery
    }

    /// `m_bytesInFlight` as read while the ACK was processed (only `BytesInFlight()`
    /// recomputes it).
    fn sample_in_flight(&self, at_ack: u64, _now: u64) -> u64 {
        at_ack
    }

    /// The RTO timer is ns-3's only timer in recovery.
    fn rto_from_head_in_sack_recovery(&self) -> bool {
        false
    }

    /// RFC 6582 section 4's "Impatient" variant: `NewAck(ackNumber, m_isFirstPartialAck)`.
    fn rto_restarts_on_first_partial_ack_only(&self) -> bool {
        true
    }

    /// 3.37 `ProcessAck`: an ACK that advances snd_una but leaves the socket in CA_DISORDER
    /// (it also brought new SACK information, so it counts as a duplicate) calls no `NewAck`:
    /// the timer and `m_rto` stay as they were.
    fn disorder_ack_keeps_rto(&self) -> bool {
        true
    }

    /// `NewAck`: `m_rto` from the estimator.
    fn new_ack_resets_backoff(&self) -> bool {
        true
    }

    /// `NewAck` stops the timer only when the transmit buffer is empty (`m_txBuffer->Size() ==
    /// 0`), and `ReTxTimeout` returns early only then.
    fn rto_runs_while_data_waits(&self) -> bool {
        true
    }

    /// `TcpPrrRecovery`'s SSRB: the extra segment when the ACK covered retransmitted data
    /// (`m_isRetransDataAcked`).
    fn ssrb(&self, _una_advanced_no_new_loss: bool, retransmitted_data_acked: bool) -> Ssrb {
        Ssrb::Ns3 { retransmitted_data_acked }
    }

    /// `SendPendingData` asks NextSeg for rule 3 in SACK fast recovery (`enableRule3`).
    fn next_seg_rule3(&self) -> bool {
        true
    }

    /// `EnterRecovery`'s `BytesInFlight()`: the pipe after this ACK.
    fn recovery_flight(&self, pipe: u64, _prior_in_flight: u64) -> u64 {
        pipe
    }

    /// `TcpPrrRecovery::EnterRecovery`: the outstanding data (RFC 6937).
    fn recover_fs(&self, outstanding: u64, _prior_cwnd: u64) -> u64 {
        outstanding
    }

    /// `EnterRecovery` -> `DoRetransmit`.
    fn first_retransmission(&self) -> FirstRetransmission {
        FirstRetransmission::Ns3DoRetransmit
    }

    /// 3.37 `ReTxTimeout` means to spare a sender already in Loss with the head retransmitted,
    /// but asks `IsHeadRetransmitted()` after `SetSentListLost()` has cleared every
    /// retransmitted mark, so every timeout lowers it (found against ns-3: D-TCP's second
    /// timeout in a row set ssthresh to 14,700 bytes there).
    fn rto_lowers_ssthresh(&self, _state: CaState, _previous_over: bool, _backoffs: u32) -> bool {
        true
    }

    /// ns-3 marks the bubble at the write only (`app_limited_at_write`), never when
    /// `SendPendingData` runs out of data.
    fn app_limited_when_idle(&self) -> bool {
        false
    }

    /// `SendPendingData`'s silly-window check asks room for a full segment unless all the data
    /// from there to the end of the buffer fits; the retransmission then takes up to one MSS
    /// from the lost byte (`recuts_retransmissions`).
    fn retransmission_blocked(&self, window: u64, _len: u64, seq: u64, written: u64, mss: u64) -> bool {
        window == 0 || (window < mss && written - seq > window)
    }

    /// `SendDataPacket`: `BytesInFlight() == 0`, so the retransmission after a timeout starts
    /// one (its delivery-rate sample then spans that retransmission, not the timeout).
    fn starts_transmission(&self, pipe: u64, _outstanding: u64) -> bool {
        pipe == 0
    }

    /// `SendDataPacket` -> `TcpTxBuffer::CopyFromSequence`: up to one MSS, no further than what
    /// was sent; the transmit buffer re-cuts its items to that size.
    fn recuts_retransmissions(&self) -> bool {
        true
    }

    /// `IsPacingEnabled`: only once the initial window has gone out (highTxMark above it;
    /// `PaceInitialWindow` is off by default).
    fn paces(&self, snd_nxt: u64, initial_cwnd: u64) -> bool {
        snd_nxt >= initial_cwnd
    }

    /// `SendPendingData` schedules `CalculateBytesTxTime(payload)`, to the nearest ns;
    /// `SendDataPacket` starts the pacing timer only if it has expired, so a retransmission
    /// that goes out while it runs (`DoRetransmit` in recovery) does not delay the next packet.
    /// That includes the instant the timer is due: its event runs after the ACK being processed
    /// (`Timer::IsExpired` is false for an event of this instant not yet run).
    fn next_departure(&self, rate: Bandwidth, len: u64, next: Time, now: Time, forced: bool, timer_ran: bool) -> Time {
        if now < next || (forced && now == next && !timer_ran) {
            next
        } else {
            next.max(now) + rate.tx_time_nearest(len)
        }
    }
}
