//! Each reference's answer to each decision, at the boundaries where the two differ: a table a
//! change of either file must change on purpose (the traces and stored runs show the rules in
//! whole runs; these pin the ones no pinned case reaches, found by `make mutants`).

use super::*;
use crate::tcp::scoreboard::AckOutcome;

const NS3: Ns3Rules = Ns3Rules { timestamps: true };
const LINUX: LinuxRules = LinuxRules;

fn facts(res: &AckOutcome, advanced: bool, outstanding: u64) -> AckFacts<'_> {
    AckFacts { now: Time::ZERO, res, echo: Time::ZERO, timestamps: true, advanced, delivered: res.delivered, outstanding, mss: 1000 }
}

#[test]
fn the_handshake_and_the_application() {
    // ns-3's SYN-ACK window does not bound the first flight; Linux's (unscaled) does
    assert!(!NS3.synack_sets_rwnd() && LINUX.synack_sets_rwnd());
    // ns-3 marks application-limited at the write (`TcpSocketBase::Send`), Linux when the sender
    // finds nothing to send (`tcp_rate_check_app_limited`)
    assert!(NS3.app_limited_at_write() && !NS3.app_limited_when_idle());
    assert!(!LINUX.app_limited_at_write() && LINUX.app_limited_when_idle());
    // ns-3 re-cuts retransmissions to an MSS from the lost byte; Linux resends the skb as sent
    assert!(NS3.recuts_retransmissions() && !LINUX.recuts_retransmissions());
}

#[test]
fn which_acks_reach_the_algorithm() {
    let nothing = AckOutcome::default();
    let delivered = AckOutcome { delivered: 1000, ..Default::default() };
    // Linux `tcp_clean_rtx_queue`: something delivered or snd_una advanced
    assert!(!LINUX.pkts_acked(&facts(&nothing, false, 5000)));
    assert!(LINUX.pkts_acked(&facts(&delivered, false, 5000)) && LINUX.pkts_acked(&facts(&nothing, true, 0)));
    // ns-3 `ProcessAck`: every ACK while data is outstanding, or one that advanced snd_una
    assert!(NS3.pkts_acked(&facts(&nothing, false, 1)) && !NS3.pkts_acked(&facts(&nothing, false, 0)));
    assert!(NS3.pkts_acked(&facts(&nothing, true, 0)));
    // ns-3 leaves CA_LOSS with the segments above the recovery point (whole segments)
    assert_eq!(NS3.loss_exit_segments(CaState::Loss, true, 3500, 1000), Some(3));
    assert_eq!(NS3.loss_exit_segments(CaState::Loss, false, 3500, 1000), None);
    assert_eq!(NS3.loss_exit_segments(CaState::Recovery, true, 3500, 1000), None);
    assert_eq!(LINUX.loss_exit_segments(CaState::Loss, true, 3500, 1000), None);
    // ns-3's RTT sample: only from an ACK that covers the clean front; the echo with timestamps
    // (whole ms), the front's send time without
    let front = AckOutcome { cum_front_clean: Some(Time(1_000_000)), ..Default::default() };
    let a = AckFacts { now: Time(25_500_000), echo: Time(2_000_000), ..facts(&front, true, 0) };
    assert_eq!(NS3.ack_rtt(&a), Some(Dur(23_000_000))); // TSval clock in ms: 25 - 2
    assert_eq!(Ns3Rules { timestamps: false }.ack_rtt(&a), Some(Dur(24_500_000)));
    assert_eq!(NS3.ack_rtt(&facts(&nothing, true, 0)), None);
    // the rate sample's losses: ns-3 the change of its lost count, Linux what this ACK marked
    assert_eq!((NS3.rate_sample_lost(5000, 2000, 700), LINUX.rate_sample_lost(5000, 2000, 700)), (3000, 700));
    assert_eq!((NS3.sample_in_flight(9, 4), LINUX.sample_in_flight(9, 4)), (9, 4));
}

#[test]
fn the_state_machine() {
    // RFC 6582's recovery point: ns-3 `m_highRxAckMark >= m_recover`, Linux after(snd_una, high_seq)
    assert!(NS3.past_recover(10, 10) && !NS3.past_recover(9, 10));
    assert!(!LINUX.past_recover(10, 10) && LINUX.past_recover(11, 10));
    // ns-3: Disorder on a duplicate, Open on an advancing ACK, else unchanged
    assert_eq!(NS3.open_or_disorder(CaState::Open, true, false, 1, 0), CaState::Disorder);
    assert_eq!(NS3.open_or_disorder(CaState::Disorder, false, true, 0, 3000), CaState::Open);
    assert_eq!(NS3.open_or_disorder(CaState::Disorder, false, false, 0, 0), CaState::Disorder);
    // Linux `tcp_try_to_open`: Disorder while anything is SACKed or duplicate-ACKed
    assert_eq!(LINUX.open_or_disorder(CaState::Open, false, true, 0, 1), CaState::Disorder);
    assert_eq!(LINUX.open_or_disorder(CaState::Open, false, true, 1, 0), CaState::Disorder);
    assert_eq!(LINUX.open_or_disorder(CaState::Disorder, true, false, 0, 0), CaState::Open);
    assert_eq!((NS3.state_after_recovery(1), LINUX.state_after_recovery(1)), (CaState::Open, CaState::Disorder));
    assert_eq!(LINUX.state_after_recovery(0), CaState::Open);
    // `NewAck` (ns-3) runs for an advancing ACK that does not leave the socket in Disorder
    assert!(NS3.new_ack_runs(true, CaState::Open) && !NS3.new_ack_runs(true, CaState::Disorder));
    assert!(!NS3.new_ack_runs(false, CaState::Open) && !LINUX.new_ack_runs(true, CaState::Open));
    // the window a recovery starts from: ns-3 the pipe, Linux the flight before the ACK
    assert_eq!((NS3.recovery_flight(7, 9), LINUX.recovery_flight(7, 9)), (7, 9));
    // ns-3's recovery entry asks about the segment after the head: the third duplicate is enough
    let sb = Scoreboard::new();
    let f = RecoveryFacts { dupacks: 3, dupthresh: 3, past_recover: true, sack: true, rack: false, mss: 1000 };
    assert!(NS3.starts_recovery(&sb, &f));
    assert!(!NS3.starts_recovery(&sb, &RecoveryFacts { dupacks: 2, ..f }));
    // ... or before the threshold, once the segment after the head is marked lost:
    // IsLost(m_highRxAckMark + m_segmentSize). Ten segments, 0-2 acknowledged, 5-7 SACKed: 3 and
    // 4 have three SACKed segments above them and are marked lost.
    let mut sb = Scoreboard::new();
    for i in 0..10u64 {
        sb.push_new(crate::tcp::scoreboard::SegRec::new(i * 1000, 1000, Time(i)));
    }
    sb.on_ack(3000, &[crate::net::Range::new(5000, 8000)], |_| {});
    sb.mark_losses(3);
    let early = RecoveryFacts { dupacks: 1, ..f };
    assert!(sb.lost_from(4000) && NS3.starts_recovery(&sb, &early));
    assert!(!NS3.starts_recovery(&sb, &RecoveryFacts { sack: false, ..early }));
}

#[test]
fn the_retransmission_timer() {
    // ns-3 restarts it on the first partial ACK only, keeps it on an ACK that leaves Disorder's
    // `NewAck` out, resets the back-off with `NewAck`, runs it while data waits; Linux re-arms on
    // every advancing ACK, ends the back-off with an RTT sample and stops with nothing in flight
    assert!(NS3.rto_restarts_on_first_partial_ack_only() && !LINUX.rto_restarts_on_first_partial_ack_only());
    assert!(NS3.disorder_ack_keeps_rto() && !LINUX.disorder_ack_keeps_rto());
    assert!(NS3.new_ack_resets_backoff() && !LINUX.new_ack_resets_backoff());
    assert!(NS3.rto_runs_while_data_waits() && !LINUX.rto_runs_while_data_waits());
    // Linux `tcp_enter_loss` lowers ssthresh at a new episode only
    assert!(LINUX.rto_lowers_ssthresh(CaState::Disorder, false, 3));
    assert!(!LINUX.rto_lowers_ssthresh(CaState::Recovery, false, 0));
    assert!(LINUX.rto_lowers_ssthresh(CaState::Recovery, true, 2));
    assert!(LINUX.rto_lowers_ssthresh(CaState::Loss, false, 0));
    assert!(!LINUX.rto_lowers_ssthresh(CaState::Loss, false, 1));
    // ns-3 `ReTxTimeout` at every timeout
    assert!(NS3.rto_lowers_ssthresh(CaState::Loss, false, 4));
}

#[test]
fn what_the_window_lets_out() {
    // ns-3's silly-window check: a full segment's room unless the rest of the buffer fits
    assert!(NS3.retransmission_blocked(0, 500, 0, 500, 1000));
    assert!(NS3.retransmission_blocked(600, 1000, 0, 5000, 1000));
    assert!(!NS3.retransmission_blocked(600, 1000, 4500, 5000, 1000));
    assert!(!NS3.retransmission_blocked(600, 1000, 4400, 5000, 1000));
    assert!(!NS3.retransmission_blocked(1000, 1000, 0, 5000, 1000));
    // Linux: the skb as sent must fit
    assert!(LINUX.retransmission_blocked(999, 1000, 0, 5000, 1000) && !LINUX.retransmission_blocked(1000, 1000, 0, 5000, 1000));
}
