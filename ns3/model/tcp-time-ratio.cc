/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-time-ratio.h"

#include "ns3/log.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpTimeRatio");
NS_OBJECT_ENSURE_REGISTERED(TcpTimeRatio);

TypeId
TcpTimeRatio::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpTimeRatio").SetParent<TcpNewReno>().SetGroupName("Internet");
    return tid;
}

TcpTimeRatio::TcpTimeRatio()
    : TcpNewReno()
{
}

TcpTimeRatio::TcpTimeRatio(const TcpTimeRatio& sock)
    : TcpNewReno(sock)
    , m_cur(sock.m_cur)
    , m_base(sock.m_base)
    , m_max(sock.m_max)
    , m_window(sock.m_window)
{
}

void
TcpTimeRatio::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked << rtt);
    if (rtt.IsZero())
    {
        return;
    }
    m_cur = rtt;
    m_base = std::min(m_base, rtt);
    m_max = std::max(m_max, rtt);
}

double
TcpTimeRatio::TimeRatio() const
{
    if (m_cur.IsZero() || m_cur.IsNegative())
    {
        return -1.0;
    }
    // thesis eq. 4.4: TimeRatio = (rtt_max + rtt_base) / rtt_cur
    return (static_cast<double>(m_max.GetNanoSeconds()) +
            static_cast<double>(m_base.GetNanoSeconds())) /
           static_cast<double>(m_cur.GetNanoSeconds());
}

void
TcpTimeRatio::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);
    if (mmcc::CaSegments(tcb, segmentsAcked) == 0)
    {
        return;
    }
    double ratio = TimeRatio();
    if (ratio < 0.0)
    {
        m_window.RenoIncrease(tcb); // no RTT yet: NewReno
        return;
    }
    // eq. 4.5 / 5.x: cwnd += F / cwnd per ACK (segments)
    double w = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
    m_window.AddSegments(tcb, Increment(tcb, ratio) / w);
    NS_LOG_DEBUG("ratio " << ratio << " cwnd " << tcb->m_cWnd);
}

uint32_t
TcpTimeRatio::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    return mmcc::HalfFlight(tcb, bytesInFlight); // beta = 0.5
}

} // namespace ns3
