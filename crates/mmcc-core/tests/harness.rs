//! Two-endpoint harness with chosen drops: exact loss-recovery behaviour.

mod common;
use common::*;
use mmcc_core::sim::Simulation;
use mmcc_core::cca::CaState;
use mmcc_core::tcp::Profile;
use mmcc_core::{Bandwidth, Dur, Time};

fn harness(drops: Vec<u64>, sack: bool) -> Simulation {
    // 100 Mb/s, 20 ms RTT, buffer large enough that only the chosen packets are lost
    let mut cfg = dumbbell(
        Bandwidth::mbps(100),
        Dur::from_millis(20),
        50_000_000,
        Dur::from_secs(5),
    );
    cfg.links[1].ab.drop_list = drops;
    cfg.flows[0].tcp.sack = Some(sack);
    cfg.flows[0].tcp.initial_ssthresh = Some(Some(100 * 1448)); // start in congestion avoidance soon
    cfg.record.trace = true;
    Simulation::new(cfg).unwrap()
}

#[test]
fn one_loss_gives_one_fast_retransmit_halving_the_flight() {
    for sack in [true, false] {
        let mut sim = harness(vec![300], sack);
        sim.run();
        sim.check_invariants().unwrap();
        let c = sim.recorder(0).counters;
        assert_eq!(
            (c.fast_retransmits, c.rtos, c.retransmits),
            (1, 0, 1),
            "sack={sack}"
        );
        // ssthresh = flight / 2 at the moment of loss detection (RFC 5681 eq. 4)
        let ev: Vec<_> = sim
            .recorder(0)
            .events
            .iter()
            .filter(|e| e.1 == "fast_retransmit")
            .collect();
        assert_eq!(ev.len(), 1);
        let r = sim.recorder(0);
        let k = r
            .state_v
            .iter()
            .position(|&s| s == 2)
            .expect("entered recovery");
        let before = r.inflight_v[..k]
            .iter()
            .rev()
            .find(|_| true)
            .copied()
            .unwrap() as u64;
        let ssthresh = r.ssthresh_v[k] as u64;
        assert!(
            ssthresh.abs_diff(before / 2) <= 2 * 1448,
            "ssthresh {ssthresh} vs flight/2 {}",
            before / 2
        );
        // after recovery cwnd = ssthresh, and the ACK that ends recovery may grow it (ns-3
        // ProcessAck calls IncreaseWindow once back in Open; Linux tcp_cong_control too):
        // congestion avoidance adds well under a segment
        let exit = k + r.state_v[k..]
            .iter()
            .position(|&s| s == 0)
            .expect("left recovery");
        let cw = r.cwnd_v[exit] as u64;
        assert!(
            (ssthresh..ssthresh + 1448).contains(&cw),
            "sack={sack}: cwnd {cw} vs ssthresh {ssthresh}"
        );
        assert!(sim.receiver(0).delivered >= sim.sender(0).sb.snd_una);
    }
}

#[test]
fn three_losses_in_one_window_are_repaired_in_one_recovery_with_sack() {
    let mut sim = harness(vec![400, 405, 410], true);
    sim.run();
    sim.check_invariants().unwrap();
    let c = sim.recorder(0).counters;
    assert_eq!((c.fast_retransmits, c.rtos, c.retransmits), (1, 0, 3));
}

#[test]
fn newreno_without_sack_repairs_one_hole_per_rtt_with_partial_acks() {
    let mut sim = harness(vec![400, 405, 410], false);
    sim.run_until(Time::from_secs(5));
    sim.check_invariants().unwrap();
    let c = sim.recorder(0).counters;
    // RFC 6582: one recovery episode, three retransmissions, no timeout
    assert_eq!((c.fast_retransmits, c.rtos, c.retransmits), (1, 0, 3));
}

/// `detect`: the Linux profile (lost retransmissions detected by send order); else ns-3's
/// (repaired by the RTO, min RTO 1 s).
fn harness_rtx(drops: Vec<u64>, detect: bool) -> Simulation {
    let mut cfg = dumbbell(
        Bandwidth::mbps(100),
        Dur::from_millis(20),
        50_000_000,
        Dur::from_secs(5),
    );
    cfg.links[1].ab.drop_list = drops;
    cfg.flows[0].tcp.initial_ssthresh = Some(Some(100 * 1448));
    cfg.flows[0].tcp.profile = if detect { Profile::Linux } else { Profile::Ns3 };
    assert_eq!(
        cfg.flows[0].tcp.resolve().detect_lost_retransmissions,
        detect
    );
    Simulation::new(cfg).unwrap()
}

#[test]
fn a_lost_retransmission_waits_for_the_rto_like_ns3_or_is_detected_like_linux() {
    // Packet 300 is lost. Its retransmission is the first data packet at the far end after
    // the window in flight; find its arrival index (the drop that causes a timeout when
    // lost retransmissions are not detected), then lose it as well.
    let retx_index = (301..700)
        .find(|&j| {
            let mut sim = harness_rtx(vec![300, j], false);
            sim.run_until(Time::from_secs(3));
            sim.recorder(0).counters.rtos == 1
        })
        .expect("some drop of the retransmission leads to a timeout");

    // ns-3 behaviour: the RTO fires one min RTO (1 s) after the last ACK that advanced snd_una
    let mut sim = harness_rtx(vec![300, retx_index], false);
    sim.run();
    sim.check_invariants().unwrap();
    let r = sim.recorder(0);
    assert_eq!((r.counters.fast_retransmits, r.counters.rtos), (1, 1));
    let rto_t = r.events.iter().find(|e| e.1 == "rto").unwrap().0 as f64 * 1e-9;
    let fr_t = r
        .events
        .iter()
        .find(|e| e.1 == "fast_retransmit")
        .unwrap()
        .0 as f64
        * 1e-9;
    assert!(
        (rto_t - fr_t - 1.0).abs() < 0.05,
        "fast retransmit at {fr_t}, RTO at {rto_t}"
    );
    assert!(
        sim.sender(0).sb.snd_una > 10_000_000,
        "transfer continued after the timeout"
    );

    // Linux behaviour: the lost retransmission is found by send order and sent again
    let mut sim = harness_rtx(vec![300, retx_index], true);
    sim.run();
    sim.check_invariants().unwrap();
    let c = sim.recorder(0).counters;
    assert_eq!((c.fast_retransmits, c.rtos, c.retransmits), (1, 0, 2));
}

/// One flow of `profile` on a 100 Mb/s dumbbell with a buffer large enough for no loss.
fn profile_dumbbell(profile: Profile, rtt: Dur, duration: Dur) -> mmcc_core::sim::SimConfig {
    let mut cfg = dumbbell(Bandwidth::mbps(100), rtt, 50_000_000, duration);
    cfg.flows[0].tcp.profile = profile;
    cfg
}

/// The same, run with traces.
fn traced_run(profile: Profile, rtt: Dur, duration: Dur) -> mmcc_core::RunOutput {
    let mut cfg = profile_dumbbell(profile, rtt, duration);
    cfg.record.trace = true;
    mmcc_core::run(cfg).unwrap()
}

/// ns-3 with timestamps measures RTT as now - TSecr with both in whole milliseconds
/// (TcpSocketBase::EstimateRtt, TcpOptionTS::ElapsedTimeFromTsValue); Linux measures it from
/// its own send times to the microsecond.
#[test]
fn ns3_rtt_samples_are_whole_milliseconds_linux_are_exact() {
    for profile in [Profile::Ns3, Profile::Linux] {
        let out = traced_run(profile, Dur::from_micros(20_300), Dur::from_secs(2));
        let rtt = f64col(&out, "rtt_trace", "rtt_ms");
        assert!(rtt.len() > 100);
        let whole = rtt
            .iter()
            .filter(|&&r| (r - r.round()).abs() < 1e-9)
            .count();
        match profile {
            Profile::Ns3 => assert_eq!(whole, rtt.len(), "every ns-3 sample is whole ms"),
            Profile::Linux => assert!(whole < rtt.len() / 10, "{whole} of {} whole", rtt.len()),
        }
    }
}

/// A spurious timeout: the bottleneck slows to 50 kb/s for 0.8 s, so the queued packets are
/// delayed past the RTO without any loss. Linux (`frto`, on in the linux profile) sees ACKs of
/// the original transmissions echo timestamps older than its first retransmission
/// (tcp_try_undo_loss) and undoes the reduction; without it the window restarts from one
/// segment. The undo restores the window the timeout found (tcp_reno_undo_cwnd).
#[test]
fn a_spurious_timeout_is_undone_with_frto_as_linux_does() {
    let run = |frto: bool| {
        let mut cfg = dumbbell(
            Bandwidth::mbps(100),
            Dur::from_millis(20),
            250_000,
            Dur::from_secs(4),
        );
        cfg.links[1].ab.rate_steps = vec![
            (Time::from_secs(2), Bandwidth::bps(50_000)),
            (Time::from_millis(2800), Bandwidth::mbps(100)),
        ];
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].tcp.frto = Some(frto);
        cfg.record.trace = true;
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run();
        sim.check_invariants().unwrap();
        sim
    };
    let with = run(true);
    let r = with.recorder(0);
    let rto = r
        .events
        .iter()
        .find(|e| e.1 == "rto")
        .expect("a timeout while the link crawls");
    let undo = r
        .events
        .iter()
        .find(|e| e.1 == "undo")
        .expect("the timeout is undone");
    assert!(undo.0 > rto.0);
    // the window the timeout found, and the one restored
    let k = r.cwnd_t.iter().position(|&t| t >= rto.0).unwrap();
    let before = r.cwnd_v[k - 1] as f64;
    assert!(undo.2 >= 0.9 * before, "restored {} of {before}", undo.2);
    let without = run(false);
    let r2 = without.recorder(0);
    assert!(r2.events.iter().any(|e| e.1 == "rto") && !r2.events.iter().any(|e| e.1 == "undo"));
    // after the link recovers the undone flow delivers more
    assert!(with.receiver(0).delivered > without.receiver(0).delivered);
}

/// ns-3 leaves the handshake with the receiver's delayed-ACK counter full (TcpSocketBase::
/// ProcessSynRcvd: m_delAckCount = m_delAckMaxCount): the first data segment is ACKed alone,
/// the rest in pairs, so the last segment of the 10-segment initial window waits for the next
/// flight and its ACK echoes the first flight's timestamp: one RTT sample of two round trips,
/// which raises ns-3's smoothed RTT (what TcpVegas sees) early in slow start. Linux's receiver
/// starts in quick-ACK mode and ACKs every segment of the first flights.
#[test]
fn ns3_receiver_acks_the_first_segment_at_once_and_pairs_the_rest() {
    for profile in [Profile::Ns3, Profile::Linux] {
        let out = traced_run(profile, Dur::from_millis(20), Dur::from_millis(150));
        let t = f64col(&out, "rtt_trace", "t_s");
        let rtt = f64col(&out, "rtt_trace", "rtt_ms");
        // the first sample of two round trips comes with the first ACKs of the second flight
        // (the held segment's ACK echoes the first flight's timestamp); it recurs in later
        // slow-start rounds whose flights leave an odd segment waiting
        let first_long = t.iter().zip(&rtt).find(|(_, &r)| r >= 35.0);
        match profile {
            Profile::Ns3 => {
                let (&at, &r) = first_long.expect("a two-round sample");
                // (after the handshake: data from one round trip after the start)
                let first = flow_stat(&out, "first_send_s");
                assert!(r == 40.0 && at - first < 0.045, "{r} ms at {at} s: {rtt:?}");
                // the SYN-ACK's sample (ns-3 `ProcessSynSent` -> `EstimateRtt`) and the first
                // four data samples: one round trip each
                assert_eq!(
                    rtt.iter().take(5).filter(|&&r| r == 20.0).count(),
                    5,
                    "{rtt:?}"
                );
            }
            Profile::Linux => assert!(first_long.is_none(), "{rtt:?}"),
        }
    }
}

/// ns-3 and Linux open the connection first (`TcpSocketBase::Connect`, `tcp_connect`: SYN,
/// SYN-ACK, then data), and so do both profiles (`tcp.handshake`). The handshake packets are not
/// the link's counted packets: a drop list or random loss does not see them.
#[test]
fn both_profiles_open_the_connection_before_sending_data() {
    for profile in [Profile::Ns3, Profile::Linux] {
        let mut cfg = profile_dumbbell(profile, Dur::from_millis(20), Dur::from_millis(300));
        cfg.flows[0].start = Time::from_millis(5);
        // the first data segment is the 1st counted packet on the bottleneck either way
        cfg.links[1].ab.drop_list = vec![0];
        let out = mmcc_core::run(cfg).unwrap();
        let first = flow_stat(&out, "first_send_s");
        // one round trip of the SYN (56 bytes) and SYN-ACK after the start
        assert!((first - 0.025).abs() < 1e-4, "{profile:?}: {first}");
        assert_eq!(flow_stat(&out, "drops_error_model"), 1.0, "{profile:?}");
        assert!(flow_stat(&out, "delivered_bytes") > 1e5, "{profile:?}");
    }
}

/// ssthresh right after each timeout of a run whose path is cut from 1 s to 6 s (several
/// timeouts in a row while nothing gets through), read by stepping the run 1 ms at a time.
fn ssthresh_after_each_rto(profile: Profile) -> Vec<u64> {
    use mmcc_core::net::Outage;
    let mut cfg = profile_dumbbell(profile, Dur::from_millis(20), Dur::from_secs(6));
    let cut = Outage { start: Time::from_secs(1), end: Time::from_secs(6) };
    cfg.links[1].ab.outages.push(cut);
    cfg.links[1].ba.outages.push(cut);
    let mut sim = Simulation::new(cfg).unwrap();
    let mut out = Vec::new();
    for ms in 1000..6000 {
        let rtos = sim.recorder(0).counters.rtos;
        sim.run_until(Time::from_millis(ms));
        if sim.recorder(0).counters.rtos > rtos {
            out.push(sim.sender(0).cc.ssthresh);
        }
    }
    sim.check_invariants().unwrap();
    out
}

#[test]
fn ns3_lowers_ssthresh_at_every_timeout_linux_only_at_the_first() {
    // ns-3 3.37 ReTxTimeout asks IsHeadRetransmitted() after SetSentListLost() has cleared the
    // marks, so each timeout takes GetSsThresh of the flight (one segment: 2 MSS); Linux
    // tcp_enter_loss lowers it at a new episode only.
    let mss = 1448u64;
    let ns3 = ssthresh_after_each_rto(Profile::Ns3);
    assert!(ns3.len() >= 2, "{ns3:?}");
    assert!(ns3[0] > 10 * mss, "{ns3:?}");
    assert!(ns3[1..].iter().all(|&s| s == 2 * mss), "{ns3:?}");
    let linux = ssthresh_after_each_rto(Profile::Linux);
    assert!(linux.len() >= 3, "{linux:?}");
    assert!(linux.iter().all(|&s| s == linux[0]) && linux[0] > 10 * mss, "{linux:?}");
}

/// An algorithm that jumps by 1000 segments at its first ACK, then adds one segment per ACK,
/// always in slow start: the shape of an algorithm whose window leaps past what the flow can
/// put in flight (NexGen D-TCP's N in slow start).
struct Leap {
    leapt: bool,
}

impl mmcc_core::cca::CongestionControl for Leap {
    fn name(&self) -> &str {
        "leap"
    }
    fn init(&mut self, cc: &mut mmcc_core::cca::CcState) {
        cc.ssthresh = u64::MAX;
    }
    fn increase_window(&mut self, cc: &mut mmcc_core::cca::CcState, _ack: &mmcc_core::cca::AckEvent) {
        cc.cwnd += if self.leapt { cc.mss } else { 1000 * cc.mss };
        self.leapt = true;
    }
    fn ssthresh(&self, cc: &mmcc_core::cca::CcState) -> u64 {
        cc.cwnd / 2
    }
}

/// Linux 6.x `tcp_is_cwnd_limited` asks the window's sticky cwnd-limited flag first: after the
/// leap, the rest of the first window's ACKs still grow cwnd (the flow was cwnd-limited when
/// that window was sent), though cwnd is far above twice the largest flight. Afterwards the
/// receive window (64 segments) keeps the flow from being cwnd-limited, and growth stops.
#[test]
fn linux_grows_a_cwnd_limited_window_in_slow_start_past_twice_its_flight() {
    let mss = 1448u64;
    let mut cfg = profile_dumbbell(Profile::Linux, Dur::from_millis(20), Dur::from_secs(1));
    cfg.flows[0].tcp.rcv_buf = Some(64 * mss);
    let mut custom: std::collections::BTreeMap<usize, Box<dyn mmcc_core::cca::CongestionControl>> =
        Default::default();
    custom.insert(0, Box::new(Leap { leapt: false }));
    let mut sim = Simulation::with_algorithms(cfg, custom).unwrap();
    sim.run_until(Time::from_millis(500));
    let cwnd = sim.sender(0).cc.cwnd / mss;
    // IW 10 + 1000 at the first ACK, + one per later ACK of the first window (10 segments,
    // quick ACKs: one ACK each), nothing once the window is receive-window limited
    assert_eq!(cwnd, 10 + 1000 + 9);
    sim.run_until(Time::from_millis(1000));
    assert_eq!(sim.sender(0).cc.cwnd / mss, cwnd);
}

/// RFC 6675 NextSeg rule 3 in the `ns3` profile: one segment lost while the send buffer holds
/// barely more than the window, so fast recovery runs out of new data before it ends. ns-3 3.37
/// (`TcpTxBuffer::NextSeg` with `enableRule3` in SACK recovery) then sends again the lowest
/// segments that are neither SACKed, retransmitted nor marked lost, as cwnd allows; Linux has
/// no such rule and waits with one retransmission.
#[test]
fn ns3_recovery_without_new_data_resends_unmarked_segments() {
    let mut retransmits = Vec::new();
    for profile in [Profile::Ns3, Profile::Linux] {
        let mut sim = {
            let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 50_000_000, Dur::from_secs(2));
            cfg.links[1].ab.drop_list = vec![300];
            cfg.flows[0].tcp.profile = profile;
            cfg.flows[0].tcp.initial_ssthresh = Some(Some(100 * 1448));
            cfg.flows[0].tcp.snd_buf = Some(120 * 1448);
            Simulation::new(cfg).unwrap()
        };
        sim.run();
        sim.check_invariants().unwrap();
        let c = sim.recorder(0).counters;
        assert_eq!((c.fast_retransmits, c.rtos), (1, 0), "{profile:?}");
        retransmits.push(c.retransmits);
    }
    // ns-3: the lost segment and then segments still in flight; Linux: the lost one only
    assert!(retransmits[0] > 1, "ns3 retransmits {:?}", retransmits);
    assert_eq!(retransmits[1], 1, "{retransmits:?}");
}

/// Linux's receiver acknowledges every segment that opens its window (`tcp_grow_window` sets
/// `icsk_ack.quick`), beyond the 16 quick ACKs of the connection's start: in the testbed's
/// capture of Linux 6.18 at 20 Mb/s and 50 ms (docs/tcp-profiles.md), the first two rounds (10
/// and 20 segments) drew 26 ACKs: 22 for one segment, then 4 for two, once the window had met
/// its first clamp (twice tcp_rmem[1] less a segment, times 160/256). With the window fixed at
/// the buffer, only the 16 quick ACKs are per segment: 23 ACKs.
#[test]
fn linux_receiver_acks_each_segment_while_its_window_grows() {
    for (autotune, acks) in [(true, 26.0), (false, 23.0)] {
        let mut cfg = dumbbell(Bandwidth::mbps(20), Dur::from_millis(50), 50_000_000, Dur::from_millis(165));
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].tcp.rcv_autotune = Some(autotune);
        let out = mmcc_core::run(cfg).unwrap();
        assert_eq!(flow_stat(&out, "data_received"), 30.0, "autotune {autotune}");
        assert_eq!(flow_stat(&out, "acks_sent"), acks, "autotune {autotune}");
    }
}

/// `sack_compression` (the `linux` profile: on): after three immediate duplicate ACKs per hole,
/// Linux SACKs out-of-order data at most once per min(1 ms, receiver RTT / 20) or 44 segments,
/// but sends the pending SACK first whenever a segment would put a range below the second place
/// of the list (`tcp_sack_new_ofo_skb`, TCP_SACK_BLOCKS_EXPECTED), so no delivery goes
/// unreported. FB-TCP on a 100 Mb/s, 20 ms dumbbell recovers from every overshoot: compression
/// saves a fifth of the ACKs and no segment is retransmitted that had arrived (the kernel there:
/// 0.67 ACKs per segment, no DSACK; docs/validation.md). Without the flush rule, compression
/// hid about 3,000 deliveries from RACK in 5 s.
#[test]
fn linux_sack_compression_saves_acks_and_hides_no_delivery() {
    let run = |on: bool| {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 250_000, Dur::from_secs(3));
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].cca = "fbtcp".into();
        cfg.flows[0].tcp.sack_compression = Some(on);
        let out = mmcc_core::run(cfg).unwrap();
        let per_segment = flow_stat(&out, "acks_sent") / flow_stat(&out, "data_received");
        (per_segment, flow_stat(&out, "dup_data_received"), flow_stat(&out, "throughput_mbps"))
    };
    let (with, dup_with, mbps_with) = run(true);
    let (without, dup_without, mbps_without) = run(false);
    assert!(with < 0.85 * without, "ACKs per segment: {with} with, {without} without");
    assert_eq!((dup_with, dup_without), (0.0, 0.0), "segments retransmitted that had arrived");
    assert!((mbps_with - mbps_without).abs() < 0.01 * mbps_without, "{mbps_with} / {mbps_without}");
}

/// A zero-window probe (Linux `tcp_probe_timer`, RFC 9293 3.8.6.1) and its back-off. A 64 KiB
/// receive buffer fills with out-of-order data behind one lost segment; the ACK for the
/// retransmission acknowledges everything but offers less than a segment (the data is not read
/// yet), and the window update the read then sends (`tcp_cleanup_rbuf`) is the reverse link's
/// 57th packet, dropped. With nothing in flight, the sender probes after an RTO, backs off, and
/// probes again at 2x and 4x while the answers are lost too. The answer that arrives opens the
/// window: `tcp_ack_probe` forgets the back-off at once, before any RTT sample.
#[test]
fn linux_zero_window_probe_backs_off_and_resets_when_the_window_opens() {
    let sim = |rev: Vec<u64>| {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 50_000_000, Dur::from_secs(2));
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].tcp.rcv_buf = Some(65_536);
        // the packet indices below are of unbatched sends and uncompressed SACKs
        cfg.flows[0].tcp.tso_defer = Some(false);
        cfg.flows[0].tcp.sack_compression = Some(false);
        cfg.links[1].ab.drop_list = vec![40];
        cfg.links[1].ba.drop_list = rev;
        cfg.record.trace = true;
        Simulation::new(cfg).unwrap()
    };
    let probes = |s: &Simulation| -> Vec<(u64, f64)> {
        let r = s.recorder(0);
        r.events.iter().filter(|e| e.1 == "window_probe").map(|e| (e.0 as u64, e.2)).collect()
    };
    // every answer lost: probes one RTO (200 ms), then 400 and 800 ms apart
    let mut all_lost = sim(vec![56, 57, 58]);
    all_lost.run();
    let p = probes(&all_lost);
    assert_eq!(p.len(), 3, "{p:?}");
    assert!(p.iter().all(|&(_, w)| w < 1448.0), "the window is below a segment: {p:?}");
    assert_eq!(p[1].0 - p[0].0, 400_000_000);
    assert_eq!(p[2].0 - p[1].0, 800_000_000);

    // the first answer arrives (one RTT after the probe): the back-off is gone at once
    let mut one = sim(vec![56]);
    one.run();
    let t = probes(&one)[0].0;
    assert_eq!(probes(&one).len(), 1);
    let mut s = sim(vec![56]);
    s.run_until(Time(t + 1));
    assert_eq!(s.sender(0).rto(), Dur::from_millis(400), "backed off after the probe");
    s.run_until(Time(t + 21_000_000));
    assert_eq!(s.sender(0).rto(), Dur::from_millis(200), "reset by the ACK that opens the window");
    s.run();
    assert!(s.receiver(0).delivered > 3 * all_lost.receiver(0).delivered);
}

/// RACK's reordering timer (the `linux` profile, `rack`; Linux 6.18 `tcp_rack_reo_wnd`,
/// `tcp_rack_mark_lost`, `tcp_rack_reo_timeout`). A 20-segment transfer loses its 19th
/// segment: the only segment after it is SACKed (at 61.4 ms), too little for RFC 6675's three
/// and, outside recovery with fewer than three SACKed, RACK waits a quarter of the minimum RTT
/// (about 5 ms). The kernel's timer counts jiffies (HZ 250): ceil(4.9 ms / 4 ms) + 2 jiffies
/// from the current tick (15, at 60 ms) fires at tick 19 = 76 ms and starts the recovery that
/// repairs the loss. With RFC 6675's rule only the RTO repairs it (200 ms later).
#[test]
fn linux_rack_repairs_a_loss_with_one_segment_after_it_at_its_reordering_timer() {
    let run = |rack: bool| {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 50_000_000, Dur::from_secs(3));
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].tcp.rack = Some(rack);
        cfg.flows[0].app = mmcc_core::tcp::app::AppConfig::Bulk { bytes: Some(20 * 1448), write_size: None };
        cfg.links[1].ab.drop_list = vec![18];
        cfg.record.trace = true;
        let mut sim = Simulation::new(cfg).unwrap();
        sim.run();
        sim.check_invariants().unwrap();
        assert_eq!(sim.receiver(0).delivered, 20 * 1448, "rack {rack}");
        let r = sim.recorder(0);
        let first = |name: &str| r.events.iter().find(|e| e.1 == name).map(|e| e.0 as u64);
        (first("state"), first("fast_retransmit"), r.counters.rtos)
    };
    let (disorder, fast, rtos) = run(true);
    let sacked_at = disorder.expect("the SACK of the 20th segment");
    assert!((61_000_000..62_000_000).contains(&sacked_at), "{sacked_at}");
    assert_eq!(fast, Some(76_000_000), "tick 15 + 2 + 2 jiffies");
    assert_eq!(rtos, 0);
    let (_, fast, rtos) = run(false);
    assert_eq!((fast, rtos), (None, 1), "RFC 6675: three SACKed segments or the RTO");
}

/// Linux's GSO skbs and `tcp_tso_should_defer` (`tso_defer`, the `linux` profile): an unpaced
/// sender lets the windows fill until about 1 ms of its pacing rate fits (or 1 ms has passed
/// since it last sent), so it sends in bursts. Measured on the testbed (docs/validation.md:
/// kernel tracepoints, 100 Mb/s, 25 ms): 10-17 segments at once every ~1 ms. Here CUBIC on that
/// path behind a 10 Gb/s first link, whose capture shows the bursts back to back (1.2 us apart):
/// in the second second the median segment is in a burst of 9 with deferral, of 1 without.
#[test]
fn linux_sender_sends_in_bursts_of_about_a_millisecond_like_tso_deferral() {
    let median_burst = |defer: bool| {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(50), 625_000, Dur::from_secs(2));
        cfg.links[0].rate = Bandwidth::gbps(10);
        cfg.links[0].delay = Dur::from_micros(1);
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].cca = "cubic".into();
        cfg.flows[0].tcp.tso_defer = Some(defer);
        let path = std::env::temp_dir().join(format!("mmcc-tso-{}-{defer}.pcap", std::process::id()));
        cfg.pcap = Some(mmcc_core::sim::PcapConfig {
            link: 0,
            direction: "ab".into(),
            path: path.to_string_lossy().into_owned(),
        });
        mmcc_core::run(cfg).unwrap();
        let data = std::fs::read(&path).unwrap();
        std::fs::remove_file(&path).ok();
        // data packets' capture times (pcap records: 16-byte header, then the packet)
        let (mut off, mut times) = (24, Vec::new());
        while off + 16 <= data.len() {
            let word = |k: usize| u32::from_le_bytes(data[off + k..off + k + 4].try_into().unwrap()) as u64;
            let (t, incl, orig) = (word(0) * 1_000_000_000 + word(4), word(8) as usize, word(12));
            if orig > 100 {
                times.push(t);
            }
            off += 16 + incl;
        }
        let mut sizes = vec![1usize];
        for w in times.windows(2) {
            if w[1] - w[0] <= 2_000 {
                *sizes.last_mut().unwrap() += 1;
            } else {
                sizes.push(1);
            }
        }
        // the second second: congestion avoidance; the burst of the median segment
        let mut per_segment: Vec<usize> = sizes[sizes.len() / 2..].iter().flat_map(|&s| std::iter::repeat_n(s, s)).collect();
        per_segment.sort_unstable();
        (per_segment[per_segment.len() / 2], *per_segment.last().unwrap())
    };
    let (with, largest) = median_burst(true);
    let (without, _) = median_burst(false);
    assert!((6..=17).contains(&with) && largest <= 20, "with deferral: median {with}, largest {largest}");
    assert!(without <= 2, "without: {without}");
}

/// Linux's send buffer counts memory (`send_buffer_truesize`, the `linux` profile): every skb
/// costs 1,280 bytes besides its data (`sk_wmem_queued`), and a writer that polls, as the
/// testbed's sender and iperf3 do, finds the socket writable only while a third of the buffer is
/// free (`sk_stream_is_writeable`), writing 256 KiB each time. With a 1 MiB buffer on a path
/// whose window could take more, the queued memory stays near two thirds of the buffer plus one
/// write and the data sent and not acknowledged below 93 % of the buffer; counting payload only,
/// the sender keeps the whole buffer in flight.
#[test]
fn linux_send_buffer_charges_skb_memory_and_the_writer_waits_for_a_third() {
    let buf: u64 = 1 << 20;
    let run = |truesize: bool| {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(200), 10_000_000, Dur::from_secs(3));
        cfg.flows[0].tcp.profile = Profile::Linux;
        cfg.flows[0].tcp.snd_buf = Some(buf);
        cfg.flows[0].tcp.send_buffer_truesize = Some(truesize);
        let mut sim = Simulation::new(cfg).unwrap();
        let (mut max_out, mut max_queued, mut written) = (0, 0, 0);
        for ms in 1..=3000 {
            sim.run_until(Time(ms * 1_000_000));
            let s = sim.sender(0);
            max_out = max_out.max(s.sb.outstanding());
            max_queued = max_queued.max(s.send_buffer_queued());
            if truesize && s.app.written > written {
                // a write happened since the last look: the memory is the data plus an skb head
                // per transmission (at least 2 segments, `tcp_min_tso_segs`) and per 45-segment
                // write skb, so at most 1,280 bytes per 2,896 of data
                let (data, mem) = (s.app.written - s.sb.snd_una, s.send_buffer_queued());
                assert!(mem > data && mem <= data + data * 1_280 / 2_896 + 2 * 1_280, "{mem} for {data}");
            }
            written = s.app.written;
        }
        sim.check_invariants().unwrap();
        (max_out, max_queued)
    };
    let (out, queued) = run(true);
    // two thirds (699,050) plus one write (269,824 with its skb heads) plus the heads that
    // transmissions add as they cut the written skbs
    assert!(queued > buf * 2 / 3 + 256 * 1024 && queued < buf * 96 / 100, "{queued}");
    assert!(out < buf * 93 / 100 && out > buf / 2, "{out}");
    let (out, queued) = run(false);
    assert!(out > buf * 98 / 100 && queued <= buf, "{out} {queued}");
}

/// ns-3's bulk sender writes only when the socket calls `NotifySend` (ns-3 3.37 `ProcessAck` ->
/// `NewAck`, `SendPendingData`). A window (40 segments) above a 20-segment send buffer, segment
/// 30 lost: the receiver answers segment 31 at once with the ACK of 29 and a SACK of 31, which
/// advances snd_una and moves the socket to CA_DISORDER, where `ProcessAck` calls no `NewAck`:
/// the segment of room that ACK frees stays unwritten (and so unsent) until the next `NewAck`,
/// which the recovery's ACKs bring; at the return to Open the buffer is full again.
#[test]
fn ns3_bulk_sender_leaves_the_room_a_disorder_ack_frees_unwritten() {
    let cfg = || {
        let mut cfg = dumbbell(Bandwidth::mbps(100), Dur::from_millis(20), 50_000_000, Dur::from_secs(1));
        cfg.flows[0].tcp.profile = Profile::Ns3;
        cfg.flows[0].tcp.snd_buf = Some(20 * 1448);
        cfg.flows[0].tcp.initial_cwnd = Some(40);
        cfg.links[1].ab.drop_list = vec![30];
        cfg.record.trace = true;
        cfg
    };
    let mut whole = Simulation::new(cfg()).unwrap();
    whole.run();
    let states: Vec<(u64, f64)> =
        whole.recorder(0).events.iter().filter(|e| e.1 == "state").map(|e| (e.0 as u64, e.2)).collect();
    let disorder = states.iter().find(|e| e.1 == 1.0).expect("a Disorder episode").0;
    let open = states.iter().find(|e| e.0 > disorder && e.1 == 0.0).expect("back to Open").0;
    assert!(states.iter().any(|e| e.0 > disorder && e.0 < open && e.1 == 2.0), "{states:?}");

    let mut s = Simulation::new(cfg()).unwrap();
    s.run_until(Time(disorder + 1));
    let snd = s.sender(0);
    assert_eq!(snd.cc.state, CaState::Disorder);
    assert_eq!(snd.sb.snd_una, 30 * 1448, "the ACK of segment 29 advanced snd_una");
    assert_eq!(snd.send_buffer_queued(), 19 * 1448, "one segment of room left unwritten");
    s.run_until(Time(open + 1));
    assert_eq!(s.sender(0).send_buffer_queued(), 20 * 1448, "filled again by NewAck");
}
