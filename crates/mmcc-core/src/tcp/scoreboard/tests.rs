//! The scoreboard's unit tests.

use super::*;

const MSS: u32 = 1000;

fn board(n: u64) -> Scoreboard {
    let mut b = Scoreboard::new();
    for i in 0..n {
        b.push_new(SegRec::new(i * MSS as u64, MSS, Time(i)));
    }
    b
}

fn r(a: u64, b: u64) -> Range {
    Range::new(a * MSS as u64, b * MSS as u64)
}

/// Segments of the given lengths, back to back from 0.
fn board_of(lens: &[u32]) -> Scoreboard {
    let mut b = Scoreboard::with_sacked_retransmissions(SackedRetransmission::StaysCounted);
    let mut seq = 0;
    for (i, &len) in lens.iter().enumerate() {
        b.push_new(SegRec::new(seq, len, Time(i as u64)));
        seq += len as u64;
    }
    b
}

fn lens(b: &Scoreboard) -> Vec<u32> {
    b.segs.iter().map(|s| s.len).collect()
}

/// ns-3's transmit buffer re-cuts a retransmission (`GetTransmittedSegment`): a lost
/// 200-byte segment followed by lost full ones goes out as a full segment, the 200-byte
/// rest moving up the lost run until it meets a segment in another state.
#[test]
fn a_short_lost_segment_is_resent_full_and_its_rest_moves_up_the_lost_run() {
    let mut b = board_of(&[200, MSS, MSS, MSS, MSS]);
    b.on_ack(0, &[Range::new(200 + 3 * MSS as u64, 200 + 4 * MSS as u64)], |_| {});
    b.on_ack(0, &[Range::new(200 + 2 * MSS as u64, 200 + 4 * MSS as u64)], |_| {});
    assert_eq!(b.mark_losses(1), 200 + MSS as u64 * 2);
    for expect in [vec![MSS, 200, MSS, MSS, MSS], vec![MSS, MSS, 200, MSS, MSS]] {
        let id = b.next_lost().unwrap();
        assert_eq!(b.resegment(id, MSS), MSS);
        b.on_retransmit(id, Time(10));
        assert_eq!(lens(&b), expect);
        b.check().unwrap();
    }
    // the rest now sits before a SACKed segment: it goes alone
    let id = b.next_lost().unwrap();
    assert_eq!((b.get(id).seq, b.resegment(id, MSS)), (2 * MSS as u64, 200));
    b.on_retransmit(id, Time(11));
    assert_eq!(b.next_lost(), None);
    assert_eq!((b.lost_bytes(), b.retrans_bytes()), (200 + 2 * MSS as u64, 200 + 2 * MSS as u64));
    b.check().unwrap();
    // a segment in flight (not marked lost) is not joined to a lost one either
    let mut c = board_of(&[200, MSS]);
    c.mark_head_lost(HeadRetransmission::Forgotten);
    assert_eq!(c.resegment(0, MSS), 200);
}

/// Two short lost segments that fit one MSS become one (the ids above move down), and a
/// request shorter than the segment splits it (the ids above move up); the loss queue
/// follows the renumbering.
#[test]
fn short_neighbours_merge_and_a_short_request_splits() {
    let mut b = board_of(&[200, 300, MSS, MSS, MSS, MSS]);
    b.on_ack(0, &[Range::new(500 + 3 * MSS as u64, 500 + 4 * MSS as u64)], |_| {});
    b.on_ack(0, &[Range::new(500 + 2 * MSS as u64, 500 + 4 * MSS as u64)], |_| {});
    b.on_ack(0, &[Range::new(500 + MSS as u64, 500 + 4 * MSS as u64)], |_| {});
    assert_eq!(b.mark_losses(3), 500 + MSS as u64);
    assert_eq!(b.resegment(0, MSS), 500);
    assert_eq!(lens(&b), vec![500, MSS, MSS, MSS, MSS]);
    b.on_retransmit(0, Time(10));
    assert_eq!(b.next_lost(), Some(1));
    assert_eq!(b.get(1).seq, 500);
    b.check().unwrap();
    assert_eq!(b.resegment(1, 600), 600);
    assert_eq!(lens(&b), vec![500, 600, MSS - 600, MSS, MSS, MSS]);
    b.on_retransmit(1, Time(11));
    assert_eq!(b.next_lost(), Some(2));
    b.check().unwrap();
    // a marked retransmission merged with an unmarked segment loses its mark (MergeItems)
    let mut c = board_of(&[200, MSS, MSS]);
    c.on_retransmit(1, Time(5));
    assert_eq!(c.retrans_bytes(), MSS as u64);
    assert_eq!(c.resegment(0, MSS), MSS);
    assert_eq!((lens(&c), c.retrans_bytes()), (vec![MSS, 200, MSS], 0));
    c.check().unwrap();
}

/// Linux's skbs over the outstanding data (`with_skbs`): two skbs of five segments sent;
/// each SACK cuts what it partly covers, joins a SACKed skb before it and, filling a hole,
/// the SACKed one after it; a cumulative ACK leaves the rest of an skb one skb.
#[test]
fn skbs_are_cut_by_sacks_joined_when_sacked_together_and_trimmed_by_acks() {
    let mut b = Scoreboard::new().with_skbs();
    for i in 0..10 {
        let mut s = SegRec::new(i * MSS as u64, MSS, Time(i));
        s.skb_start = i == 0 || i == 5;
        b.push_new(s);
    }
    let starts = |b: &Scoreboard| {
        b.segs.iter().filter(|s| s.skb_start).map(|s| s.seq / MSS as u64).collect::<Vec<_>>()
    };
    assert_eq!((b.skbs(), starts(&b)), (2, vec![0, 5]));
    b.on_ack(0, &[r(2, 3)], |_| {}); // tcp_fragment at both ends: [0,1] [2] [3,4] [5..9]
    assert_eq!(starts(&b), vec![0, 2, 3, 5]);
    b.on_ack(0, &[r(2, 4)], |_| {}); // 3 shifts into the SACKed 2: [0,1] [2,3] [4] [5..9]
    assert_eq!(starts(&b), vec![0, 2, 4, 5]);
    b.on_ack(0, &[r(2, 5)], |_| {});
    assert_eq!(starts(&b), vec![0, 2, 5]);
    b.on_ack(0, &[r(6, 7), r(2, 5)], |_| {});
    assert_eq!(starts(&b), vec![0, 2, 5, 6, 7]);
    // 5 fills the hole between two SACKed skbs: all three become one
    b.on_ack(0, &[r(2, 7)], |_| {});
    assert_eq!((b.skbs(), starts(&b)), (3, vec![0, 2, 7]));
    b.check().unwrap();
    // the ACK of segment 0 leaves 1, the rest of the first skb, as an skb of its own
    b.on_ack(MSS as u64, &[r(2, 7)], |_| {});
    assert_eq!(starts(&b), vec![1, 2, 7]);
    b.on_ack(8 * MSS as u64, &[], |_| {});
    assert_eq!((b.skbs(), starts(&b)), (1, vec![8]));
    b.check().unwrap();
    // without `with_skbs` nothing is counted
    let mut plain = board(3);
    plain.on_ack(0, &[r(1, 2)], |_| {});
    assert_eq!(plain.skbs(), 0);
    plain.check().unwrap();
}

#[test]
fn first_unmarked_skips_sacked_lost_and_retransmitted_segments() {
    let mut b = board(10);
    assert_eq!(b.first_unmarked(), Some(0));
    // 0 and 1 lost (three SACKed above each), 2..6 SACKed, 6..10 in flight
    b.on_ack(0, &[r(2, 6)], |_| {});
    assert_eq!(b.mark_losses(3), 2000);
    assert_eq!(b.first_unmarked(), Some(6)); // NextSeg rule 3: not lost, not SACKed
    b.on_retransmit(6, Time(20)); // sent again by rule 3
    assert_eq!(b.first_unmarked(), Some(7));
    b.on_ack(0, &[r(2, 6), r(7, 9)], |_| {});
    assert_eq!(b.first_unmarked(), Some(9));
    b.on_retransmit(9, Time(21));
    assert_eq!(b.first_unmarked(), None);
    // an undo withdraws the loss marks: 0 and 1 are candidates again
    b.unmark_all_lost();
    assert_eq!(b.first_unmarked(), Some(0));
}

#[test]
fn a_sacked_retransmission_stays_in_the_pipe_in_ns3_until_acknowledged() {
    for ns3 in [false, true] {
        let rule = if ns3 { SackedRetransmission::StaysCounted } else { SackedRetransmission::LeavesThePipe };
        let mut b = Scoreboard::with_sacked_retransmissions(rule);
        for i in 0..6u64 {
            b.push_new(SegRec::new(i * MSS as u64, MSS, Time(i)));
        }
        // 0 and 1 lost; 2..6 SACKed; both retransmitted; the retransmission of 0 is lost
        // again and that of 1 SACKed
        b.on_ack(0, &[r(2, 6)], |_| {});
        assert_eq!(b.mark_losses(3), 2000);
        b.on_retransmit(0, Time(10));
        b.on_retransmit(1, Time(10));
        b.on_ack(0, &[r(1, 2), r(2, 6)], |_| {});
        b.check().unwrap();
        // ns-3 BytesInFlight: 6 sent - 5 SACKed - 1 lost + 2 retransmitted = 2; RFC 6675 /
        // Linux: the retransmission of 0 only
        assert_eq!(b.pipe(), if ns3 { 2000 } else { 1000 }, "ns3 {ns3}");
        b.on_ack(6000, &[], |_| {});
        assert_eq!((b.pipe(), b.retrans_bytes()), (0, 0));
        b.check().unwrap();
    }
}

#[test]
fn marking_a_retransmitted_head_lost_forgets_the_retransmission_in_ns3_only() {
    // The head (segment 0, in flight, not lost) was sent again by NextSeg rule 3; two
    // segments above it are SACKed, too few to mark it lost. Fast retransmit marks it lost:
    // ns-3's MarkHeadAsLost also clears m_retrans (BytesInFlight loses the segment until it
    // is retransmitted again), Linux's tcp_mark_skb_lost keeps the retransmission counted.
    for (rule, pipe) in [(HeadRetransmission::Forgotten, 7000), (HeadRetransmission::Kept, 8000)] {
        let forget = rule == HeadRetransmission::Forgotten;
        let mut b = board(10);
        b.on_ack(0, &[r(1, 3)], |_| {});
        b.on_retransmit(0, Time(20));
        assert_eq!(b.pipe(), 9000); // 10 outstanding + 1 retransmission - 2 SACKed
        b.mark_head_lost(rule);
        assert!(b.head_is_lost());
        assert_eq!((b.pipe(), b.retrans_bytes()), (pipe, if forget { 0 } else { 1000 }));
        b.check().unwrap();
    }
}

#[test]
fn cumulative_ack_pops_segments_and_counts_delivered() {
    let mut b = board(10);
    let o = b.on_ack(3000, &[], |_| {});
    assert_eq!((o.cum_acked, o.cum_segments, o.delivered), (3000, 3, 3000));
    assert_eq!(b.snd_una, 3000);
    assert_eq!(b.pipe(), 7000);
    assert_eq!(o.rtt_sent_at, Some(Time(2)));
    b.check().unwrap();
}

#[test]
fn sack_marks_segments_and_three_sacked_above_make_a_loss() {
    let mut b = board(10);
    // segment 0 lost; receiver SACKs 1..4 progressively
    let o = b.on_ack(0, &[r(1, 2)], |_| {});
    assert!(o.new_sack);
    assert_eq!(b.mark_losses(3), 0);
    b.on_ack(0, &[r(1, 3)], |_| {});
    assert_eq!(b.mark_losses(3), 0);
    let o = b.on_ack(0, &[r(1, 4)], |_| {});
    assert_eq!(o.delivered, 1000, "only the newly covered segment is delivered");
    assert_eq!(b.mark_losses(3), 1000);
    assert!(b.head_is_lost());
    // pipe = 10 outstanding - 3 sacked - 1 lost = 6 segments
    assert_eq!(b.pipe(), 6000);
    assert_eq!(b.next_lost(), Some(0));
    b.on_retransmit(0, Time(100));
    assert_eq!(b.pipe(), 7000);
    assert_eq!(b.next_lost(), None);
    b.check().unwrap();
    // the retransmission fills the hole: cum ack to 4, sacked bytes drop out
    let o = b.on_ack(4000, &[], |_| {});
    assert_eq!(o.delivered, 1000);
    assert_eq!(o.rtt_sent_at, None, "retransmitted segment gives no RTT sample (Karn)");
    assert_eq!(b.sacked_bytes(), 0);
    assert_eq!(b.pipe(), 6000);
    b.check().unwrap();
}

/// ns-3 `TcpTxBuffer::IsLost(HighACK + MSS)`, as `DupAck` asks it: the mark of the
/// segment after the first unacknowledged one. One hole at the head with three segments
/// SACKed above: the head is lost, but the segment ns-3 asks about is SACKed, not lost.
#[test]
fn ns3_asks_the_segment_after_the_head() {
    let mut b = board(10);
    b.on_ack(0, &[r(1, 4)], |_| {});
    assert_eq!(b.mark_losses(3), 1000);
    assert!(b.head_is_lost());
    assert!(!b.lost_from(MSS as u64), "segment 1 is SACKed");
    // two holes (0 and 1) under three SACKed segments: both lost, ns-3 asks about 1
    let mut b = board(10);
    b.on_ack(0, &[r(2, 5)], |_| {});
    assert_eq!(b.mark_losses(3), 2000);
    assert!(b.lost_from(MSS as u64));
    assert!(!b.lost_from(20 * MSS as u64), "beyond the outstanding segments");
}

/// ns-3's RTT sample rule (EstimateRtt): only a cumulative ACK that covers the oldest
/// outstanding segment, never retransmitted; Linux's candidate is the newest delivered one.
#[test]
fn front_of_the_cumulative_part_decides_the_ns3_rtt_sample() {
    let mut b = board(10);
    let o = b.on_ack(2000, &[], |_| {});
    assert_eq!((o.cum_front_clean, o.rtt_sent_at), (Some(Time(0)), Some(Time(1))));
    // SACK only: a Linux candidate, no ns-3 sample
    let o = b.on_ack(2000, &[r(3, 5)], |_| {});
    assert_eq!((o.cum_front_clean, o.rtt_sent_at), (None, Some(Time(4))));
    // the retransmitted front is covered together with a fresh segment: no sample in either
    // (Linux: the newest delivered is the retransmission)
    b.on_retransmit(2, Time(50));
    let o = b.on_ack(6000, &[], |_| {});
    assert_eq!((o.cum_front_clean, o.rtt_sent_at), (None, None));
    // a clean front with a retransmitted segment behind it: ns-3 samples, Linux does not
    b.on_retransmit(7, Time(60));
    let o = b.on_ack(9000, &[], |_| {});
    assert_eq!((o.cum_front_clean, o.rtt_sent_at), (Some(Time(6)), None));
    b.check().unwrap();
}

#[test]
fn repeated_sack_blocks_are_not_walked_twice() {
    let mut b = board(100);
    let o = b.on_ack(0, &[r(1, 50)], |_| {});
    assert_eq!(o.delivered, 49_000);
    let o = b.on_ack(0, &[r(1, 51)], |_| {});
    assert_eq!(o.delivered, 1000);
    let o = b.on_ack(0, &[r(1, 51)], |_| {});
    assert!(!o.new_sack);
    assert_eq!(o.delivered, 0);
}

#[test]
fn merging_blocks_fills_the_gap_between_them() {
    let mut b = board(10);
    b.on_ack(0, &[r(5, 6), r(2, 3)], |_| {});
    assert_eq!(b.sacked_bytes(), 2000);
    let o = b.on_ack(0, &[r(2, 6)], |_| {});
    assert_eq!(o.delivered, 2000); // segments 3 and 4
    assert_eq!(b.sacked_bytes(), 4000);
    b.check().unwrap();
}

#[test]
fn multiple_holes_are_each_marked_lost() {
    let mut b = board(12);
    // holes at 0 and 4; SACKed: 1-3, 5-8
    b.on_ack(0, &[r(5, 9), r(1, 4)], |_| {});
    b.mark_losses(3);
    assert_eq!(b.lost_bytes(), 2000);
    assert_eq!(b.next_lost(), Some(0));
    b.on_retransmit(0, Time(50));
    assert_eq!(b.next_lost(), Some(4));
    b.check().unwrap();
}

#[test]
fn a_retransmission_overtaken_by_later_deliveries_is_lost_again() {
    let mut b = board(10);
    b.on_ack(0, &[r(1, 4)], |_| {});
    b.mark_losses(3);
    b.on_retransmit(0, Time(100)); // send order 11
    assert_eq!(b.next_lost(), None);
    // new data sent after the retransmission (send order 12..14) gets SACKed
    for i in 10..14 {
        b.push_new(SegRec::new(i * 1000, 1000, Time(i)));
    }
    b.on_ack(0, &[r(1, 4), r(10, 12)], |_| {});
    assert_eq!(b.detect_lost_retransmissions(3), 0, "only two later copies delivered");
    b.on_ack(0, &[r(1, 4), r(10, 14)], |_| {});
    assert_eq!(b.detect_lost_retransmissions(3), 1000);
    assert_eq!(b.next_lost(), Some(0));
    b.check().unwrap();
}

#[test]
fn a_lost_retransmission_goes_before_higher_lost_segments() {
    let mut b = board(20);
    // holes at 0 and 5: both lost
    b.on_ack(0, &[r(6, 10), r(1, 5)], |_| {});
    b.mark_losses(3);
    assert_eq!(b.next_lost(), Some(0));
    b.on_retransmit(0, Time(100)); // send order 21
    assert_eq!(b.next_lost(), Some(5));
    // new data 20..24 (send order 22..25) is SACKed: the retransmission of 0 was lost
    for i in 20..24 {
        b.push_new(SegRec::new(i * 1000, 1000, Time(i)));
    }
    b.on_ack(0, &[r(20, 24), r(6, 10), r(1, 5)], |_| {});
    assert_eq!(b.mark_losses(3), 10_000); // 10..20
    assert_eq!(b.detect_lost_retransmissions(3), 1000);
    // lowest first: segment 0 again, then 5, then the holes 10..20 below the new SACK
    assert_eq!(b.next_lost(), Some(0));
    b.on_retransmit(0, Time(200));
    assert_eq!(b.next_lost(), Some(5));
    b.on_retransmit(5, Time(201));
    assert_eq!(b.next_lost(), Some(10));
    // SACKing a queued candidate removes it from the queue
    b.on_ack(0, &[r(10, 11), r(20, 24), r(6, 10)], |_| {});
    assert_eq!(b.next_lost(), Some(11));
    b.check().unwrap();
    // once nothing is lost any more, the queue is empty
    b.on_ack(24_000, &[], |_| {});
    assert_eq!(b.next_lost(), None);
    b.check().unwrap();
}

#[test]
fn a_block_covering_more_than_eight_gaps_sacks_every_segment() {
    // every other segment SACKed: 12 gaps; then one block covers them all
    let mut b = board(30);
    for i in (1..25).step_by(2) {
        b.on_ack(0, &[r(i, i + 1)], |_| {});
    }
    b.check().unwrap();
    let o = b.on_ack(0, &[r(1, 25)], |_| {});
    assert_eq!(o.delivered, 12_000, "the 12 gaps between 1 and 25 are newly SACKed (8 before the fix)");
    assert_eq!(b.sacked_bytes(), 24_000);
    assert_eq!(b.pipe(), 6_000);
    b.check().unwrap();
}

#[test]
fn rto_marks_everything_unsacked_lost() {
    let mut b = board(5);
    b.on_ack(0, &[r(2, 3)], |_| {});
    b.on_retransmit(0, Time(9));
    b.mark_all_lost();
    assert_eq!(b.lost_bytes(), 4000);
    assert_eq!(b.retrans_bytes(), 0);
    assert_eq!(b.pipe(), 0);
    assert_eq!(b.next_lost(), Some(0));
    b.on_retransmit(0, Time(10));
    assert_eq!(b.next_lost(), Some(1));
    b.check().unwrap();
}

/// Ten segments sent 1 ms apart from t = 0 (RACK's boards).
fn rack_board() -> Scoreboard {
    let mut b = Scoreboard::new().with_rack();
    for i in 0..10u64 {
        b.push_new(SegRec::new(i * MSS as u64, MSS, Time::from_millis(i)));
    }
    b
}

fn ms(x: u64) -> Time {
    Time::from_millis(x)
}

#[test]
fn rack_marks_every_earlier_sent_hole_once_one_later_segment_is_delivered() {
    // RFC 8985 6.2 with reo_wnd = 0 (in recovery): segment 5 SACKed at 25 ms (RTT 20 ms);
    // 0..4 were sent earlier and are overdue (20 + 0 <= 25 - i), 6..9 were sent later
    let mut b = rack_board();
    b.rack_clock(ms(25), Dur::from_millis(20), None);
    b.on_ack(0, &[r(5, 6)], |_| {});
    let found = b.rack_detect_losses(ms(25), Dur::ZERO, false);
    assert_eq!(found, RackOutcome { checked: true, newly_lost: 5000, wait: None });
    assert_eq!(b.lost_bytes(), 5000);
    // RFC 6675 would have needed three SACKed segments above
    let mut c = board(10);
    c.on_ack(0, &[r(5, 6)], |_| {});
    assert_eq!(c.mark_losses(3), 0);
    // nothing new delivered: no second scan
    assert!(!b.rack_detect_losses(ms(26), Dur::ZERO, false).checked);
}

#[test]
fn rack_waits_out_the_reordering_window_and_reports_the_longest_wait() {
    // reo_wnd 5 ms: at 25 ms segment 4 (sent at 4 ms) is due at 4 + 20 + 5 = 29 ms and
    // segment 0 at 25 ms; the longest wait is 4 ms
    let mut b = rack_board();
    b.rack_clock(ms(25), Dur::from_millis(20), None);
    b.on_ack(0, &[r(5, 6)], |_| {});
    let found = b.rack_detect_losses(ms(25), Dur::from_millis(5), false);
    assert_eq!(found, RackOutcome { checked: true, newly_lost: 1000, wait: Some(Dur::from_millis(4)) });
    // the timer forces the scan: at 29 ms all five are lost
    let found = b.rack_detect_losses(ms(29), Dur::from_millis(5), true);
    assert_eq!((found.newly_lost, found.wait), (4000, None));
    assert_eq!(b.lost_bytes(), 5000);
}

#[test]
fn rack_finds_a_lost_retransmission_by_its_send_time() {
    let mut b = rack_board();
    b.rack_clock(ms(25), Dur::from_millis(20), None);
    b.on_ack(0, &[r(1, 4)], |_| {});
    assert_eq!(b.rack_detect_losses(ms(25), Dur::ZERO, false).newly_lost, 1000);
    let head = b.next_lost().unwrap();
    b.on_retransmit(head, ms(25));
    // segments sent before the retransmission are delivered later: it is not overdue
    b.rack_clock(ms(30), Dur::from_millis(20), None);
    b.on_ack(0, &[r(1, 8)], |_| {});
    assert_eq!(b.rack_detect_losses(ms(30), Dur::ZERO, false).newly_lost, 0);
    // a segment sent after it is delivered 20 ms later: the retransmission is lost
    let id = b.push_new(SegRec::new(10_000, MSS, ms(26)));
    assert_eq!(id, 10);
    b.rack_clock(ms(46), Dur::from_millis(20), None);
    b.on_ack(0, &[r(1, 11)], |_| {});
    let found = b.rack_detect_losses(ms(46), Dur::ZERO, false);
    assert_eq!(found.newly_lost, 1000);
    assert_eq!(b.retrans_bytes(), 0);
    assert_eq!(b.next_lost(), Some(0), "eligible for another retransmission");
    b.check().unwrap();
}

#[test]
fn rack_ignores_a_retransmission_whose_original_was_delivered() {
    // the head is retransmitted at 30 ms (a spurious timeout), then the original's ACK
    // arrives echoing its 0 ms timestamp: RACK stays at the original send times
    let mut b = rack_board();
    let head = b.head_id().unwrap();
    b.on_retransmit(head, ms(30));
    b.rack_clock(ms(40), Dur::from_millis(20), Some(ms(0)));
    b.on_ack(1000, &[], |_| {});
    // had RACK taken the 30 ms send, every segment sent before it would be overdue
    assert_eq!(b.rack_detect_losses(ms(40), Dur::ZERO, false).newly_lost, 0);
    // echoing the retransmission's timestamp, it counts
    let mut c = rack_board();
    c.on_retransmit(c.head_id().unwrap(), ms(30));
    c.rack_clock(ms(40), Dur::from_millis(5), Some(ms(30)));
    c.on_ack(1000, &[], |_| {});
    assert_eq!(c.rack_detect_losses(ms(40), Dur::ZERO, false).newly_lost, 9000);
}
