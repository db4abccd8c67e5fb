/*
 * Building blocks shared by mmcc's ns-3 congestion controls. Each mirrors a helper of the Rust
 * simulator (crates/mmcc-core/src/cca/util.rs) so that the ns-3 classes make the same decisions
 * with the same integer/floating-point steps:
 * - FractionalWindow: cwnd growth with the fraction of a byte carried exactly (util::FracAcc);
 * - PerRttRound: Vegas-style rounds that end on the first ACK above the right edge of the
 *   previous round, with their RTT samples and acknowledgement rate (util::Round, RoundRate);
 * - StandardSlowStart / CaSegments: ns-3's TcpNewReno slow start, and the segments left for
 *   congestion avoidance (util::ca_segments).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MMCC_WINDOW_H
#define MMCC_WINDOW_H

#include "ns3/nstime.h"
#include "ns3/sequence-number.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ns3
{
namespace mmcc
{

/**
 * \brief Adds num/den bytes to cwnd per call, carrying the remainder to the next call.
 */
class FractionalWindow
{
  public:
    /// cwnd += num / den bytes, the fraction carried.
    void Add(Ptr<TcpSocketState> tcb, uint64_t num, uint64_t den)
    {
        if (den == 0)
        {
            return;
        }
        m_acc = (m_acc > UINT64_MAX - num) ? UINT64_MAX : m_acc + num;
        if (m_acc >= den)
        {
            uint64_t whole = m_acc / den;
            m_acc -= whole * den;
            tcb->m_cWnd = static_cast<uint32_t>(
                std::min<uint64_t>(UINT32_MAX, static_cast<uint64_t>(tcb->m_cWnd) + whole));
        }
    }

    /// cwnd += segments (a fraction of a segment), exact to a millionth of a byte.
    void AddSegments(Ptr<TcpSocketState> tcb, double segments)
    {
        if (segments > 0.0 && std::isfinite(segments))
        {
            Add(tcb,
                static_cast<uint64_t>(std::llround(segments * tcb->m_segmentSize * 1e6)),
                1000000);
        }
    }

    /// RFC 5681 eq. (3): cwnd += SMSS * SMSS / cwnd once per ACK.
    void RenoIncrease(Ptr<TcpSocketState> tcb)
    {
        uint64_t mss = tcb->m_segmentSize;
        Add(tcb, mss * mss, tcb->m_cWnd);
    }

  private:
    uint64_t m_acc{0};
};

/// A round that just closed: its acknowledgement rate (bytes/s; negative: zero duration),
/// smallest RTT (Time::Max(): none) and number of RTT samples.
struct ClosedRound
{
    double ackRate;
    Time minRtt;
    uint32_t samples;
};

/**
 * \brief Vegas-style per-RTT rounds (Linux beg_snd_nxt): a round ends on the first ACK that
 * acknowledges data above the highest sequence sent when it began.
 */
class PerRttRound
{
  public:
    /// Feed an ACK (with its RTT, zero: none). Returns true when the ACK closes a round; the
    /// closed round is then in `closed` and the next round has started.
    bool OnAck(Ptr<const TcpSocketState> tcb, const Time& rtt, ClosedRound& closed)
    {
        Time now = Simulator::Now();
        if (!rtt.IsZero())
        {
            m_minRtt = std::min(m_minRtt, rtt);
            m_samples++;
        }
        if (!m_started)
        {
            m_started = true;
            m_end = tcb->m_highTxMark;
            m_start = now;
            m_unaAtStart = tcb->m_lastAckedSeq;
            return false;
        }
        if (!(tcb->m_lastAckedSeq > m_end))
        {
            return false;
        }
        double dt = (now - m_start).GetSeconds();
        closed.ackRate =
            dt > 0.0 ? std::max<int64_t>(0, tcb->m_lastAckedSeq - m_unaAtStart) / dt : -1.0;
        closed.minRtt = m_minRtt;
        closed.samples = m_samples;
        m_end = tcb->m_highTxMark;
        m_minRtt = Time::Max();
        m_samples = 0;
        m_start = now;
        m_unaAtStart = tcb->m_lastAckedSeq;
        return true;
    }

  private:
    bool m_started{false};
    SequenceNumber32 m_end{0};
    SequenceNumber32 m_unaAtStart{0};
    Time m_start;
    Time m_minRtt{Time::Max()};
    uint32_t m_samples{0};
};

/**
 * \brief Throughput over fixed intervals as a receiver's application sees it: the bytes
 * cumulatively acknowledged during each interval of at least `interval`, closed at the first
 * ACK after it ends (util::IntervalThroughput).
 */
class IntervalThroughput
{
  public:
    explicit IntervalThroughput(Time interval)
        : m_interval(interval)
    {
    }

    /// Feed an ACK; LastRate() then holds the rate of the last closed interval.
    void OnAck(Ptr<const TcpSocketState> tcb)
    {
        Time now = Simulator::Now();
        if (!m_started)
        {
            m_started = true;
            m_start = now;
            m_unaAtStart = tcb->m_lastAckedSeq;
        }
        Time dt = now - m_start;
        if (dt >= m_interval && dt.IsStrictlyPositive())
        {
            m_last = std::max<int64_t>(0, tcb->m_lastAckedSeq - m_unaAtStart) / dt.GetSeconds();
            m_start = now;
            m_unaAtStart = tcb->m_lastAckedSeq;
        }
    }

    /// Bytes per second of the last closed interval (negative: none yet).
    double LastRate() const
    {
        return m_last;
    }

  private:
    Time m_interval;
    bool m_started{false};
    Time m_start;
    SequenceNumber32 m_unaAtStart{0};
    double m_last{-1.0};
};

/// ns-3 TcpNewReno::SlowStart: one segment per ACK that acknowledges at least one; returns the
/// segments left over.
inline uint32_t
StandardSlowStart(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    if (segmentsAcked >= 1)
    {
        tcb->m_cWnd += tcb->m_segmentSize;
        return segmentsAcked - 1;
    }
    return 0;
}

/// Slow start while cwnd < ssthresh, then the segments congestion avoidance counts (0: none):
/// as ns-3's TcpNewReno::IncreaseWindow splits an ACK.
inline uint32_t
CaSegments(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    if (tcb->m_cWnd < tcb->m_ssThresh)
    {
        segmentsAcked = StandardSlowStart(tcb, segmentsAcked);
    }
    return tcb->m_cWnd < tcb->m_ssThresh ? 0 : segmentsAcked;
}

/// RFC 5681 eq. (4) as ns-3 computes it: max(FlightSize / 2, 2 SMSS).
inline uint32_t
HalfFlight(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    return std::max(bytesInFlight / 2, 2 * tcb->m_segmentSize);
}

} // namespace mmcc
} // namespace ns3

#endif // MMCC_WINDOW_H
