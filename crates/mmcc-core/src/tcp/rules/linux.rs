//! Linux 6.x's decisions (`tcp_ack` and its helpers in `net/ipv4/tcp_input.c`), the `linux`
//! profile.

use super::*;

/// Linux's `tcp_ack`.
#[derive(Clone, Copy, Debug)]
pub struct LinuxRules;

impl StackRules for LinuxRules {
    /// `tcp_sacktag_one` clears TCPCB_SACKED_RETRANS (RFC 6675 `SetPipe` too).
    fn sacked_retransmission(&self) -> SackedRetransmission {
        SackedRetransmission::LeavesThePipe
    }

    /// `tcp_mark_skb_lost` keeps TCPCB_SACKED_RETRANS on an skb it newly marks lost.
    fn head_retransmission(&self) -> HeadRetransmission {
        HeadRetransmission::Kept
    }

    /// `tcp_connect`: `TCP_TIMEOUT_INIT`, the initial RTO.
    fn syn_timeout(&self, initial_rto: Dur) -> Dur {
        initial_rto
    }

    /// The SYN-ACK's window (never scaled) bounds the first flight (`tcp_ack_update_window`).
    fn synack_sets_rwnd(&self) -> bool {
        true
    }

    /// `tcp_ack_update_rtt` from the SYN's send time (us).
    fn handshake_rtt(&self, now: Time, sent: Time) -> Dur {
        now - sent
    }

    /// The latest sample and the extremes of the samples (`rs->rtt_us`, `tcp_min_rtt`).
    fn sync_rtt(&self, rtt: &RttEstimator, cc: &mut CcState) {
        cc.latest_rtt = rtt.latest();
        cc.min_rtt = rtt.min();
        cc.max_rtt = rtt.max();
    }

    /// An application writes whenever it has data and the buffer room.
    fn bulk_writes_when_asked(&self) -> bool {
        false
    }

    /// `tcp_rate_check_app_limited` runs when the sender finds nothing to send.
    fn app_limited_at_write(&self) -> bool {
        false
    }

    /// `tcp_clean_rtx_queue` / `tcp_sacktag`: the newest newly delivered segment that was never
    /// retransmitted; else (`tcp_ack_update_rtt`) an ACK that advanced snd_una gives one from
    /// the echoed timestamp (`tcp_rtt_tsopt_us`, whole ms, 0 as 1 ms), the one that, after a
    /// timeout, resets the back-off.
    fn ack_rtt(&self, a: &AckFacts) -> Option<Dur> {
        a.res.rtt_sent_at.map(|t| a.now - t).or_else(|| {
            (a.timestamps && a.advanced)
                .then(|| Dur::from_millis(ts_ms(a.now).saturating_sub(ts_ms(a.echo)).max(1)))
        })
    }

    /// `rs->rtt_us`: this ACK's sample.
    fn cc_rtt(&self, sample: Option<Dur>, _srtt: Option<Dur>) -> Option<Dur> {
        sample
    }

    /// `tcp_ack`'s `acked_sacked`: the newly delivered segments, cumulatively acknowledged or
    /// SACKed by this ACK.
    fn segments_acked(&self, a: &AckFacts) -> u32 {
        a.delivered.div_ceil(a.mss) as u32
    }

    /// `tcp_clean_rtx_queue` calls `pkts_acked` when something was delivered or acknowledged.
    fn pkts_acked(&self, a: &AckFacts) -> bool {
        a.res.delivered > 0 || a.advanced
    }

    /// `pkts_acked` runs from `tcp_clean_rtx_queue`, before `tcp_fastretrans_alert`.
    fn hook_before_loss_detection(&self) -> bool {
        true
    }

    /// `tcp_process_loss` keeps the ACK's count.
    fn loss_exit_segments(&self, _state: CaState, _episode_over: bool, _above: u64, _mss: u64) -> Option<u32> {
        None
    }

    /// Already called ([`StackRules::hook_before_loss_detection`]).
    fn hook(&self, _ev: AckEvent, _pkts_acked: bool, _advanced: bool, _in_recovery: bool, _episode_over: bool) -> Hook {
        Hook::None
    }

    /// `tcp_rate_gen`'s `rs->losses`: the bytes this ACK's loss detection newly marked.
    fn rate_sample_lost(&self, _lost_before: u64, _lost_now: u64, newly_lost: u64) -> u64 {
        newly_lost
    }

    /// No `NewAck`: the writer is woken by the freed room (`tcp_check_space`).
    fn new_ack_runs(&self, _advanced: bool, _state: CaState) -> bool {
        false
    }

    /// `tcp_time_to_recover` with `high_seq`: strictly past it (`after(snd_una, high_seq)`).
    fn past_recover(&self, snd_una: u64, recover: u64) -> bool {
        snd_una > recover
    }

    /// `tcp_time_to_recover`: with RACK (Linux 6.18) a loss RACK has marked; else the
    /// duplicate-ACK threshold or the head's lost mark.
    fn starts_recovery(&self, sb: &Scoreboard, f: &RecoveryFacts) -> bool {
        if f.rack {
            return sb.lost_bytes() > 0;
        }
        (f.dupacks >= f.dupthresh && f.past_recover) || (f.sack && sb.head_is_lost())
    }

    /// `tcp_try_to_open`: Disorder while SACKed or duplicate-ACKed data is outstanding
    /// (`tcp_left_out`).
    fn open_or_disorder(&self, _current: CaState, _is_dup: bool, _advanced: bool, dupacks: u32, sacked: u64) -> CaState {
        if dupacks > 0 || sacked > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }

    /// `tcp_may_raise_cwnd`: also in Disorder.
    fn grows_in(&self, _st: CaState) -> bool {
        true
    }

    /// `tcp_end_cwnd_reduction`, then `tcp_try_to_open`; `tcp_fastretrans_alert` processes the
    /// state it has just left on the same ACK ("E. Process state"), so segments already marked
    /// lost beyond the old recovery point start the next recovery at once.
    fn recovery_exit(&self) -> RecoveryExit {
        RecoveryExit::WindowThenState
    }

    /// `tcp_try_to_open`: Disorder while data above is SACKed.
    fn state_after_recovery(&self, sacked: u64) -> CaState {
        if sacked > 0 {
            CaState::Disorder
        } else {
            CaState::Open
        }
    }

    /// `tcp_cwnd_reduction`.
    fn partial_ack(&self) -> PartialAck {
        PartialAck::Prr
    }

    /// `tcp_rate_gen`'s `tcp_packets_in_flight` after the ACK.
    fn sample_in_flight(&self, _at_ack: u64, now: u64) -> u64 {
        now
    }

    /// RACK's reorder timeout stands in for the RTO and, when it fires, `tcp_rearm_rto` sets
    /// the RTO again from the head's latest transmission with the RTO of the moment
    /// (`tcp_rto_delta_us`), so a retransmission timeout counts from the head, not from the
    /// last cumulative ACK.
    fn rto_from_head_in_sack_recovery(&self) -> bool {
        true
    }

    /// `tcp_rearm_rto` on every ACK that advances snd_una.
    fn rto_restarts_on_first_partial_ack_only(&self) -> bool {
        false
    }

    /// `tcp_ack` re-arms whatever the state.
    fn disorder_ack_keeps_rto(&self) -> bool {
        false
    }

    /// The back-off ends with a valid RTT sample (`tcp_ack_update_rtt`), not with the ACK.
    fn new_ack_resets_backoff(&self) -> bool {
        false
    }

    /// `tcp_rearm_rto` stops the timer when nothing is in flight (`packets_out == 0`).
    fn rto_runs_while_data_waits(&self) -> bool {
        false
    }

    /// `tcp_cwnd_reduction`'s SSRB: the extra segment when snd_una advanced and nothing was
    /// newly marked lost (`FLAG_SND_UNA_ADVANCED` without `FLAG_LOST_RETRANS`).
    fn ssrb(&self, una_advanced_no_new_loss: bool, _retransmitted_data_acked: bool) -> Ssrb {
        Ssrb::Linux { una_advanced_no_new_loss }
    }

    /// No rule 3 in `tcp_xmit_retransmit_queue`.
    fn next_seg_rule3(&self) -> bool {
        false
    }

    /// `tcp_init_cwnd_reduction` -> `ssthresh(sk)` reads cwnd; the flight before the ACK.
    fn recovery_flight(&self, _pipe: u64, prior_in_flight: u64) -> u64 {
        prior_in_flight
    }

    /// `tcp_init_cwnd_reduction`: `prior_cwnd`.
    fn recover_fs(&self, _outstanding: u64, prior_cwnd: u64) -> u64 {
        prior_cwnd
    }

    /// The first lost segment.
    fn first_retransmission(&self) -> FirstRetransmission {
        FirstRetransmission::FirstLost
    }

    /// `tcp_enter_loss`: at a new episode only (state below Recovery, or the previous episode
    /// over, or no retransmission timeout yet in Loss).
    fn rto_lowers_ssthresh(&self, state: CaState, previous_over: bool, backoffs: u32) -> bool {
        state < CaState::Recovery || previous_over || (state == CaState::Loss && backoffs == 0)
    }

    /// `tcp_rate_check_app_limited`.
    fn app_limited_when_idle(&self) -> bool {
        true
    }

    /// `tcp_xmit_retransmit_queue`: the segment as sent must fit cwnd.
    fn retransmission_blocked(&self, window: u64, len: u64, _seq: u64, _written: u64, _mss: u64) -> bool {
        len > window
    }

    /// `tcp_rate_skb_sent`: nothing is outstanding (`packets_out == 0`), not when the pipe
    /// estimate is zero (after an RTO everything is marked lost, but the flight continues).
    fn starts_transmission(&self, _pipe: u64, outstanding: u64) -> bool {
        outstanding == 0
    }

    /// `__tcp_retransmit_skb` sends the segment as sent (`tcp_retrans_try_collapse` joins
    /// segments only when together they fit one MSS: not modelled).
    fn recuts_retransmissions(&self) -> bool {
        false
    }

    /// From the first segment.
    fn paces(&self, _snd_nxt: u64, _initial_cwnd: u64) -> bool {
        true
    }

    /// `tcp_update_skb_after_send`: every packet's time is added to the departure clock
    /// (`tcp_wstamp_ns = max(tcp_wstamp_ns, now) + len / rate`), BBR's packet rate converted to
    /// bytes per MSS and rounded down.
    fn next_departure(&self, rate: Bandwidth, len: u64, next: Time, now: Time, _forced: bool, _timer_ran: bool) -> Time {
        next.max(now) + rate.tx_time_floor(len)
    }
}
