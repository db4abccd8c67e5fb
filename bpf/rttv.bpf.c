// SPDX-License-Identifier: GPL-2.0-only
/*
 * RTTV (Alramli et al., Ad Hoc Networks 164, 2024; PhD thesis, UPM 2025, ch. 4) as a BPF
 * congestion control. Mirrors crates/mmcc-core/src/cca/rttv.rs (linux profile).
 * - congestion avoidance, per ACK: F = sqrt(TimeRatio * cwnd) (eq. 4.4), cwnd += F / cwnd
 *   (eq. 4.5); NewReno before the first RTT sample;
 * - loss: beta = 0.5 (ssthresh = max(cwnd / 2, 2), as tcp_reno_ssthresh).
 */
#include "mmcc_time_ratio.h"

char _license[] SEC("license") = "GPL";
MMCC_CA_STATE_FITS(struct mmcc_time_ratio);

SEC("struct_ops/rttv_init")
void BPF_PROG(rttv_init, struct sock *sk)
{
	mmcc_tr_init(mmcc_ca(sk));
}

SEC("struct_ops/rttv_pkts_acked")
void BPF_PROG(rttv_pkts_acked, struct sock *sk, const struct ack_sample *sample)
{
	mmcc_tr_sample(mmcc_ca(sk), sample->rtt_us);
}

SEC("struct_ops/rttv_cong_avoid")
void BPF_PROG(rttv_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
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
	/* eq. 4.4: F = sqrt(TimeRatio * cwnd); eq. 4.5: cwnd += F / cwnd */
	mmcc_tr_grow(tp, s, mmcc_rttv_f_q16(ratio, tp->snd_cwnd));
}

SEC("struct_ops/rttv_ssthresh")
__u32 BPF_PROG(rttv_ssthresh, struct sock *sk)
{
	return mmcc_half_cwnd(mmcc_tp(sk)); /* beta = 0.5 */
}

SEC("struct_ops/rttv_undo_cwnd")
__u32 BPF_PROG(rttv_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops mmcc_rttv = {
	.init = (void *)rttv_init,
	.pkts_acked = (void *)rttv_pkts_acked,
	.cong_avoid = (void *)rttv_cong_avoid,
	.ssthresh = (void *)rttv_ssthresh,
	.undo_cwnd = (void *)rttv_undo_cwnd,
	.name = "mmcc_rttv",
};
