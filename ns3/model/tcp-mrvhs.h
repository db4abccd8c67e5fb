/*
 * MRVHS (Alramli et al., PeerJ Computer Science 2025, doi 10.7717/peerj-cs.2956; thesis ch. 6):
 * HighSpeed TCP (RFC 3649) whose additive increase is the MSS-CCA increment
 * alpha = sqrt(MSS * TimeRatio), cwnd += alpha / cwnd per ACK; the decrease is HighSpeed's
 * b(w) from the RFC 3649 table (ns-3's TcpHighSpeed::TableLookupB), with w from the bytes in
 * flight as ns-3's TcpHighSpeed computes it, and half the flight up to Low_Window = 38.
 * Port of crates/mmcc-core/src/cca/mrvhs.rs.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_MRVHS_H
#define TCP_MRVHS_H

#include "tcp-mss-cca.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief MRVHS: MSS-CCA's increase with HighSpeed's decrease.
 */
class TcpMrvhs : public TcpMssCca
{
  public:
    static TypeId GetTypeId();
    TcpMrvhs();
    TcpMrvhs(const TcpMrvhs& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
};

} // namespace ns3

#endif // TCP_MRVHS_H
