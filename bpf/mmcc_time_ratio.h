/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The RTT state shared by RTTV, MSS-CCA and MRVHS (Alramli's thesis, eq. 4.4):
 * TimeRatio = (rtt_max + rtt_base) / rtt_cur, with rtt_cur the latest RTT sample and rtt_base /
 * rtt_max the connection's minimum and maximum samples (never reset). Mirrors rttv::time_ratio
 * in the Rust simulator (linux profile: raw samples) and ns3/model/tcp-time-ratio.cc.
 */
#ifndef MMCC_TIME_RATIO_H
#define MMCC_TIME_RATIO_H

#include "mmcc_bpf.h"

struct mmcc_time_ratio {
	__u32 cur_us;  /* latest RTT sample (0: none yet) */
	__u32 base_us; /* smallest sample */
	__u32 max_us;  /* largest sample */
	__u32 acc;     /* fraction of a segment, millionths */
};

static __always_inline void mmcc_tr_init(struct mmcc_time_ratio *s)
{
	s->cur_us = 0;
	s->base_us = MMCC_NO_RTT;
	s->max_us = 0;
	s->acc = 0;
}

static __always_inline void mmcc_tr_sample(struct mmcc_time_ratio *s, __s32 rtt_us)
{
	if (rtt_us <= 0)
		return;
	s->cur_us = (__u32)rtt_us;
	s->base_us = mmcc_min32(s->base_us, (__u32)rtt_us);
	s->max_us = mmcc_max32(s->max_us, (__u32)rtt_us);
}

static __always_inline __u64 mmcc_tr_ratio_q16(const struct mmcc_time_ratio *s)
{
	return mmcc_time_ratio_q16(s->max_us, s->base_us, s->cur_us);
}

/* Per-ACK growth of F / cwnd segments for an increment F (segments per RTT) in Q16
 * (util::per_rtt_increment): cwnd += F / w. */
static __always_inline void mmcc_tr_grow(struct tcp_sock *tp, struct mmcc_time_ratio *s,
					 __u64 f_q16)
{
	mmcc_add_useg(tp, &s->acc, mmcc_per_ack_useg(f_q16, tp->snd_cwnd));
}

#endif /* MMCC_TIME_RATIO_H */
