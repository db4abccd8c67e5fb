//! The downlink scheduler's record of the gNB's RLC buffer, as ns3-mmwave keeps it, and the SDU
//! tails it leaves behind (`RadioConfig::rlc_reporting = Ns3Mmwave`, docs/radio.md).
//!
//! ns3-mmwave's scheduler (`MmWaveFlexTtiMacScheduler`) sizes each downlink RLC PDU from the
//! transmission queue the RLC last reported: the queue plus 17 bytes (`m_rlcHdrSize` 3 +
//! `m_subHdrSize` 4 + 10, in `DoSchedTriggerReq`), and after scheduling it lowers its record by the
//! PDU's size less 6 (`UpdateDlRlcBufferInfo`: the 4-byte MAC subheader and a 2-byte RLC header).
//! An RLC AM data PDU spends 2 bytes on its fixed header and 12 bits on the E and LI fields of
//! every SDU after the first (TS 36.322 section 6.2.1.4; ns3-mmwave's RLC sets 4 bytes aside and
//! counts the LI fields as 2 and 1 bytes in turn, `Direction::pack_pdu`), so a PDU carries less
//! than its size less 2 bytes: over a burst of full PDUs the record falls below the buffer,
//! reaches zero first, and the tail of the burst's last SDU stays in the buffer with nothing
//! scheduled for it. It goes when the RLC reports again (`LteRlcAm::DoReportBufferStatus`): on
//! its next SDU, when a data PDU of the UE (every PDU polls, `PollPdu` 1) reaches it outside its
//! t-StatusProhibit, or when its `ReportBufferStatusTimer` expires (restarted by every SDU, then
//! periodic while anything is buffered or unacknowledged); a STATUS PDU from the UE reports
//! nothing (`DoReceivePdu`). The UE answers a poll with a STATUS unless its t-StatusProhibit
//! runs, and a poll that finds it running waits for the UE's next report
//! (`LteRlcAm::ExpireStatusProhibitTimer` reports nothing): when its next uplink SDU (an ACK)
//! reaches its RLC, or when the UE RLC's own report timer expires (the same
//! `ReportBufferStatusTimer`, restarted by each uplink SDU). The STATUS takes the uplink's
//! scheduling delay to reach the gNB. With ns3-mmwave's uplink grants (`ul_grants.rs`) it goes
//! through them instead: the UE's RLC counts a requested STATUS as 4 bytes in the reports it
//! makes outside t-StatusProhibit, and the UE's MAC fills each grant from its copy of the last
//! report, a counted STATUS first (`ul_grants::UeRecord`); the gNB has it when that block
//! arrives. The gNB's RLC owes the UE a STATUS for the uplink likewise (the UE's PDUs poll) and
//! sends it at most once per t-StatusProhibit ([`GnbStatus`]): beside the data when its last
//! report counted it, else in place of the data the scheduler asked for
//! (`LteRlcAm::DoNotifyTxOpportunity` sends a pending STATUS first and returns). While the
//! downlink idles it reports the STATUS and the scheduler gives it a block of its own (no data
//! waits for it; the UE reports its CQI on it): at once when polled outside t-StatusProhibit,
//! else when the report timer next expires.

use super::rlc_poll::PollRetransmit;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How the downlink scheduler knows the gNB's RLC buffer (`RadioConfig::rlc_reporting`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RlcReporting {
    /// It sees every buffered byte at once; PDUs carry no headers.
    Ideal,
    /// ns3-mmwave's scheduler record of the RLC's buffer reports, with the RLC AM's PDU headers
    /// (`RlcReports`): a burst's last SDU can wait for the next report.
    Ns3Mmwave,
}

/// `MmWaveFlexTtiMacScheduler`: a PDU is the reported queue plus `m_rlcHdrSize` (3) +
/// `m_subHdrSize` (4) + 10 bytes.
pub const PDU_SLACK: u64 = 17;
/// `UpdateDlRlcBufferInfo`: the record falls by the PDU's size less `m_subHdrSize` (4) and the
/// 2-byte minimum RLC header.
pub const RECORD_OVERHEAD: u64 = 6;
/// TS 36.322 6.2.1.4: an AMD PDU's fixed header (D/C, RF, P, FI, E, SN), bytes.
pub const AMD_HEADER: u64 = 2;
/// `LteRlcAm::DoReceivePdu`: a requested STATUS PDU is counted as 4 bytes in the RLC's reports
/// (`m_statusPduBufferSize`), and the UE's MAC gives it that much of a grant
/// (`MmWaveUeMac::DoReceiveControlMessage`, `statusPduMinSize`).
pub const UE_STATUS_BYTES: u64 = 4;

/// `MmWaveFlexTtiMacScheduler::DoSchedTriggerReq`: a reported STATUS PDU's share of a downlink
/// block, its 4 bytes and `m_subHdrSize` (4).
pub const GNB_STATUS_TB_BYTES: u64 = UE_STATUS_BYTES + 4;

/// How the gNB's STATUS for the uplink goes in a downlink block (`RlcReports::gnb_status_now`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GnbStatus {
    /// Not in this block.
    No,
    /// A PDU of its own beside the data's (or in a block of its own when no data is recorded).
    WithData,
    /// In place of the data the scheduler asked for.
    Alone,
}

/// The scheduler's record, the RLC's reports and the UE's STATUS PDUs of one downlink.
pub struct RlcReports {
    /// The scheduler's record of the RLC transmission queue, bytes.
    pub record: u64,
    timer: Dur,
    prohibit: Dur,
    uplink_delay: Dur,
    /// When the RLC's report timer expires next.
    timer_at: Option<Time>,
    /// STATUS PDUs on their way to the gNB: arrival times, ascending, and when the UE built
    /// each (it acknowledges what the UE had then).
    status: VecDeque<(Time, Time)>,
    /// The UE's t-StatusProhibit runs until then.
    prohibit_until: Time,
    /// A poll found t-StatusProhibit running: the STATUS waits for the UE's next report.
    status_wanted: bool,
    /// When the UE RLC's report timer expires next.
    ue_timer_at: Option<Time>,
    /// The gNB's RLC owes the UE a STATUS for the uplink (the UE's PDUs poll too).
    gnb_status_wanted: bool,
    /// The gNB's t-StatusProhibit runs until then.
    gnb_prohibit_until: Time,
    /// The gNB RLC's last report counted its STATUS, so the scheduler gave the STATUS a PDU of
    /// its own in the next block ([`GnbStatus`]).
    gnb_status_reported: bool,
    /// With ns3-mmwave's uplink grants: a poll asked the UE for a STATUS that has not gone in a
    /// grant yet (`LteRlcAm::m_statusPduRequested`).
    ue_status_requested: bool,
    /// When the report timer sent a STATUS the gNB owed while its downlink idled (a block the
    /// UE reports its CQI on), until the link takes it.
    idle_status_at: Option<Time>,
    /// The gNB's t-PollRetransmit and its retransmission buffer (`rlc_poll.rs`), if modelled.
    pub poll: Option<PollRetransmit>,
}

impl RlcReports {
    /// `timer`: the RLC's `ReportBufferStatusTimer`; `prohibit`: the UE's t-StatusProhibit;
    /// `uplink_delay`: from the UE's report to the STATUS at the gNB; `poll`: the gNB's
    /// t-PollRetransmit, if modelled.
    pub fn new(timer: Dur, prohibit: Dur, uplink_delay: Dur, poll: Option<Dur>) -> RlcReports {
        RlcReports {
            record: 0,
            timer,
            prohibit,
            uplink_delay,
            timer_at: None,
            status: VecDeque::new(),
            prohibit_until: Time::ZERO,
            status_wanted: false,
            ue_timer_at: None,
            gnb_status_wanted: false,
            gnb_prohibit_until: Time::ZERO,
            gnb_status_reported: false,
            ue_status_requested: false,
            idle_status_at: None,
            poll: poll.map(PollRetransmit::new),
        }
    }

    /// An SDU entered the RLC buffer: it reports the whole queue and restarts its timer
    /// (`LteRlcAm::DoTransmitPdcpPdu`). A STATUS the gNB owed the UE while its downlink idled
    /// went when the report timer expired after t-StatusProhibit, the PDUs of the last burst
    /// still unacknowledged (`LteRlcAm::ExpireRbsTimer` reports it; the scheduler gives it a
    /// block of its own).
    pub fn on_sdu(&mut self, now: Time, queued: u64) {
        if let Some(t) = self.timer_at.filter(|&t| self.gnb_status_wanted && t < now && t >= self.gnb_prohibit_until) {
            self.idle_status(t);
        }
        self.gnb_report(now, queued);
        self.timer_at = Some(now + self.timer);
    }

    /// The report at `t` sent the STATUS the gNB owed while its downlink idled, in a block of
    /// its own ([`Self::take_idle_status`]).
    fn idle_status(&mut self, t: Time) {
        self.gnb_status_wanted = false;
        self.gnb_status_reported = false;
        self.gnb_prohibit_until = t + self.prohibit;
        self.idle_status_at = Some(t);
    }

    /// The gNB's RLC reports at `now` (`LteRlcAm::DoReportBufferStatus`): the scheduler's
    /// record becomes its queue, and the STATUS it owes counts unless t-StatusProhibit runs.
    fn gnb_report(&mut self, now: Time, queued: u64) {
        self.record = queued;
        self.gnb_status_reported = self.gnb_status_wanted && now >= self.gnb_prohibit_until;
    }

    /// The reports due by `now`: STATUS PDUs that reached the gNB and the report timer (which
    /// stops once nothing is `held`, buffered or unacknowledged, `LteRlcAm::ExpireRbsTimer`).
    pub fn due(&mut self, now: Time, queued: u64, held: bool) {
        // the UE's timer sends a wanted STATUS (the UE's RLC holds its unacknowledged ACKs, so
        // its timer keeps running; each uplink SDU restarts it)
        while let Some(t) = self.ue_timer_at.filter(|&t| t <= now) {
            if !self.status_wanted {
                self.ue_timer_at = None;
            } else {
                self.ue_timer_at = Some(t + self.timer);
                if t >= self.prohibit_until {
                    self.send_status(t);
                }
            }
        }
        while let Some(&(_, built)) = self.status.front().filter(|s| s.0 <= now) {
            self.status.pop_front();
            if let Some(p) = self.poll.as_mut() {
                p.status(built);
            }
        }
        // the timer runs while anything is buffered or unacknowledged (`ExpireRbsTimer`)
        let held = held || self.poll.as_ref().is_some_and(|p| p.holds());
        if let Some(t) = self.timer_at.filter(|&t| t <= now) {
            if held {
                self.gnb_report(t, queued);
                if queued == 0 && self.gnb_status_reported {
                    // the downlink idles: the STATUS gets a block of its own
                    self.idle_status(t);
                }
                self.timer_at = Some(t + self.timer);
            } else {
                self.timer_at = None;
            }
        }
    }

    /// The most a PDU of new data may take from a transport block with `room` bytes left
    /// (0 while the record is empty): the record, at least 8 bytes, plus the slack
    /// (`DoSchedTriggerReq`).
    pub fn allowance(&self, room: u64) -> u64 {
        if self.record == 0 {
            0
        } else {
            (self.record.max(8) + PDU_SLACK).min(room)
        }
    }

    /// A PDU of `size` bytes was scheduled.
    pub fn scheduled(&mut self, size: u64) {
        self.record = self.record.saturating_sub(size.saturating_sub(RECORD_OVERHEAD));
    }

    /// The UE received a (polled) PDU at `now`.
    pub fn polled(&mut self, now: Time) {
        if now >= self.prohibit_until {
            self.send_status(now);
        } else {
            self.status_wanted = true;
            self.ue_timer_at.get_or_insert(now + self.timer);
        }
    }

    /// An uplink SDU reached the UE's RLC at `now`: it reports, with the STATUS a poll asked
    /// for if t-StatusProhibit has expired.
    pub fn on_uplink_sdu(&mut self, now: Time) {
        self.ue_timer_at = Some(now + self.timer);
        if self.status_wanted && now >= self.prohibit_until {
            self.send_status(now);
        }
    }

    /// An uplink PDU (every one polls) reached the gNB's RLC at `now`, `queued` bytes
    /// buffered: it owes the UE a STATUS and reports unless t-StatusProhibit runs
    /// (`LteRlcAm::DoReceivePdu`).
    pub fn uplink_polled(&mut self, now: Time, queued: u64) {
        self.gnb_status_wanted = true;
        if now >= self.gnb_prohibit_until {
            self.gnb_report(now, queued);
        }
    }

    /// Whether and how the gNB's RLC sends its STATUS for the uplink in the downlink block
    /// filled at `now`, at most once per t-StatusProhibit (if so it is sent and the prohibit
    /// timer starts). A STATUS the last report counted has a PDU of its own beside the data's
    /// (`MmWaveFlexTtiMacScheduler::DoSchedTriggerReq`); one no report counted (asked for while
    /// the timer ran, which reports nothing when it expires) takes the opportunity the scheduler
    /// gave the data, alone (`LteRlcAm::DoNotifyTxOpportunity` sends a pending STATUS first and
    /// returns), and the scheduler's record drops as if the data had gone; with nothing
    /// recorded it waits for a report.
    pub fn gnb_status_now(&mut self, now: Time) -> GnbStatus {
        if !self.gnb_status_wanted || now < self.gnb_prohibit_until {
            return GnbStatus::No;
        }
        let how = if self.gnb_status_reported {
            GnbStatus::WithData
        } else if self.record > 0 {
            GnbStatus::Alone
        } else {
            return GnbStatus::No;
        };
        self.gnb_status_wanted = false;
        self.gnb_status_reported = false;
        self.gnb_prohibit_until = now + self.prohibit;
        how
    }

    /// With uplink grants, a polled PDU reached the UE at `now`: its RLC requests a STATUS and,
    /// unless t-StatusProhibit runs, reports (`LteRlcAm::DoReceivePdu`); returns whether it does.
    /// A requested STATUS counts in every later report once the timer has expired
    /// ([`Self::ue_status_bytes`]) and goes in the next grant ([`Self::ue_status_in_grant`]).
    pub fn request_ue_status(&mut self, now: Time) -> bool {
        self.ue_status_requested = true;
        now >= self.prohibit_until
    }

    /// What the UE's STATUS adds to its RLC's reports at `now` (`LteRlcAm::DoReportBufferStatus`
    /// counts it while it is requested and t-StatusProhibit does not run).
    pub fn ue_status_bytes(&self, now: Time) -> u64 {
        if self.ue_status_requested && now >= self.prohibit_until {
            UE_STATUS_BYTES
        } else {
            0
        }
    }

    /// The UE fills an uplink grant at `now` whose block reaches the gNB at `arrival`: a
    /// requested STATUS goes first (`MmWaveUeMac` serves it before the data), t-StatusProhibit
    /// starts (`LteRlcAm::DoNotifyTxOpportunity`), and the gNB's RLC reports when it arrives.
    /// Returns whether it went.
    pub fn ue_status_in_grant(&mut self, now: Time, arrival: Time) -> bool {
        if self.ue_status_bytes(now) == 0 {
            return false;
        }
        self.ue_status_requested = false;
        self.prohibit_until = now + self.prohibit;
        // built at the fill, before the PDUs a block decoded in this subframe brings
        self.status.push_back((arrival, Time(now.0.saturating_sub(1))));
        true
    }

    /// The time the report timer sent the gNB's STATUS in a block of its own while the downlink
    /// idled ([`Self::on_sdu`]), once.
    pub fn take_idle_status(&mut self) -> Option<Time> {
        self.idle_status_at.take()
    }

    fn send_status(&mut self, now: Time) {
        self.status.push_back((now + self.uplink_delay, now));
        self.prohibit_until = now + self.prohibit;
        self.status_wanted = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The record (at zero) is refreshed to `queued` by a report due exactly at `at`: not
    /// 1 us before.
    fn refreshed_exactly_at(r: &mut RlcReports, at: Time, queued: u64) {
        r.due(Time(at.0 - 1_000), queued, true);
        assert_eq!(r.record, 0, "refreshed before {at:?}");
        r.due(at, queued, true);
        assert_eq!(r.record, queued, "not refreshed at {at:?}");
    }

    fn us(x: u64) -> Time {
        Time(x * 1000)
    }

    /// The record runs out before the buffer; a STATUS from the UE does not refresh it (the
    /// gNB's RLC reports nothing when it takes one, `LteRlcAm::DoReceivePdu`), the poll of the
    /// UE's next data PDU does, unless the gNB's t-StatusProhibit runs (the reference's RLC
    /// trace: a burst's tail goes with the STATUS the UE's first ACKs ask for).
    #[test]
    fn the_record_runs_out_before_the_buffer_and_an_uplink_poll_refreshes_it() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        r.on_sdu(us(0), 10_000);
        // a PDU of 10,017 bytes: the record falls by 10,011 to zero
        assert_eq!(r.allowance(40_000), 10_017);
        r.scheduled(10_017);
        assert_eq!(r.record, 0);
        assert_eq!(r.allowance(40_000), 0);
        // the UE's STATUS reaches the gNB at 600 us with 30 bytes left: no report
        r.polled(us(100));
        r.due(us(600), 30, true);
        assert_eq!(r.record, 0);
        // its next data PDU polls: a report (with the STATUS it asks for)
        r.uplink_polled(us(700), 30);
        assert_eq!(r.record, 30);
        assert_eq!(r.gnb_status_now(us(800)), GnbStatus::WithData);
        // a poll during the gNB's t-StatusProhibit (until 1.8 ms) reports nothing
        r.record = 0;
        r.uplink_polled(us(900), 12);
        assert_eq!(r.record, 0);
        // nor does the allowance fall below the scheduler's minimum request
        r.on_sdu(us(1_000), 3);
        assert_eq!(r.allowance(40_000), 8 + PDU_SLACK);
    }

    #[test]
    fn a_poll_during_status_prohibit_waits_for_the_ues_next_uplink_sdu() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        r.polled(us(0)); // STATUS at 500 us, prohibit until 1 ms
        r.polled(us(300)); // wanted, not sent
        r.on_uplink_sdu(us(900)); // still prohibited
        assert_eq!(r.status.iter().copied().collect::<Vec<_>>(), vec![(us(500), us(0))]);
        r.on_uplink_sdu(us(1_200)); // sent: arrives at 1.7 ms
        assert_eq!(r.status.back(), Some(&(us(1_700), us(1_200))));
        r.due(us(1_700), 0, false);
        assert!(r.status.is_empty());
    }

    /// The gNB's STATUS for the uplink goes in the first downlink opportunity after a poll, at
    /// most once per t-StatusProhibit (1 ms), and only when a poll asked for it: beside the
    /// data when a report counted it, in place of the data when none did (the reference at
    /// 195.2 ms of BBR, 2.5 MiB, seed 1: a STATUS-only block, the SDU it displaced sent 0.5 ms
    /// later with the next one), not at all while the scheduler records nothing.
    #[test]
    fn the_gnbs_status_for_the_uplink_takes_one_opportunity_per_prohibit_period() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        assert_eq!(r.gnb_status_now(us(0)), GnbStatus::No, "no poll yet");
        r.uplink_polled(us(0), 0);
        assert_eq!(r.gnb_status_now(us(100)), GnbStatus::WithData, "reported with the poll");
        assert_eq!(r.gnb_status_now(us(200)), GnbStatus::No, "sent");
        r.uplink_polled(us(300), 0); // t-StatusProhibit runs until 1.1 ms: no report
        r.on_sdu(us(500), 1_454); // reported without the STATUS
        assert_eq!(r.gnb_status_now(us(1_000)), GnbStatus::No, "prohibited until 1.1 ms");
        assert_eq!(r.gnb_status_now(us(1_100)), GnbStatus::Alone, "takes the data's opportunity");
        r.uplink_polled(us(1_500), 1_454);
        r.record = 0;
        assert_eq!(r.gnb_status_now(us(2_100)), GnbStatus::No, "nothing scheduled: waits for a report");
        r.on_sdu(us(2_200), 2_908);
        assert_eq!(r.gnb_status_now(us(2_300)), GnbStatus::WithData);
    }

    /// With uplink grants the UE's STATUS is reported with its queue (4 bytes) and goes in the
    /// next grant, which starts t-StatusProhibit; a poll during it is counted only after it.
    #[test]
    fn the_ues_status_goes_in_an_uplink_grant() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        assert_eq!(r.ue_status_bytes(us(0)), 0);
        assert!(r.request_ue_status(us(100)), "reported: no t-StatusProhibit running");
        assert_eq!(r.ue_status_bytes(us(100)), UE_STATUS_BYTES);
        assert!(r.ue_status_in_grant(us(300), us(500)));
        assert!(!r.ue_status_in_grant(us(400), us(600)), "sent");
        assert!(!r.request_ue_status(us(600)), "t-StatusProhibit runs until 1.3 ms");
        assert_eq!(r.ue_status_bytes(us(1_200)), 0);
        assert_eq!(r.ue_status_bytes(us(1_300)), UE_STATUS_BYTES, "requested, counted once it expires");
        // the gNB has the first STATUS when its block arrives
        assert_eq!(r.status.front(), Some(&(us(500), Time(us(300).0 - 1))));
    }

    /// A STATUS the gNB owes while its downlink idles goes when its report timer expires after
    /// t-StatusProhibit (ns3-mmwave's log: polled at 273.0-273.3 ms during the prohibit, sent
    /// at 276.3 ms after the report at 276.23 ms), so the next burst's first block carries data.
    #[test]
    fn the_gnbs_status_owed_while_idle_goes_with_the_report_timer() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        r.on_sdu(us(0), 1_454); // the burst's last SDU: the timer expires at 4 ms
        r.uplink_polled(us(400), 1_454);
        assert_eq!(r.gnb_status_now(us(500)), GnbStatus::WithData);
        r.uplink_polled(us(600), 0); // during t-StatusProhibit (until 1.5 ms)
        r.on_sdu(us(20_000), 1_454); // the next burst
        assert_eq!(r.gnb_status_now(us(20_100)), GnbStatus::No, "went at 4 ms");
        assert_eq!(r.take_idle_status(), Some(us(4_000)));
        assert_eq!(r.take_idle_status(), None);
        // without the timer's expiry in the gap it is still owed
        r.uplink_polled(us(20_150), 1_454);
        r.on_sdu(us(20_200), 2_908);
        assert_eq!(r.gnb_status_now(us(21_200)), GnbStatus::WithData);
    }

    #[test]
    fn the_report_timer_restarts_with_each_sdu_and_stops_when_nothing_is_held() {
        let mut r = RlcReports::new(Dur::from_millis(4), Dur::from_millis(1), Dur::from_micros(500), None);
        r.on_sdu(us(0), 100);
        r.on_sdu(us(1_000), 200); // expires at 5 ms
        r.record = 0;
        refreshed_exactly_at(&mut r, us(5_000), 50);
        r.record = 0;
        r.due(us(9_000), 40, true); // periodic: 9 ms
        assert_eq!(r.record, 40);
        r.record = 0;
        r.due(us(13_000), 0, false); // nothing held: the timer stops
        r.due(us(17_000), 10, true);
        assert_eq!(r.record, 0);
    }
}
