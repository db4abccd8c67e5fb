//! pcap output (LINKTYPE_RAW: IPv4 packets) of one link direction, readable by Wireshark and
//! tshark. Payload bytes are not stored (the payload is virtual): each record holds the IPv4
//! and TCP headers with options (SACK) and states the full original length.

use crate::net::{Kind, Packet};
use crate::time::Time;
use std::fs::File;
use std::io::{self, BufWriter, Write};

pub struct PcapWriter {
    w: BufWriter<File>,
    pub error: Option<io::Error>,
    pub packets: u64,
}

const LINKTYPE_RAW: u32 = 101;

impl PcapWriter {
    pub fn create(path: &str) -> io::Result<PcapWriter> {
        let mut w = BufWriter::with_capacity(1 << 16, File::create(path)?);
        // Global header: magic (ns resolution), v2.4, snaplen, linktype.
        w.write_all(&0xa1b2_3c4du32.to_le_bytes())?;
        w.write_all(&2u16.to_le_bytes())?;
        w.write_all(&4u16.to_le_bytes())?;
        w.write_all(&0i32.to_le_bytes())?;
        w.write_all(&0u32.to_le_bytes())?;
        w.write_all(&65535u32.to_le_bytes())?;
        w.write_all(&LINKTYPE_RAW.to_le_bytes())?;
        Ok(PcapWriter {
            w,
            error: None,
            packets: 0,
        })
    }

    fn checksum(data: &[u8]) -> u16 {
        let mut sum: u32 = 0;
        for c in data.chunks(2) {
            let v = if c.len() == 2 {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                (c[0] as u16) << 8
            };
            sum += v as u32;
        }
        while sum >> 16 != 0 {
            sum = (sum & 0xffff) + (sum >> 16);
        }
        !(sum as u16)
    }

    /// Write `pkt` as seen at time `t`.
    pub fn write(&mut self, t: Time, pkt: &Packet) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.write_inner(t, pkt) {
            self.error = Some(e);
        }
    }

    fn write_inner(&mut self, t: Time, pkt: &Packet) -> io::Result<()> {
        let mut opts: Vec<u8> = Vec::with_capacity(28);
        if pkt.nsack > 0 {
            opts.extend_from_slice(&[1, 1, 5, 2 + 8 * pkt.nsack]);
            let (blocks, n) = pkt.sack_blocks();
            for b in &blocks[..n] {
                opts.extend_from_slice(&(b.start as u32).wrapping_add(1).to_be_bytes());
                opts.extend_from_slice(&(b.end as u32).wrapping_add(1).to_be_bytes());
            }
        }
        let tcp_len = 20 + opts.len();
        let total = 20 + tcp_len + pkt.len as usize;
        let mut h = Vec::with_capacity(20 + tcp_len);
        // IPv4 header: 10.0.0.(node+1)
        let src = [10, 0, (pkt.src >> 8) as u8, (pkt.src & 0xff) as u8 + 1];
        let dst = [10, 0, (pkt.dst >> 8) as u8, (pkt.dst & 0xff) as u8 + 1];
        h.extend_from_slice(&[0x45, 0]);
        h.extend_from_slice(&(total.min(65535) as u16).to_be_bytes());
        h.extend_from_slice(&[0, 0, 0x40, 0, 64, 6, 0, 0]);
        h.extend_from_slice(&src);
        h.extend_from_slice(&dst);
        let c = Self::checksum(&h[..20]);
        h[10..12].copy_from_slice(&c.to_be_bytes());
        // TCP header: ports 5000+flow (data side) and 50000+flow (receiver side).
        let (sport, dport) = match pkt.kind {
            Kind::Data | Kind::Syn | Kind::HandshakeAck => (5000 + pkt.flow as u16, 50000 + pkt.flow as u16),
            Kind::Ack | Kind::SynAck => (50000 + pkt.flow as u16, 5000 + pkt.flow as u16),
        };
        h.extend_from_slice(&sport.to_be_bytes());
        h.extend_from_slice(&dport.to_be_bytes());
        let (seq, ack, flags) = match pkt.kind {
            Kind::Data => ((pkt.seq as u32).wrapping_add(1), 1u32, 0x18u8),
            Kind::Ack => (1u32, (pkt.ack() as u32).wrapping_add(1), 0x10u8),
            Kind::Syn => (0u32, 0u32, 0x02u8),
            Kind::SynAck => (0u32, 1u32, 0x12u8),
            Kind::HandshakeAck => (1u32, 1u32, 0x10u8),
        };
        h.extend_from_slice(&seq.to_be_bytes());
        h.extend_from_slice(&ack.to_be_bytes());
        h.push(((tcp_len / 4) as u8) << 4);
        h.push(flags);
        h.extend_from_slice(&(pkt.rwnd.min(65535) as u16).to_be_bytes());
        h.extend_from_slice(&[0, 0, 0, 0]);
        h.extend_from_slice(&opts);
        self.record(t, &h, total)
    }

    /// One record (ns timestamp) holding `bytes`, of a packet `orig_len` bytes long.
    fn record(&mut self, t: Time, bytes: &[u8], orig_len: usize) -> io::Result<()> {
        let secs = (t.0 / 1_000_000_000) as u32;
        let nanos = (t.0 % 1_000_000_000) as u32;
        self.w.write_all(&secs.to_le_bytes())?;
        self.w.write_all(&nanos.to_le_bytes())?;
        self.w.write_all(&(bytes.len() as u32).to_le_bytes())?;
        self.w.write_all(&(orig_len as u32).to_le_bytes())?;
        self.w.write_all(bytes)?;
        self.packets += 1;
        Ok(())
    }

    /// Write a real IPv4 packet seen at time `t`, truncated to its first `snap` bytes (the
    /// headers: the kernel testbed's capture).
    pub fn write_raw(&mut self, t: Time, pkt: &[u8], snap: usize) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.record(t, &pkt[..pkt.len().min(snap)], pkt.len()) {
            self.error = Some(e);
        }
    }

    pub fn finish(&mut self) -> io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.w.flush()
    }
}
