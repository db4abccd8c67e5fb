// SPDX-License-Identifier: GPL-2.0-only
/*
 * NexGen D-TCP (Kanagarathinam et al., IEEE Access 8:164482, 2020) as a BPF congestion control.
 * Mirrors crates/mmcc-core/src/cca/dtcp.rs (linux profile, default parameters kappa = 0.9,
 * g = 0.5, alpha = 0.2, eta = 2; a kernel has no SINR feed, so the SINR term of eq. 8 is 0).
 * Per epoch (a Vegas-style round):
 * - B_i = bytes cumulatively acknowledged in the epoch / its duration (eq. 5);
 * - B_I = kappa B_I,prev + (1 - kappa) B_i (eq. 6); norm = B_i - B_I (eq. 8);
 *   BW_E = B_I + g norm (eq. 9);
 * - N_{i+1} = max(1, N_i + 1 - (BW_E - B_i) / (alpha BW_E) W_i) (eq. 12).
 * Window: per ACK cwnd += N / cwnd; at a loss cwnd (1 - y), y = eta / ((2 eta - 1) N + 1);
 * timeout: cwnd = 2 IW and N = 1; initial window 2 IW.
 */
#include "mmcc_bpf.h"

char _license[] SEC("license") = "GPL";

#define DTCP_N_MAX (65535ULL << 16) /* a bound for the Q16 arithmetic, N <= 65535 */

struct dtcp {
	struct mmcc_round round;
	__u64 b_filtered; /* B_I, bytes/s (have_filtered: set) */
	__u32 n_q16;	  /* N, Q16 */
	__u32 have_filtered;
	__u32 acc; /* fraction of a segment, millionths */
};
MMCC_CA_STATE_FITS(struct dtcp);

SEC("struct_ops/dtcp_init")
void BPF_PROG(dtcp_init, struct sock *sk)
{
	struct dtcp *s = mmcc_ca(sk);

	mmcc_round_init(&s->round);
	s->b_filtered = 0;
	s->have_filtered = 0;
	s->n_q16 = MMCC_Q16;
	s->acc = 0;
	mmcc_set_cwnd(mmcc_tp(sk), 2 * MMCC_INIT_CWND); /* initial window 2 IW */
}

SEC("struct_ops/dtcp_pkts_acked")
void BPF_PROG(dtcp_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct dtcp *s = mmcc_ca(sk);
	struct mmcc_closed_round closed = {};

	if (mmcc_round_on_ack(&s->round, tp, sample->rtt_us, &closed) && !closed.no_rate) {
		/* eq. 5: B_i = bytes acknowledged in the epoch / its duration */
		s->n_q16 = (__u32)mmcc_dtcp_epoch(&s->b_filtered, s->have_filtered, s->n_q16,
						  closed.rate, tp->snd_cwnd, DTCP_N_MAX);
		s->have_filtered = 1;
	}
}

SEC("struct_ops/dtcp_cong_avoid")
void BPF_PROG(dtcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct dtcp *s = mmcc_ca(sk);

	if (!mmcc_cwnd_limited(tp))
		return;
	if (!mmcc_slow_start_then_ca(tp, acked))
		return;
	/* cwnd += N / cwnd per ACK */
	__u64 w = mmcc_max32(tp->snd_cwnd, 1);
	mmcc_add_useg(tp, &s->acc, (((__u64)s->n_q16 * MMCC_USEG) >> 16) / w);
}

SEC("struct_ops/dtcp_ssthresh")
__u32 BPF_PROG(dtcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct dtcp *s = mmcc_ca(sk);
	/* cwnd (1 - y), y = 2 / (3N + 1): cwnd (3N - 1) / (3N + 1) */
	__u64 w = mmcc_dtcp_decrease(tp->snd_cwnd, s->n_q16);

	return (__u32)mmcc_max64(w, MMCC_MIN_CWND);
}

SEC("struct_ops/dtcp_set_state")
void BPF_PROG(dtcp_set_state, struct sock *sk, __u8 new_state)
{
	struct dtcp *s = mmcc_ca(sk);

	if (new_state == TCP_CA_Loss) {
		/* timeout (tcp_enter_loss has just set cwnd): cwnd = 2 IW, N = 1 */
		mmcc_set_cwnd(mmcc_tp(sk), 2 * MMCC_INIT_CWND);
		s->n_q16 = MMCC_Q16;
	}
}

SEC("struct_ops/dtcp_undo_cwnd")
__u32 BPF_PROG(dtcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_dtcp = {
	.init = (void *)dtcp_init,
	.pkts_acked = (void *)dtcp_pkts_acked,
	.cong_avoid = (void *)dtcp_cong_avoid,
	.ssthresh = (void *)dtcp_ssthresh,
	.set_state = (void *)dtcp_set_state,
	.undo_cwnd = (void *)dtcp_undo_cwnd,
	.name = "mmcc_dtcp",
};
