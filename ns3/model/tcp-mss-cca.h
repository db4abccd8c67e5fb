/*
 * MSS-CCA (Alramli et al., ICT Express 2025; thesis ch. 5): F = sqrt(MSS * TimeRatio) with MSS in
 * bytes, cwnd += F / cwnd per ACK; beta = 0.5. Port of crates/mmcc-core/src/cca/msscca.rs.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_MSS_CCA_H
#define TCP_MSS_CCA_H

#include "tcp-time-ratio.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief MSS-CCA.
 */
class TcpMssCca : public TcpTimeRatio
{
  public:
    static TypeId GetTypeId();
    TcpMssCca();
    TcpMssCca(const TcpMssCca& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;

  protected:
    double Increment(Ptr<const TcpSocketState> tcb, double timeRatio) const override;
};

} // namespace ns3

#endif // TCP_MSS_CCA_H
