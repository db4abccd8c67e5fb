//! The packet: a TCP/IP segment whose payload is virtual (only its length and stream offset).

use crate::time::Time;
use std::collections::VecDeque;

/// Bytes of IPv4 (20) and TCP (20) headers on every packet.
pub const HEADER_BYTES: u32 = 40;
/// At most this many SACK blocks ride on an ACK (RFC 2018 with the timestamp option: 3).
pub const MAX_SACK_BLOCKS: usize = 3;

pub type NodeId = u16;
pub type FlowId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Data,
    Ack,
    /// The connection's SYN (sender to receiver) and SYN-ACK (back): no payload, never
    /// subject to a link's random loss or drop list (they do not count as its packets).
    Syn,
    SynAck,
    /// The third packet of the handshake, the sender's pure ACK of the SYN-ACK (ns-3
    /// `ProcessSynSent` sends it just before the first data segment, so it takes link time
    /// ahead of them); the receiver has nothing to do with it. Handled like the SYN.
    HandshakeAck,
}

impl Kind {
    /// 0 for what travels from the sender (data, SYN), 1 for what travels back (ACKs).
    #[inline]
    pub fn dir(self) -> usize {
        matches!(self, Kind::Ack | Kind::SynAck) as usize
    }

    #[inline]
    pub fn is_handshake(self) -> bool {
        matches!(self, Kind::Syn | Kind::SynAck | Kind::HandshakeAck)
    }
}

/// Option bytes of a SYN / SYN-ACK: timestamps (10), window scale (3), SACK-permitted (2) and
/// the end of options, padded to 16 (ns-3 `TcpSocketBase::SendEmptyPacket`); 8 without
/// timestamps.
pub fn syn_option_bytes(timestamps: bool) -> u8 {
    if timestamps {
        16
    } else {
        8
    }
}

/// A byte range `[start, end)` of the sequence space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

impl Range {
    pub fn new(start: u64, end: u64) -> Range {
        Range { start, end }
    }
    pub fn len(&self) -> u64 {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end <= self.start
    }

    /// In `ranges` (sorted, disjoint): the index span `lo..hi` of the ranges that overlap or
    /// touch `self`. Searched by galloping from the nearer end (new SACK blocks and
    /// out-of-order segments land near the highest ranges, retransmissions near the lowest),
    /// so the cost is a few cache lines however many ranges there are.
    pub fn touching(&self, ranges: &VecDeque<Range>) -> (usize, usize) {
        let n = ranges.len();
        if n > 8 && self.end < ranges[n / 2].start {
            let lo = gallop(ranges, 0, |r| r.end < self.start);
            let hi = gallop(ranges, lo, |r| r.start <= self.end);
            (lo, hi)
        } else {
            let hi = gallop_back(ranges, n, |r| r.start > self.end);
            let lo = gallop_back(ranges, hi, |r| r.end >= self.start);
            (lo, hi)
        }
    }
}

/// The first index at or after `from` where `below` turns false (`below` holds on a prefix):
/// exponential steps up from `from`, then a binary search inside the last step.
fn gallop(v: &VecDeque<Range>, from: usize, below: impl Fn(&Range) -> bool) -> usize {
    let n = v.len();
    let (mut lo, mut step) = (from, 1);
    while lo + step <= n && below(&v[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    // everything before lo is below; the answer is in lo..=min(lo + step - 1, n)
    let (mut a, mut b) = (lo, (lo + step - 1).min(n));
    while a < b {
        let m = (a + b) / 2;
        if below(&v[m]) {
            a = m + 1;
        } else {
            b = m;
        }
    }
    a
}

/// The smallest index `i <= to` such that `above` holds for every range in `i..to` (`above`
/// holds on a suffix of `..to`): exponential steps down from `to`, then a binary search
/// inside the last step.
fn gallop_back(v: &VecDeque<Range>, to: usize, above: impl Fn(&Range) -> bool) -> usize {
    let (mut hi, mut step) = (to, 1);
    while hi >= step && above(&v[hi - step]) {
        hi -= step;
        step *= 2;
    }
    // everything in hi..to is above; the answer is in (hi - step)..=hi
    let (mut a, mut b) = (hi.saturating_sub(step), hi);
    while a < b {
        let m = (a + b) / 2;
        if above(&v[m]) {
            b = m;
        } else {
            a = m + 1;
        }
    }
    a
}

/// A packet. Kept to 64 bytes (one cache line): packets are copied between queues on every
/// hop, and that copying is the simulator's main cost.
#[derive(Clone, Copy, Debug)]
pub struct Packet {
    /// Data: when the sender put this copy on the wire (for one-way delay). ACK: the echoed
    /// timestamp (RFC 7323 TSecr), i.e. the send time of the data segment whose timestamp the
    /// receiver echoes (ns-3 measures RTT from it in the `ns3` profile).
    pub sent_at: Time,
    /// Data: stream offset of the first payload byte. ACK: the cumulative acknowledgement (next
    /// expected byte), read with [`Packet::ack`]. 64-bit, never wrapping inside the simulator
    /// (pcap output folds it to 32 bits).
    pub seq: u64,
    pub flow: FlowId,
    /// Payload bytes (0 for a pure ACK).
    pub len: u32,
    /// Advertised receive window in bytes (saturated at u32::MAX).
    pub rwnd: u32,
    pub src: NodeId,
    pub dst: NodeId,
    pub kind: Kind,
    pub nsack: u8,
    /// TCP option bytes other than SACK (the timestamp option: 12).
    pub opt: u8,
    /// This copy is a retransmission.
    pub retx: bool,
    /// The receiver-side timestamp exchange of the `linux` profile, in its millisecond ticks
    /// (`tcp::rcv_window::ts_ticks`; 0: none): an ACK's own TSval, and on data the TSecr echoing
    /// the latest ACK's, from which a Linux receiver estimates the RTT (`tcp_rcv_rtt_measure_ts`).
    /// Fills what was padding.
    pub ts_ms: u32,
    /// SACK blocks as offsets above `ack`, most recent first (RFC 2018).
    sack: [(u32, u32); MAX_SACK_BLOCKS],
}

impl Packet {
    /// Bytes on the wire: headers, options (`opt`, then SACK: 2 + 8 per block; all options
    /// padded together to a multiple of 4, RFC 9293 section 3.1) and payload.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        let sack_opt = if self.nsack > 0 { 2 + 8 * self.nsack as u32 } else { 0 };
        HEADER_BYTES + (self.opt as u32 + sack_opt).div_ceil(4) * 4 + self.len
    }

    /// The cumulative acknowledgement of an ACK.
    #[inline]
    pub fn ack(&self) -> u64 {
        self.seq
    }

    /// The SACK blocks (absolute sequence numbers) and their count.
    #[inline]
    pub fn sack_blocks(&self) -> ([Range; MAX_SACK_BLOCKS], usize) {
        let mut out = [Range::default(); MAX_SACK_BLOCKS];
        for (o, &(a, b)) in out.iter_mut().zip(&self.sack[..self.nsack as usize]) {
            *o = Range::new(self.seq + a as u64, self.seq + b as u64);
        }
        (out, self.nsack as usize)
    }

    /// A payload-less packet of the connection's opening (SYN, SYN-ACK, the final ACK) with
    /// `opt` option bytes.
    pub fn handshake(kind: Kind, flow: FlowId, src: NodeId, dst: NodeId, now: Time, opt: u8, retx: bool) -> Packet {
        debug_assert!(kind.is_handshake());
        Packet { kind, opt, ..Packet::data(flow, src, dst, 0, 0, now, retx) }
    }

    pub fn data(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        seq: u64,
        len: u32,
        now: Time,
        retx: bool,
    ) -> Packet {
        Packet {
            sent_at: now,
            seq,
            flow,
            len,
            rwnd: 0,
            src,
            dst,
            kind: Kind::Data,
            nsack: 0,
            opt: 0,
            retx,
            ts_ms: 0,
            sack: [(0, 0); MAX_SACK_BLOCKS],
        }
    }

    /// A pure ACK with cumulative acknowledgement `ack`, up to three SACK blocks above it
    /// (blocks that do not fit in 32-bit offsets above `ack` are left out) and the echoed
    /// timestamp `tsecr` (kept in `sent_at`).
    pub fn new_ack(
        flow: FlowId,
        src: NodeId,
        dst: NodeId,
        ack: u64,
        rwnd: u64,
        blocks: &[Range],
        tsecr: Time,
    ) -> Packet {
        let mut p = Packet::data(flow, src, dst, ack, 0, tsecr, false);
        p.kind = Kind::Ack;
        p.rwnd = rwnd.min(u32::MAX as u64) as u32;
        for b in blocks.iter().take(MAX_SACK_BLOCKS) {
            if b.start >= ack && b.end - ack <= u32::MAX as u64 {
                p.sack[p.nsack as usize] = ((b.start - ack) as u32, (b.end - ack) as u32);
                p.nsack += 1;
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_size_counts_headers_and_sack_option() {
        let p = Packet::data(0, 0, 1, 0, 1400, Time::ZERO, false);
        assert_eq!(p.wire_bytes(), 1440);
        let a = Packet::new_ack(0, 1, 0, 1000, 65535, &[Range::new(2000, 3000)], Time::ZERO);
        assert_eq!(a.wire_bytes(), 40 + 12);
        let b = [
            Range::new(2000, 3000),
            Range::new(4000, 5000),
            Range::new(6000, 7000),
        ];
        let a = Packet::new_ack(0, 1, 0, 1000, 65535, &b, Time::ZERO);
        assert_eq!(a.wire_bytes(), 40 + 28);
        let (got, n) = a.sack_blocks();
        assert_eq!(&got[..n], &b);
        // with timestamps: Linux NOP NOP TS (12) + NOP NOP SACK = 12 + 4 + 8 n; ns-3 TS (10) +
        // SACK (2 + 8 n) padded together: 20 / 28 / 36, 4 bytes less
        let mut a = a;
        a.opt = 12;
        assert_eq!(a.wire_bytes(), 40 + 40);
        a.opt = 10;
        assert_eq!(a.wire_bytes(), 40 + 36);
        let mut one = Packet::new_ack(0, 1, 0, 1000, 65535, &b[..1], Time::ZERO);
        one.opt = 10;
        assert_eq!(one.wire_bytes(), 40 + 20);
        let mut data = Packet::data(0, 0, 1, 0, 1400, Time::ZERO, false);
        data.opt = 10;
        assert_eq!(data.wire_bytes(), 1452, "ns-3: 20 + 20 + 12 + 1400");
    }

    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }

    #[test]
    fn touching_matches_a_linear_scan() {
        // ranges [10k, 10k + 5) for k = 0..50
        let v: VecDeque<Range> = (0..50).map(|k| Range::new(10 * k, 10 * k + 5)).collect();
        for s in 0..520 {
            for len in [0, 1, 4, 5, 6, 30] {
                let r = Range::new(s, s + len);
                let lo = v.iter().position(|x| x.end >= r.start).unwrap_or(v.len());
                let hi = v.iter().position(|x| x.start > r.end).unwrap_or(v.len());
                assert_eq!(r.touching(&v), (lo, hi), "{r:?}");
            }
        }
        assert_eq!(Range::new(3, 4).touching(&VecDeque::new()), (0, 0));
    }
}
