//! The packet: a TCP/IP segment whose payload is virtual (only its length and stream offset).

use crate::time::Time;

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
}

#[derive(Clone, Copy, Debug)]
pub struct Packet {
    pub flow: FlowId,
    pub kind: Kind,
    pub src: NodeId,
    pub dst: NodeId,
    /// Data: stream offset of the first payload byte. Sequence numbers are 64-bit and never wrap
    /// inside the simulator (pcap output folds them to 32 bits).
    pub seq: u64,
    /// Payload bytes (0 for a pure ACK).
    pub len: u32,
    /// Cumulative acknowledgement (next expected byte); meaningful on ACKs.
    pub ack: u64,
    /// SACK blocks, most recent first (RFC 2018).
    pub sack: [Range; MAX_SACK_BLOCKS],
    pub nsack: u8,
    /// Advertised receive window in bytes.
    pub rwnd: u64,
    /// When the sender put this copy on the wire (for one-way delay).
    pub sent_at: Time,
    /// This copy is a retransmission.
    pub retx: bool,
}

impl Packet {
    /// Bytes on the wire: headers, SACK option (2 + 8 per block, padded to 4) and payload.
    #[inline]
    pub fn wire_bytes(&self) -> u32 {
        let sack_opt = if self.nsack > 0 { (2 + 8 * self.nsack as u32).div_ceil(4) * 4 } else { 0 };
        HEADER_BYTES + sack_opt + self.len
    }

    pub fn sack_blocks(&self) -> &[Range] {
        &self.sack[..self.nsack as usize]
    }

    pub fn data(flow: FlowId, src: NodeId, dst: NodeId, seq: u64, len: u32, now: Time, retx: bool) -> Packet {
        Packet {
            flow,
            kind: Kind::Data,
            src,
            dst,
            seq,
            len,
            ack: 0,
            sack: [Range::default(); MAX_SACK_BLOCKS],
            nsack: 0,
            rwnd: 0,
            sent_at: now,
            retx,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_size_counts_headers_and_sack_option() {
        let mut p = Packet::data(0, 0, 1, 0, 1400, Time::ZERO, false);
        assert_eq!(p.wire_bytes(), 1440);
        p.len = 0;
        p.nsack = 1;
        assert_eq!(p.wire_bytes(), 40 + 12);
        p.nsack = 3;
        assert_eq!(p.wire_bytes(), 40 + 28);
    }
}
