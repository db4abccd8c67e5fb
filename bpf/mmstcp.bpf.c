// SPDX-License-Identifier: GPL-2.0-only
/*
 * mmS-TCP (Kim & Cho, Sensors 22(10):3609, 2022) as a BPF congestion control. Mirrors
 * crates/mmcc-core/src/cca/mmstcp.rs (linux profile) with its default parameters.
 * - congestion avoidance, per ACK: cwnd += 1 / a, the counter a starting at 1 and growing by one
 *   per ACK up to a_max = 125; a = 1 again at each window reduction (recovery or timeout);
 * - loss: cwnd -= 0.125 cwnd in congestion avoidance, cwnd -= 0.5 cwnd in slow start.
 */
#include "mmcc_bpf.h"

char _license[] SEC("license") = "GPL";

#define MMS_A_MAX	     125U
#define MMS_KEEP_CA_PERMILLE 875U /* 1 - beta_ca, beta_ca = 0.125 */
#define MMS_KEEP_SS_PERMILLE 500U /* 1 - beta_ss, beta_ss = 0.5 */

struct mmstcp {
	__u32 a;   /* the ACK counter */
	__u32 acc; /* fraction of a segment, millionths */
};
MMCC_CA_STATE_FITS(struct mmstcp);

SEC("struct_ops/mmstcp_init")
void BPF_PROG(mmstcp_init, struct sock *sk)
{
	struct mmstcp *s = mmcc_ca(sk);

	s->a = 1;
	s->acc = 0;
}

SEC("struct_ops/mmstcp_cong_avoid")
void BPF_PROG(mmstcp_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct mmstcp *s = mmcc_ca(sk);

	if (!mmcc_cwnd_limited(tp))
		return;
	if (!mmcc_slow_start_then_ca(tp, acked))
		return;
	mmcc_add_useg(tp, &s->acc, MMCC_USEG / mmcc_max32(s->a, 1)); /* cwnd += 1/a per ACK */
	s->a = mmcc_min32(s->a + 1, MMS_A_MAX); /* a grows by one per ACK up to a_max */
}

SEC("struct_ops/mmstcp_ssthresh")
__u32 BPF_PROG(mmstcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	/* cwnd -= beta cwnd, beta by the phase the loss interrupted */
	__u32 keep = tp->snd_cwnd < tp->snd_ssthresh ? MMS_KEEP_SS_PERMILLE : MMS_KEEP_CA_PERMILLE;
	__u64 w = (__u64)tp->snd_cwnd * keep / 1000;

	return (__u32)mmcc_max64(w, MMCC_MIN_CWND);
}

SEC("struct_ops/mmstcp_set_state")
void BPF_PROG(mmstcp_set_state, struct sock *sk, __u8 new_state)
{
	struct mmstcp *s = mmcc_ca(sk);

	if (new_state == TCP_CA_Recovery || new_state == TCP_CA_Loss)
		s->a = 1; /* every epoch starts fast */
}

SEC("struct_ops/mmstcp_undo_cwnd")
__u32 BPF_PROG(mmstcp_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_mmstcp = {
	.init = (void *)mmstcp_init,
	.cong_avoid = (void *)mmstcp_cong_avoid,
	.ssthresh = (void *)mmstcp_ssthresh,
	.set_state = (void *)mmstcp_set_state,
	.undo_cwnd = (void *)mmstcp_undo_cwnd,
	.name = "mmcc_mmstcp",
};
