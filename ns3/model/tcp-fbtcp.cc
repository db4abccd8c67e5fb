/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-fbtcp.h"

#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFbTcp");
NS_OBJECT_ENSURE_REGISTERED(TcpFbTcp);

namespace
{
constexpr uint32_t kSlowStartLimit = 900; // segments: slow start below this window
constexpr uint32_t kHoldRounds = 30;      // rounds a hold band keeps cwnd before *0.9
} // namespace

TypeId
TcpFbTcp::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpFbTcp")
                            .SetParent<TcpNewReno>()
                            .AddConstructor<TcpFbTcp>()
                            .SetGroupName("Internet")
                            .AddTraceSource("Cap",
                                            "The cap W* in segments",
                                            MakeTraceSourceAccessor(&TcpFbTcp::m_wStar),
                                            "ns3::TracedValueCallback::Double");
    return tid;
}

TcpFbTcp::TcpFbTcp()
    : TcpNewReno()
{
}

TcpFbTcp::TcpFbTcp(const TcpFbTcp& sock)
    : TcpNewReno(sock)
    , m_baseRtt(sock.m_baseRtt)
    , m_wStar(sock.m_wStar.Get())
    , m_band(sock.m_band)
    , m_bandConverging(sock.m_bandConverging)
    , m_streak(sock.m_streak)
    , m_initialised(sock.m_initialised)
    , m_receiverRate(sock.m_receiverRate)
{
}

std::string
TcpFbTcp::GetName() const
{
    return "TcpFbTcp";
}

Ptr<TcpCongestionOps>
TcpFbTcp::Fork()
{
    return CopyObject<TcpFbTcp>(this);
}

double
TcpFbTcp::Cap() const
{
    return m_wStar;
}

void
TcpFbTcp::SetCap(double segments)
{
    m_wStar = segments;
}

void
TcpFbTcp::NotifyReceiverRate(double bytesPerSecond)
{
    m_receiverRate = bytesPerSecond;
}

void
TcpFbTcp::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_TX_START && !m_initialised)
    {
        m_initialised = true;
        tcb->m_ssThresh = std::min(tcb->m_ssThresh.Get(), kSlowStartLimit * tcb->m_segmentSize);
    }
}

void
TcpFbTcp::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    if (!rtt.IsZero())
    {
        m_baseRtt = std::min(m_baseRtt, rtt);
    }
    m_throughput.OnAck(tcb);
}

void
TcpFbTcp::Update(Ptr<TcpSocketState> tcb, double r)
{
    double q = r; // the public code's second indicator is the same ratio
    double w = static_cast<double>(tcb->m_cWnd.Get() / tcb->m_segmentSize);
    double diff = w - std::floor(w * r);
    bool converging = w <= m_wStar || m_wStar == 0.0;
    Band band = r >= 0.98   ? TOP
                : r >= 0.95 ? HIGH
                : r >= 0.7  ? MID
                : r >= 0.3  ? HOLD
                : r >= 0.05 ? LOW
                            : FLOOR;
    if (band == m_band && converging == m_bandConverging)
    {
        m_streak++; // the same band in consecutive rounds
    }
    else
    {
        m_band = band;
        m_bandConverging = converging;
        m_streak = 1;
    }
    uint32_t s = m_streak;
    double nw = w;
    if (converging)
    {
        switch (band)
        {
        case TOP:
            nw += diff <= 10.0   ? 120.0
                  : diff <= 15.0 ? 100.0
                  : diff <= 20.0 ? 70.0
                  : diff <= 30.0 ? 60.0
                                 : 50.0;
            break;
        case HIGH:
            nw += q >= 0.95 ? 40.0 : 30.0;
            break;
        case MID:
            nw += q >= 0.95 ? 25.0 : 20.0;
            break;
        case HOLD:
            if (s > kHoldRounds)
            {
                nw *= 0.9;
                m_wStar = m_wStar * 0.9;
                m_streak = 0;
            }
            break;
        case LOW:
            if (q >= 0.95)
            {
                nw -= s <= 2 ? 10.0 : 20.0;
            }
            else
            {
                nw -= s <= 1 ? 25.0 : 50.0;
            }
            break;
        case FLOOR:
        case NONE:
            if (q >= 0.95)
            {
                nw *= s <= 1 ? 0.75 : 0.5;
            }
            else
            {
                nw *= s <= 1 ? 0.4 : 1.0 / 3.0;
            }
            break;
        }
    }
    else if (r >= 0.99 || (r >= 0.7 && q >= 0.95))
    {
        nw += 1.0;
    }
    else if (band == LOW)
    {
        nw *= s <= 1 ? 0.75 : 0.5;
    }
    else if (band == FLOOR)
    {
        nw *= s <= 1 ? 0.5 : 0.25;
    }
    else if (s > kHoldRounds)
    {
        nw *= 0.9;
        m_streak = 0;
    }
    tcb->m_cWnd = static_cast<uint32_t>(std::llround(std::max(nw, 2.0) * tcb->m_segmentSize));
    // after each per-RTT update: ssthresh = max(ssthresh, 0.75 cwnd)
    tcb->m_ssThresh = std::max(tcb->m_ssThresh.Get(), tcb->m_cWnd.Get() * 3 / 4);
}

void
TcpFbTcp::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked);
    mmcc::ClosedRound closed;
    bool roundEnd = m_round.OnAck(tcb, tcb->m_lastRtt, closed);
    // the receiver's application throughput when fed (NotifyReceiverRate, as the authors'
    // scripts hand it over every 100 ms), else the same quantity measured from the ACKs
    double rate = m_receiverRate >= 0.0 ? m_receiverRate : m_throughput.LastRate();
    if (roundEnd && rate >= 0.0 && m_baseRtt != Time::Max())
    {
        // W* = running max of 1.05 throughput rtt_base / MSS
        m_wStar =
            std::max(m_wStar.Get(), 1.05 * rate * m_baseRtt.GetSeconds() / tcb->m_segmentSize);
    }
    if (tcb->m_cWnd < tcb->m_ssThresh)
    {
        mmcc::StandardSlowStart(tcb, segmentsAcked);
        return;
    }
    if (!roundEnd)
    {
        return;
    }
    // once per round: the crisp tables with more than 2 RTT samples, else NewReno
    if (closed.samples > 2 && closed.minRtt != Time::Max() && closed.minRtt.IsStrictlyPositive() &&
        m_baseRtt != Time::Max())
    {
        Update(tcb,
               static_cast<double>(m_baseRtt.GetNanoSeconds()) /
                   static_cast<double>(closed.minRtt.GetNanoSeconds()));
    }
    else
    {
        m_window.RenoIncrease(tcb);
    }
}

uint32_t
TcpFbTcp::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    // max(min(ssthresh, cwnd - 1), 2) segments
    uint32_t cwnd = tcb->m_cWnd;
    uint32_t cwndLess = cwnd > tcb->m_segmentSize ? cwnd - tcb->m_segmentSize : 0;
    return std::max(std::min(tcb->m_ssThresh.Get(), cwndLess), 2 * tcb->m_segmentSize);
}

} // namespace ns3
