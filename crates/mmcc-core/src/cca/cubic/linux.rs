//! The `linux` profile's CUBIC: Linux `tcp_cubic.c`'s integer arithmetic (`bictcp_update`), in
//! jiffies and whole segments (see the parent module).

use super::*;

/// Linux jiffies for the `linux` profile: CONFIG_HZ = 250 (this machine's kernel, Debian's).
pub(super) const LINUX_HZ: u64 = 250;
pub(super) const LINUX_JIFFY_NS: u64 = 1_000_000_000 / LINUX_HZ;
/// tcp_cubic.c BICTCP_BETA_SCALE and BICTCP_HZ.
pub(super) const BETA_SCALE: u64 = 1024;
pub(super) const BICTCP_HZ: u32 = 10;

/// `tcp_cubic.c`'s `struct bictcp` (the `linux` profile): windows in segments, times in jiffies.
#[derive(Clone, Debug, Default)]
pub(super) struct LinuxState {
    pub(super) cnt: u64,
    pub(super) last_max_cwnd: u64,
    pub(super) last_cwnd: u64,
    pub(super) last_time: u64,
    pub(super) origin: u64,
    pub(super) k: u64,
    pub(super) delay_min_us: u64,
    pub(super) epoch_start: Option<u64>,
    pub(super) ack_cnt: u64,
    pub(super) tcp_cwnd: u64,
}

impl Cubic {
    /// tcp_cubic.c's constants from C and beta: (bic_scale * 10 = cube_rtt_scale, beta in
    /// 1/1024, beta_scale).
    pub(super) fn linux_constants(&self) -> (u64, u64, u64) {
        let bic_scale = ((self.c * 1024.0 / 10.0).round() as u64).max(1); // C = 0.4: 41
        let beta = ((self.beta * BETA_SCALE as f64).round() as u64).clamp(1, BETA_SCALE - 1); // 717
        // beta_scale = 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta)
        let beta_scale = 8 * (BETA_SCALE + beta) / 3 / (BETA_SCALE - beta);
        (bic_scale * 10, beta, beta_scale)
    }

    /// Linux `bictcp_update(ca, cwnd, acked)` (the `linux` profile): the acknowledged segments
    /// per one-segment increase, in the kernel's integer arithmetic.
    pub(super) fn linux_update(&mut self, now: Time, cwnd: u64, acked: u64) -> u64 {
        let (cube_rtt_scale, _, beta_scale) = self.linux_constants();
        let lx = &mut self.lx;
        let now_j = now.0 / LINUX_JIFFY_NS;
        lx.ack_cnt += acked; // count the number of ACKed packets
        if lx.last_cwnd == cwnd && now_j.saturating_sub(lx.last_time) <= LINUX_HZ / 32 {
            return lx.cnt;
        }
        // the cubic function updates cnt at most once per jiffy
        if !(lx.epoch_start.is_some() && now_j == lx.last_time) {
            lx.last_cwnd = cwnd;
            lx.last_time = now_j;
            let epoch = *lx.epoch_start.get_or_insert_with(|| {
                lx.ack_cnt = acked; // start counting
                lx.tcp_cwnd = cwnd; // sync with cubic
                if lx.last_max_cwnd <= cwnd {
                    lx.k = 0;
                    lx.origin = cwnd;
                } else {
                    // RFC 9438 eq. 2: K = cbrt((W_max - cwnd) / C), in 1/1024 s:
                    // cbrt(cube_factor * (W_max - cwnd)), cube_factor = 2^40 / (bic_scale * 10)
                    let cube_factor = (1u64 << (10 + 3 * BICTCP_HZ)) / cube_rtt_scale;
                    lx.k = ((cube_factor * (lx.last_max_cwnd - cwnd)) as f64).cbrt() as u64;
                    lx.origin = lx.last_max_cwnd;
                }
                now_j
            });
            // t = now - epoch start + min RTT, in 1/1024 s
            let t = (((now_j - epoch) * (1_000_000 / LINUX_HZ) + lx.delay_min_us) << BICTCP_HZ) / 1_000_000;
            let offs = t.abs_diff(lx.k);
            // RFC 9438 eq. 1: W_cubic = C (t - K)^3 + W_max, delta = c/rtt * offs^3
            let delta = ((cube_rtt_scale as u128 * (offs as u128).pow(3)) >> (10 + 3 * BICTCP_HZ)) as u64;
            let target = if t < lx.k { lx.origin.saturating_sub(delta) } else { lx.origin + delta };
            lx.cnt = if target > cwnd { cwnd / (target - cwnd) } else { 100 * cwnd };
            if lx.last_max_cwnd == 0 && lx.cnt > 20 {
                lx.cnt = 20; // increase cwnd 5 % per RTT while the bandwidth is unknown
            }
        }
        // TCP friendliness (RFC 9438 eq. 4 as Linux counts it): one segment per
        // cwnd * beta_scale / 8 acknowledged segments
        let delta = (cwnd * beta_scale) >> 3;
        if delta > 0 && lx.ack_cnt > delta {
            let n = lx.ack_cnt / delta;
            lx.ack_cnt -= n * delta;
            lx.tcp_cwnd += n;
        }
        if lx.tcp_cwnd > cwnd {
            let max_cnt = cwnd / (lx.tcp_cwnd - cwnd);
            lx.cnt = lx.cnt.min(max_cnt);
        }
        lx.cnt = lx.cnt.max(2); // at most 1.5x per RTT
        lx.cnt
    }
}
