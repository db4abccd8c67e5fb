//! ns3-mmwave's uplink: buffer status reports, grants, and the subframe's symbols they take from
//! the downlink (`RadioConfig::uplink = Ns3Mmwave`, docs/radio.md).
//!
//! ns3-mmwave is time-division duplex: `MmWaveFlexTtiMacScheduler::DoSchedTriggerReq` divides
//! the data symbols of one subframe among the downlink and uplink flows that have data, and the
//! uplink learns what the UE holds only from its buffer status reports (BSR):
//! - the UE's RLC reports its queue whenever an SDU arrives (`LteRlcAm::DoTransmitPdcpPdu`),
//!   the UE's MAC sends a BSR at its next slot (`MmWaveUeMac::DoSubframeIndication`) and it
//!   reaches the scheduler at the next subframe's decision; the report is quantised to the upper
//!   bound of its level (TS 36.321 Table 6.1.3.1-1, `BufferSize2BsrId` / `BsrId2BufferSize`);
//! - the scheduler keeps the last report per UE, overwritten by each new one
//!   (`DoSchedUlMacCtrlInfoReq`) and lowered by each grant's size less 6 bytes
//!   (`UpdateUlRlcBufferInfo`: the 4-byte MAC subheader, then 2 bytes of RLC header);
//! - the decision at subframe n allocates the symbols of subframe n + 2 (`L1L2CtrlLatency`):
//!   the downlink block and, after it, the uplink block; an uplink request is the record plus
//!   3 + 8 + 10 bytes in the fewest symbols at the uplink MCS (`CalcMinTbSizeNumSym`), and the
//!   symbols left after HARQ retransmissions are shared: each flow gets its request if both
//!   fit, else an equal share, a flow needing less than its share leaving the rest to the other
//!   ([`split`]);
//! - the grant reaches the UE in the downlink control symbol of subframe n + 1, the UE takes
//!   the grant's bytes from its RLC then and sends them in subframe n + 2. (The scheduler labels
//!   the uplink subframe n + 3, `UlSchedDelay` after the downlink's; the UE applies that delay
//!   from the subframe it receives the grant in. The runner's `--macTrace` and the scheduler's
//!   log in a debug build show the uplink block in the downlink block's subframe.)
//!
//! A report counts the whole queue, also the bytes a grant already covers but the UE has not
//! sent yet, so grants can outrun the queue and an uplink block can leave nearly empty, its
//! symbols lost to the downlink all the same. The UE's STATUS PDUs for the downlink are reported
//! and granted like data (`rlc_report.rs`); the gNB measures the uplink on each block as it ends
//! ([`Measurements`]). Not modelled: the uplink HARQ retransmissions' symbols (a retransmission
//! goes with the next block).

use super::mcs::TbSize;
use super::rlc_report::UE_STATUS_BYTES;
use crate::time::{Dur, Time};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How the uplink gets its resources (`RadioConfig::uplink`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum UplinkScheduling {
    /// A direction of its own with its own capacity: a packet may go `ul_scheduling_slots`
    /// after it reached the UE's buffer.
    FixedDelay,
    /// ns3-mmwave's reports and grants, in symbols shared with the downlink (this module).
    Ns3Mmwave,
}

/// TS 36.321 Table 6.1.3.1-1: the upper bound of each buffer size level, bytes (level 63 is
/// "more than 150,000").
const BSR_LEVELS: [u64; 64] = [
    0, 10, 12, 14, 17, 19, 22, 26, 31, 36, 42, 49, 57, 67, 78, 91, 107, 125, 146, 171, 200, 234,
    274, 321, 376, 440, 515, 603, 706, 826, 967, 1132, 1326, 1552, 1817, 2127, 2490, 2915, 3413,
    3995, 4677, 5476, 6411, 7505, 8787, 10287, 12043, 14099, 16507, 19325, 22624, 26487, 31009,
    36304, 42502, 49759, 58255, 68201, 79846, 93749, 109439, 128125, 150000, 150000,
];

/// What a report of `queued` bytes tells the scheduler: the upper bound of the lowest level
/// that holds it (`BsrId2BufferSize(BufferSize2BsrId(queued))`).
pub fn reported(queued: u64) -> u64 {
    BSR_LEVELS.iter().copied().find(|&l| l >= queued).unwrap_or(BSR_LEVELS[63])
}

/// `DoSchedTriggerReq`: the uplink request is the record plus `m_rlcHdrSize` (3),
/// `m_macHdrSize` (0) and 8 bytes, and `CalcMinTbSizeNumSym` is asked for 10 more.
pub const UL_REQUEST_SLACK: u64 = 3 + 8 + 10;
/// `UpdateUlRlcBufferInfo`: the record falls by the grant less `m_subHdrSize` (4) and the
/// 2-byte minimum RLC overhead.
pub const UL_RECORD_OVERHEAD: u64 = 4 + 2;

/// Divide `avail` data symbols between one UE's downlink and uplink requests (symbols) as the
/// flex-TTI scheduler does for one UE: both requests if they fit; else an equal share each, a
/// flow that needs less than its share leaving the rest to the other; an odd symbol goes to the
/// downlink, served first (`DoSchedTriggerReq`).
pub fn split(avail: u32, dl: u32, ul: u32) -> (u32, u32) {
    if dl + ul <= avail {
        return (dl, ul);
    }
    if dl == 0 || ul == 0 {
        return (dl.min(avail), ul.min(avail));
    }
    let half = avail / 2;
    if ul <= half {
        (avail - ul, ul)
    } else if dl <= half {
        (dl, avail - dl)
    } else {
        (avail - half, half)
    }
}

/// One grant: the UE fills it at `fill_at` and sends it in the next subframe.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grant {
    pub fill_at: Time,
    pub bytes: u64,
    /// The SINR its block errors are measured against, and its MCS (None without the table).
    pub ref_sinr: f64,
    pub mcs: Option<usize>,
    /// The symbol of its subframe the block ends before: after the control symbol, the
    /// downlink block's symbols and its own.
    pub end_symbol: u32,
}

/// The reports on their way, the scheduler's record, the grants not yet filled and the
/// downlink symbols they take.
pub struct UlGrants {
    subframe: Dur,
    /// Data symbols per subframe (ns3-mmwave: 24 less one downlink and one uplink control).
    pub symbols: u32,
    /// Reports: (the decision that first sees it, the reported bytes), ascending.
    reports: VecDeque<(Time, u64)>,
    /// The scheduler's record of the UE's queue (`m_ceBsrRxed`), bytes.
    pub record: u64,
    /// The next subframe boundary to decide.
    next_decision: Time,
    grants: VecDeque<Grant>,
    /// The symbols of the subframes with an uplink block: (subframe, the downlink block's
    /// share, the uplink block's), ascending.
    taken: VecDeque<(Time, u32, u32)>,
    /// The subframes of the last uplink blocks, the scheduler's UL-CQI measurements.
    pub measured: Measurements,
    /// When the UE's RLC last reported.
    last_report: Time,
    /// The UE's MAC's copy of its RLC's last report (`MmWaveUeMac::m_ulBsrReceived`), which it
    /// fills grants from ([`UeRecord`]).
    pub ue: UeRecord,
}

/// What the UE's MAC knows of its RLC (`MmWaveUeMac::m_ulBsrReceived`): the queue and whether a
/// STATUS was counted as of the RLC's last report (`LteRlcAm::DoReportBufferStatus` counts a
/// requested STATUS only while t-StatusProhibit does not run, and nothing reports when that
/// timer expires). The MAC serves a grant from this record, not from the RLC itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UeRecord {
    pub data: u64,
    pub status: bool,
}

/// What the UE's block carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UeFill {
    /// The UE's STATUS PDU for the downlink.
    pub status: bool,
    /// Data from the UE's RLC queue.
    pub data: bool,
}

impl UeRecord {
    /// What the report tells the scheduler: the queue and a counted STATUS's 4 bytes
    /// (`LteRlcAm::DoReportBufferStatus`).
    pub fn queued(&self) -> u64 {
        self.data + if self.status { UE_STATUS_BYTES } else { 0 }
    }

    /// How the UE fills a grant of `bytes` (`MmWaveUeMac::DoReceiveControlMessage`, UL_DCI, and
    /// `LteRlcAm::DoNotifyTxOpportunity`), `pending` whether its RLC has a STATUS to send now
    /// (requested, t-StatusProhibit not running). The MAC gives a recorded STATUS its 4 bytes
    /// first, then the data it records the rest; the RLC sends a pending STATUS in whatever
    /// opportunity it gets first, one PDU per opportunity. So a STATUS that no report counted
    /// takes the opportunity the MAC meant for the data, and the data waits; with nothing
    /// recorded the block goes empty. The record then drops what the MAC served (the grant less
    /// 2 bytes of RLC header for data).
    pub fn fill(&mut self, bytes: u64, pending: bool) -> UeFill {
        let status_first = self.status && pending;
        let data = self.data > 0 && bytes > UL_DATA_MIN + if self.status { UE_STATUS_BYTES } else { 0 };
        let fill = if status_first {
            UeFill { status: true, data }
        } else {
            UeFill { status: data && pending, data: data && !pending }
        };
        if data {
            let for_data = bytes - if self.status { UE_STATUS_BYTES } else { 0 };
            self.data = self.data.saturating_sub(for_data - 2);
        }
        self.status = false;
        fill
    }
}

/// `MmWaveUeMac::DoReceiveControlMessage`: the MAC offers data only more than 7 bytes.
const UL_DATA_MIN: u64 = 7;

/// The subframes of the last few uplink blocks: the gNB measures the uplink on each block as it
/// ends (`MmWaveFlexTtiMacScheduler::DoSchedUlCqiInfoReq`), at its subframe's end.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Measurements([Option<Time>; 4]);

impl Measurements {
    /// An uplink block goes in subframe `sf` (later than any before).
    pub fn add(&mut self, sf: Time) {
        self.0.rotate_left(1);
        self.0[3] = Some(sf);
    }

    /// The newest block a decision at `at` has measured: one in an earlier subframe. A decision
    /// is made when its grant is filled, a subframe later, when newer blocks may be known
    /// (`UlGrants::decide_until`); four entries cover them.
    pub fn before(&self, at: Time) -> Option<Time> {
        self.0.iter().rev().flatten().copied().find(|&m| m < at)
    }
}

/// The decision at `D` is for the downlink block of subframe D + 2 and for an uplink block in
/// the same subframe, which the UE fills when the grant reaches it, at D + 1.
const FILL_AFTER: u64 = 1;
const BLOCK_AFTER: u64 = 2;

impl UlGrants {
    pub fn new(subframe: Dur, symbols: u32) -> UlGrants {
        UlGrants {
            subframe,
            symbols,
            reports: VecDeque::new(),
            record: 0,
            next_decision: Time::ZERO,
            grants: VecDeque::new(),
            taken: VecDeque::new(),
            measured: Measurements::default(),
            last_report: Time::ZERO,
            ue: UeRecord::default(),
        }
    }

    /// The UE's RLC reported `queued` bytes at `now` (an SDU arrived), `arrival` symbols into
    /// its subframe. The UE's MAC makes the BSR at its next slot, after that slot's control
    /// messages have been taken (`MmWaveUePhy::StartSlot` takes them before it indicates the
    /// slot to the MAC): if the subframe has an uplink block whose slot (after the control
    /// symbol and the downlink block's symbols) has not begun, that slot, and the uplink
    /// control symbol at the end of the subframe carries the BSR to the next decision;
    /// otherwise the control symbol itself, and the BSR waits for the next subframe's, a
    /// decision later. A packet at exactly a boundary came from the downlink block of the
    /// subframe before, which `RadioLink` delivers at the boundary; the UE decodes a block for
    /// 100 us (`MmWaveUePhy::PhyDataPacketReceived`, `TbDecodeLatency`), so its ACK is made in
    /// the subframe that starts there, as many symbols in as that block ended. A later report
    /// for the same decision replaces an earlier one.
    /// The UE's MAC keeps the report as its record (`MmWaveUeMac::DoReportBufferStatus`).
    pub fn report(&mut self, now: Time, rec: UeRecord, arrival: u32) {
        let s = self.subframe.0;
        // the subframe the UE's RLC reports in
        let sf = Time(now.0 / s * s);
        // the uplink slot starts after the control symbol and the downlink block
        let before_slot = self.taken.iter().any(|&(t, dl, _)| t == sf && 1 + dl >= arrival);
        let at = Time(sf.0 + if before_slot { s } else { 2 * s });
        let value = reported(rec.queued());
        self.ue = rec;
        self.last_report = now;
        match self.reports.back_mut() {
            Some(last) if last.0 == at => last.1 = value,
            _ => self.reports.push_back((at, value)),
        }
    }

    /// Whether the UE fills a grant at `now` that it has not filled yet.
    pub fn grant_due(&self, now: Time) -> bool {
        self.grants.iter().any(|g| g.fill_at == now)
    }

    /// The RLC's report timer: a queue `rec` that no report, record or grant covers is reported
    /// again `timer` after the last report (`LteRlcAm::ExpireRbsTimer`).
    pub fn report_if_stale(&mut self, now: Time, rec: UeRecord, timer: Dur) {
        if rec.queued() > 0 && !self.busy() && now >= self.last_report + timer {
            self.report(now, rec, 0);
        }
    }

    /// Whether anything is on its way: reports, a record, grants.
    pub fn busy(&self) -> bool {
        !self.reports.is_empty() || self.record > 0 || !self.grants.is_empty()
    }

    /// The decisions due by `now`, each made at its subframe's boundary before that subframe's
    /// downlink block is filled (the same decision gives both; every report it sees was made
    /// before it). `request(at)` gives the uplink's and the downlink's requests and the
    /// uplink's MCS for the decision at `at`: (uplink bytes per symbol, downlink symbols, the
    /// grant's link adaptation), None if the uplink cannot be scheduled (no usable CQI above
    /// MCS 0's threshold).
    pub fn decide_until(&mut self, now: Time, mut request: impl FnMut(Time) -> Option<(TbSize, u32, Grant)>) {
        let s = self.subframe.0;
        let last_due = Time(now.0 / s * s);
        while self.next_decision <= last_due {
            let at = self.next_decision;
            if self.record == 0 {
                // nothing to grant before the next report: skip to its decision
                match self.reports.front() {
                    None => {
                        self.next_decision = Time(last_due.0 + s);
                        break;
                    }
                    Some(r) if r.0 > at => {
                        self.next_decision = r.0.min(Time(last_due.0 + s));
                        continue;
                    }
                    Some(_) => {}
                }
            }
            self.next_decision = Time(at.0 + s);
            self.decide(at, &mut request);
        }
    }

    /// The decision at `at`: the reports it sees, then a grant for an uplink block two subframes
    /// on, whose symbols that subframe's downlink block loses.
    fn decide(&mut self, at: Time, request: &mut impl FnMut(Time) -> Option<(TbSize, u32, Grant)>) {
        while self.reports.front().is_some_and(|r| r.0 <= at) {
            self.record = self.reports.pop_front().expect("front").1;
        }
        if self.record == 0 {
            return;
        }
        let Some((tb, dl_symbols, la)) = request(at) else { return };
        let want = tb.min_symbols(self.record + UL_REQUEST_SLACK, self.symbols + 2).min(self.symbols);
        let (dl, ul) = split(self.symbols, dl_symbols, want);
        if ul == 0 {
            return;
        }
        let bytes = tb.bytes(ul);
        self.record = self.record.saturating_sub(bytes.saturating_sub(UL_RECORD_OVERHEAD));
        let fill_at = at + Dur(self.subframe.0 * FILL_AFTER);
        self.grants.push_back(Grant { fill_at, bytes, end_symbol: 1 + dl + ul, ..la });
        self.taken.push_back((at + Dur(self.subframe.0 * BLOCK_AFTER), dl, ul));
    }

    /// The grant the UE fills at `now`, if any.
    pub fn grant_at(&mut self, now: Time) -> Option<Grant> {
        while let Some(g) = self.grants.front().copied().filter(|g| g.fill_at <= now) {
            // a grant is a block in the next subframe, with data or empty
            self.grants.pop_front();
            if g.fill_at == now {
                return Some(g);
            }
        }
        None
    }

    /// Downlink symbols left in the subframe at `now`.
    pub fn downlink_symbols(&mut self, now: Time) -> u32 {
        // the downlink is filled `L1L2CtrlLatency` ahead of its subframe, while reports of the
        // subframes between still look up their uplink blocks ([`Self::report`]): keep those
        let keep_from = Time(now.0.saturating_sub(BLOCK_AFTER * self.subframe.0));
        while self.taken.front().is_some_and(|t| t.0 < keep_from) {
            self.taken.pop_front();
        }
        self.taken.iter().find(|t| t.0 == now).map_or(self.symbols, |&(_, _, n)| self.symbols - n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(x: u64) -> Time {
        Time(x * 1000)
    }

    fn data(bytes: u64) -> UeRecord {
        UeRecord { data: bytes, status: false }
    }

    fn la() -> Grant {
        Grant { fill_at: Time::ZERO, bytes: 0, ref_sinr: 0.0, mcs: None, end_symbol: 0 }
    }

    /// ns3-mmwave's log after an idle gap: the decisions at 295.5, 295.6 and 295.7 ms have no
    /// UL-CQI (three blocks at MCS 0); the first block went at the end of subframe 295.7 and the
    /// decision at 295.8 has it. A decision made late does not see a block of its own subframe
    /// or a later one.
    #[test]
    fn a_decision_sees_only_blocks_of_earlier_subframes() {
        let mut m = Measurements::default();
        assert_eq!(m.before(us(100)), None);
        m.add(us(700));
        assert_eq!(m.before(us(700)), None);
        assert_eq!(m.before(us(800)), Some(us(700)));
        m.add(us(800));
        m.add(us(900));
        assert_eq!(m.before(us(800)), Some(us(700)));
        assert_eq!(m.before(us(1_000)), Some(us(900)));
    }

    /// The reference's UE at 0.19 s of BBR, 2.5 MiB, PER 1e-7 (seed 1; a copy of the runner
    /// printing the UE MAC's record at each grant): an ACK reported while t-StatusProhibit ran
    /// gets a grant of 1,776 bytes, the RLC sends the STATUS it owes in it instead, and the
    /// ACKs wait until a report counts the STATUS (four ACKs held 3.4 ms).
    #[test]
    fn a_status_no_report_counted_takes_the_grant_meant_for_data() {
        let fill = |data: u64, status: bool, pending: bool| {
            let mut r = UeRecord { data, status };
            (r.fill(1_776, pending), r)
        };
        let both = UeFill { status: true, data: true };
        let status_only = UeFill { status: true, data: false };
        let data_only = UeFill { status: false, data: true };
        let empty = UeFill { status: false, data: false };
        // counted STATUS first, then the data
        assert_eq!(fill(54, true, true), (both, UeRecord::default()));
        // a STATUS requested while the prohibit timer ran: it takes the data's opportunity, and
        // the MAC's record forgets the data until the RLC reports again
        assert_eq!(fill(54, false, true), (status_only, UeRecord::default()));
        assert_eq!(fill(54, false, false), (data_only, UeRecord::default()));
        // nothing recorded: an empty block, the STATUS waits too
        assert_eq!(fill(0, false, true), (empty, UeRecord::default()));
        assert_eq!(fill(0, true, true), (status_only, UeRecord::default()));
        // a grant smaller than the record: the record falls by the grant less 2 bytes
        let mut r = UeRecord { data: 3_000, status: false };
        assert_eq!(r.fill(1_776, false), data_only);
        assert_eq!(r.data, 3_000 - 1_774);
    }

    #[test]
    fn reports_take_the_upper_bound_of_their_level() {
        assert_eq!(reported(0), 0);
        assert_eq!(reported(1), 10);
        assert_eq!(reported(56), 57);
        assert_eq!(reported(57), 57);
        assert_eq!(reported(112), 125);
        assert_eq!(reported(1_000_000), 150_000);
    }

    #[test]
    fn symbols_are_shared_as_the_flex_tti_scheduler_shares_them() {
        assert_eq!(split(22, 5, 3), (5, 3)); // both fit
        assert_eq!(split(22, 24, 2), (20, 2)); // the uplink needs less than half
        assert_eq!(split(22, 4, 24), (4, 18)); // the downlink needs less than half
        assert_eq!(split(22, 24, 24), (11, 11));
        assert_eq!(split(21, 24, 24), (11, 10)); // the odd symbol to the downlink
        assert_eq!(split(22, 0, 30), (0, 22));
        assert_eq!(split(22, 30, 0), (22, 0));
    }

    /// Two ACKs reach the UE at 50 us, in a subframe without an uplink block: their BSR goes
    /// in the next subframe's control symbol, and the decision at 200 us grants them (record
    /// 125 bytes: 146 with the slack, 2 symbols of 100 bytes); the UE fills the grant at 300 us
    /// and sends it at 400 us, where the downlink block loses the 2 symbols; the record falls
    /// by 200 - 6.
    #[test]
    fn a_report_becomes_a_grant_two_subframes_before_its_block() {
        let mut g = UlGrants::new(Dur::from_micros(100), 22);
        g.report(us(50), data(112), 0);
        let mut asked = Vec::new();
        g.decide_until(us(300), |at| {
            asked.push(at);
            Some((TbSize::Linear { full: 2_200, symbols: 22 }, 24, la()))
        });
        assert_eq!(asked, vec![us(200)]);
        assert_eq!(g.record, 0);
        assert_eq!(g.downlink_symbols(us(300)), 22);
        assert_eq!(g.downlink_symbols(us(400)), 20);
        assert_eq!(g.grant_at(us(200)), None);
        let grant = g.grant_at(us(300)).expect("granted");
        assert_eq!((grant.fill_at, grant.bytes), (us(300), 200));
        assert!(!g.busy());
        // the block goes in the subframe of 400 us: an ACK made in it reaches the decision at
        // 500 us, one made in the subframe after it (from 500 us) the decision at 700 us
        g.report(us(450), data(56), 0);
        g.report(us(500), data(56), 0);
        let mut asked = Vec::new();
        g.decide_until(us(900), |at| {
            asked.push(at);
            Some((TbSize::Linear { full: 2_200, symbols: 22 }, 24, la()))
        });
        assert_eq!(asked, vec![us(500), us(700)]);
    }

    /// Later reports for the same decision replace earlier ones, and each decision overwrites
    /// the record.
    #[test]
    fn the_last_report_before_a_decision_overwrites_the_record() {
        let mut g = UlGrants::new(Dur::from_micros(100), 22);
        g.report(us(110), data(56), 0);
        g.report(us(150), data(500), 0);
        let mut seen = Vec::new();
        g.decide_until(us(399), |at| {
            seen.push(at);
            None // no usable uplink CQI: nothing granted, the record stays
        });
        assert_eq!(seen, vec![us(300)]);
        assert_eq!(g.record, 515);
        g.report(us(350), data(30), 0);
        g.decide_until(us(600), |_| None);
        assert_eq!(g.record, 31);
    }
}
