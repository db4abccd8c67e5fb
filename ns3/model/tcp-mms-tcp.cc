/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-mms-tcp.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpMmsTcp");
NS_OBJECT_ENSURE_REGISTERED(TcpMmsTcp);

TypeId
TcpMmsTcp::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TcpMmsTcp")
            .SetParent<TcpNewReno>()
            .AddConstructor<TcpMmsTcp>()
            .SetGroupName("Internet")
            .AddAttribute("AMax",
                          "Upper bound of the ACK counter a (paper: 125)",
                          DoubleValue(125.0),
                          MakeDoubleAccessor(&TcpMmsTcp::m_aMax),
                          MakeDoubleChecker<double>(1.0))
            .AddAttribute("BetaCa",
                          "Window decrease at a loss in congestion avoidance (paper: 0.125)",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&TcpMmsTcp::m_betaCa),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("BetaSs",
                          "Window decrease at a loss in slow start (paper: 0.5)",
                          DoubleValue(0.5),
                          MakeDoubleAccessor(&TcpMmsTcp::m_betaSs),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddTraceSource("Counter",
                            "The ACK counter a",
                            MakeTraceSourceAccessor(&TcpMmsTcp::m_a),
                            "ns3::TracedValueCallback::Double");
    return tid;
}

TcpMmsTcp::TcpMmsTcp()
    : TcpNewReno()
    , m_aMax(125.0)
    , m_betaCa(0.125)
    , m_betaSs(0.5)
    , m_a(1.0)
{
}

TcpMmsTcp::TcpMmsTcp(const TcpMmsTcp& sock)
    : TcpNewReno(sock)
    , m_aMax(sock.m_aMax)
    , m_betaCa(sock.m_betaCa)
    , m_betaSs(sock.m_betaSs)
    , m_a(sock.m_a.Get())
    , m_window(sock.m_window)
{
}

std::string
TcpMmsTcp::GetName() const
{
    return "TcpMmsTcp";
}

Ptr<TcpCongestionOps>
TcpMmsTcp::Fork()
{
    return CopyObject<TcpMmsTcp>(this);
}

double
TcpMmsTcp::Counter() const
{
    return m_a;
}

void
TcpMmsTcp::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);
    if (mmcc::CaSegments(tcb, segmentsAcked) == 0)
    {
        return;
    }
    m_window.AddSegments(tcb, 1.0 / m_a.Get()); // cwnd += 1/a per ACK
    m_a = std::min(m_a.Get() + 1.0, m_aMax);    // a grows by one per ACK up to a_max
}

uint32_t
TcpMmsTcp::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    // cwnd -= beta cwnd, beta by the phase the loss interrupted
    double beta = tcb->m_cWnd < tcb->m_ssThresh ? m_betaSs : m_betaCa;
    auto w = static_cast<uint64_t>(static_cast<double>(tcb->m_cWnd.Get()) * (1.0 - beta));
    return static_cast<uint32_t>(std::max<uint64_t>(w, 2 * tcb->m_segmentSize));
}

void
TcpMmsTcp::CongestionStateSet(Ptr<TcpSocketState> tcb,
                              const TcpSocketState::TcpCongState_t newState)
{
    if (newState == TcpSocketState::CA_RECOVERY || newState == TcpSocketState::CA_LOSS)
    {
        m_a = 1.0; // every epoch starts fast
    }
}

} // namespace ns3
