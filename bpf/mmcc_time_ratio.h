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

/*
 * The hooks RTTV, MSS-CCA and MRVHS share (the ns-3 module's TcpTimeRatio base class): init,
 * pkts_acked (the RTT samples), cong_avoid (only when cwnd-limited; slow start, then
 * cwnd += F / cwnd per ACK (eq. 4.5) with the algorithm's F in Q16 from
 * INCREMENT(tp, ratio_q16); NewReno before the first RTT sample) and undo_cwnd. Each algorithm
 * adds its ssthresh and its struct_ops map.
 */
#define MMCC_TIME_RATIO_HOOKS(name, INCREMENT)                                                     \
	SEC("struct_ops/" #name "_init")                                                           \
	void BPF_PROG(name##_init, struct sock *sk)                                                \
	{                                                                                          \
		mmcc_tr_init(mmcc_ca(sk));                                                         \
	}                                                                                          \
                                                                                                   \
	SEC("struct_ops/" #name "_pkts_acked")                                                     \
	void BPF_PROG(name##_pkts_acked, struct sock *sk, const struct ack_sample *sample)         \
	{                                                                                          \
		mmcc_tr_sample(mmcc_ca(sk), sample->rtt_us);                                       \
	}                                                                                          \
                                                                                                   \
	SEC("struct_ops/" #name "_cong_avoid")                                                     \
	void BPF_PROG(name##_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)                  \
	{                                                                                          \
		struct tcp_sock *tp = mmcc_tp(sk);                                                 \
		struct mmcc_time_ratio *s = mmcc_ca(sk);                                           \
                                                                                                   \
		if (!mmcc_cwnd_limited(tp) || !mmcc_slow_start_then_ca(tp, acked))                 \
			return;                                                                    \
		__u64 ratio = mmcc_tr_ratio_q16(s);                                                \
		if (!ratio)                                                                        \
			mmcc_reno_ack(tp, &s->acc);                                                \
		else                                                                               \
			mmcc_tr_grow(tp, s, INCREMENT(tp, ratio));                                 \
	}                                                                                          \
                                                                                                   \
	SEC("struct_ops/" #name "_undo_cwnd")                                                      \
	__u32 BPF_PROG(name##_undo_cwnd, struct sock *sk)                                          \
	{                                                                                          \
		return tcp_reno_undo_cwnd(sk);                                                     \
	}

#endif /* MMCC_TIME_RATIO_H */
