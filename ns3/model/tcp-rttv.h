/*
 * RTTV (Alramli et al., Ad Hoc Networks 164, 2024; thesis ch. 4): F = sqrt(TimeRatio * cwnd)
 * (eq. 4.4), cwnd += F / cwnd per ACK (eq. 4.5); beta = 0.5. Port of
 * crates/mmcc-core/src/cca/rttv.rs.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_RTTV_H
#define TCP_RTTV_H

#include "tcp-time-ratio.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief RTTV.
 */
class TcpRttv : public TcpTimeRatio
{
  public:
    static TypeId GetTypeId();
    TcpRttv();
    TcpRttv(const TcpRttv& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;

  protected:
    double Increment(Ptr<const TcpSocketState> tcb, double timeRatio) const override;
};

} // namespace ns3

#endif // TCP_RTTV_H
