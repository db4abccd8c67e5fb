/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-mrvhs.h"

#include "ns3/tcp-highspeed.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TcpMrvhs);

namespace
{
constexpr uint32_t kLowWindow = 38; // RFC 3649 Low_Window, segments
}

TypeId
TcpMrvhs::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpMrvhs")
                            .SetParent<TcpMssCca>()
                            .AddConstructor<TcpMrvhs>()
                            .SetGroupName("Internet");
    return tid;
}

TcpMrvhs::TcpMrvhs()
    : TcpMssCca()
{
}

TcpMrvhs::TcpMrvhs(const TcpMrvhs& sock)
    : TcpMssCca(sock)
{
}

std::string
TcpMrvhs::GetName() const
{
    return "TcpMrvhs";
}

Ptr<TcpCongestionOps>
TcpMrvhs::Fork()
{
    return CopyObject<TcpMrvhs>(this);
}

uint32_t
TcpMrvhs::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    uint32_t w = bytesInFlight / tcb->m_segmentSize;
    if (w <= kLowWindow)
    {
        return mmcc::HalfFlight(tcb, bytesInFlight); // standard TCP below Low_Window
    }
    // RFC 3649: cwnd = (1 - b(w)) w, in whole segments
    double b = TcpHighSpeed::TableLookupB(w);
    auto segs = static_cast<uint64_t>(w * (1.0 - b));
    return static_cast<uint32_t>(std::max<uint64_t>(segs, 2) * tcb->m_segmentSize);
}

} // namespace ns3
