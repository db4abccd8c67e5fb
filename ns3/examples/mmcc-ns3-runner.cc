/*
 * mmcc-ns3-runner: runs a scenario exported by `mmcc export-ns3` in ns-3 (3.35-3.37) with the
 * same semantics as the mmcc simulator, and writes the tables mmcc writes (per flow, and per
 * 100 ms bin: throughput, cwnd, RTT) as CSV.
 *
 *   mmcc-ns3-runner --config=case.json --out=DIR [--seed=N]
 *
 * What the runner maps, and how (each choice is the ns-3 way of saying what mmcc models):
 * - nodes, point-to-point links (rate, delay, MTU) with their own /30 subnet and global routing;
 * - the queue of each link direction: ns-3's traffic-control layer is removed (Ipv4AddressHelper
 *   installs FqCoDel by default) and the device's DropTailQueue is given the scenario's limit in
 *   bytes or packets, so the drop-tail queue is the only buffer;
 * - the error model of a link direction sits on the receiving device (ReceiveErrorModel), with the
 *   scenario's unit (bit, byte, packet) and rate; by default (--errors=mmcc) its draws come from
 *   mmcc's own random stream of that direction for the packets mmcc has there, so the same seed
 *   loses the same packets in both simulators (MmccStreamErrorModel; also applies `drop_list`);
 *   --errors=ns3 uses ns-3's RateErrorModel and RNG instead. Reordering and outages are refused;
 * - a time-varying rate (steps or a Mahimahi trace, exported as (time, rate) steps) changes the
 *   sending device's DataRate at each step;
 * - TCP: every TcpSocket / TcpSocketBase attribute from the flow's resolved TCP settings, the
 *   flow's algorithm as its own TcpL4Protocol SocketType at socket creation, PRR recovery, pacing
 *   when the settings (or BBR, which needs it) ask for it;
 * - applications: a bulk sender that keeps the send buffer full (or sends a byte budget), and
 *   ns-3's PacketSink at the receiver, reading in 64 KiB chunks (ChunkedSink, below).
 */
#include "../model/mmcc-stream-error-model.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;
using json = nlohmann::json;

namespace
{

[[noreturn]] void
Fail(const std::string& what)
{
    std::cerr << "mmcc-ns3-runner: error: " << what << std::endl;
    std::exit(2);
}

/// mmcc algorithm name -> ns-3 TypeId name (the classes ns-3 3.37 ships, and this module's).
std::string
Ns3TypeName(const std::string& cca)
{
    static const std::map<std::string, std::string> names = {
        {"newreno", "ns3::TcpNewReno"},
        {"highspeed", "ns3::TcpHighSpeed"},
        {"cubic", "ns3::TcpCubic"},
        {"bbr", "ns3::TcpBbr"},
        {"vegas", "ns3::TcpVegas"},
        {"scalable", "ns3::TcpScalable"},
        {"bic", "ns3::TcpBic"},
        {"htcp", "ns3::TcpHtcp"},
        {"hybla", "ns3::TcpHybla"},
        {"westwood", "ns3::TcpWestwood"},
        {"yeah", "ns3::TcpYeah"},
        {"rttv", "ns3::TcpRttv"},
        {"msscca", "ns3::TcpMssCca"},
        {"mrvhs", "ns3::TcpMrvhs"},
        {"fbtcp", "ns3::TcpFbTcp"},
        {"dtcp", "ns3::TcpDtcp"},
        {"mmstcp", "ns3::TcpMmsTcp"},
    };
    auto it = names.find(cca);
    if (it == names.end())
    {
        Fail("algorithm '" + cca + "' has no ns-3 class in this runner");
    }
    return it->second;
}

/// Per-flow measurements, binned as mmcc's series table.
struct FlowStats
{
    Time bin;
    std::vector<uint64_t> rxBytes;
    std::vector<double> cwnd; // last value seen in the bin, -1: none
    std::vector<double> ssthresh;
    std::vector<double> rttSum;
    std::vector<uint32_t> rttN;
    uint64_t totalRx = 0;
    uint32_t rtos = 0;
    uint32_t fastRetx = 0;
    bool inLoss = false; // the socket's congestion state is CA_LOSS
    uint64_t txBytes = 0;
    uint64_t retxBytes = 0;
    uint32_t highSeq = 0;
    bool anySent = false;

    size_t Index(Time t) const
    {
        return static_cast<size_t>(t.GetNanoSeconds() / bin.GetNanoSeconds());
    }

    /// The bin of the current time, allocated.
    size_t BinNow()
    {
        size_t i = Index(Simulator::Now());
        Grow(i);
        return i;
    }

    void Grow(size_t i)
    {
        if (i >= rxBytes.size())
        {
            rxBytes.resize(i + 1, 0);
            cwnd.resize(i + 1, -1);
            ssthresh.resize(i + 1, -1);
            rttSum.resize(i + 1, 0);
            rttN.resize(i + 1, 0);
        }
    }
};

std::vector<FlowStats> g_stats;
/// `--cwnd-trace`: every change of flow 0's congestion window (ns time, bytes), or null.
std::ofstream* g_cwndTrace = nullptr;
/// Packets dropped by receive error models (PhyRxDrop of the devices that have one).
uint64_t g_errorDrops = 0;
/// Packets that reached a device with a receive error model (dropped or not).
uint64_t g_errorModelPackets = 0;

/// `--txbuffer-at`: flow 0's transmit buffer (ns-3's own scoreboard: its counts and every
/// segment with its flags) written to stderr at one instant, for state-by-state comparisons.
Ptr<Socket> g_flow0Socket;

void
DumpTxBuffer()
{
    Ptr<TcpSocketBase> tcp = DynamicCast<TcpSocketBase>(g_flow0Socket);
    if (!tcp)
    {
        std::cerr << "txbuffer at " << Simulator::Now().GetNanoSeconds() << ": no socket yet\n";
        return;
    }
    Ptr<TcpTxBuffer> tx = tcp->GetTxBuffer();
    std::cerr << "txbuffer at " << Simulator::Now().GetNanoSeconds() << ": head "
              << tx->HeadSequence() << " sacked " << tx->GetSacked() << " lost " << tx->GetLost()
              << " retrans " << tx->GetRetransmitsCount() << " in_flight " << tx->BytesInFlight()
              << "\n"
              << *tx << "\n";
}

/// A whole decimal integer (nothing else in `text`), into `*out`.
bool
ParseWholeInt(const std::string& text, int64_t* out)
{
    try
    {
        size_t used = 0;
        *out = std::stoll(text, &used);
        return used == text.size();
    }
    catch (const std::exception&)
    {
        return false;
    }
}

/// A byte count kept as a double (NaN: not known yet) for a table: whole, or "nan".
std::string
WholeBytes(double v)
{
    return std::isnan(v) ? "nan" : std::to_string(static_cast<int64_t>(v));
}

/// `--log`: ns-3's own log components, switched on for a window of simulated time (a
/// diagnostic: the reference's decisions, e.g. which call sent a segment, at one instant).
std::vector<std::string> g_logComponents;

void
SetLogs(bool on)
{
    for (const auto& name : g_logComponents)
    {
        if (on)
        {
            LogComponentEnable(name.c_str(),
                               LogLevel(LOG_LEVEL_ALL | LOG_PREFIX_TIME | LOG_PREFIX_FUNC));
        }
        else
        {
            LogComponentDisable(name.c_str(), LOG_LEVEL_ALL);
        }
    }
}

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

void
OnRx(size_t flow, Ptr<const Packet> p, const Address&)
{
    FlowStats& s = g_stats[flow];
    size_t i = s.BinNow();
    s.rxBytes[i] += p->GetSize();
    s.totalRx += p->GetSize();
}

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

std::string
LimitText(const json& q)
{
    if (q.contains("limit_bytes") && !q["limit_bytes"].is_null())
    {
        return std::to_string(q["limit_bytes"].get<uint64_t>()) + "B";
    }
    if (q.contains("limit_packets") && !q["limit_packets"].is_null())
    {
        return std::to_string(q["limit_packets"].get<uint64_t>()) + "p";
    }
    return "1000p";
}

/// The receive error model of one direction (`peer` receives), if it has random loss or a drop
/// list: mmcc's stream of the direction (MmccStreamErrorModel, with the drop list) or ns-3's
/// RateErrorModel (--errors=ns3).
void
ConfigureErrors(const json& d,
                Ptr<PointToPointNetDevice> peer,
                const std::string& where,
                uint64_t seed,
                bool mmccDraws)
{
    const bool hasError = d.contains("error") && !d["error"].is_null();
    const bool hasDropList =
        d.contains("drop_list") && d["drop_list"].is_array() && !d["drop_list"].empty();
    if (!hasError && !hasDropList)
    {
        return;
    }
    std::string unit = hasError ? d["error"].at("unit").get<std::string>() : "packet";
    double rate = hasError ? d["error"].at("rate").get<double>() : 0.0;
    if (unit != "packet" && unit != "byte" && unit != "bit")
    {
        Fail(where + ".error.unit: '" + unit + "' is not bit, byte or packet");
    }
    Ptr<ErrorModel> model;
    if (mmccDraws)
    {
        // mmcc's own random stream for this direction, for the packets mmcc has on it (common
        // random numbers: the n-th such packet is lost here iff mmcc loses it).
        if (!d.contains("stream") || !d.contains("carries"))
        {
            Fail(where + ": the export has no 'stream'/'carries' (re-export with this mmcc)");
        }
        bool data = false;
        bool acks = false;
        for (const json& c : d["carries"])
        {
            data = data || c.get<std::string>() == "data";
            acks = acks || c.get<std::string>() == "acks";
        }
        std::vector<uint64_t> dropList;
        if (hasDropList)
        {
            dropList = d["drop_list"].get<std::vector<uint64_t>>();
        }
        Ptr<MmccStreamErrorModel> em = CreateObject<MmccStreamErrorModel>();
        em->Configure(seed,
                      d["stream"].get<std::string>() + "/error",
                      unit == "packet" ? MmccStreamErrorModel::UNIT_PACKET
                      : unit == "byte" ? MmccStreamErrorModel::UNIT_BYTE
                                       : MmccStreamErrorModel::UNIT_BIT,
                      rate,
                      data,
                      acks,
                      dropList);
        model = em;
    }
    else
    {
        if (hasDropList)
        {
            Fail(where + ".drop_list: drop lists need --errors=mmcc");
        }
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetRate(rate);
        em->SetUnit(unit == "packet" ? RateErrorModel::ERROR_UNIT_PACKET
                    : unit == "byte" ? RateErrorModel::ERROR_UNIT_BYTE
                                     : RateErrorModel::ERROR_UNIT_BIT);
        model = em;
    }
    // ns-3: the receive error model belongs on the receiving device.
    peer->SetAttribute("ReceiveErrorModel", PointerValue(model));
    peer->TraceConnectWithoutContext("PhyRxDrop",
                                     MakeCallback(+[](Ptr<const Packet>) { g_errorDrops++; }));
    peer->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(+[](Ptr<const Packet>) {
                                         g_errorModelPackets++;
                                     }));
}

/// A step of a link's rate schedule (a function, not a lambda: ns-3.35's Simulator::Schedule
/// takes functions and member functions only).
void
SetDeviceRate(Ptr<PointToPointNetDevice> dev, uint64_t bps)
{
    dev->SetAttribute("DataRate", DataRateValue(DataRate(std::max<uint64_t>(bps, 1))));
}

/// Configure one direction (`dev` sends, `peer` receives): queue, error model, rate schedule.
void
ConfigureDirection(const json& d,
                   Ptr<PointToPointNetDevice> dev,
                   Ptr<PointToPointNetDevice> peer,
                   const std::string& where,
                   uint64_t seed,
                   bool mmccDraws)
{
    if (d.is_null())
    {
        return;
    }
    if (d.contains("queue") && !d["queue"].is_null())
    {
        const json& q = d["queue"];
        std::string type = q.value("type", "droptail");
        if (type != "droptail")
        {
            Fail(where + ".queue: only drop-tail queues are mapped to ns-3 by this runner, got '" +
                 type + "'");
        }
        Ptr<Queue<Packet>> queue = dev->GetQueue();
        queue->SetAttribute("MaxSize", QueueSizeValue(LimitText(q)));
    }
    for (const char* opt : {"reorder", "outages"})
    {
        if (d.contains(opt) && !d[opt].is_null() && !(d[opt].is_array() && d[opt].empty()))
        {
            Fail(where + "." + opt + ": not mapped to ns-3 by this runner");
        }
    }
    ConfigureErrors(d, peer, where, seed, mmccDraws);
    if (d.contains("rate_steps") && !d["rate_steps"].is_null())
    {
        for (const json& step : d["rate_steps"])
        {
            Time at = NanoSeconds(step.at(0).get<int64_t>());
            uint64_t bps = step.at(1).get<uint64_t>();
            Simulator::Schedule(at, &SetDeviceRate, dev, bps);
        }
    }
}

void
SetTcpDefaults(const json& tcp)
{
    // ns-3 TcpSocket / TcpSocketBase attributes from the resolved settings (bytes, ns).
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(tcp.at("mss").get<uint32_t>()));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd",
                       UintegerValue(tcp.at("initial_cwnd").get<uint32_t>()));
    if (tcp.contains("initial_ssthresh") && !tcp["initial_ssthresh"].is_null())
    {
        Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                           UintegerValue(tcp["initial_ssthresh"].get<uint32_t>()));
    }
    Config::SetDefault("ns3::TcpSocket::SndBufSize",
                       UintegerValue(tcp.at("snd_buf").get<uint32_t>()));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize",
                       UintegerValue(tcp.at("rcv_buf").get<uint32_t>()));
    Config::SetDefault("ns3::TcpSocket::DelAckCount",
                       UintegerValue(tcp.at("delack_count").get<uint32_t>()));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout",
                       TimeValue(NanoSeconds(tcp.at("delack_timeout").get<int64_t>())));
    Config::SetDefault("ns3::TcpSocketBase::MinRto",
                       TimeValue(NanoSeconds(tcp.at("min_rto").get<int64_t>())));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity",
                       TimeValue(NanoSeconds(tcp.at("clock_granularity").get<int64_t>())));
    Config::SetDefault("ns3::TcpSocketBase::ReTxThreshold",
                       UintegerValue(tcp.at("dupthresh").get<uint32_t>()));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(tcp.at("sack").get<bool>()));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp",
                       BooleanValue(tcp.value("timestamps", true)));
    Config::SetDefault("ns3::TcpSocketBase::LimitedTransmit",
                       BooleanValue(tcp.value("limited_transmit", true)));
    Config::SetDefault("ns3::TcpSocketBase::WindowScaling", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::TcpNoDelay", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DataRetries", UintegerValue(1000));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(tcp.value("prr", true) ? TcpPrrRecovery::GetTypeId()
                                                          : TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketState::EnablePacing",
                       BooleanValue(tcp.value("pacing", false)));
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string configPath;
    std::string outDir = ".";
    int64_t seedOverride = -1;
    CommandLine cmd(__FILE__);
    cmd.AddValue("config", "scenario exported by `mmcc export-ns3` (JSON)", configPath);
    cmd.AddValue("out", "output folder (flows.csv, series.csv)", outDir);
    cmd.AddValue("seed", "run number (overrides the scenario's seed)", seedOverride);
    std::string errors = "mmcc";
    cmd.AddValue("errors",
                 "random losses: 'mmcc' draws them from mmcc's stream of the link direction for "
                 "the packets mmcc has there (the same losses as `mmcc run` with this seed), "
                 "'ns3' from ns-3's RateErrorModel",
                 errors);
    std::string cwndTrace;
    cmd.AddValue("cwnd-trace",
                 "also write every change of flow 0's congestion window to this file "
                 "(lines: time in ns, cwnd in bytes), for change-by-change comparisons",
                 cwndTrace);
    std::string pcapPrefix;
    cmd.AddValue("pcap",
                 "also write a pcap per device: PREFIX-link<i>-<node>-<device>.pcap (a diagnostic)",
                 pcapPrefix);
    int64_t txBufferAt = -1;
    cmd.AddValue("txbuffer-at",
                 "write flow 0's transmit buffer (counts and every segment's flags) to stderr "
                 "at this simulated time in ns (a diagnostic)",
                 txBufferAt);
    std::string logSpec;
    cmd.AddValue("log",
                 "switch ns-3 log components on between two simulated times: "
                 "COMPONENT[,COMPONENT...]@FROM_NS-TO_NS, e.g. TcpSocketBase@3893900000-3893950000 "
                 "(ns-3's log lines on stderr, prefixed with the simulated time; a diagnostic)",
                 logSpec);
    cmd.Parse(argc, argv);
    // pcap timestamps in ns (mmcc's captures are too), so ties of one instant keep their order
    Config::SetDefault("ns3::PcapFileWrapper::NanosecMode", BooleanValue(true));
    int64_t logFrom = -1;
    int64_t logTo = -1;
    if (!logSpec.empty())
    {
        const auto at = logSpec.find('@');
        const auto dash = at == std::string::npos ? at : logSpec.find('-', at);
        if (dash == std::string::npos ||
            !ParseWholeInt(logSpec.substr(at + 1, dash - at - 1), &logFrom) ||
            !ParseWholeInt(logSpec.substr(dash + 1), &logTo))
        {
            Fail("--log=" + logSpec +
                 ": expected COMPONENT[,COMPONENT...]@FROM_NS-TO_NS, e.g. "
                 "TcpSocketBase,TcpTxBuffer@3893900000-3893950000");
        }
        if (logFrom < 0 || logTo <= logFrom)
        {
            Fail("--log=" + logSpec + ": the window must satisfy 0 <= FROM_NS < TO_NS");
        }
        std::stringstream names(logSpec.substr(0, at));
        std::string name;
        while (std::getline(names, name, ','))
        {
            if (!LogComponent::GetComponentList()->count(name))
            {
                Fail("--log=" + logSpec + ": '" + name +
                     "' is not an ns-3 log component (e.g. TcpSocketBase, TcpTxBuffer, TcpBbr)");
            }
            g_logComponents.push_back(name);
        }
        if (g_logComponents.empty())
        {
            Fail("--log=" + logSpec + ": no log component named before '@'");
        }
    }
    std::ofstream cwndTraceFile;
    if (!cwndTrace.empty())
    {
        cwndTraceFile.open(cwndTrace);
        if (!cwndTraceFile)
        {
            Fail("cannot write " + cwndTrace);
        }
        g_cwndTrace = &cwndTraceFile;
    }
    if (configPath.empty())
    {
        Fail("--config=FILE is required");
    }
    std::ifstream in(configPath);
    if (!in)
    {
        Fail("cannot read " + configPath);
    }
    json cfg;
    try
    {
        in >> cfg;
    }
    catch (const std::exception& e)
    {
        Fail(configPath + ": not valid JSON: " + e.what());
    }
    if (cfg.value("format", "") != "mmcc-ns3/1")
    {
        Fail(configPath + ": not an mmcc export (format mmcc-ns3/1 expected)");
    }

    if (errors != "mmcc" && errors != "ns3")
    {
        Fail("--errors: '" + errors + "' is not mmcc or ns3");
    }
    const bool mmccDraws = errors == "mmcc";
    uint64_t seed = seedOverride >= 0 ? static_cast<uint64_t>(seedOverride) : cfg.value("seed", 1u);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const json& flows = cfg.at("flows");
    if (flows.empty())
    {
        Fail("the scenario has no flows");
    }
    const json& tcp0 = flows[0].at("tcp");
    for (size_t i = 1; i < flows.size(); i++)
    {
        if (flows[i].at("tcp") != tcp0)
        {
            Fail("flows[" + std::to_string(i) +
                 "].tcp differs from flows[0].tcp; the runner maps one TCP configuration");
        }
    }
    SetTcpDefaults(tcp0);
    bool anyBbr = false;
    for (const json& f : flows)
    {
        anyBbr = anyBbr || f.at("cca").get<std::string>() == "bbr";
    }
    if (anyBbr)
    {
        // ns-3's TcpBbr paces by design: it needs EnablePacing.
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    Time duration = NanoSeconds(cfg.at("duration").get<int64_t>());
    Time bin = NanoSeconds(cfg.value("bin_ns", int64_t(100000000)));

    const json& nodeNames = cfg.at("nodes");
    NodeContainer nodes;
    nodes.Create(nodeNames.size());
    InternetStackHelper stack;
    stack.Install(nodes);

    std::vector<Ipv4Address> nodeAddr(nodeNames.size());
    const json& links = cfg.at("links");
    Ipv4AddressHelper addr;
    for (size_t i = 0; i < links.size(); i++)
    {
        const json& l = links[i];
        uint32_t a = l.at("a").get<uint32_t>();
        uint32_t b = l.at("b").get<uint32_t>();
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(l.at("rate").get<uint64_t>())));
        p2p.SetDeviceAttribute("Mtu", UintegerValue(l.value("mtu", 1500u)));
        p2p.SetChannelAttribute("Delay", TimeValue(NanoSeconds(l.at("delay").get<int64_t>())));
        p2p.SetQueue("ns3::DropTailQueue", "MaxSize", QueueSizeValue(ns3::QueueSize("1000p")));
        NetDeviceContainer devs = p2p.Install(nodes.Get(a), nodes.Get(b));
        if (!pcapPrefix.empty())
        {
            // ns-3's point-to-point pcap: each device's transmissions and receptions (ns times)
            p2p.EnablePcap(pcapPrefix + "-link" + std::to_string(i), devs);
        }
        std::ostringstream net;
        net << "10." << (i / 250) << "." << (i % 250) << ".0";
        addr.SetBase(net.str().c_str(), "255.255.255.252");
        Ipv4InterfaceContainer ifs = addr.Assign(devs);
        // No AQM unless the scenario has one: remove the FqCoDel root queue disc the address
        // helper installed, so the device's drop-tail queue is the only buffer.
        TrafficControlHelper tch;
        tch.Uninstall(devs);
        nodeAddr[a] = ifs.GetAddress(0);
        nodeAddr[b] = ifs.GetAddress(1);
        auto da = DynamicCast<PointToPointNetDevice>(devs.Get(0));
        auto db = DynamicCast<PointToPointNetDevice>(devs.Get(1));
        std::string where = "links[" + std::to_string(i) + "]";
        ConfigureDirection(l.value("ab", json()), da, db, where + ".forward", seed, mmccDraws);
        ConfigureDirection(l.value("ba", json()), db, da, where + ".reverse", seed, mmccDraws);
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_stats.resize(flows.size());
    for (size_t i = 0; i < flows.size(); i++)
    {
        const json& f = flows[i];
        FlowStats& s = g_stats[i];
        s.bin = bin;
        s.Grow(static_cast<size_t>(duration.GetNanoSeconds() / bin.GetNanoSeconds()));
        uint32_t src = f.at("src").get<uint32_t>();
        uint32_t dst = f.at("dst").get<uint32_t>();
        uint16_t port = static_cast<uint16_t>(5000 + i);
        Time start = NanoSeconds(f.value("start", int64_t(0)));
        Time stop = f.contains("stop") && !f["stop"].is_null()
                        ? NanoSeconds(f["stop"].get<int64_t>())
                        : duration;
        Ptr<ChunkedSink> sink = CreateObject<ChunkedSink>();
        sink->Setup(port, i);
        nodes.Get(dst)->AddApplication(sink);
        sink->SetStartTime(Seconds(0));
        const json& app = f.value("app", json{{"type", "bulk"}});
        std::string appType = app.value("type", "bulk");
        if (appType != "bulk")
        {
            Fail("flows[" + std::to_string(i) + "].app: only bulk applications are mapped, got '" +
                 appType + "'");
        }
        uint64_t budget =
            app.contains("bytes") && !app["bytes"].is_null() ? app["bytes"].get<uint64_t>() : 0;
        std::string cca = f.at("cca").get<std::string>();
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(Ns3TypeName(cca), &tid))
        {
            Fail("flows[" + std::to_string(i) + "].cca: ns-3 class " + Ns3TypeName(cca) +
                 " is not built in");
        }
        if (cca == "westwood")
        {
            Config::SetDefault("ns3::TcpWestwood::ProtocolType",
                               EnumValue(TcpWestwood::WESTWOODPLUS));
        }
        Ptr<BulkSender> sender = CreateObject<BulkSender>();
        sender->Setup(InetSocketAddress(nodeAddr[dst], port), tid, budget, i);
        nodes.Get(src)->AddApplication(sender);
        sender->SetStartTime(start);
        sender->SetStopTime(stop);
    }

    // The output folder is made (or refused) before the run, not after minutes of simulation;
    // the tables are written under temporary names and renamed once complete.
    std::error_code ec;
    std::filesystem::create_directories(outDir, ec);
    const std::string flowsPath = outDir + "/flows.csv";
    const std::string seriesPath = outDir + "/series.csv";
    std::ofstream fo(flowsPath + ".tmp");
    std::ofstream so(seriesPath + ".tmp");
    if (ec || !fo || !so)
    {
        Fail("--out=" + outDir + ": cannot write to this folder" +
             (ec ? " (" + ec.message() + ")" : ""));
    }

    if (txBufferAt >= 0)
    {
        Simulator::Schedule(NanoSeconds(txBufferAt), &DumpTxBuffer);
    }
    if (logFrom >= 0)
    {
        Simulator::Schedule(NanoSeconds(logFrom), &SetLogs, true);
        Simulator::Schedule(NanoSeconds(logTo), &SetLogs, false);
    }
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Stop(duration);
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    fo << "flow_id,cca,start_s,stop_s,delivered_bytes,goodput_mbps,tx_bytes,retx_bytes,fast_"
          "retransmits,rtos,wall_s,"
          "error_drops,error_model_packets\n";
    so << "flow_id,t_s,throughput_mbps,cwnd_bytes,ssthresh_bytes,rtt_ms\n";
    size_t nbins = static_cast<size_t>((duration.GetNanoSeconds() + bin.GetNanoSeconds() - 1) /
                                       bin.GetNanoSeconds());
    for (size_t i = 0; i < flows.size(); i++)
    {
        const json& f = flows[i];
        FlowStats& s = g_stats[i];
        s.Grow(nbins);
        double start = f.value("start", int64_t(0)) * 1e-9;
        double stop = f.contains("stop") && !f["stop"].is_null() ? f["stop"].get<int64_t>() * 1e-9
                                                                 : duration.GetSeconds();
        double gp = stop > start ? s.totalRx * 8.0 / (stop - start) / 1e6 : 0.0;
        fo << i << "," << f.at("cca").get<std::string>() << "," << start << "," << stop << ","
           << s.totalRx << "," << gp << "," << s.txBytes << "," << s.retxBytes << "," << s.fastRetx
           << "," << s.rtos << "," << wall << "," << g_errorDrops << "," << g_errorModelPackets
           << "\n";
        double cw = std::nan("");
        double ss = std::nan("");
        for (size_t b = 0; b < nbins; b++)
        {
            if (s.cwnd[b] >= 0)
            {
                cw = s.cwnd[b];
            }
            if (s.ssthresh[b] >= 0)
            {
                ss = s.ssthresh[b] >= 4294967295.0 ? std::nan("") : s.ssthresh[b];
            }
            double thr = s.rxBytes[b] * 8.0 / bin.GetSeconds() / 1e6;
            double rtt = s.rttN[b] > 0 ? s.rttSum[b] / s.rttN[b] : std::nan("");
            // cwnd and ssthresh are byte counts: written whole (the stream's 6 significant
            // digits wrote a cwnd of 5,193,864 bytes as 5.19386e+06)
            so << i << "," << b * bin.GetSeconds() << "," << thr << "," << WholeBytes(cw) << ","
               << WholeBytes(ss) << "," << rtt << "\n";
        }
    }
    fo.close();
    so.close();
    if (!fo || !so)
    {
        Fail("--out=" + outDir + ": writing the tables failed");
    }
    std::filesystem::rename(flowsPath + ".tmp", flowsPath, ec);
    if (!ec)
    {
        std::filesystem::rename(seriesPath + ".tmp", seriesPath, ec);
    }
    if (ec)
    {
        Fail("--out=" + outDir + ": " + ec.message());
    }
    Simulator::Destroy();
    return 0;
}
