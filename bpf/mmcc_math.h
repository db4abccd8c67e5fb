/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The integer arithmetic of mmcc's eBPF congestion controls, free of kernel types so that the
 * host test (bpf/test_math.c) checks it against the floating-point equations of the Rust
 * simulator. The includer provides __u32/__u64/__s64 (vmlinux.h in BPF, <linux/types.h> on the
 * host).
 */
#ifndef MMCC_MATH_H
#define MMCC_MATH_H

#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif

#define MMCC_USEG      1000000ULL /* accumulator units per segment */
#define MMCC_Q16       65536ULL
#define MMCC_RATIO_MAX (1024ULL * MMCC_Q16) /* keeps the Q16 products below in 64 bits */
#define MMCC_W_MAX     (1U << 20)	    /* segments, idem */

static __always_inline __u32 mmcc_min32(__u32 a, __u32 b)
{
	return a < b ? a : b;
}

static __always_inline __u32 mmcc_max32(__u32 a, __u32 b)
{
	return a > b ? a : b;
}

static __always_inline __u64 mmcc_min64(__u64 a, __u64 b)
{
	return a < b ? a : b;
}

static __always_inline __u64 mmcc_max64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

/* Number of significant bits of x (0 for 0): a branch per halving, 6 levels. */
static __always_inline __u32 mmcc_bits64(__u64 x)
{
	__u32 n = 0;

	if (x >> 32) {
		n += 32;
		x >>= 32;
	}
	if (x >> 16) {
		n += 16;
		x >>= 16;
	}
	if (x >> 8) {
		n += 8;
		x >>= 8;
	}
	if (x >> 4) {
		n += 4;
		x >>= 4;
	}
	if (x >> 2) {
		n += 2;
		x >>= 2;
	}
	if (x >> 1) {
		n += 1;
		x >>= 1;
	}
	return n + (__u32)x;
}

/*
 * floor(sqrt(x)) for a 64-bit x by Newton's iteration y = (y + x / y) / 2 from
 * 2^ceil(bits / 2) >= sqrt(x): the iterates decrease monotonically to floor(sqrt(x)) and at
 * most 6 steps are needed from within a factor 2 (error squares each step). Straight-line code
 * with no data-dependent loop, which the verifier checks in one pass.
 */
static __always_inline __u64 mmcc_isqrt(__u64 x)
{
	if (x < 2)
		return x;
	__u64 y = 1ULL << ((mmcc_bits64(x) + 1) / 2);
	__u64 z;

#if defined(__clang__)
#pragma unroll
#endif
	for (int i = 0; i < 7; i++) {
		z = (y + x / y) >> 1;
		y = z < y ? z : y;
	}
	return y;
}

/* thesis eq. 4.4: TimeRatio = (rtt_max + rtt_base) / rtt_cur in Q16 (0: no sample yet). */
static __always_inline __u64 mmcc_time_ratio_q16(__u32 max_us, __u32 base_us, __u32 cur_us)
{
	if (cur_us == 0)
		return 0;
	__u64 num = ((__u64)max_us + (__u64)base_us) << 16;
	return mmcc_min64(num / cur_us, MMCC_RATIO_MAX);
}

/* Per-ACK growth F / w in millionths of a segment, for F in Q16 and w segments. */
static __always_inline __u64 mmcc_per_ack_useg(__u64 f_q16, __u32 w)
{
	return ((f_q16 * MMCC_USEG) / mmcc_max64(w, 1)) >> 16;
}

/* RTTV, thesis eq. 4.4: F = sqrt(TimeRatio * cwnd), Q16 (sqrt(ratio_q16 * w * 2^16)). */
static __always_inline __u64 mmcc_rttv_f_q16(__u64 ratio_q16, __u32 w)
{
	return mmcc_isqrt((ratio_q16 * mmcc_min64(w, MMCC_W_MAX)) << 16);
}

/* MSS-CCA / MRVHS: F = sqrt(MSS * TimeRatio) with MSS in bytes, Q16. */
static __always_inline __u64 mmcc_mss_f_q16(__u64 ratio_q16, __u32 mss)
{
	return mmcc_isqrt((mmcc_min64(mss, 65535) * ratio_q16) << 16);
}

/*
 * D-TCP eq. 6, 8, 9 and 12 with kappa = 0.9, g = 0.5, alpha = 0.2 and no SINR term: one epoch
 * with bandwidth sample b_i (bytes/s) and window w (segments). *b_f is B_I (have_f: set), n_q16
 * is N in Q16; returns the new N (Q16, at least 1, at most n_max_q16).
 */
static __always_inline __u64 mmcc_dtcp_epoch(__u64 *b_f, int have_f, __u64 n_q16, __u64 b_i,
					     __u64 w, __u64 n_max_q16)
{
	__u64 b_prev = have_f ? *b_f : b_i;
	__u64 bf = (9 * b_prev + b_i) / 10; /* eq. 6, kappa = 0.9 */

	*b_f = bf;
	/* eq. 8-9 with g = 0.5 and no SINR term: BW_E = B_I + (B_i - B_I) / 2 = (B_I + B_i) / 2 */
	__u64 bw_e = (bf + b_i) / 2;
	if (bw_e == 0)
		return n_q16;
	/* eq. 12: N + 1 - (BW_E - B_i) / (alpha BW_E) W, alpha = 0.2: the term is
	 * 5 W |BW_E - B_i| / BW_E; the ratio in Q32 (rates below 2^31 B/s), the term in Q16 */
	__u64 diff = mmcc_min64(bw_e > b_i ? bw_e - b_i : b_i - bw_e, (1ULL << 31) - 1);
	__u64 ratio_q32 = mmcc_min64((diff << 32) / bw_e, 1ULL << 34);
	__u64 term = (ratio_q32 * mmcc_min64(w, MMCC_W_MAX) * 5) >> 16;
	__u64 n = n_q16 + MMCC_Q16;

	if (bw_e > b_i)
		n = n > term + MMCC_Q16 ? n - term : MMCC_Q16; /* max(1, ...) */
	else
		n = n + term;
	return mmcc_min64(n, n_max_q16);
}

/* D-TCP: cwnd (1 - y), y = eta / ((2 eta - 1) N + 1) = 2 / (3N + 1) for eta = 2. */
static __always_inline __u64 mmcc_dtcp_decrease(__u64 cwnd, __u64 n_q16)
{
	__u64 n3 = 3 * n_q16;

	return cwnd * (n3 - MMCC_Q16) / (n3 + MMCC_Q16);
}

#endif /* MMCC_MATH_H */
