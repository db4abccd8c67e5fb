// SPDX-License-Identifier: GPL-2.0-only
/*
 * MRVHS (Alramli et al., PeerJ Computer Science 2025; PhD thesis, UPM 2025, ch. 6) as a BPF
 * congestion control: HighSpeed TCP (RFC 3649) with the MSS-CCA increment. Mirrors
 * crates/mmcc-core/src/cca/mrvhs.rs (linux profile).
 * - congestion avoidance, per ACK: alpha = sqrt(MSS * TimeRatio), cwnd += alpha / cwnd;
 * - loss: ssthresh = max(2, floor(w (1 - b(w)))) with RFC 3649's b(w) (Appendix B table, the
 *   row of the smallest tabulated window >= w, as Linux tcp_highspeed.c), standard TCP (half)
 *   up to Low_Window = 38 segments.
 */
#include "mmcc_time_ratio.h"

char _license[] SEC("license") = "GPL";
MMCC_CA_STATE_FITS(struct mmcc_time_ratio);

#define HS_ROWS	      73
#define HS_LOW_WINDOW 38

/* RFC 3649 Appendix B: the window (segments) of each row ... */
static const __u32 hs_window[HS_ROWS] = {
	38,    118,   221,   347,   495,   663,	  851,	 1058,	1284,  1529,  1793,  2076,  2378,
	2699,  3039,  3399,  3778,  4177,  4596,  5036,	 5497,	5979,  6483,  7009,  7558,  8130,
	8726,  9346,  9991,  10661, 11358, 12082, 12834, 13614, 14424, 15265, 16137, 17042, 17981,
	18955, 19965, 21013, 22101, 23230, 24402, 25618, 26881, 28193, 29557, 30975, 32450, 33986,
	35586, 37253, 38992, 40808, 42707, 44694, 46776, 48961, 51258, 53667, 56230, 58932, 61799,
	64851, 68113, 71617, 75401, 79517, 84035, 89053, 94717};

/* ... and its decrease b(w) in percent. */
static const __u8 hs_b_pct[HS_ROWS] = {50, 44, 41, 38, 37, 35, 34, 33, 32, 31, 30, 29, 28, 28, 27,
				       27, 26, 26, 25, 25, 24, 24, 23, 23, 22, 22, 22, 21, 21, 21,
				       20, 20, 20, 19, 19, 19, 19, 18, 18, 18, 17, 17, 17, 17, 16,
				       16, 16, 16, 15, 15, 15, 15, 14, 14, 14, 14, 13, 13, 13, 13,
				       13, 12, 12, 12, 12, 11, 11, 11, 10, 10, 10, 10, 9};

static __always_inline __u32 hs_b_percent(__u32 w)
{
	int i;

	for (i = 0; i < HS_ROWS; i++) {
		if (hs_window[i] >= w)
			return hs_b_pct[i];
	}
	return hs_b_pct[HS_ROWS - 1];
}

/* alpha = sqrt(MSS * TimeRatio), MSS in bytes (the MSS-CCA increment) */
static __always_inline __u64 mrvhs_increment(const struct tcp_sock *tp, __u64 ratio_q16)
{
	return mmcc_mss_f_q16(ratio_q16, tp->mss_cache);
}

MMCC_TIME_RATIO_HOOKS(mrvhs, mrvhs_increment)

SEC("struct_ops/mrvhs_ssthresh")
__u32 BPF_PROG(mrvhs_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	__u32 w = tp->snd_cwnd;

	if (w <= HS_LOW_WINDOW)
		return mmcc_half_cwnd(tp); /* standard TCP below Low_Window */
	/* RFC 3649: cwnd = (1 - b(w)) w, in whole segments */
	__u64 segs = (__u64)w * (100 - hs_b_percent(w)) / 100;
	return (__u32)mmcc_max64(segs, MMCC_MIN_CWND);
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_mrvhs = {
	.init = (void *)mrvhs_init,
	.pkts_acked = (void *)mrvhs_pkts_acked,
	.cong_avoid = (void *)mrvhs_cong_avoid,
	.ssthresh = (void *)mrvhs_ssthresh,
	.undo_cwnd = (void *)mrvhs_undo_cwnd,
	.name = "mmcc_mrvhs",
};
