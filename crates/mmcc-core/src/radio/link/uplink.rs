//! The uplink of ns3-mmwave's time-division duplex on a radio link (`RadioConfig::uplink =
//! Ns3Mmwave`): the scheduler's grant decisions (`ul_grants.rs`), the UE filling them with its
//! STATUS PDU and data, and the gNB decoding the blocks and answering their polls.

use super::*;

impl RadioLink {
    /// The scheduler's decisions on the uplink grants due by `now` (`ul_grants.rs`).
    pub(super) fn decide_grants(&mut self, now: Time) {
        let Some(mut g) = self.ul.take() else { return };
        let measured = g.measured;
        g.decide_until(now, |at| self.uplink_request(at, measured.before(at)));
        self.ul = Some(g);
    }

    /// What the decision at `at` needs (`UlGrants::decide_until`): the uplink's block sizes at
    /// its MCS (MCS 0 without an unexpired measurement of the uplink, as ns3-mmwave's scheduler
    /// without a UL-CQI), the downlink's request in symbols (its record plus the PDU slack, or
    /// all it buffers, in the fewest symbols at its MCS, `CalcMinTbSizeNumSym`), and the grant's
    /// link adaptation; `measured` is the subframe of the newest uplink block before the
    /// decision's (`ul_grants::Measurements::before`).
    pub(super) fn uplink_request(&self, at: Time, measured: Option<Time>) -> Option<(TbSize, u32, Grant)> {
        let known = match self.cfg.cqi_expiry {
            None => true,
            Some(exp) => measured.is_some_and(|m| at < m + exp),
        };
        let (se, ref_sinr, mcs) = if known {
            self.choose_q(&self.estimate(1), 1)
        } else {
            let (se, thr) = self.at_mcs(0);
            (se, thr, Some(0))
        };
        if se <= 0.0 {
            return None;
        }
        let dl = &self.dirs[0];
        let dl_bytes = match &dl.reports {
            Some(r) if r.record > 0 => r.record + PDU_SLACK,
            Some(_) => 0,
            None => dl.buffered_bytes(),
        };
        let dl_symbols = if dl_bytes == 0 {
            0
        } else {
            let (dl_se, _, dl_mcs) = self.choose_q(&self.estimate(0), 0);
            self.block_symbols(dl_bytes, self.tb_size(dl_se, dl_mcs))
        };
        let la = Grant { fill_at: at, bytes: 0, ref_sinr, mcs, end_symbol: 0 };
        Some((self.tb_size(se, mcs), dl_symbols, la))
    }

    /// When the gNB's RLC has an uplink block sent in the subframe at `sf` that ends before
    /// symbol `end`: the gNB decodes it for `extra[1]` (`TbDecodeLatency`). A block after a
    /// full downlink block is had 195.8 us after its subframe began, one alone in an idle
    /// subframe about 113 us after.
    pub(super) fn ul_received_at(&self, sf: Time, end: u32) -> Time {
        let (s, per) = (self.cfg.slot.0, self.cfg.data_symbols as u64 + 2);
        Time(sf.0 + (end as u64 * s).div_ceil(per) + self.extra[1].0)
    }

    /// Uplink blocks the gNB has decoded by `now`: each polls its RLC, and the packets they
    /// completed go on (`ul_decoded`).
    pub fn take_decoded(&mut self, now: Time, out: &mut Vec<Packet>) {
        while self.ul_decoded.front().is_some_and(|b| b.0 <= now) {
            let (_, pkts) = self.ul_decoded.pop_front().expect("front");
            self.uplink_polled(now);
            out.extend(pkts);
        }
    }

    /// When the next decoded uplink block is due, if the simulation has no event for it yet.
    pub fn decoded_due(&mut self) -> Option<Time> {
        let t = self.ul_decoded.front().map(|b| b.0).filter(|_| !self.decoded_scheduled)?;
        self.decoded_scheduled = true;
        Some(t)
    }

    /// An uplink PDU reached the gNB's RLC at `now`: it polls, and the RLC reports the STATUS
    /// it owes; with no downlink data the scheduler gives it a block of its own, at the next
    /// decision, on which the UE reports its CQI.
    pub(super) fn uplink_polled(&mut self, now: Time) {
        let idle = !self.has_data(0);
        let queued = self.dirs[0].buffered_bytes();
        // the block of its own is filled at the next boundary, and t-StatusProhibit starts then
        // (the RLC sends the STATUS when the MAC gives it the opportunity)
        let at = self.boundary_from(now);
        if let Some(r) = self.dirs[0].reports.as_mut() {
            r.uplink_polled(now, queued);
            if idle && r.gnb_status_now(at) != GnbStatus::No {
                self.cqi.on_block(at);
            }
        }
    }

    /// What the UE's RLC reports for the uplink at `now` (`LteRlcAm::DoReportBufferStatus`):
    /// its queue, and whether it counts a requested STATUS.
    fn ue_report(&self, now: Time) -> UeRecord {
        let status = self.dirs[0].reports.as_ref().is_some_and(|r| r.ue_status_bytes(now) > 0);
        UeRecord { data: self.dirs[1].buffered_bytes(), status }
    }

    /// The UE's RLC reports at `now`, `arrival` symbols into its subframe: the BSR goes to the
    /// scheduler and the UE's MAC keeps the report as its record.
    pub(super) fn ue_reports(&mut self, now: Time, arrival: u32) {
        let rec = self.ue_report(now);
        if let Some(u) = self.ul.as_mut() {
            u.report(now, rec, arrival);
        }
    }

    /// With uplink grants, a downlink block reached the UE at `now`: its PDU polls, and a
    /// STATUS the UE may send is reported with the uplink's queue (`rlc_report.rs`).
    pub(super) fn ue_polled(&mut self, now: Time) {
        if self.dirs[0].reports.is_some() {
            self.ue_event(now, UeEvent::Poll);
        }
    }

    /// A report (an SDU reached the UE's RLC, `arrival` symbols into its subframe) or a poll at
    /// the UE at `now`. The UE fills a grant when it has the grant's control message, at its
    /// subframe's first symbol; a block decoded in that subframe brings its packets and poll 2
    /// or more symbols in (`RadioLink` delivers them at the boundary), so while a grant of
    /// `now` waits to be filled they wait for it ([`Self::granted_slot`]).
    pub(super) fn ue_event(&mut self, now: Time, e: UeEvent) {
        if self.ul_deferred.first().is_some_and(|d| d.0 < now) {
            // their subframe's grant went unfilled: they happened all the same
            self.ue_deferred();
        }
        self.decide_grants(now);
        if self.ul.as_ref().is_some_and(|u| u.grant_due(now)) {
            self.ul_deferred.push((now, e));
            return;
        }
        match e {
            UeEvent::Sdu(arrival) => self.ue_reports(now, arrival),
            UeEvent::Poll => self.ue_poll(now),
        }
    }

    /// The events [`Self::ue_event`] held for the grant filled now, in order.
    fn ue_deferred(&mut self) {
        for (t, e) in std::mem::take(&mut self.ul_deferred) {
            match e {
                UeEvent::Sdu(arrival) => self.ue_reports(t, arrival),
                UeEvent::Poll => self.ue_poll(t),
            }
        }
    }

    /// A polled PDU reached the UE at `now`: its RLC requests a STATUS and reports unless
    /// t-StatusProhibit runs (`LteRlcAm::DoReceivePdu`).
    fn ue_poll(&mut self, now: Time) {
        let Some(r) = self.dirs[0].reports.as_mut() else { return };
        if r.request_ue_status(now) {
            let arrival = Self::arrival_symbol(&self.cfg, &self.dl_blocks, now);
            self.ue_reports(now, arrival);
            if !self.dirs[1].slot_scheduled && self.has_work(1) {
                // the UE's MAC runs every subframe (a PDU that completes no packet starts no
                // ACK to wake the uplink): its slots go on from the next boundary
                self.dirs[1].slot_scheduled = true;
                self.ul_wake = Some(self.boundary_from(Time(now.0 + 1)));
            }
        }
    }

    /// The uplink's next slot when a STATUS report restarted it (`ue_polled`), once.
    pub fn uplink_wake(&mut self) -> Option<Time> {
        self.ul_wake.take()
    }

    /// An uplink slot with grants: the block the UE filled at the last boundary goes (a block
    /// error sends it to HARQ), a due HARQ retransmission goes with it, and the UE fills the
    /// grant made for this boundary, if any (its subframe is the scheduler's new measurement of
    /// the uplink). A queue that no report covers is reported again after the RLC's report
    /// timer (`LteRlcAm::ExpireRbsTimer`).
    pub(super) fn granted_slot(&mut self, now: Time, sinr: Quality, drops: &mut Vec<(Packet, DropCause)>) {
        if let Some((h, end)) = self.ul_staged.take() {
            self.ul_sending_end = end;
            self.send_block(1, h, sinr, now);
        }
        if self.dirs[1].harq.front().is_some_and(|h| h.due <= now) {
            // a retransmission goes with the next block (not modelled: its own symbols)
            self.ul_sending_end = self.cfg.data_symbols + 1;
            self.harq_retransmission(1, now, sinr);
        }
        let rec = self.ue_report(now);
        let (timer, slot) = (self.cfg.rlc_report_timer, self.cfg.slot);
        let u = self.ul.as_mut().expect("granted");
        u.report_if_stale(now, rec, timer);
        if let Some(g) = u.grant_at(now) {
            u.measured.add(now + slot);
            self.fill_grant(g, now, rec.status, drops);
        }
        // the reports and polls of this subframe's decoded block, after the fill
        self.ue_deferred();
    }

    /// The UE fills grant `g` at `now` (`pending`: its RLC has a STATUS to send) from its
    /// MAC's record (`UeRecord::fill`), with the packets that reached its RLC before then; the
    /// block goes in the next subframe and reaches the gNB's RLC as its data does.
    fn fill_grant(&mut self, g: Grant, now: Time, pending: bool, drops: &mut Vec<(Packet, DropCause)>) {
        let fill = self.ul.as_mut().expect("granted").ue.fill(g.bytes, pending);
        let arrival = self.ul_received_at(now + self.cfg.slot, g.end_symbol);
        let status = fill.status && self.dirs[0].reports.as_mut().is_some_and(|r| r.ue_status_in_grant(now, arrival));
        if !fill.data {
            return;
        }
        // the MAC gives the RLC its share less the MAC subheader and 1 byte
        let for_data = g.bytes.saturating_sub(if status { UE_STATUS_BYTES } else { 0 });
        let room = for_data.saturating_sub(ns3_mmwave_mac_subheader(for_data) + 1);
        let segs = self.dirs[1].fill_arrived_before(room, now, Some(now), drops);
        if !segs.is_empty() {
            self.ul_staged = Some((Harq::data(now, g.ref_sinr, g.mcs, segs), g.end_symbol));
        }
    }
}
