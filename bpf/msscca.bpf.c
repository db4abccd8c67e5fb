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

SEC("struct_ops/msscca_init")
void BPF_PROG(msscca_init, struct sock *sk)
{
	mmcc_tr_init(mmcc_ca(sk));
}

SEC("struct_ops/msscca_pkts_acked")
void BPF_PROG(msscca_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	mmcc_tr_sample(mmcc_ca(sk), sample->rtt_us);
}

SEC("struct_ops/msscca_cong_avoid")
void BPF_PROG(msscca_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = mmcc_tp(sk);
	struct mmcc_time_ratio *s = mmcc_ca(sk);

	if (!mmcc_cwnd_limited(tp))
		return;
	if (!mmcc_slow_start_then_ca(tp, acked))
		return;
	__u64 ratio = mmcc_tr_ratio_q16(s);
	if (!ratio) {
		mmcc_reno_ack(tp, &s->acc);
		return;
	}
	/* F = sqrt(MSS * TimeRatio): sqrt(mss * ratio_q16 * 2^16) = F * 2^16 */
	mmcc_tr_grow(tp, s, mmcc_mss_f_q16(ratio, tp->mss_cache)); /* cwnd += F / cwnd */
}

SEC("struct_ops/msscca_ssthresh")
__u32 BPF_PROG(msscca_ssthresh, struct sock *sk)
{
	return mmcc_half_cwnd(mmcc_tp(sk)); /* beta = 0.5 */
}

SEC("struct_ops/msscca_undo_cwnd")
__u32 BPF_PROG(msscca_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
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
