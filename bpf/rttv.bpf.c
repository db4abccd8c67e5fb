// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTTV (Alramli et al., Ad Hoc Networks 164, 2024; PhD thesis, UPM 2025, ch. 4) as a BPF
 * congestion control. Mirrors crates/mmcc-core/src/cca/rttv.rs (linux profile).
 * - congestion avoidance, per ACK: F = sqrt(TimeRatio * cwnd) (eq. 4.4), cwnd += F / cwnd
 *   (eq. 4.5); NewReno before the first RTT sample;
 * - loss: beta = 0.5 (ssthresh = max(cwnd / 2, 2), as tcp_reno_ssthresh).
 */
#include "mmcc_time_ratio.h"

char _license[] SEC("license") = "GPL";
MMCC_CA_STATE_FITS(struct mmcc_time_ratio);

/* eq. 4.4: F = sqrt(TimeRatio * cwnd) */
static __always_inline __u64 rttv_increment(const struct tcp_sock *tp, __u64 ratio_q16)
{
	return mmcc_rttv_f_q16(ratio_q16, tp->snd_cwnd);
}

MMCC_TIME_RATIO_HOOKS(rttv, rttv_increment)

SEC("struct_ops/rttv_ssthresh")
__u32 BPF_PROG(rttv_ssthresh, struct sock *sk)
{
	return mmcc_half_cwnd(mmcc_tp(sk)); /* beta = 0.5 */
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_rttv = {
	.init = (void *)rttv_init,
	.pkts_acked = (void *)rttv_pkts_acked,
	.cong_avoid = (void *)rttv_cong_avoid,
	.ssthresh = (void *)rttv_ssthresh,
	.undo_cwnd = (void *)rttv_undo_cwnd,
	.name = "mmcc_rttv",
};
