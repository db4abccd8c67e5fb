/*
 * mmcc-ns3-runner's network and TCP configuration (declared in mmcc-runner.h): the ns-3 class of
 * each algorithm, each link direction's queue, error model and rate steps, and ns-3's TCP
 * attributes from the resolved settings.
 */
#include "mmcc-runner.h"

namespace mmcc_runner
{

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

namespace
{

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

} // namespace

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

} // namespace mmcc_runner
