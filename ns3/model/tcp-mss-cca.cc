/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-mss-cca.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpMssCca);

TypeId
TcpMssCca::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpMssCca")
                            .SetParent<TcpTimeRatio>()
                            .AddConstructor<TcpMssCca>()
                            .SetGroupName("Internet");
    return tid;
}

TcpMssCca::TcpMssCca()
    : TcpTimeRatio()
{
}

TcpMssCca::TcpMssCca(const TcpMssCca& sock)
    : TcpTimeRatio(sock)
{
}

std::string
TcpMssCca::GetName() const
{
    return "TcpMssCca";
}

Ptr<TcpCongestionOps>
TcpMssCca::Fork()
{
    return CopyObject<TcpMssCca>(this);
}

double
TcpMssCca::Increment(Ptr<const TcpSocketState> tcb, double timeRatio) const
{
    return std::sqrt(static_cast<double>(tcb->m_segmentSize) *
                     timeRatio); // F = sqrt(MSS * TimeRatio)
}

} // namespace ns3
