/*
 * mmS-TCP (Kim & Cho, "mmS-TCP: Scalable TCP for improving throughput and fairness in 5G mmWave
 * networks", Sensors 22(10):3609, 2022). Port of crates/mmcc-core/src/cca/mmstcp.rs.
 *
 * - Congestion avoidance, per ACK: cwnd += 1/a; the counter a starts at 1 and grows by one per
 *   ACK up to AMax = 125 (the paper); a is reset to 1 at each window reduction (decision where
 *   the paper is silent: every epoch starts fast).
 * - Loss: in congestion avoidance cwnd -= BetaCa cwnd (0.125), in slow start
 *   cwnd -= BetaSs cwnd (0.5).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_MMS_TCP_H
#define TCP_MMS_TCP_H

#include "mmcc-window.h"

#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief mmS-TCP: Scalable TCP with an ACK counter for 5G mmWave.
 */
class TcpMmsTcp : public TcpNewReno
{
  public:
    static TypeId GetTypeId();
    TcpMmsTcp();
    TcpMmsTcp(const TcpMmsTcp& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;

    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;

    /// The counter a.
    double Counter() const;

  private:
    double m_aMax;           //!< upper bound of the counter
    double m_betaCa;         //!< decrease in congestion avoidance
    double m_betaSs;         //!< decrease in slow start
    TracedValue<double> m_a; //!< the counter a
    mmcc::FractionalWindow m_window;
};

} // namespace ns3

#endif // TCP_MMS_TCP_H
