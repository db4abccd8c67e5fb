//! The gNB RLC AM's t-PollRetransmit (3GPP TS 36.322 5.2.2.3, as ns-3's `LteRlcAm` implements it
//! in ns3-mmwave; `RadioConfig::rlc_poll_retransmit`, docs/radio.md).
//!
//! Every downlink PDU polls (`PollPdu` 1) and (re)starts the timer (`LteRlcAm::
//! DoNotifyTxOpportunity`). A STATUS PDU from the UE stops it when it acknowledges the PDU that
//! polled last (`LteRlcAm::DoReceivePdu`: ACK_SN beyond POLL_SN); it acknowledges what the UE had
//! received when it built it, and the PDUs it acknowledges leave the gNB's buffers, the
//! retransmission buffer included. When the timer expires with nothing new to send and nothing
//! queued for retransmission (`LteRlcAm::ExpirePollRetransmitTimer`: the transmission and
//! retransmission buffers empty), every PDU not yet acknowledged moves to the retransmission
//! buffer (ns-3 moves those still in HARQ too; here a PDU is held once it has reached the UE, and
//! one whose HARQ gives up goes back through the RLC's own retransmission): after a burst whose STATUS the UE's t-StatusProhibit holds back
//! (`rlc_report.rs`), the gNB sends the burst's last PDUs again. The retransmission buffer goes
//! first at the next transmission opportunities, one PDU per opportunity (cut to the block when
//! it is larger), and the first and the last of them poll again. The UE discards the copies
//! (`LteRlcAm::DoReceivePdu`, duplicate SN): they take air time and deliver nothing.
//!
//! Not modelled: ns-3's window stall (more than 512 PDUs unacknowledged also moves them), which
//! needs 51 ms of subframes without a STATUS.

use crate::time::{Dur, Time};
use std::collections::VecDeque;

/// A PDU the UE has: when it arrived there and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    at_ue: Time,
    bytes: u64,
}

/// The gNB's poll timer and its retransmission buffer of one downlink.
#[derive(Clone, Debug)]
pub struct PollRetransmit {
    timer: Dur,
    /// When the running timer expires.
    expires: Option<Time>,
    /// The PDU that polled last (`POLL_SN`) and, once it reached the UE, when.
    poll_id: u64,
    poll_at_ue: Option<Time>,
    next_id: u64,
    /// PDUs the UE has that no STATUS at the gNB has acknowledged yet.
    unacked: Vec<Held>,
    /// The retransmission buffer (the rest of a PDU cut to a block stays at its front).
    retx: VecDeque<Held>,
    /// The timer expired: the next PDU polls (`m_pollRetransmitTimerJustExpired`).
    just_expired: bool,
    /// Expiries and bytes sent again.
    pub expiries: u64,
    pub retx_bytes: u64,
}

impl PollRetransmit {
    pub fn new(timer: Dur) -> PollRetransmit {
        PollRetransmit {
            timer,
            expires: None,
            poll_id: 0,
            poll_at_ue: None,
            next_id: 1,
            unacked: Vec::new(),
            retx: VecDeque::new(),
            just_expired: false,
            expiries: 0,
            retx_bytes: 0,
        }
    }

    /// Whether the timer runs or copies wait: the link keeps its slots going for them.
    pub fn busy(&self) -> bool {
        self.expires.is_some() || !self.retx.is_empty()
    }

    /// Whether PDUs wait for the UE's acknowledgement (`LteRlcAm`'s transmitted and
    /// retransmission buffers).
    pub fn holds(&self) -> bool {
        !self.unacked.is_empty() || !self.retx.is_empty()
    }

    /// A PDU went at `now`; if it `polls`, the timer restarts. Returns its id (for
    /// [`Self::received`]).
    pub fn sent(&mut self, now: Time, polls: bool) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        if polls {
            self.expires = Some(now + self.timer);
            self.poll_id = id;
            self.poll_at_ue = None;
            self.just_expired = false;
        }
        id
    }

    /// PDU `id` of `bytes` new bytes (0 for a copy, whose original is held already) reached the
    /// UE at `at_ue`.
    pub fn received(&mut self, id: u64, bytes: u64, at_ue: Time) {
        if bytes > 0 {
            self.unacked.push(Held { at_ue, bytes });
        }
        if id == self.poll_id {
            self.poll_at_ue = Some(at_ue);
        }
    }

    /// A STATUS the UE built at `built` reached the gNB: what the UE had then is acknowledged,
    /// and the timer stops if the PDU that polled last was among it.
    pub fn status(&mut self, built: Time) {
        self.unacked.retain(|h| h.at_ue > built);
        self.retx.retain(|h| h.at_ue > built);
        if self.poll_at_ue.is_some_and(|t| t <= built) {
            self.expires = None;
        }
    }

    /// The timer at `now`; `idle`: nothing new waits to be sent.
    pub fn due(&mut self, now: Time, idle: bool) {
        if self.expires.is_none_or(|t| t > now) {
            return;
        }
        self.expires = None;
        self.just_expired = true;
        self.expiries += 1;
        if idle && self.retx.is_empty() {
            self.unacked.sort_by_key(|h| h.at_ue);
            self.retx.extend(self.unacked.drain(..));
        }
    }

    /// The next copy for a block of `room` bytes: its bytes and whether it polls (the first
    /// after an expiry and the one that empties the retransmission buffer). The copy is held
    /// unacknowledged again.
    pub fn next_copy(&mut self, room: u64) -> Option<(u64, bool)> {
        if room == 0 {
            return None;
        }
        let h = self.retx.front_mut()?;
        let take = h.bytes.min(room);
        let at_ue = h.at_ue;
        h.bytes -= take;
        if h.bytes == 0 {
            self.retx.pop_front();
        }
        self.unacked.push(Held { at_ue, bytes: take });
        self.retx_bytes += take;
        let polls = self.just_expired || self.retx.is_empty();
        self.just_expired &= !polls;
        Some((take, polls))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Time {
        Time(n * 1_000)
    }

    /// A burst's last PDUs go again 4 ms after the last one when no STATUS acknowledged them.
    #[test]
    fn an_unanswered_poll_sends_the_unacknowledged_pdus_again() {
        let mut p = PollRetransmit::new(Dur::from_millis(4));
        for (i, t) in [0, 100, 200].into_iter().enumerate() {
            let id = p.sent(us(t), true);
            p.received(id, 1000 + i as u64, us(t + 300));
        }
        // a STATUS built at 350 us acknowledges the first PDU only: the timer runs on
        p.status(us(350));
        p.due(us(4_199), true);
        assert_eq!(p.next_copy(10_000), None, "not yet");
        p.due(us(4_200), true);
        assert_eq!(p.expiries, 1);
        assert_eq!(p.next_copy(10_000), Some((1001, true)), "the first copy polls");
        assert_eq!(p.next_copy(500), Some((500, false)), "cut to the block");
        assert_eq!(p.next_copy(10_000), Some((502, true)), "the rest, the last copy, polls");
        assert_eq!(p.next_copy(10_000), None);
        assert_eq!(p.retx_bytes, 2003);
    }

    /// A STATUS built after the polling PDU reached the UE stops the timer; one built before
    /// does not.
    #[test]
    fn a_status_covering_the_last_poll_stops_the_timer() {
        let mut p = PollRetransmit::new(Dur::from_millis(4));
        let id = p.sent(us(0), true);
        p.status(us(100)); // built before the PDU got there (it is still in HARQ)
        p.received(id, 1000, us(900));
        p.status(us(899));
        assert!(p.busy());
        p.status(us(900));
        assert!(!p.busy());
        p.due(us(10_000), true);
        assert_eq!((p.expiries, p.next_copy(10_000)), (0, None));
    }

    /// With new data waiting, an expiry only makes the next PDU poll; copies the UE's STATUS
    /// acknowledges leave the retransmission buffer.
    #[test]
    fn expiry_with_data_waiting_sends_no_copies_and_a_status_clears_them() {
        let mut p = PollRetransmit::new(Dur::from_millis(4));
        let id = p.sent(us(0), true);
        p.received(id, 1000, us(300));
        p.due(us(4_000), false);
        assert_eq!((p.expiries, p.next_copy(10_000)), (1, None));
        let id = p.sent(us(4_100), true);
        p.received(id, 800, us(4_400));
        p.due(us(8_100), true);
        assert!(p.busy());
        p.status(us(4_400));
        assert_eq!(p.next_copy(10_000), None, "acknowledged while queued");
    }
}
