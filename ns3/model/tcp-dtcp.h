/*
 * NexGen D-TCP (Kanagarathinam et al., "NexGen D-TCP: next generation dynamic TCP congestion
 * control algorithm", IEEE Access 8:164482, 2020). Port of crates/mmcc-core/src/cca/dtcp.rs.
 *
 * Per epoch (one RTT, a Vegas-style round):
 * - bandwidth sample B_i = d_i / (t_i - t_{i-1}): bytes cumulatively acknowledged in the epoch
 *   over its duration (eq. 5), in Mb/s;
 * - B_I = Kappa B_I,prev + (1 - Kappa) B_i (eq. 6);
 * - norm = (B_i - B_I) + (SINR_i - SINR_avg), BW_E = B_I + G norm (eq. 8-9), the SINR deviation
 *   entering as the bandwidth change it implies, B_I (SE(SINR_i) / SE(SINR_avg) - 1) with the
 *   Shannon spectral efficiency SE(x) = log2(1 + 10^(x/10)); the SINR term is 0 until a SINR is
 *   fed with NotifySinr (connect it to your PHY's SINR trace, in dB);
 * - N = max(1, N + 1 - (BW_E - B_i) / (Alpha BW_E) W) (eq. 12), W the window in segments.
 * Window: cwnd += N / cwnd per ACK; at a loss cwnd (1 - y), y = Eta / ((2 Eta - 1) N + 1).
 * Initial window 2 IW (applied before the first transmission); after a timeout 2 IW and N = 1
 * (ns-3 sets cwnd to one segment after the class is told of the timeout, so 2 IW is applied at
 * the first ACK after it).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_DTCP_H
#define TCP_DTCP_H

#include "mmcc-window.h"

#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief NexGen D-TCP: a congestion control factor N from the bandwidth (and SINR) trend.
 */
class TcpDtcp : public TcpNewReno
{
  public:
    static TypeId GetTypeId();
    TcpDtcp();
    TcpDtcp(const TcpDtcp& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;

    /// The UE's SINR in dB (a trace sink: connect any `void (double)` SINR trace to it).
    void NotifySinr(double sinrDb);

    /// One epoch with bandwidth sample bMbps (Mb/s) and window w (segments): eq. 6-12.
    void Epoch(double bMbps, double w);

    /// The congestion control factor N (segments per RTT).
    double FactorN() const;
    /// Shannon spectral efficiency (b/s/Hz) at an SINR in dB, at least 1e-6
    static double ShannonSe(double sinrDb);

    /// y = Eta / ((2 Eta - 1) N + 1), the decrease at a loss.
    double Decrease() const;

  private:
    double m_kappa;
    double m_g;
    double m_alpha;
    double m_eta;
    TracedValue<double> m_n; //!< N
    bool m_haveFiltered{false};
    double m_bFiltered{0.0};
    bool m_haveSinr{false};
    double m_sinr{0.0};
    bool m_haveSinrAvg{false};
    double m_sinrAvg{0.0};
    bool m_initialised{false};  //!< 2 IW applied
    bool m_afterTimeout{false}; //!< 2 IW due at the next ACK
    mmcc::PerRttRound m_round;
    mmcc::FractionalWindow m_window;
};

} // namespace ns3

#endif // TCP_DTCP_H
