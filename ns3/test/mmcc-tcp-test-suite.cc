/*
 * Unit tests of mmcc's ns-3 congestion controls, with the hand-derived values of the Rust tests
 * (the files of crates/mmcc-core/src/cca/), and a two-node check that each class fills a link.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "../model/mmcc-stream-error-model.h"
#include "../model/tcp-dtcp.h"
#include "../model/tcp-fbtcp.h"
#include "../model/tcp-mms-tcp.h"
#include "../model/tcp-mrvhs.h"
#include "../model/tcp-mss-cca.h"
#include "../model/tcp-rttv.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/test.h"
#include "ns3/traffic-control-module.h"

using namespace ns3;

namespace
{

/// A socket state with the given segment size, cwnd and ssthresh (in segments).
Ptr<TcpSocketState>
State(uint32_t mss, uint32_t cwndSegments, uint32_t ssthreshSegments)
{
    Ptr<TcpSocketState> tcb = CreateObject<TcpSocketState>();
    tcb->m_segmentSize = mss;
    tcb->m_cWnd = cwndSegments * mss;
    tcb->m_ssThresh = ssthreshSegments * mss;
    return tcb;
}

/// RTTV: F = sqrt((rtt_max + rtt_base) / rtt_cur * cwnd) segments per RTT (thesis eq. 4.4).
class RttvTestCase : public TestCase
{
  public:
    RttvTestCase()
        : TestCase("RTTV: cwnd grows by sqrt(TimeRatio cwnd) over cwnd per ACK")
    {
    }

  private:
    void DoRun() override
    {
        // rtt_base 20 ms, rtt_max 40 ms, rtt_cur 20 ms: F = sqrt(3 * 100) = 17.3205 segments per
        // RTT; per ACK 0.173205 segment = 242.487 bytes
        Ptr<TcpRttv> r = CreateObject<TcpRttv>();
        Ptr<TcpSocketState> tcb = State(1400, 100, 50);
        r->PktsAcked(tcb, 1, MilliSeconds(40));
        r->PktsAcked(tcb, 1, MilliSeconds(20));
        NS_TEST_ASSERT_MSG_EQ_TOL(r->TimeRatio(), 3.0, 1e-12, "TimeRatio (40 + 20) / 20");
        r->IncreaseWindow(tcb, 1);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 140000u + 242u, "one ACK adds 242 bytes");

        // rtt_cur = 40 ms: F = sqrt(60 / 40 * 100) = 12.247 -> 171.46 bytes
        Ptr<TcpRttv> r2 = CreateObject<TcpRttv>();
        Ptr<TcpSocketState> tcb2 = State(1400, 100, 50);
        r2->PktsAcked(tcb2, 1, MilliSeconds(20));
        r2->PktsAcked(tcb2, 1, MilliSeconds(40));
        r2->IncreaseWindow(tcb2, 1);
        NS_TEST_ASSERT_MSG_EQ(tcb2->m_cWnd.Get(), 140000u + 171u, "slower growth at rtt_max");

        // beta = 0.5 of the bytes in flight, at least 2 segments
        NS_TEST_ASSERT_MSG_EQ(r->GetSsThresh(tcb, 70000), 35000u, "half the flight");
        NS_TEST_ASSERT_MSG_EQ(r->GetSsThresh(tcb, 1400), 2800u, "two segments at least");
    }
};

/// MSS-CCA: F = sqrt(MSS * TimeRatio), MSS in bytes.
class MssCcaTestCase : public TestCase
{
  public:
    MssCcaTestCase()
        : TestCase("MSS-CCA: cwnd grows by sqrt(MSS TimeRatio) over cwnd per ACK")
    {
    }

  private:
    void DoRun() override
    {
        // F = sqrt(1400 * 3) = 64.807; F / 100 = 0.64807 segment = 907.3 bytes
        Ptr<TcpMssCca> m = CreateObject<TcpMssCca>();
        Ptr<TcpSocketState> tcb = State(1400, 100, 50);
        m->PktsAcked(tcb, 1, MilliSeconds(40));
        m->PktsAcked(tcb, 1, MilliSeconds(20));
        m->IncreaseWindow(tcb, 1);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 140000u + 907u, "one ACK adds 907 bytes");

        // below ssthresh: ns-3 slow start, one segment per ACK
        Ptr<TcpSocketState> ss = State(1400, 10, 50);
        m->IncreaseWindow(ss, 2);
        NS_TEST_ASSERT_MSG_EQ(ss->m_cWnd.Get(), 11u * 1400, "slow start adds one segment per ACK");
    }
};

/// MRVHS: MSS-CCA's increase, HighSpeed's decrease.
class MrvhsTestCase : public TestCase
{
  public:
    MrvhsTestCase()
        : TestCase("MRVHS: RFC 3649 decrease b(w)")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpMrvhs> m = CreateObject<TcpMrvhs>();
        Ptr<TcpSocketState> tcb = State(1400, 1058, 10);
        // b(1058) = 0.33 (RFC 3649 Appendix B): 0.67 * 1058 = 708.86 -> 708 segments
        NS_TEST_ASSERT_MSG_EQ(m->GetSsThresh(tcb, 1058 * 1400), 708u * 1400, "(1 - b(w)) w");
        // at or below Low_Window = 38 segments: half the flight
        NS_TEST_ASSERT_MSG_EQ(m->GetSsThresh(tcb, 30 * 1400), 15u * 1400, "halves like Reno");
        m->PktsAcked(tcb, 1, MilliSeconds(40));
        m->PktsAcked(tcb, 1, MilliSeconds(20));
        Ptr<TcpSocketState> ca = State(1400, 100, 50);
        m->IncreaseWindow(ca, 1);
        NS_TEST_ASSERT_MSG_EQ(ca->m_cWnd.Get(), 140000u + 907u, "MSS-CCA's increase");
    }
};

/// mmS-TCP: cwnd += 1/a per ACK, a = 1, 2, ... a_max; decreases 0.125 / 0.5.
class MmsTcpTestCase : public TestCase
{
  public:
    MmsTcpTestCase()
        : TestCase("mmS-TCP: harmonic growth, counter bound, two decrease factors")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpMmsTcp> m = CreateObject<TcpMmsTcp>();
        Ptr<TcpSocketState> tcb = State(1000, 100, 10);
        // +1/1, +1/2, +1/3, +1/4 segment: 1000, 500, 333(.33), 250 bytes (fractions carried)
        const uint32_t expect[] = {1000, 500, 333, 250};
        for (uint32_t e : expect)
        {
            uint32_t before = tcb->m_cWnd;
            m->IncreaseWindow(tcb, 1);
            NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get() - before, e, "harmonic step");
        }
        for (int i = 0; i < 200; i++)
        {
            m->IncreaseWindow(tcb, 1);
        }
        NS_TEST_ASSERT_MSG_EQ(m->Counter(), 125.0, "counter stops at a_max");
        uint32_t before = tcb->m_cWnd;
        for (int i = 0; i < 125; i++)
        {
            m->IncreaseWindow(tcb, 1);
        }
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get() - before, 1000u, "one segment per 125 ACKs");

        NS_TEST_ASSERT_MSG_EQ(m->GetSsThresh(State(1000, 800, 10), 0), 700000u, "CA: -0.125 cwnd");
        NS_TEST_ASSERT_MSG_EQ(m->GetSsThresh(State(1000, 800, 5000), 0), 400000u, "SS: -0.5 cwnd");
        m->CongestionStateSet(tcb, TcpSocketState::CA_RECOVERY);
        NS_TEST_ASSERT_MSG_EQ(m->Counter(), 1.0, "a reduction resets the counter");
    }
};

/// NexGen D-TCP: N per epoch (eq. 6-12) and y = 2 / (3N + 1).
class DtcpTestCase : public TestCase
{
  public:
    DtcpTestCase()
        : TestCase("D-TCP: congestion control factor N and decrease y")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpDtcp> d = CreateObject<TcpDtcp>();
        NS_TEST_ASSERT_MSG_EQ(d->Decrease(), 0.5, "y = 2 / (3 + 1) at N = 1");
        for (int i = 0; i < 5; i++)
        {
            d->Epoch(100.0, 50.0);
        }
        NS_TEST_ASSERT_MSG_EQ(d->FactorN(), 6.0, "steady bandwidth: N grows by one per epoch");
        // sample 90 after 100: B_I = 99, BW_E = 99 + 0.5 (90 - 99) = 94.5;
        // N = 6 + 1 - (94.5 - 90) / (0.2 * 94.5) * 50 = 7 - 11.9 -> 1
        d->Epoch(90.0, 50.0);
        NS_TEST_ASSERT_MSG_EQ(d->FactorN(), 1.0, "a bandwidth drop collapses N");

        Ptr<TcpDtcp> d3 = CreateObject<TcpDtcp>();
        d3->Epoch(100.0, 50.0);
        d3->Epoch(100.0, 50.0);
        NS_TEST_ASSERT_MSG_EQ(d3->FactorN(), 3.0, "N = 3");
        NS_TEST_ASSERT_MSG_EQ_TOL(d3->Decrease(), 0.2, 1e-15, "y = 2 / 10");
        NS_TEST_ASSERT_MSG_EQ(d3->GetSsThresh(State(1000, 100, 10), 0), 80000u, "cwnd (1 - y)");

        // per ACK in CA: cwnd += N / cwnd
        Ptr<TcpSocketState> tcb = State(1000, 100, 10);
        d3->IncreaseWindow(tcb, 1);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 100030u, "3 / 100 segment");

        // the SINR term as the bandwidth change its spectral efficiency implies (as the Rust
        // test): SINR_avg 20 -> 18 dB, SINR 0 dB: term = 100 (1 / log2(1 + 10^1.8) - 1)
        Ptr<TcpDtcp> s = CreateObject<TcpDtcp>();
        s->NotifySinr(20.0);
        s->Epoch(100.0, 10.0);
        NS_TEST_ASSERT_MSG_EQ(s->FactorN(), 2.0, "no SINR deviation yet");
        s->NotifySinr(0.0);
        s->Epoch(100.0, 10.0);
        double bwE = 100.0 + 0.5 * 100.0 * (1.0 / std::log2(1.0 + std::pow(10.0, 1.8)) - 1.0);
        NS_TEST_ASSERT_MSG_EQ_TOL(s->FactorN(),
                                  3.0 - (bwE - 100.0) / (0.2 * bwE) * 10.0,
                                  1e-9,
                                  "an SINR drop enters eq. 8 as a bandwidth");
    }
};

/// FB-TCP: the crisp tables.
class FbTcpTestCase : public TestCase
{
  public:
    FbTcpTestCase()
        : TestCase("FB-TCP: crisp per-RTT tables")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpFbTcp> f = CreateObject<TcpFbTcp>();
        f->SetCap(10000.0);
        Ptr<TcpSocketState> tcb = State(1000, 100, 10);
        f->Update(tcb, 1.0); // diff 0 <= 10: +120
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 220000u, "no queue: +120");
        tcb = State(1000, 1000, 10);
        f->Update(tcb, 0.985); // diff = 1000 - 985 = 15: +100
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 1100000u, "diff 15: +100");

        Ptr<TcpFbTcp> g = CreateObject<TcpFbTcp>();
        g->SetCap(10000.0);
        tcb = State(1000, 1000, 10);
        g->Update(tcb, 0.2); // [0.05, 0.3), q < 0.95: -25
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 975000u, "low ratio: -25");
        g->Update(tcb, 0.2); // then -50
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 925000u, "then -50");
        g->Update(tcb, 0.01); // [0, 0.05): *0.4
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 370000u, "floor: *0.4");

        Ptr<TcpFbTcp> h = CreateObject<TcpFbTcp>();
        h->SetCap(500.0);
        tcb = State(1000, 1000, 10);
        h->Update(tcb, 1.0);
        NS_TEST_ASSERT_MSG_EQ(tcb->m_cWnd.Get(), 1001000u, "above the cap: +1");
        NS_TEST_ASSERT_MSG_EQ(tcb->m_ssThresh.Get(), 750750u, "ssthresh = 0.75 cwnd");

        // loss: max(min(ssthresh, cwnd - 1), 2) segments
        NS_TEST_ASSERT_MSG_EQ(h->GetSsThresh(State(1000, 100, 50), 0),
                              50000u,
                              "min(ssthresh, cwnd - 1)");
        NS_TEST_ASSERT_MSG_EQ(h->GetSsThresh(State(1000, 40, 50), 0), 39000u, "cwnd - 1");
        NS_TEST_ASSERT_MSG_EQ(h->GetSsThresh(State(1000, 1, 1), 0), 2000u, "two segments");
    }
};

/// FB-TCP: W* from the throughput of the last 100 ms interval and rtt_base.
/// The ACK at the end of FbTcpCapTestCase's 100 ms interval (a function, not a lambda: ns-3.35's
/// Simulator::Schedule takes functions and member functions only).
void
EndOfInterval(Ptr<TcpFbTcp> f, Ptr<TcpSocketState> tcb)
{
    // 500,000 bytes delivered in order in 100 ms = 5 MB/s; the ACK also ends the round
    tcb->m_lastAckedSeq = SequenceNumber32(500000);
    tcb->m_highTxMark = SequenceNumber32(600000);
    f->PktsAcked(tcb, 1, MilliSeconds(20));
    f->IncreaseWindow(tcb, 1);
}

class FbTcpCapTestCase : public TestCase
{
  public:
    FbTcpCapTestCase()
        : TestCase("FB-TCP: cap from the 100 ms throughput")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TcpFbTcp> f = CreateObject<TcpFbTcp>();
        Ptr<TcpSocketState> tcb = State(1000, 100, 1000000);
        tcb->m_highTxMark = SequenceNumber32(100000);
        f->PktsAcked(tcb, 1, MilliSeconds(20)); // the 100 ms interval starts: una 0
        f->IncreaseWindow(tcb, 1);              // the round starts: its end is 100000
        Simulator::Schedule(MilliSeconds(100), &EndOfInterval, f, tcb);
        Simulator::Run();
        Simulator::Destroy();
        // W* = 1.05 * 5e6 B/s * 0.02 s / 1000 B = 105 segments
        NS_TEST_ASSERT_MSG_EQ_TOL(f->Cap(), 105.0, 1e-9, "W*");
    }
};

/// A packet as a point-to-point device receives it: PPP, IPv4, TCP with `flags` and `payload`
/// bytes.
Ptr<Packet>
PppTcp(uint8_t flags, uint32_t payload)
{
    Ptr<Packet> p = Create<Packet>(payload);
    TcpHeader tcp;
    tcp.SetFlags(flags);
    p->AddHeader(tcp);
    Ipv4Header ip;
    ip.SetProtocol(6);
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    PppHeader ppp;
    ppp.SetProtocol(0x0021);
    p->AddHeader(ppp);
    return p;
}

/// mmcc's generator and loss draws, bit for bit (the values rng.rs pins in
/// stream_values_are_pinned_for_the_other_implementations).
class MmccStreamErrorModelTestCase : public TestCase
{
  public:
    MmccStreamErrorModelTestCase()
        : TestCase("MmccStreamErrorModel: mmcc's stream, its packets, its drop list")
    {
    }

  private:
    void DoRun() override
    {
        MmccRng r(1, "link/1/ab/error");
        NS_TEST_ASSERT_MSG_EQ(r.NextU64(), 0xa8a2a36af04abc57ULL, "first draw");
        NS_TEST_ASSERT_MSG_EQ(r.NextU64(), 0xbb0caba12d459afaULL, "second draw");
        NS_TEST_ASSERT_MSG_EQ(r.NextU64(), 0x5715a359f76d5940ULL, "third draw");

        // 5,000 data segments with a handshake ACK, SYNs and pure ACKs among them: the data
        // segments mmcc loses at 1e-3 per packet are lost, nothing else is ever dropped
        Ptr<MmccStreamErrorModel> em = CreateObject<MmccStreamErrorModel>();
        em->Configure(1,
                      "link/1/ab/error",
                      MmccStreamErrorModel::UNIT_PACKET,
                      1e-3,
                      true,
                      false,
                      {});
        std::vector<uint64_t> lost;
        NS_TEST_ASSERT_MSG_EQ(em->IsCorrupt(PppTcp(TcpHeader::SYN, 0)), false, "SYN");
        NS_TEST_ASSERT_MSG_EQ(em->IsCorrupt(PppTcp(TcpHeader::ACK, 0)), false, "handshake ACK");
        for (uint64_t i = 0; i < 5000; i++)
        {
            if (em->IsCorrupt(PppTcp(TcpHeader::ACK, 1400)))
            {
                lost.push_back(i);
            }
            NS_TEST_ASSERT_MSG_EQ(em->IsCorrupt(PppTcp(TcpHeader::ACK, 0)), false, "pure ACK");
        }
        const std::vector<uint64_t> expect = {871, 921, 1269, 2123, 4107, 4474, 4958};
        NS_TEST_ASSERT_MSG_EQ((lost == expect), true, "the indices mmcc loses");
        NS_TEST_ASSERT_MSG_EQ(em->Arrivals(), 5000u, "data segments counted");

        // an ACK direction with a drop list: the 2nd and 5th pure ACK, data never counted
        Ptr<MmccStreamErrorModel> acks = CreateObject<MmccStreamErrorModel>();
        acks->Configure(1,
                        "link/1/ba/error",
                        MmccStreamErrorModel::UNIT_PACKET,
                        0.0,
                        false,
                        true,
                        {4, 1});
        std::vector<bool> got;
        for (int i = 0; i < 6; i++)
        {
            NS_TEST_ASSERT_MSG_EQ(acks->IsCorrupt(PppTcp(TcpHeader::ACK, 1400)), false, "data");
            got.push_back(acks->IsCorrupt(PppTcp(TcpHeader::ACK, 0)));
        }
        const std::vector<bool> want = {false, true, false, false, true, false};
        NS_TEST_ASSERT_MSG_EQ((got == want), true, "drop list by index among pure ACKs");
    }
};

/// Two nodes, one 10 Mb/s link with a 100-packet drop-tail queue: each class must fill it.
class FillsTheLinkTestCase : public TestCase
{
  public:
    explicit FillsTheLinkTestCase(std::string typeName)
        : TestCase(typeName.substr(5) + " fills a 10 Mbps link")
        , m_type(std::move(typeName))
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(m_type));
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1400));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 22));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 22));
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Mbps"));
        p2p.SetChannelAttribute("Delay", StringValue("10ms"));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("100p"));
        NetDeviceContainer devices = p2p.Install(nodes);
        InternetStackHelper stack;
        stack.Install(nodes);
        Ipv4AddressHelper address;
        address.SetBase("10.1.1.0", "255.255.255.0");
        Ipv4InterfaceContainer ifs = address.Assign(devices);
        TrafficControlHelper tch;
        tch.Uninstall(devices);
        BulkSendHelper source("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), 9));
        ApplicationContainer src = source.Install(nodes.Get(0));
        src.Start(Seconds(0.0));
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), 9));
        ApplicationContainer dst = sink.Install(nodes.Get(1));
        Simulator::Stop(Seconds(10.0));
        Simulator::Run();
        double mbps = DynamicCast<PacketSink>(dst.Get(0))->GetTotalRx() * 8.0 / 10.0 / 1e6;
        Simulator::Destroy();
        // payload share of 10 Mb/s with 1400-byte segments and 52 header bytes: 9.64 Mb/s
        NS_TEST_ASSERT_MSG_GT(mbps, 8.5, m_type << " goodput " << mbps << " Mb/s");
        NS_TEST_ASSERT_MSG_LT(mbps, 9.65, m_type << " goodput above the link rate");
    }

    std::string m_type;
};

class MmccTcpTestSuite : public TestSuite
{
  public:
    MmccTcpTestSuite()
        : TestSuite("mmcc-tcp", UNIT)
    {
        AddTestCase(new RttvTestCase, TestCase::QUICK);
        AddTestCase(new MssCcaTestCase, TestCase::QUICK);
        AddTestCase(new MrvhsTestCase, TestCase::QUICK);
        AddTestCase(new MmsTcpTestCase, TestCase::QUICK);
        AddTestCase(new DtcpTestCase, TestCase::QUICK);
        AddTestCase(new FbTcpTestCase, TestCase::QUICK);
        AddTestCase(new FbTcpCapTestCase, TestCase::QUICK);
        AddTestCase(new MmccStreamErrorModelTestCase, TestCase::QUICK);
        for (const char* t : {"ns3::TcpRttv",
                              "ns3::TcpMssCca",
                              "ns3::TcpMrvhs",
                              "ns3::TcpMmsTcp",
                              "ns3::TcpDtcp",
                              "ns3::TcpFbTcp"})
        {
            AddTestCase(new FillsTheLinkTestCase(t), TestCase::QUICK);
        }
    }
};

static MmccTcpTestSuite g_mmccTcpTestSuite; //!< registers the suite

} // namespace
