/*
 * The RTT-variation family of Alramli et al. (RTTV, MSS-CCA, MRVHS): congestion avoidance grows
 * cwnd by F / cwnd per ACK, where F (segments per RTT) is a function of the time ratio
 * (rtt_max + rtt_base) / rtt_cur (thesis eq. 4.4). Port of crates/mmcc-core/src/cca/rttv.rs.
 *
 * RTTs are the ones ns-3 passes to PktsAcked (m_lastRtt, the smoothed estimate); rtt_base and
 * rtt_max are the smallest and largest of them over the connection (never reset, as the papers
 * specify), rtt_cur the latest. Until the first RTT, NewReno's 1/cwnd per ACK is used.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef TCP_TIME_RATIO_H
#define TCP_TIME_RATIO_H

#include "mmcc-window.h"

#include "ns3/tcp-congestion-ops.h"

namespace ns3
{

/**
 * \ingroup congestionOps
 * \brief Base of RTTV, MSS-CCA and MRVHS: the time ratio and the per-RTT increment F.
 */
class TcpTimeRatio : public TcpNewReno
{
  public:
    static TypeId GetTypeId();
    TcpTimeRatio();
    TcpTimeRatio(const TcpTimeRatio& sock);

    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;

    /// (rtt_max + rtt_base) / rtt_cur (thesis eq. 4.4 "TimeRatio"); negative while unknown.
    double TimeRatio() const;

  protected:
    /// F: the increase in segments per RTT for this time ratio.
    virtual double Increment(Ptr<const TcpSocketState> tcb, double timeRatio) const = 0;

  private:
    Time m_cur;                      //!< latest RTT (zero: none yet)
    Time m_base{Time::Max()};        //!< smallest RTT of the connection
    Time m_max;                      //!< largest RTT of the connection
    mmcc::FractionalWindow m_window; //!< fraction of a byte carried between ACKs
};

} // namespace ns3

#endif // TCP_TIME_RATIO_H
