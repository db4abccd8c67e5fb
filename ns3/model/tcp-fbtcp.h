/*
 * FB-TCP, crisp-threshold version (Poorzare & Calveras Auge, "FB-TCP: a 5G mmWave friendly
 * fuzzy-based congestion control algorithm", IEEE Access 9:82812, 2021): the paper's fuzzy
 * design is not public; the authors' public ns-3 code uses crisp thresholds, and so does this
 * class. Port of crates/mmcc-core/src/cca/fbtcp.rs (its comment has the tables).
 *
 * Once per RTT (a Vegas-style round with more than 2 RTT samples; otherwise NewReno):
 * r = rtt_base / rtt_min_round, diff = cwnd - floor(cwnd r), q = r; the cap
 * W* = running max of 1.05 throughput rtt_base / MSS at each round's end, the throughput being the
 * bytes delivered in order (cumulative ACK) over the last 100 ms interval: the authors' class is
 * given the receiver's application throughput every 100 ms by their script; convergence (cwnd <=
 * W*) and divergence tables; then ssthresh = max(ssthresh, 0.75 cwnd). Initial ssthresh at most 900
 * segments. Loss: ssthresh = max(min(ssthresh, cwnd - 1), 2) segments.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_FBTCP_H
#define TCP_FBTCP_H

#include "mmcc-window.h"

#include "ns3/tcp-congestion-ops.h"
#include "ns3/traced-value.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief FB-TCP (crisp thresholds): per-RTT steps from the RTT ratio, capped by W*.
 */
class TcpFbTcp : public TcpNewReno
{
  public:
    static TypeId GetTypeId();
    TcpFbTcp();
    TcpFbTcp(const TcpFbTcp& sock);
    std::string GetName() const override;
    Ptr<TcpCongestionOps> Fork() override;

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;

    /// One per-RTT update with RTT ratio r (and q = r): the crisp tables.
    void Update(Ptr<TcpSocketState> tcb, double r);

    /// The cap W* in segments (0: not measured yet).
    double Cap() const;
    /// Set the cap W* (segments).
    void SetCap(double segments);
    /// The receiving application's throughput (bytes/s) over the last interval: W* is taken
    /// from it instead of the ACK-measured rate (mmcc's `receiver_feed`; the authors' scripts
    /// call their setThreshold every 100 ms with the packet sink's throughput).
    void NotifyReceiverRate(double bytesPerSecond);

  private:
    enum Band
    {
        TOP,
        HIGH,
        MID,
        HOLD,
        LOW,
        FLOOR,
        NONE
    };

    Time m_baseRtt{Time::Max()};
    TracedValue<double> m_wStar{0.0}; //!< W*, segments
    Band m_band{NONE};
    bool m_bandConverging{false};
    uint32_t m_streak{0};
    bool m_initialised{false};
    mmcc::PerRttRound m_round;
    mmcc::IntervalThroughput m_throughput{MilliSeconds(100)};
    double m_receiverRate{-1.0}; //!< fed receiver throughput (bytes/s), -1: none
    mmcc::FractionalWindow m_window;
};

} // namespace ns3

#endif // TCP_FBTCP_H
