// SPDX-License-Identifier: GPL-2.0-only
/*
 * MSS-CCA (Alramli et al., ICT Express 2025; PhD thesis, UPM 2025, ch. 5) as a BPF congestion
 * control. Mirrors crates/mmcc-core/src/cca/msscca.rs (linux profile).
 * - congestion avoidance, per ACK: F = sqrt(MSS * TimeRatio) with MSS in bytes, cwnd += F / cwnd
 *   (segments); NewReno before the first RTT sample;
 * - loss: beta = 0.5.
 */
#include "mmcc_time_ratio.h"

char _license[] SEC("license") = "GPL";
MMCC_CA_STATE_FITS(struct mmcc_time_ratio);

/* F = sqrt(MSS * TimeRatio), MSS in bytes */
static __always_inline __u64 msscca_increment(const struct tcp_sock *tp, __u64 ratio_q16)
{
	return mmcc_mss_f_q16(ratio_q16, tp->mss_cache);
}

MMCC_TIME_RATIO_HOOKS(msscca, msscca_increment)

SEC("struct_ops/msscca_ssthresh")
__u32 BPF_PROG(msscca_ssthresh, struct sock *sk)
{
	return mmcc_half_cwnd(mmcc_tp(sk)); /* beta = 0.5 */
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_msscca = {
	.init = (void *)msscca_init,
	.pkts_acked = (void *)msscca_pkts_acked,
	.cong_avoid = (void *)msscca_cong_avoid,
	.ssthresh = (void *)msscca_ssthresh,
	.undo_cwnd = (void *)msscca_undo_cwnd,
	.name = "mmcc_msscca",
};
