/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building blocks shared by mmcc's eBPF congestion controls (BPF struct_ops tcp_congestion_ops).
 * Each mirrors a helper of the Rust simulator (crates/mmcc-core/src/cca/util.rs) and of the ns-3
 * module (ns3/model/mmcc-window.h), in integer arithmetic as BPF requires:
 * - windows are Linux's, in segments (tp->snd_cwnd); fractions of a segment are carried in an
 *   accumulator of millionths of a segment (util::FracAcc carries millionths of a byte);
 * - ratios are fixed point with 16 fractional bits (Q16);
 * - time is the stack's per-ACK clock tp->tcp_mstamp (microseconds), never a wall clock.
 *
 * The hooks the kernel calls (net/ipv4/tcp_input.c, tcp_cong.c): pkts_acked on every ACK that
 * acknowledges data (with its RTT sample), cong_avoid on an ACK that may raise cwnd outside
 * recovery, ssthresh at the start of a recovery or a timeout, set_state on every state change
 * (after cwnd was set on a timeout), undo_cwnd on a spurious-loss undo.
 */
#ifndef MMCC_BPF_H
#define MMCC_BPF_H

#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "mmcc_math.h"

#define MMCC_MIN_CWND  2U  /* RFC 5681 eq. (4): 2 SMSS */
#define MMCC_INIT_CWND 10U /* TCP_INIT_CWND (RFC 6928) */
#define MMCC_NO_RTT    0xffffffffU

/* Linux exports these to BPF congestion controls as kfuncs (net/ipv4/bpf_tcp_ca.c). */
extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

static __always_inline struct tcp_sock *mmcc_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* A per-connection state must fit in the socket's icsk_ca_priv (ICSK_CA_PRIV_SIZE, 104 bytes). */
#define MMCC_CA_STATE_FITS(type)                                                                   \
	_Static_assert(sizeof(type) <= sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),   \
		       #type " does not fit in icsk_ca_priv")

static __always_inline void *mmcc_ca(struct sock *sk)
{
	return (void *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

/* cwnd = value, never below 2 segments nor above the socket's clamp. */
static __always_inline void mmcc_set_cwnd(struct tcp_sock *tp, __u64 segments)
{
	__u64 w = mmcc_max64(segments, MMCC_MIN_CWND);
	tp->snd_cwnd = (__u32)mmcc_min64(w, tp->snd_cwnd_clamp);
}

/*
 * cwnd += useg / 1e6 segments, the fraction carried in *acc (util::FracAcc::add, in millionths
 * of a segment instead of millionths of a byte).
 */
static __always_inline void mmcc_add_useg(struct tcp_sock *tp, __u32 *acc, __u64 useg)
{
	__u64 total = (__u64)*acc + useg;
	if (total >= MMCC_USEG) {
		__u64 whole = total / MMCC_USEG;
		total -= whole * MMCC_USEG;
		mmcc_set_cwnd(tp, (__u64)tp->snd_cwnd + whole);
	}
	*acc = (__u32)total;
}

/* RFC 5681 eq. (3), once per ACK: cwnd += 1 / cwnd segments (NewReno before any RTT sample). */
static __always_inline void mmcc_reno_ack(struct tcp_sock *tp, __u32 *acc)
{
	mmcc_add_useg(tp, acc, MMCC_USEG / mmcc_max32(tp->snd_cwnd, 1));
}

/*
 * Standard slow start (Linux tcp_slow_start, RFC 3465 with L = ssthresh: one segment per
 * acknowledged segment, capped at ssthresh); returns whether congestion avoidance applies to this
 * ACK (util::slow_start_then_ca in the linux profile).
 */
static __always_inline int mmcc_slow_start_then_ca(struct tcp_sock *tp, __u32 acked)
{
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return 0;
	}
	return tp->snd_cwnd >= tp->snd_ssthresh && acked > 0;
}

/*
 * Linux tcp_is_cwnd_limited (include/net/tcp.h, RFC 7661), which every kernel module checks
 * before growing cwnd: the flow used its window in the last round, or, in slow start, cwnd is
 * below twice the largest flight. The simulator's linux profile applies the same rule before
 * calling the algorithm (`cwnd_validation`), so an algorithm sees the same ACKs in both.
 */
static __always_inline int mmcc_cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return 1;
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return 0;
}

/* RFC 5681 eq. (4) as Linux computes it (tcp_reno_ssthresh): max(cwnd / 2, 2). */
static __always_inline __u32 mmcc_half_cwnd(const struct tcp_sock *tp)
{
	return mmcc_max32(tp->snd_cwnd >> 1U, MMCC_MIN_CWND);
}

/*
 * Per-RTT rounds in the Vegas style (Linux beg_snd_nxt; util::Round and util::RoundRate): a round
 * ends on the first ACK that acknowledges data above the highest sequence sent when it began.
 */
struct mmcc_round {
	__u32 end;	  /* snd_nxt when the round began */
	__u32 una_start;  /* snd_una when the round began */
	__u32 start_us;	  /* tcp_mstamp (low 32 bits) when the round began */
	__u32 min_rtt_us; /* smallest RTT sample in the round (MMCC_NO_RTT: none) */
	__u32 samples;	  /* RTT samples in the round */
	__u32 started;
};

/* A round that just closed: cumulative-ACK rate (bytes/s; 0 with no_rate: zero duration). */
struct mmcc_closed_round {
	__u64 rate;
	__u32 no_rate;
	__u32 min_rtt_us;
	__u32 samples;
};

/* Feed an ACK (rtt_us < 0: no sample); returns 1 and fills *closed when the ACK closes a round. */
static __always_inline int mmcc_round_on_ack(struct mmcc_round *r, const struct tcp_sock *tp,
					     __s32 rtt_us, struct mmcc_closed_round *closed)
{
	__u32 now = (__u32)tp->tcp_mstamp;
	__u32 una = tp->snd_una;

	if (rtt_us > 0) {
		r->min_rtt_us = mmcc_min32(r->min_rtt_us, (__u32)rtt_us);
		r->samples++;
	}
	if (!r->started) {
		r->started = 1;
		r->end = tp->snd_nxt;
		r->una_start = una;
		r->start_us = now;
		return 0;
	}
	if (!((__s32)(una - r->end) > 0))
		return 0;
	__u32 dt = now - r->start_us;
	closed->no_rate = dt == 0;
	closed->rate = dt ? (__u64)(una - r->una_start) * 1000000ULL / dt : 0;
	closed->min_rtt_us = r->min_rtt_us;
	closed->samples = r->samples;
	r->end = tp->snd_nxt;
	r->una_start = una;
	r->start_us = now;
	r->min_rtt_us = MMCC_NO_RTT;
	r->samples = 0;
	return 1;
}

static __always_inline void mmcc_round_init(struct mmcc_round *r)
{
	r->started = 0;
	r->min_rtt_us = MMCC_NO_RTT;
	r->samples = 0;
}

#endif /* MMCC_BPF_H */
