/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "tcp-dtcp.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpDtcp");
NS_OBJECT_ENSURE_REGISTERED(TcpDtcp);

TypeId
TcpDtcp::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpDtcp")
                            .SetParent<TcpNewReno>()
                            .AddConstructor<TcpDtcp>()
                            .SetGroupName("Internet")
                            .AddAttribute("Kappa",
                                          "Bandwidth filter gain (eq. 6)",
                                          DoubleValue(0.9),
                                          MakeDoubleAccessor(&TcpDtcp::m_kappa),
                                          MakeDoubleChecker<double>(0.0, 1.0))
                            .AddAttribute("G",
                                          "Normalisation gain (eq. 9)",
                                          DoubleValue(0.5),
                                          MakeDoubleAccessor(&TcpDtcp::m_g),
                                          MakeDoubleChecker<double>())
                            .AddAttribute("Alpha",
                                          "Congestion control factor gain (eq. 12)",
                                          DoubleValue(0.2),
                                          MakeDoubleAccessor(&TcpDtcp::m_alpha),
                                          MakeDoubleChecker<double>())
                            .AddAttribute("Eta",
                                          "Decrease parameter: y = Eta / ((2 Eta - 1) N + 1)",
                                          DoubleValue(2.0),
                                          MakeDoubleAccessor(&TcpDtcp::m_eta),
                                          MakeDoubleChecker<double>())
                            .AddTraceSource("FactorN",
                                            "The congestion control factor N",
                                            MakeTraceSourceAccessor(&TcpDtcp::m_n),
                                            "ns3::TracedValueCallback::Double");
    return tid;
}

TcpDtcp::TcpDtcp()
    : TcpNewReno()
    , m_kappa(0.9)
    , m_g(0.5)
    , m_alpha(0.2)
    , m_eta(2.0)
    , m_n(1.0)
{
}

TcpDtcp::TcpDtcp(const TcpDtcp& sock)
    : TcpNewReno(sock)
    , m_kappa(sock.m_kappa)
    , m_g(sock.m_g)
    , m_alpha(sock.m_alpha)
    , m_eta(sock.m_eta)
    , m_n(sock.m_n.Get())
{
}

std::string
TcpDtcp::GetName() const
{
    return "TcpDtcp";
}

Ptr<TcpCongestionOps>
TcpDtcp::Fork()
{
    return CopyObject<TcpDtcp>(this);
}

void
TcpDtcp::NotifySinr(double sinrDb)
{
    m_haveSinr = true;
    m_sinr = sinrDb;
}

double
TcpDtcp::ShannonSe(double sinrDb)
{
    return std::max(1e-6, std::log2(1.0 + std::pow(10.0, sinrDb / 10.0)));
}

double
TcpDtcp::FactorN() const
{
    return m_n;
}

double
TcpDtcp::Decrease() const
{
    return m_eta / ((2.0 * m_eta - 1.0) * m_n + 1.0); // y = eta / ((2 eta - 1) N + 1)
}

void
TcpDtcp::Epoch(double bMbps, double w)
{
    double bPrev = m_haveFiltered ? m_bFiltered : bMbps;
    m_bFiltered = m_kappa * bPrev + (1.0 - m_kappa) * bMbps; // eq. 6
    m_haveFiltered = true;
    double sinrTerm = 0.0;
    if (m_haveSinr)
    {
        m_sinrAvg = m_haveSinrAvg ? m_kappa * m_sinrAvg + (1.0 - m_kappa) * m_sinr : m_sinr;
        m_haveSinrAvg = true;
        // eq. 8's SINR_i - SINR_avg as the bandwidth change it implies: B_I (SE_i / SE_avg - 1),
        // SE the Shannon spectral efficiency (the Rust version's reading, cca/dtcp.rs)
        sinrTerm = m_bFiltered * (ShannonSe(m_sinr) / ShannonSe(m_sinrAvg) - 1.0);
    }
    double norm = (bMbps - m_bFiltered) + sinrTerm; // eq. 8
    double bwE = m_bFiltered + m_g * norm;          // eq. 9
    if (bwE > 0.0)
    {
        // eq. 12: N_{i+1} = max(1, N_i + 1 - (BW_E - BW_C) / (alpha BW_E) W_i)
        m_n = std::max(1.0, m_n.Get() + 1.0 - (bwE - bMbps) / (m_alpha * bwE) * w);
    }
}

void
TcpDtcp::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    if (event == TcpSocketState::CA_EVENT_TX_START && !m_initialised)
    {
        m_initialised = true;
        tcb->m_cWnd = 2 * tcb->m_initialCWnd * tcb->m_segmentSize; // initial window 2 IW
    }
}

void
TcpDtcp::CongestionStateSet(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCongState_t newState)
{
    if (newState == TcpSocketState::CA_LOSS)
    {
        m_n = 1.0; // timeout: N = 1, cwnd = 2 IW (at the next ACK)
        m_afterTimeout = true;
    }
}

void
TcpDtcp::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    NS_LOG_FUNCTION(this << tcb << segmentsAcked << rtt);
    if (m_afterTimeout)
    {
        m_afterTimeout = false;
        tcb->m_cWnd = std::max<uint32_t>(tcb->m_cWnd, 2 * tcb->m_initialCWnd * tcb->m_segmentSize);
    }
    mmcc::ClosedRound closed;
    if (m_round.OnAck(tcb, rtt, closed) && closed.ackRate >= 0.0)
    {
        // eq. 5: bytes acknowledged in the epoch / its duration, in Mb/s
        double w = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
        Epoch(closed.ackRate * 8.0 / 1e6, w);
    }
}

void
TcpDtcp::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    if (mmcc::CaSegments(tcb, segmentsAcked) == 0)
    {
        return;
    }
    double w = static_cast<double>(tcb->m_cWnd.Get()) / tcb->m_segmentSize;
    m_window.AddSegments(tcb, m_n / w); // cwnd += N / cwnd per ACK
}

uint32_t
TcpDtcp::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    // cwnd (1 - y); the stack then sets cwnd = ssthresh
    auto w = static_cast<uint64_t>(static_cast<double>(tcb->m_cWnd.Get()) * (1.0 - Decrease()));
    return static_cast<uint32_t>(std::max<uint64_t>(w, 2 * tcb->m_segmentSize));
}

} // namespace ns3
