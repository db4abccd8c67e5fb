//! Linux's receive window and the ACK rules that depend on it (the `linux` profile's receiver,
//! `recv_autotune`): Linux 6.18 `net/ipv4/tcp_input.c`, `tcp_output.c`, `tcp.c`.
//!
//! A Linux receiver does not advertise its whole buffer. It starts from half of `tcp_rmem[1]`
//! and opens the window segment by segment (`rcv_ssthresh`), up to a clamp that dynamic
//! right-sizing (DRS) raises once per receiver RTT to twice what the application read in the
//! last RTT, plus twice the growth of that amount (the sender may double its rate). Every
//! segment that opens the window also keeps the receiver in quick-ACK mode, so a growing window
//! is acknowledged segment by segment, which is how the kernel ACKs slow start. Memory is
//! counted as the kernel counts it: each segment charges its buffer's `truesize`, and the
//! window is that memory times `scaling_ratio` (segment length / truesize, in 1/256).
//!
//! Also here: SACK compression (`tcp_comp_sack_*`: after three immediate duplicate ACKs per
//! hole, out-of-order segments are acknowledged at most once per min(1 ms, RTT/20) or every 44
//! segments, and the receiver sends the pending compressed SACK early whenever a range would
//! drop below second place in its list, `tcp_sack_new_ofo_skb`; on with `sack_compression`,
//! the `linux` profile's default) and the receiver RTT estimate both rely on
//! (`tcp_rcv_rtt_measure_ts`: echoed timestamps, whole milliseconds).
//!
//! Checked against the kernel: the unit tests below hold the window, clamp, buffer and DRS steps
//! that the testbed read from Linux 6.18.44 (`receive_window` samples of `mmcc testbed`), and
//! `tests/harness.rs::linux_receiver_acks_each_segment_while_its_window_grows` the ACKs of its
//! capture (docs/tcp-profiles.md).

use super::TcpSettings;
use crate::time::{Dur, Time};

/// `TCP_RMEM_TO_WIN_SCALE`: `scaling_ratio` is in 1/256.
const RATIO_SHIFT: u32 = 8;
/// `TCP_DEFAULT_SCALING_RATIO` (Linux >= 6.11): half of the memory until a segment is measured.
const DEFAULT_RATIO: u64 = 1 << (RATIO_SHIFT - 1);
/// `TCP_INIT_CWND`: DRS's first `rcvq_space.space` is ten segments.
const INIT_CWND: u64 = 10;
/// `TCP_MSS_DEFAULT`: the receiver's MSS estimate before the first segment.
const MSS_DEFAULT: u64 = 536;
/// `TCP_MAX_WSCALE`.
const MAX_WSCALE: u32 = 14;
/// `tcp_comp_sack_nr`: at most this many out-of-order segments under one compressed SACK.
const COMP_SACK_NR: u32 = 44;
/// `tcp_comp_sack_delay_ns`: the longest SACK compression delay.
const COMP_SACK_DELAY: Dur = Dur::from_millis(1);
/// `TCP_FASTRETRANS_THRESH`: duplicate ACKs sent at once per hole before compressing.
const FASTRETRANS_THRESH: u32 = 3;

/// The receive-window state of one Linux receiver.
#[derive(Clone, Debug)]
pub struct LinuxRcvWindow {
    /// `tp->advmss`: the largest segment the receiver expects (the MSS).
    advmss: u64,
    /// Memory a received segment charges (`skb->truesize`, set by the NIC driver's buffers).
    truesize: u64,
    /// `tcp_rmem[2]`: DRS's limit for `sk_rcvbuf`.
    rmem_max: u64,
    /// `scaling_ratio`: window bytes per 256 bytes of memory.
    ratio: u64,
    /// `sk_rcvbuf`.
    rcvbuf: u64,
    window_clamp: u64,
    rcv_ssthresh: u64,
    /// Receive window scale (`rcv_wscale`).
    wscale: u32,
    /// The window last advertised (`rcv_wnd`) and `rcv_nxt` then (`rcv_wup`).
    rcv_wnd: u64,
    rcv_wup: u64,
    /// `icsk_ack.rcv_mss`: the receiver's estimate of the sender's segment size.
    rcv_mss: u64,
    /// DRS (`rcvq_space`): bytes read in the last measured RTT, where and when it began.
    space: u64,
    space_seq: u64,
    space_time: Option<Time>,
    /// `rcv_rtt_est.rtt_us` (times 8) and the last echoed timestamp used.
    rtt_us8: u64,
    last_tsecr: u32,
    /// SACK compression (`sack_compression`): on or off, segments under the pending
    /// compressed SACK, duplicate ACKs sent for the current hole, and the `rcv_nxt` they were for.
    sack_compression: bool,
    compressed: u32,
    dup_acks: u32,
    comp_rcv_nxt: u64,
}

impl LinuxRcvWindow {
    /// The state after the handshake: `tcp_select_initial_window` and `tcp_init_buffer_space`.
    pub fn new(cfg: &TcpSettings) -> LinuxRcvWindow {
        let advmss = cfg.mss.max(1) as u64;
        let rcvbuf = cfg.rcv_buf_initial.min(cfg.rcv_buf).max(1);
        let mut w = LinuxRcvWindow {
            advmss,
            truesize: (cfg.rcv_truesize as u64).max(1),
            rmem_max: cfg.rcv_buf.max(rcvbuf),
            ratio: DEFAULT_RATIO,
            rcvbuf,
            window_clamp: 0,
            rcv_ssthresh: 0,
            wscale: 0,
            rcv_wnd: 0,
            rcv_wup: 0,
            rcv_mss: 0,
            space: 0,
            space_seq: 0,
            space_time: None,
            rtt_us8: 0,
            last_tsecr: 0,
            sack_compression: cfg.sack_compression && cfg.sack,
            compressed: 0,
            dup_acks: 0,
            comp_rcv_nxt: 0,
        };
        // tcp_select_initial_window: the full space, a multiple of the MSS; the scale that
        // lets tcp_rmem[2] be advertised
        let space = w.win_from_space(rcvbuf);
        w.rcv_wnd = if space > advmss { space / advmss * advmss } else { space };
        w.wscale = (w.rmem_max.max(1).ilog2().saturating_sub(15)).min(MAX_WSCALE);
        // tcp_init_buffer_space: the clamp is the full space less one reserved segment
        // (tcp_app_win = 31 reserves nothing more)
        let maxwin = space;
        w.window_clamp = maxwin;
        if w.window_clamp > 2 * advmss && w.window_clamp + advmss > maxwin {
            w.window_clamp = (2 * advmss).max(maxwin - advmss);
        }
        w.rcv_ssthresh = w.rcv_wnd.min(w.window_clamp);
        w.space = w.rcv_ssthresh.min(w.rcv_wnd).min(INIT_CWND * advmss);
        // tcp_initialize_rcv_mss
        w.rcv_mss = advmss.min(w.rcv_wnd / 2).clamp(88, MSS_DEFAULT);
        w
    }

    /// The window of the SYN-ACK (never scaled, RFC 7323).
    pub fn initial_window(&self) -> u64 {
        self.rcv_wnd.min(65_535)
    }

    /// `tcp_win_from_space`.
    fn win_from_space(&self, space: u64) -> u64 {
        (space * self.ratio) >> RATIO_SHIFT
    }

    /// `tcp_space_from_win`.
    fn space_from_win(&self, win: u64) -> u64 {
        (win << RATIO_SHIFT) / self.ratio
    }

    /// Memory charged by `bytes` of received, unread data.
    #[inline]
    pub fn charge(&self, bytes: u64) -> u64 {
        match bytes {
            0 => 0,
            b if b <= self.advmss => self.truesize, // the usual case: one segment, no division
            b => b.div_ceil(self.advmss) * self.truesize,
        }
    }

    /// `tcp_space`: the window the free memory allows.
    fn free_space(&self, rmem: u64) -> u64 {
        self.win_from_space(self.rcvbuf.saturating_sub(rmem))
    }

    /// `tcp_rcv_rtt_measure_ts`: a data segment echoing `tsecr` (ms ticks, 0: none) arrived at
    /// `now`; full-sized segments with a new echo are RTT samples in whole milliseconds.
    pub fn measure_rtt(&mut self, now: Time, tsecr: u32, len: u64) {
        if tsecr == self.last_tsecr {
            return;
        }
        self.last_tsecr = tsecr;
        if len >= self.rcv_mss {
            let delta_ms = ts_ticks(now).wrapping_sub(tsecr) as i32;
            if delta_ms > 0 {
                self.rtt_update(delta_ms as u64 * 1000);
            }
        }
    }

    /// `tcp_rcv_rtt_update` without the window-based samples: a smaller sample replaces the
    /// estimate, a larger one moves it by 1/8 (the application has read everything, so the
    /// receive queue is empty).
    fn rtt_update(&mut self, sample_us: u64) {
        let m = sample_us << 3;
        self.rtt_us8 = if self.rtt_us8 == 0 || m < self.rtt_us8 {
            m
        } else {
            self.rtt_us8 - (self.rtt_us8 >> 3) + sample_us
        };
    }

    /// The receiver's RTT estimate (`tcpi_rcv_rtt`), zero before the first sample.
    pub fn rtt(&self) -> Dur {
        Dur::from_micros(self.rtt_us8 >> 3)
    }

    /// `tcp_measure_rcv_mss` for an in-order segment of `len` bytes: the first full segment
    /// sets `scaling_ratio` from its truesize and the clamp follows (`tcp_set_window_clamp`).
    pub fn measure_rcv_mss(&mut self, len: u64) {
        if len < self.rcv_mss {
            return;
        }
        if len != self.rcv_mss {
            let old = self.ratio;
            // a u8 in the kernel: a segment is always smaller than its buffer there
            self.ratio = ((len << RATIO_SHIFT) / self.truesize).clamp(1, 255);
            if self.ratio != old {
                self.set_window_clamp(self.win_from_space(self.rcvbuf));
                self.space = self.space.min(self.window_clamp);
            }
        }
        self.rcv_mss = len.min(self.advmss);
    }

    /// `tcp_set_window_clamp`.
    fn set_window_clamp(&mut self, clamp: u64) {
        let old = self.window_clamp;
        self.window_clamp = clamp;
        if clamp < old {
            self.rcv_ssthresh = self.rcv_ssthresh.min(clamp);
        } else {
            self.rcv_ssthresh = self.rcv_ssthresh.max(self.rcv_wnd.min(clamp));
        }
    }

    /// `tcp_grow_window` for a segment of `len` bytes with `rmem` bytes of memory charged (this
    /// segment included): open `rcv_ssthresh` by two segments while the clamp and the free
    /// memory allow. True if it grew (the caller sets `icsk_ack.quick |= 1`).
    pub fn grow(&mut self, len: u64, rmem: u64) -> bool {
        if self.rcv_ssthresh >= self.window_clamp {
            return false; // no room whatever the memory (the steady state, checked first)
        }
        let limit = self.window_clamp.min(self.free_space(rmem));
        if limit <= self.rcv_ssthresh {
            return false;
        }
        let room = limit - self.rcv_ssthresh;
        // Check #2: will a segment with this overhead fit the buffer later?
        let incr = if self.win_from_space(self.truesize) <= len {
            2 * self.advmss
        } else {
            // __tcp_grow_window
            let mut truesize = self.win_from_space(self.truesize) >> 1;
            let mut window = self.win_from_space(self.rmem_max) >> 1;
            let mut incr = 0;
            while self.rcv_ssthresh <= window {
                if truesize <= len {
                    incr = 2 * self.rcv_mss;
                    break;
                }
                truesize >>= 1;
                window >>= 1;
            }
            incr
        };
        if incr == 0 {
            return false;
        }
        self.rcv_ssthresh += room.min(incr.max(2 * len));
        true
    }

    /// `__tcp_select_window` with `rmem` charged: the window to offer now and whether the
    /// free memory is below half the full space (which ends quick-ACK mode).
    fn offer(&self, rmem: u64) -> (u64, bool) {
        let allowed = self.win_from_space(self.rcvbuf);
        let full = self.window_clamp.min(allowed);
        let mss = self.rcv_mss.min(full);
        if mss == 0 {
            return (0, true);
        }
        let mut free = self.free_space(rmem);
        let low = free < full >> 1;
        if low {
            free = free >> self.wscale << self.wscale;
            if free < allowed >> 4 || free < mss {
                return (0, true);
            }
        }
        let w = free.min(self.rcv_ssthresh);
        let unit = 1u64 << self.wscale;
        (w.div_ceil(unit) * unit, low)
    }

    /// `tcp_receive_window`: what is left of the window last offered.
    pub fn window_left(&self, rcv_nxt: u64) -> u64 {
        (self.rcv_wup + self.rcv_wnd).saturating_sub(rcv_nxt)
    }

    /// `tcp_select_window` for an ACK sent now: never shrink the offered right edge, remember
    /// what was offered and return it as the peer reads it (scaled). The flag says quick-ACK
    /// mode ends (`icsk_ack.quick = 0`).
    pub fn select(&mut self, rcv_nxt: u64, rmem: u64) -> (u64, bool) {
        let cur = self.window_left(rcv_nxt);
        let (new, low) = self.offer(rmem);
        let new = new.max(cur);
        self.rcv_wnd = new;
        self.rcv_wup = rcv_nxt;
        let max = 65_535u64 << self.wscale;
        (new.min(max) >> self.wscale << self.wscale, low)
    }

    /// `tcp_cleanup_rbuf` after a read: send a window update when what is left of the offered
    /// window is at most half the clamp and the window could now be at least twice that.
    pub fn update_worth_sending(&self, rcv_nxt: u64, rmem: u64) -> bool {
        let now = self.window_left(rcv_nxt);
        if 2 * now > self.window_clamp {
            return false;
        }
        let (new, _) = self.offer(rmem);
        new > 0 && new >= 2 * now
    }

    /// `tcp_rcv_space_adjust` after the application has read up to `copied` (in order, so the
    /// queue is empty) at `now`: once per receiver RTT, grow the buffer when more was read
    /// than in the last RTT. `ooo_end`: the end of the highest out-of-order data held.
    pub fn after_read(&mut self, now: Time, copied: u64, rcv_nxt: u64, ooo_end: Option<u64>) {
        let start = *self.space_time.get_or_insert(now);
        if self.rtt_us8 == 0 || (now - start) < self.rtt() {
            return;
        }
        let read = copied - self.space_seq;
        if read > self.space {
            self.rcvbuf_grow(read, rcv_nxt, ooo_end);
        }
        self.space_seq = copied;
        self.space_time = Some(now);
    }

    /// `tcp_data_queue_ofo`'s last step: an out-of-order segment may grow the buffer to cover
    /// the data held above the hole (`tcp_rcvbuf_grow` with the current `space`).
    pub fn after_ofo(&mut self, rcv_nxt: u64, ooo_end: u64) {
        self.rcvbuf_grow(self.space, rcv_nxt, Some(ooo_end));
    }

    /// `tcp_rcvbuf_grow(newval)` (Linux 6.18): twice the new amount, plus twice its growth
    /// over the old one, plus the out-of-order span; the clamp follows the buffer.
    fn rcvbuf_grow(&mut self, newval: u64, rcv_nxt: u64, ooo_end: Option<u64>) {
        let old = self.space.max(1);
        self.space = newval;
        let mut rcvwin = newval << 1;
        rcvwin += (rcvwin * newval.saturating_sub(old) / old) << 1;
        if let Some(end) = ooo_end {
            rcvwin += end.saturating_sub(rcv_nxt);
        }
        let rcvbuf = self.space_from_win(rcvwin).min(self.rmem_max);
        if rcvbuf > self.rcvbuf {
            self.rcvbuf = rcvbuf;
            self.window_clamp = self.win_from_space(rcvbuf);
        }
    }

    /// `__tcp_ack_snd_check` for out-of-order data (no quick-ACK, nothing else forcing an
    /// ACK): `None` to ACK at once (compression off, one of the first three duplicate ACKs for
    /// this hole, or 44 segments compressed), else the delay of the compressed SACK.
    pub fn compress_sack(&mut self, rcv_nxt: u64) -> Option<Dur> {
        if !self.sack_compression || self.compressed >= COMP_SACK_NR {
            return None;
        }
        if self.comp_rcv_nxt != rcv_nxt {
            self.comp_rcv_nxt = rcv_nxt;
            self.dup_acks = 0;
        }
        if self.dup_acks < FASTRETRANS_THRESH {
            self.dup_acks += 1;
            return None;
        }
        self.compressed += 1;
        // 5 % of the receiver's RTT, at most tcp_comp_sack_delay_ns
        Some(COMP_SACK_DELAY.min(Dur(self.rtt().0 / 20)))
    }

    /// Segments waiting under a compressed SACK.
    pub fn compressed(&self) -> u32 {
        self.compressed
    }

    /// An ACK went out (`tcp_event_ack_sent`): nothing is compressed any more.
    pub fn ack_sent(&mut self) {
        self.compressed = 0;
    }

    /// (sk_rcvbuf, window_clamp, rcv_ssthresh, rcvq_space.space): for tests and traces.
    pub fn state(&self) -> (u64, u64, u64, u64) {
        (self.rcvbuf, self.window_clamp, self.rcv_ssthresh, self.space)
    }
}

/// The TCP timestamp clock of the `linux` profile: milliseconds (`TCP_TS_HZ`), offset by one so
/// that 0 means "no timestamp echoed yet".
pub fn ts_ticks(t: Time) -> u32 {
    (t.0 / 1_000_000 + 1) as u32
}

#[cfg(test)]
mod tests {
    use super::super::{Profile, TcpConfig};
    use super::*;

    fn linux() -> LinuxRcvWindow {
        LinuxRcvWindow::new(&TcpConfig::with_profile(Profile::Linux).resolve())
    }

    /// The values read from Linux 6.18.44 on the testbed (tcp_rmem 4096 131072 33554432, MSS
    /// 1448, truesize 2304): SYN-ACK window 65160 and scale 10, clamp 64088 (65536 less one
    /// segment), DRS space 14480; after the first segment scaling_ratio 160 and clamp 81920.
    #[test]
    fn starts_like_the_kernel() {
        let mut w = linux();
        assert_eq!(w.initial_window(), 65_160);
        assert_eq!(w.wscale, 10);
        assert_eq!(w.state(), (131_072, 64_088, 64_088, 14_480));
        w.measure_rcv_mss(1448);
        assert_eq!(w.ratio, 160);
        assert_eq!(w.state(), (131_072, 81_920, 65_160, 14_480));
        // two segments per segment received, up to the free memory with one segment charged
        assert!(w.grow(1448, w.charge(1448)));
        assert_eq!(w.rcv_ssthresh, 65_160 + 2896);
        for _ in 0..10 {
            w.grow(1448, w.charge(1448));
        }
        assert_eq!(w.rcv_ssthresh, 80_480, "(131072 - 2304) * 160 / 256");
        assert!(!w.grow(1448, w.charge(1448)));
    }

    /// DRS as measured: 15928 bytes read in the first RTT do not grow the buffer; 30408 in the
    /// next give a window of 2 * 30408 + 2 * (2 * 30408 * 14480 / 15928) = 171390 and a buffer
    /// of 274224.
    #[test]
    fn drs_grows_the_buffer_like_the_kernel() {
        let mut w = linux();
        w.measure_rcv_mss(1448);
        let t0 = Time::from_millis(76);
        w.after_read(t0, 0, 0, None);
        w.rtt_update(51_000);
        w.after_read(Time::from_millis(128), 15_928, 15_928, None);
        assert_eq!(w.state().0, 131_072);
        assert_eq!(w.space, 15_928);
        w.after_read(Time::from_millis(180), 15_928 + 30_408, 15_928 + 30_408, None);
        assert_eq!((w.rcvbuf, w.window_clamp, w.space), (274_224, 171_390, 30_408));
        // out-of-order data 80 segments above a hole: the buffer covers twice the space plus the
        // span (the kernel's values at 282 ms of the same capture)
        w.after_ofo(0, 115_840);
        assert_eq!((w.rcvbuf, w.window_clamp), (282_649, 176_655));
    }

    #[test]
    fn the_window_never_shrinks_and_is_a_multiple_of_the_scale() {
        let mut w = linux();
        w.measure_rcv_mss(1448);
        w.grow(1448, w.charge(1448));
        let (win, _) = w.select(1448, w.charge(1448));
        assert_eq!(win, 68_608, "68080 rounded up to 1024, as the capture shows");
        // much memory charged: the offer would be smaller, the right edge stays
        let (win2, low) = w.select(2 * 1448, w.charge(40 * 1448));
        assert!(low);
        assert_eq!(win2, (68_608 - 1448) / 1024 * 1024);
    }

    #[test]
    fn sack_compression_after_three_duplicate_acks() {
        let cfg = TcpConfig {
            sack_compression: Some(false),
            ..TcpConfig::with_profile(Profile::Linux)
        };
        let mut off = LinuxRcvWindow::new(&cfg.resolve());
        off.rtt_update(50_000);
        for _ in 0..5 {
            assert_eq!(off.compress_sack(100), None, "off: every SACK at once");
        }
        let mut w = linux(); // on in the `linux` profile
        w.rtt_update(50_000);
        assert_eq!(w.compress_sack(100), None);
        assert_eq!(w.compress_sack(100), None);
        assert_eq!(w.compress_sack(100), None);
        assert_eq!(w.compress_sack(100), Some(Dur::from_millis(1)), "min(1 ms, 50 ms / 20)");
        assert_eq!(w.compressed(), 1);
        w.ack_sent();
        // a new hole: three immediate ACKs again
        assert_eq!(w.compress_sack(200), None);
        w.rtt_us8 = 8 * 10_000;
        w.dup_acks = 3;
        assert_eq!(w.compress_sack(200), Some(Dur::from_micros(500)), "10 ms / 20");
    }

    #[test]
    fn rtt_samples_in_whole_milliseconds() {
        let mut w = linux();
        w.measure_rcv_mss(1448);
        let sent = ts_ticks(Time::from_millis(25));
        w.measure_rtt(Time(76_500_000), sent, 1448);
        assert_eq!(w.rtt(), Dur::from_millis(51));
        // the same echo again: no sample
        w.measure_rtt(Time::from_millis(90), sent, 1448);
        assert_eq!(w.rtt(), Dur::from_millis(51));
        // a larger sample moves the estimate by 1/8
        w.measure_rtt(Time::from_millis(100), ts_ticks(Time::from_millis(41)), 1448);
        assert_eq!(w.rtt_us8, 8 * 51_000 - 51_000 + 59_000);
    }
}
