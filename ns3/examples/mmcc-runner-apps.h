/*
 * mmcc-ns3-runner's applications: the bulk sender of a flow (its socket's trace hooks feed the
 * measurements) and the receiver that reads in chunks.
 */
#ifndef MMCC_RUNNER_APPS_H
#define MMCC_RUNNER_APPS_H

#include "mmcc-runner.h"

namespace mmcc_runner
{

/// A bulk sender: one TCP socket of the flow's algorithm that keeps the send buffer full (or
/// writes a byte budget), from `start` until `stop`.
class BulkSender : public Application
{
  public:
    void Setup(Address peer, TypeId cca, uint64_t budget, size_t flow)
    {
        m_peer = peer;
        m_cca = cca;
        m_budget = budget;
        m_flow = flow;
    }

    Ptr<Socket> GetSocket() const
    {
        return m_socket;
    }

  private:
    void StartApplication() override
    {
        Ptr<TcpL4Protocol> tcp = GetNode()->GetObject<TcpL4Protocol>();
        tcp->SetAttribute("SocketType", TypeIdValue(m_cca)); // this socket's algorithm
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        if (m_flow == 0)
        {
            g_flow0Socket = m_socket;
        }
        m_socket->Bind();
        m_socket->Connect(m_peer);
        m_socket->SetConnectCallback(MakeCallback(&BulkSender::Connected, this),
                                     MakeNullCallback<void, Ptr<Socket>>());
        m_socket->SetSendCallback(MakeCallback(&BulkSender::Space, this));
        size_t f = m_flow;
        m_socket->TraceConnectWithoutContext("CongestionWindow",
                                             MakeBoundCallback(
                                                 +[](size_t fl, uint32_t, uint32_t v) {
                                                     FlowStats& s = g_stats[fl];
                                                     size_t i = s.BinNow();
                                                     s.cwnd[i] = v;
                                                     if (fl == 0 && g_cwndTrace)
                                                     {
                                                         *g_cwndTrace
                                                             << Simulator::Now().GetNanoSeconds()
                                                             << " " << v << "\n";
                                                     }
                                                 },
                                                 f));
        m_socket->TraceConnectWithoutContext("SlowStartThreshold",
                                             MakeBoundCallback(
                                                 +[](size_t fl, uint32_t, uint32_t v) {
                                                     FlowStats& s = g_stats[fl];
                                                     size_t i = s.BinNow();
                                                     s.ssthresh[i] = v;
                                                 },
                                                 f));
        m_socket->TraceConnectWithoutContext("RTT",
                                             MakeBoundCallback(
                                                 +[](size_t fl, Time, Time v) {
                                                     FlowStats& s = g_stats[fl];
                                                     size_t i = s.BinNow();
                                                     s.rttSum[i] += v.GetSeconds() * 1e3;
                                                     s.rttN[i] += 1;
                                                 },
                                                 f));
        m_socket->TraceConnectWithoutContext(
            "CongState",
            MakeBoundCallback(
                +[](size_t fl, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t v) {
                    FlowStats& s = g_stats[fl];
                    if (v == TcpSocketState::CA_RECOVERY)
                    {
                        s.fastRetx++;
                    }
                    if (v == TcpSocketState::CA_LOSS)
                    {
                        s.rtos++;
                    }
                    s.inLoss = v == TcpSocketState::CA_LOSS;
                },
                f));
        // A timeout while the socket is already in CA_LOSS leaves CongState as it is, so the
        // trace above does not see it. Every data timeout of ns-3 3.37's ReTxTimeout doubles
        // m_rto (RFC 6298 5.5, at most 60 s) before it sets CA_LOSS; the RTT-based updates
        // (EstimateRtt, NewAck) set max(SRTT + 4 RTTVAR, MinRto) instead. So a doubling seen in
        // CA_LOSS is one more timeout. Not seen: a timeout with m_rto already at 60 s (unchanged).
        m_socket->TraceConnectWithoutContext("RTO",
                                             MakeBoundCallback(
                                                 +[](size_t fl, Time before, Time after) {
                                                     FlowStats& s = g_stats[fl];
                                                     if (s.inLoss && after != before &&
                                                         after == Min(before + before, Seconds(60)))
                                                     {
                                                         s.rtos++;
                                                     }
                                                 },
                                                 f));
        m_socket->TraceConnectWithoutContext(
            "Tx",
            MakeBoundCallback(
                +[](size_t fl, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>) {
                    FlowStats& s = g_stats[fl];
                    uint32_t len = p->GetSize();
                    if (len == 0)
                    {
                        return;
                    }
                    s.txBytes += len;
                    uint32_t seq = h.GetSequenceNumber().GetValue();
                    if (s.anySent && seq < s.highSeq)
                    {
                        s.retxBytes += len;
                    }
                    else
                    {
                        s.highSeq = seq + len;
                        s.anySent = true;
                    }
                },
                f));
    }

    void StopApplication() override
    {
        m_stopped = true;
    }

    void Connected(Ptr<Socket>)
    {
        Fill();
    }

    void Space(Ptr<Socket>, uint32_t)
    {
        Fill();
    }

    void Fill()
    {
        while (!m_stopped && (m_budget == 0 || m_written < m_budget))
        {
            uint32_t room = m_socket->GetTxAvailable();
            if (room == 0)
            {
                break;
            }
            uint64_t n = room;
            if (m_budget > 0)
            {
                n = std::min<uint64_t>(n, m_budget - m_written);
            }
            n = std::min<uint64_t>(n, 1 << 20);
            int sent = m_socket->Send(Create<Packet>(static_cast<uint32_t>(n)));
            if (sent <= 0)
            {
                break;
            }
            m_written += static_cast<uint64_t>(sent);
        }
    }

    Address m_peer;
    TypeId m_cca;
    uint64_t m_budget = 0;
    uint64_t m_written = 0;
    size_t m_flow = 0;
    bool m_stopped = false;
    Ptr<Socket> m_socket;
};

/// The receiving application: ns-3's PacketSink (ns-3 3.37: listen, ShutdownSend, accept every
/// connection, read whatever TCP delivers), except that it reads in chunks of at most
/// `kReadChunk` bytes. PacketSink asks `TcpRxBuffer::Extract` for all in-order data at once, and
/// Extract appends the buffered packets one by one into one `Packet`; an append that misses
/// ns-3's zero-area fast path copies the whole accumulated buffer (`Buffer::AddAtEnd`), so when a
/// retransmission fills a hole behind thousands of segments the read is quadratic in the window
/// (most of the CPU of a 1 Gb/s run after a timeout: `perf` and `gdb` on a D-TCP run). Reading in
/// chunks takes the same bytes out in the same event (`TcpSocketBase::Recv` does nothing but
/// Extract), so what TCP does afterwards (buffer space, advertised window, ACKs) is unchanged.
class ChunkedSink : public Application
{
  public:
    static constexpr uint32_t kReadChunk = 65536;

    void Setup(uint16_t port, size_t flow)
    {
        m_port = port;
        m_flow = flow;
    }

  private:
    void StartApplication() override
    {
        m_socket = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
        if (m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) == -1)
        {
            Fail("receiver of flow " + std::to_string(m_flow) + ": cannot bind port " +
                 std::to_string(m_port));
        }
        m_socket->Listen();
        m_socket->ShutdownSend();
        m_socket->SetRecvCallback(MakeCallback(&ChunkedSink::Read, this));
        m_socket->SetRecvPktInfo(true);
        m_socket->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&ChunkedSink::Accept, this));
    }

    void Accept(Ptr<Socket> s, const Address&)
    {
        s->SetRecvCallback(MakeCallback(&ChunkedSink::Read, this));
        m_accepted.push_back(s);
    }

    void Read(Ptr<Socket> s)
    {
        Address from;
        while (Ptr<Packet> p = s->RecvFrom(kReadChunk, 0, from))
        {
            if (p->GetSize() == 0)
            {
                break; // end of stream
            }
            OnRx(m_flow, p, from);
        }
    }

    uint16_t m_port = 0;
    size_t m_flow = 0;
    Ptr<Socket> m_socket;
    std::vector<Ptr<Socket>> m_accepted;
};

} // namespace mmcc_runner

#endif
