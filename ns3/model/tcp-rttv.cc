/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-rttv.h"

#include <cmath>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpRttv);

TypeId
TcpRttv::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpRttv")
                            .SetParent<TcpTimeRatio>()
                            .AddConstructor<TcpRttv>()
                            .SetGroupName("Internet");
    return tid;
}

TcpRttv::TcpRttv()
    : TcpTimeRatio()
{
}

TcpRttv::TcpRttv(const TcpRttv& sock)
    : TcpTimeRatio(sock)
{
}

std::string
TcpRttv::GetName() const
{
    return "TcpRttv";
}

Ptr<TcpCongestionOps>
TcpRttv::Fork()
{
    return CopyObject<TcpRttv>(this);
}

double
TcpRttv::Increment(Ptr<const TcpSocketState> tcb, double timeRatio) const
{
    return std::sqrt(timeRatio * (static_cast<double>(tcb->m_cWnd.Get()) /
                                  tcb->m_segmentSize)); // eq. 4.4: F = sqrt(TimeRatio * cwnd)
}

} // namespace ns3
