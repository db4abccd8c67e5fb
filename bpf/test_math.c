// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host test of the eBPF algorithms' integer arithmetic (mmcc_math.h) against the floating-point
 * equations of the Rust simulator: the integer square root (exhaustively near squares, and on a
 * seeded pseudo-random sample of 64-bit values), the RTTV and MSS-CCA increments with the values
 * the Rust unit tests derive by hand (crates/mmcc-core/src/cca/rttv.rs, msscca.rs), and D-TCP's
 * epoch (eq. 6-12) and decrease on random inputs. `make -C bpf test` builds and runs it.
 */
#include <linux/types.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mmcc_math.h"

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                       \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
		}                                                                                  \
	} while (0)

static __u64 rng_state = 0x9e3779b97f4a7c15ULL;

static __u64 next_u64(void)
{
	/* splitmix64: a fixed, seeded sequence */
	__u64 z = (rng_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void check_isqrt(__u64 x)
{
	__u64 r = mmcc_isqrt(x);
	/* floor(sqrt(x)): r^2 <= x < (r + 1)^2 (r <= 2^32 - 1, so (r + 1)^2 fits in 128 bits) */
	unsigned __int128 lo = (unsigned __int128)r * r;
	unsigned __int128 hi = (unsigned __int128)(r + 1) * (r + 1);
	CHECK(lo <= x && x < hi, "isqrt(%llu) = %llu", (unsigned long long)x,
	      (unsigned long long)r);
}

static void test_isqrt(void)
{
	for (__u64 x = 0; x < 100000; x++)
		check_isqrt(x);
	for (__u64 k = 1; k < (1ULL << 32); k = k * 3 + 1) {
		check_isqrt(k * k - 1);
		check_isqrt(k * k);
		check_isqrt(k * k + 1);
	}
	check_isqrt(~0ULL);
	check_isqrt(0xfffffffe00000001ULL); /* (2^32 - 1)^2 */
	for (int i = 0; i < 1000000; i++)
		check_isqrt(next_u64() >> (next_u64() % 64));
}

static void test_time_ratio_increments(void)
{
	/* rttv.rs: w = 100, rtt_base 20 ms, rtt_max 40 ms, rtt_cur 20 ms: TimeRatio 3,
	 * F = sqrt(300) = 17.3205, F / w = 0.173205 segment */
	__u64 ratio = mmcc_time_ratio_q16(40000, 20000, 20000);
	CHECK(ratio == 3 * MMCC_Q16, "ratio %llu", (unsigned long long)ratio);
	__u64 inc = mmcc_per_ack_useg(mmcc_rttv_f_q16(ratio, 100), 100);
	CHECK(llabs((long long)inc - 173205) <= 1, "rttv increment %llu useg",
	      (unsigned long long)inc);
	/* rtt_cur = 40 ms: F = sqrt(60 / 40 * 100) = 12.247 -> 0.122474 segment */
	ratio = mmcc_time_ratio_q16(40000, 20000, 40000);
	inc = mmcc_per_ack_useg(mmcc_rttv_f_q16(ratio, 100), 100);
	CHECK(llabs((long long)inc - 122474) <= 1, "rttv increment at rtt_max %llu",
	      (unsigned long long)inc);
	/* msscca.rs: MSS 1400 B, flat RTT (ratio 2): F = sqrt(2800) = 52.915 segments per RTT */
	ratio = mmcc_time_ratio_q16(20000, 20000, 20000);
	__u64 f = mmcc_mss_f_q16(ratio, 1400);
	CHECK(fabs(f / 65536.0 - sqrt(2800.0)) < 1e-4, "msscca F %f", f / 65536.0);
	/* random: the per-ACK increment within 3 millionths of a segment + 1e-5 relative (the Q16
	 * ratio, the floors of the square root and of the division) */
	for (int i = 0; i < 200000; i++) {
		__u32 base = 1000 + next_u64() % 200000;
		__u32 max = base + next_u64() % 500000;
		__u32 cur = base + next_u64() % (max - base + 1);
		__u32 w = 2 + next_u64() % 100000;
		__u32 mss = 500 + next_u64() % 8500;
		double r = ((double)max + base) / cur;
		__u64 q = mmcc_time_ratio_q16(max, base, cur);
		double want_rttv = sqrt(r * w) / w * 1e6;
		double want_mss = sqrt((double)mss * r) / w * 1e6;
		double got_rttv = (double)mmcc_per_ack_useg(mmcc_rttv_f_q16(q, w), w);
		double got_mss = (double)mmcc_per_ack_useg(mmcc_mss_f_q16(q, mss), w);
		CHECK(fabs(got_rttv - want_rttv) <= 3.0 + 1e-5 * want_rttv,
		      "rttv w=%u r=%f: %f vs %f", w, r, got_rttv, want_rttv);
		CHECK(fabs(got_mss - want_mss) <= 3.0 + 1e-5 * want_mss,
		      "msscca w=%u r=%f: %f vs %f", w, r, got_mss, want_mss);
	}
}

/* dtcp.rs Dtcp::epoch in floating point (no SINR), N and B_I returned through pointers. */
static void dtcp_epoch_ref(double *b_f, int have, double *n, double b_i, double w)
{
	double prev = have ? *b_f : b_i;
	*b_f = 0.9 * prev + 0.1 * b_i;
	double bw_e = *b_f + 0.5 * (b_i - *b_f);
	if (bw_e > 0.0)
		*n = fmax(1.0, *n + 1.0 - (bw_e - b_i) / (0.2 * bw_e) * w);
}

static void test_dtcp(void)
{
	/* y = 2 / (3N + 1): N = 1 halves, N = 3 keeps 0.8 */
	CHECK(mmcc_dtcp_decrease(1000, MMCC_Q16) == 500, "N=1");
	CHECK(mmcc_dtcp_decrease(1000, 3 * MMCC_Q16) == 800, "N=3");
	for (int run = 0; run < 2000; run++) {
		__u64 bf = 0, nq = MMCC_Q16;
		double bfr = 0, nr = 1.0;
		__u64 base = 1000000 + next_u64() % 125000000; /* 8 Mb/s .. 1 Gb/s */
		for (int e = 0; e < 50; e++) {
			__u64 b = base / 2 + next_u64() % base;
			__u64 w = 2 + next_u64() % 2000;
			nq = mmcc_dtcp_epoch(&bf, e > 0, nq, b, w, 65535ULL << 16);
			dtcp_epoch_ref(&bfr, e > 0, &nr, (double)b, (double)w);
			if (nr > 65535)
				nr = 65535;
			double got = nq / 65536.0;
			/* N within 1e-3 relative + 0.02 of the floating-point one, step by step
			 * (rates are whole bytes per second: 1 B/s in BW_E - B_i moves the term by
			 * 5 W / BW_E) */
			CHECK(fabs(got - nr) <= 1e-3 * nr + 0.02,
			      "dtcp run %d epoch %d: N %f vs %f", run, e, got, nr);
			if (fabs(got - nr) > 1e-3 * nr + 0.02)
				return;
			nr = got; /* follow the integer trajectory: compare one step at a time */
			bfr = (double)bf;
		}
	}
}

int main(void)
{
	test_isqrt();
	test_time_ratio_increments();
	test_dtcp();
	if (failures) {
		fprintf(stderr, "%d failures\n", failures);
		return 1;
	}
	printf("mmcc eBPF arithmetic: all checks passed\n");
	return 0;
}
