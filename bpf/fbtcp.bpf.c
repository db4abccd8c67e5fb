// SPDX-License-Identifier: GPL-2.0-only
/*
 * FB-TCP, crisp-threshold version (Poorzare & Calveras Auge, IEEE Access 9:82812, 2021; the
 * authors' public ns-3 code) as a BPF congestion control. Mirrors
 * crates/mmcc-core/src/cca/fbtcp.rs (linux profile). Once per RTT (a Vegas-style round with more
 * than 2 RTT samples, otherwise NewReno):
 * - r = rtt_base / rtt_min_round, diff = cwnd - floor(cwnd r), q = r;
 * - cap W* = running max of 1.05 throughput rtt_base / MSS, throughput over 100 ms intervals of
 *   the cumulative ACK, taken at each round's end;
 * - the convergence (cwnd <= W*) and divergence tables; then ssthresh = max(ssthresh, 0.75 cwnd).
 * Slow start below 900 segments (initial ssthresh); loss: max(min(ssthresh, cwnd - 1), 2).
 * Windows are in thousandths of a segment and r in ten-thousandths inside an update; cwnd is
 * rounded to whole segments (util::set_cwnd_segments rounds to bytes).
 */
#include "mmcc_bpf.h"

char _license[] SEC("license") = "GPL";

#define FB_SS_LIMIT    900U	/* segments */
#define FB_HOLD_ROUNDS 30U	/* rounds a hold band keeps cwnd before * 0.9 */
#define FB_INTERVAL_US 100000U	/* the authors' script measures throughput every 100 ms */
#define FB_R_ONE       10000ULL /* r = 1 */

enum fb_band { FB_NONE, FB_TOP, FB_HIGH, FB_MID, FB_HOLD, FB_LOW, FB_FLOOR };

struct fbtcp {
	struct mmcc_round round;
	__u64 w_star_milli; /* W*, thousandths of a segment (0: none yet) */
	__u64 last_rate;    /* bytes/s of the last closed 100 ms interval */
	__u32 have_rate;
	__u32 iv_start_us; /* the open interval: start and snd_una then */
	__u32 iv_una;
	__u32 iv_started;
	__u32 base_rtt_us; /* connection minimum (MMCC_NO_RTT: none) */
	__s32 ack_rtt_us;  /* this ACK's RTT sample (-1: none) */
	__u32 streak;
	__u32 acc; /* fraction of a segment, millionths (NewReno rounds) */
	__u8 band;
	__u8 converging;
	__u8 pad[2];
};
MMCC_CA_STATE_FITS(struct fbtcp);

SEC("struct_ops/fbtcp_init")
void BPF_PROG(fbtcp_init, struct sock *sk)
{
	struct fbtcp *s = mmcc_ca(sk);
	struct tcp_sock *tp = mmcc_tp(sk);

	mmcc_round_init(&s->round);
	s->w_star_milli = 0;
	s->last_rate = 0;
	s->have_rate = 0;
	s->iv_started = 0;
	s->base_rtt_us = MMCC_NO_RTT;
	s->ack_rtt_us = -1;
	s->streak = 0;
	s->acc = 0;
	s->band = FB_NONE;
	s->converging = 0;
	tp->snd_ssthresh = mmcc_min32(tp->snd_ssthresh, FB_SS_LIMIT); /* slow start below 900 */
}

SEC("struct_ops/fbtcp_pkts_acked")
void BPF_PROG(fbtcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct fbtcp *s = mmcc_ca(sk);
	struct tcp_sock *tp = mmcc_tp(sk);
	__u32 now = (__u32)tp->tcp_mstamp;

	s->ack_rtt_us = sample->rtt_us;
	if (sample->rtt_us > 0)
		s->base_rtt_us = mmcc_min32(s->base_rtt_us, (__u32)sample->rtt_us);
	/* util::IntervalThroughput: bytes cumulatively acknowledged over >= 100 ms */
	if (!s->iv_started) {
		s->iv_started = 1;
		s->iv_start_us = now;
		s->iv_una = tp->snd_una;
	}
	__u32 dt = now - s->iv_start_us;
	if (dt >= FB_INTERVAL_US) {
		s->last_rate = (__u64)(tp->snd_una - s->iv_una) * 1000000ULL / dt;
		s->have_rate = 1;
		s->iv_start_us = now;
		s->iv_una = tp->snd_una;
	}
}

static __always_inline __u64 fb_mul(__u64 w, __u64 num, __u64 den)
{
	return w * num / den;
}

/* One per-RTT update with r in ten-thousandths (q = r). */
static __always_inline void fb_update(struct tcp_sock *tp, struct fbtcp *s, __u64 r)
{
	__u64 q = r;
	__u64 w = tp->snd_cwnd;
	__u64 diff = w - (w * r) / FB_R_ONE; /* w - floor(w r), segments (r <= 1 here) */
	__u8 converging = s->w_star_milli == 0 || w * 1000 <= s->w_star_milli;
	__u8 band = r >= 9800	? FB_TOP
		    : r >= 9500 ? FB_HIGH
		    : r >= 7000 ? FB_MID
		    : r >= 3000 ? FB_HOLD
		    : r >= 500	? FB_LOW
				: FB_FLOOR;

	if (band == s->band && converging == s->converging) {
		s->streak++; /* the same band in consecutive rounds */
	} else {
		s->band = band;
		s->converging = converging;
		s->streak = 1;
	}
	__u32 st = s->streak;
	__u64 nw = w * 1000; /* thousandths of a segment */

	if (converging) {
		switch (band) {
		case FB_TOP:
			nw += 1000 * (diff <= 10   ? 120
				      : diff <= 15 ? 100
				      : diff <= 20 ? 70
				      : diff <= 30 ? 60
						   : 50);
			break;
		case FB_HIGH:
			nw += 1000 * (q >= 9500 ? 40 : 30);
			break;
		case FB_MID:
			nw += 1000 * (q >= 9500 ? 25 : 20);
			break;
		case FB_HOLD:
			if (st > FB_HOLD_ROUNDS) {
				nw = fb_mul(nw, 9, 10);
				s->w_star_milli = fb_mul(s->w_star_milli, 9, 10);
				s->streak = 0;
			}
			break;
		case FB_LOW: {
			__u64 dec = 1000 * (q >= 9500 ? (st <= 2 ? 10 : 20) : (st <= 1 ? 25 : 50));
			nw = nw > dec ? nw - dec : 0;
			break;
		}
		default: /* FB_FLOOR */
			if (q >= 9500)
				nw = st <= 1 ? fb_mul(nw, 3, 4) : fb_mul(nw, 1, 2);
			else
				nw = st <= 1 ? fb_mul(nw, 2, 5) : fb_mul(nw, 1, 3);
			break;
		}
	} else if (r >= 9900 || (r >= 7000 && q >= 9500)) {
		nw += 1000;
	} else if (band == FB_LOW) {
		nw = st <= 1 ? fb_mul(nw, 3, 4) : fb_mul(nw, 1, 2);
	} else if (band == FB_FLOOR) {
		nw = st <= 1 ? fb_mul(nw, 1, 2) : fb_mul(nw, 1, 4);
	} else if (st > FB_HOLD_ROUNDS) {
		nw = fb_mul(nw, 9, 10);
		s->streak = 0;
	}
	mmcc_set_cwnd(tp, (nw + 500) / 1000);
	/* after each per-RTT update: ssthresh = max(ssthresh, 0.75 cwnd) */
	tp->snd_ssthresh = mmcc_max32(tp->snd_ssthresh, tp->snd_cwnd * 3 / 4);
}

SEC("struct_ops/fbtcp_cong_avoid")
void BPF_PROG(fbtcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct fbtcp *s = mmcc_ca(sk);
	struct mmcc_closed_round closed = {};
	__s32 rtt = s->ack_rtt_us;

	if (!mmcc_cwnd_limited(tp))
		return;
	s->ack_rtt_us = -1;
	int round_end = mmcc_round_on_ack(&s->round, tp, rtt, &closed);
	if (round_end && s->have_rate && s->base_rtt_us != MMCC_NO_RTT) {
		/* W* = running max of 1.05 throughput rtt_base / MSS (thousandths of a segment) */
		__u64 mss = mmcc_max32(tp->mss_cache, 1);
		__u64 cap = s->last_rate * s->base_rtt_us * 105 / (mss * 100000ULL);
		s->w_star_milli = mmcc_max64(s->w_star_milli, cap);
	}
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		tcp_slow_start(tp, acked);
		return;
	}
	if (!round_end)
		return;
	/* once per round: the crisp tables with more than 2 RTT samples, else NewReno */
	if (closed.samples > 2 && closed.min_rtt_us != MMCC_NO_RTT && closed.min_rtt_us > 0 &&
	    s->base_rtt_us != MMCC_NO_RTT) {
		__u64 r = (__u64)s->base_rtt_us * FB_R_ONE / closed.min_rtt_us;
		fb_update(tp, s, mmcc_min64(r, FB_R_ONE));
	} else {
		mmcc_reno_ack(tp, &s->acc);
	}
}

SEC("struct_ops/fbtcp_ssthresh")
__u32 BPF_PROG(fbtcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	/* max(min(ssthresh, cwnd - 1), 2) segments */
	__u32 less = tp->snd_cwnd > 1 ? tp->snd_cwnd - 1 : 0;

	return mmcc_max32(mmcc_min32(tp->snd_ssthresh, less), MMCC_MIN_CWND);
}

SEC("struct_ops/fbtcp_undo_cwnd")
__u32 BPF_PROG(fbtcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_fbtcp = {
	.init = (void *)fbtcp_init,
	.pkts_acked = (void *)fbtcp_pkts_acked,
	.cong_avoid = (void *)fbtcp_cong_avoid,
	.ssthresh = (void *)fbtcp_ssthresh,
	.undo_cwnd = (void *)fbtcp_undo_cwnd,
	.name = "mmcc_fbtcp",
};
