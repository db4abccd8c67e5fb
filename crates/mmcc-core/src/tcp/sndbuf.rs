//! Linux's send-buffer memory (`tcp.send_buffer_truesize`, the `linux` profile).
//!
//! Linux charges the send buffer (`sk_wmem_queued` against `sk_sndbuf`) with each skb's
//! truesize: its data, which lives in page fragments and is charged byte for byte, plus the
//! skb's head, `SKB_TRUESIZE(skb_end_offset)` of the `MAX_TCP_HEADER` allocation
//! (`tcp_stream_alloc_skb`). Writes build skbs of `size_goal`; every transmission cuts one skb
//! off the written data (`tso_fragment`) and SACK blocks cut the skbs they partly cover, so the
//! same data costs more memory the more it is cut (the scoreboard keeps the cuts:
//! `Scoreboard::with_skbs`). A writer that polls finds the socket writable only while a third of
//! the buffer is free (`sk_stream_is_writeable`) and writes its write size each time.
//!
//! ns-3 (and the `ns3` profile) counts payload bytes and its `BulkSendApplication` refills the
//! buffer whenever it has room.

/// Linux `gso_max_size` (`GSO_LEGACY_MAX_SIZE`): the largest skb TCP builds.
pub const GSO_MAX_SIZE: u64 = 65_536;
/// Linux `MAX_TCP_HEADER` (x86-64: `L1_CACHE_ALIGN(128 + MAX_HEADER)`): the head room of every
/// TCP skb.
pub const MAX_TCP_HEADER: u64 = 320;
/// An skb's memory besides its data: 256 bytes for `struct sk_buff`, 320 for
/// `skb_shared_info`, and the 704 bytes of the kmalloc'd head (1,024) before the shared info.
pub const SKB_OVERHEAD: u64 = 1_280;

/// `tcp_xmit_size_goal`: the data one write puts in an skb, whole segments of at most
/// `gso_max_size - 1 - MAX_TCP_HEADER` bytes (45 segments of 1,448).
pub fn size_goal(mss: u64) -> u64 {
    ((GSO_MAX_SIZE - 1 - MAX_TCP_HEADER) / mss.max(1)).max(1) * mss.max(1)
}

/// `sk_wmem_queued`: `unacked` bytes sent and not acknowledged, held in `rtx_skbs` skbs (the
/// retransmission queue), and `unsent` bytes written and not sent, in skbs of `size_goal` (the
/// write queue).
pub fn wmem_queued(unacked: u64, unsent: u64, rtx_skbs: u64, mss: u64) -> u64 {
    unacked + unsent + SKB_OVERHEAD * (rtx_skbs + unsent.div_ceil(size_goal(mss)))
}

/// Bytes a writer adds now to a buffer of `buf` bytes holding `queued`. `tcp_sendmsg` allocates
/// skbs of `size_goal` while `sk_wmem_queued < sk_sndbuf` (`sk_stream_memory_free`), so the last
/// skb may take the buffer past full. A polling writer with `write` bytes per call
/// (`Some(write)`) writes only while the socket is writable, free >= queued / 2
/// (`sk_stream_is_writeable`), one write each time, until it is no longer writable; a writer
/// whose data falls due on a timer (`None`) writes whatever memory is free.
pub fn writable(buf: u64, queued: u64, mss: u64, write: Option<u64>) -> u64 {
    if queued >= buf {
        return 0;
    }
    let goal = size_goal(mss);
    let memory_free = (buf - queued).div_ceil(goal + SKB_OVERHEAD) * goal;
    let Some(write) = write.map(|w| w.max(1)) else { return memory_free };
    if 3 * queued > 2 * buf {
        return 0; // not writable: less than a third free
    }
    let write_mem = write + SKB_OVERHEAD * write.div_ceil(goal);
    // writes while writable before each: queued + j x write_mem <= 2/3 buf, j = 0..k-1
    let writes = (2 * buf - 3 * queued) / (3 * write_mem) + 1;
    (writes * write).min(memory_free)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    #[test]
    fn memory_is_data_plus_a_head_per_skb() {
        assert_eq!(size_goal(MSS), 45 * MSS);
        // 100 segments in 7 skbs sent, 50 segments written in two write skbs (45 + 5)
        assert_eq!(wmem_queued(100 * MSS, 50 * MSS, 7, MSS), 150 * MSS + 9 * 1_280);
        assert_eq!(wmem_queued(0, 0, 0, MSS), 0);
        // cut into single segments by SACK holes, data costs 1.88 times its size
        assert_eq!(wmem_queued(MSS, 0, 1, MSS) as f64 / MSS as f64, 2_728.0 / 1_448.0);
    }

    #[test]
    fn a_polling_writer_waits_for_a_third_free_and_writes_until_not_writable() {
        let buf = 3 << 20; // 3 MiB: writable while queued <= 2 MiB
        let write = 256 * 1024;
        let write_mem = write + 5 * SKB_OVERHEAD; // 256 KiB in skbs of 45 segments: 5 heads
        // empty: writes while writable before each write (2 MiB / write_mem = 7.96 -> 8 writes)
        assert_eq!(writable(buf, 0, MSS, Some(write)), 8 * write);
        // just writable: one write
        assert_eq!(writable(buf, 2 << 20, MSS, Some(write)), write);
        assert_eq!(writable(buf, (2 << 20) - write_mem, MSS, Some(write)), 2 * write);
        // not writable above two thirds, whatever is free
        assert_eq!(writable(buf, (2 << 20) + 1, MSS, Some(write)), 0);
        assert_eq!(writable(buf, buf, MSS, Some(write)), 0);
        // a write may pass the buffer's end by the rest of one skb, never by more
        assert_eq!(writable(buf, 0, MSS, Some(8 << 20)), buf.div_ceil(45 * MSS + SKB_OVERHEAD) * 45 * MSS);
        // a timed writer: what memory is free, in skbs of size_goal
        assert_eq!(writable(buf, buf - 1, MSS, None), 45 * MSS);
        let free = (1u64 << 20) - 1;
        assert_eq!(writable(buf, (2 << 20) + 1, MSS, None), free.div_ceil(45 * MSS + SKB_OVERHEAD) * 45 * MSS);
    }
}
