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
#include "mmcc-runner-apps.h"

using namespace mmcc_runner;

namespace
{

/// The command line (`--help` lists it).
struct Options
{
    std::string configPath;
    std::string outDir = ".";
    int64_t seedOverride = -1;
    std::string errors = "mmcc";
    std::string cwndTrace;
    std::string pcapPrefix;
    int64_t txBufferAt = -1;
    std::string logSpec;
    int64_t logFrom = -1; // the `--log` window, ns (-1: none)
    int64_t logTo = -1;
    std::ofstream cwndTraceFile;
};

/// Parse the command line into `o`: the diagnostics' arguments checked, the cwnd trace opened.
void
ParseOptions(int argc, char* argv[], Options& o)
{
    CommandLine cmd(__FILE__);
    cmd.AddValue("config", "scenario exported by `mmcc export-ns3` (JSON)", o.configPath);
    cmd.AddValue("out", "output folder (flows.csv, series.csv)", o.outDir);
    cmd.AddValue("seed", "run number (overrides the scenario's seed)", o.seedOverride);
    cmd.AddValue("errors",
                 "random losses: 'mmcc' draws them from mmcc's stream of the link direction for "
                 "the packets mmcc has there (the same losses as `mmcc run` with this seed), "
                 "'ns3' from ns-3's RateErrorModel",
                 o.errors);
    cmd.AddValue("cwnd-trace",
                 "also write every change of flow 0's congestion window to this file "
                 "(lines: time in ns, cwnd in bytes), for change-by-change comparisons",
                 o.cwndTrace);
    cmd.AddValue("pcap",
                 "also write a pcap per device: PREFIX-link<i>-<node>-<device>.pcap (a diagnostic)",
                 o.pcapPrefix);
    cmd.AddValue("txbuffer-at",
                 "write flow 0's transmit buffer (counts and every segment's flags) to stderr "
                 "at this simulated time in ns (a diagnostic)",
                 o.txBufferAt);
    cmd.AddValue("log",
                 "switch ns-3 log components on between two simulated times: "
                 "COMPONENT[,COMPONENT...]@FROM_NS-TO_NS, e.g. TcpSocketBase@3893900000-3893950000 "
                 "(ns-3's log lines on stderr, prefixed with the simulated time; a diagnostic)",
                 o.logSpec);
    cmd.Parse(argc, argv);
    // pcap timestamps in ns (mmcc's captures are too), so ties of one instant keep their order
    Config::SetDefault("ns3::PcapFileWrapper::NanosecMode", BooleanValue(true));
    if (!o.logSpec.empty())
    {
        const auto at = o.logSpec.find('@');
        const auto dash = at == std::string::npos ? at : o.logSpec.find('-', at);
        if (dash == std::string::npos ||
            !ParseWholeInt(o.logSpec.substr(at + 1, dash - at - 1), &o.logFrom) ||
            !ParseWholeInt(o.logSpec.substr(dash + 1), &o.logTo))
        {
            Fail("--log=" + o.logSpec +
                 ": expected COMPONENT[,COMPONENT...]@FROM_NS-TO_NS, e.g. "
                 "TcpSocketBase,TcpTxBuffer@3893900000-3893950000");
        }
        if (o.logFrom < 0 || o.logTo <= o.logFrom)
        {
            Fail("--log=" + o.logSpec + ": the window must satisfy 0 <= FROM_NS < TO_NS");
        }
        std::stringstream names(o.logSpec.substr(0, at));
        std::string name;
        while (std::getline(names, name, ','))
        {
            if (!LogComponent::GetComponentList()->count(name))
            {
                Fail("--log=" + o.logSpec + ": '" + name +
                     "' is not an ns-3 log component (e.g. TcpSocketBase, TcpTxBuffer, TcpBbr)");
            }
            g_logComponents.push_back(name);
        }
        if (g_logComponents.empty())
        {
            Fail("--log=" + o.logSpec + ": no log component named before '@'");
        }
    }
    if (!o.cwndTrace.empty())
    {
        o.cwndTraceFile.open(o.cwndTrace);
        if (!o.cwndTraceFile)
        {
            Fail("cannot write " + o.cwndTrace);
        }
        g_cwndTrace = &o.cwndTraceFile;
    }
}

/// The scenario exported by `mmcc export-ns3`.
json
ReadScenario(const std::string& path)
{
    if (path.empty())
    {
        Fail("--config=FILE is required");
    }
    std::ifstream in(path);
    if (!in)
    {
        Fail("cannot read " + path);
    }
    json cfg;
    try
    {
        in >> cfg;
    }
    catch (const std::exception& e)
    {
        Fail(path + ": not valid JSON: " + e.what());
    }
    if (cfg.value("format", "") != "mmcc-ns3/1")
    {
        Fail(path + ": not an mmcc export (format mmcc-ns3/1 expected)");
    }
    return cfg;
}

/// ns-3's TCP defaults from the flows' one TCP configuration (pacing for BBR, which needs it).
void
ConfigureTcp(const json& flows)
{
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
}

/// The point-to-point links (rate, delay, MTU, each direction's queue and error model), their
/// addresses and global routing; the address of each node.
std::vector<Ipv4Address>
BuildLinks(const json& cfg,
           NodeContainer& nodes,
           const std::string& pcapPrefix,
           uint64_t seed,
           bool mmccDraws)
{
    const json& nodeNames = cfg.at("nodes");
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
    return nodeAddr;
}

/// Each flow's receiver and bulk sender, and its measurements.
void
InstallFlows(const json& flows,
             NodeContainer& nodes,
             const std::vector<Ipv4Address>& nodeAddr,
             Time duration,
             Time bin)
{
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
}

/// flows.csv and series.csv (mmcc's tables) from the measurements.
void
WriteTables(std::ofstream& fo,
            std::ofstream& so,
            const json& flows,
            Time duration,
            Time bin,
            double wall)
{
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
}

} // namespace

int
main(int argc, char* argv[])
{
    Options o;
    ParseOptions(argc, argv, o);
    json cfg = ReadScenario(o.configPath);

    if (o.errors != "mmcc" && o.errors != "ns3")
    {
        Fail("--errors: '" + o.errors + "' is not mmcc or ns3");
    }
    const bool mmccDraws = o.errors == "mmcc";
    uint64_t seed =
        o.seedOverride >= 0 ? static_cast<uint64_t>(o.seedOverride) : cfg.value("seed", 1u);
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    const json& flows = cfg.at("flows");
    ConfigureTcp(flows);

    Time duration = NanoSeconds(cfg.at("duration").get<int64_t>());
    Time bin = NanoSeconds(cfg.value("bin_ns", int64_t(100000000)));

    NodeContainer nodes;
    nodes.Create(cfg.at("nodes").size());
    InternetStackHelper stack;
    stack.Install(nodes);
    std::vector<Ipv4Address> nodeAddr = BuildLinks(cfg, nodes, o.pcapPrefix, seed, mmccDraws);
    InstallFlows(flows, nodes, nodeAddr, duration, bin);

    // The output folder is made (or refused) before the run, not after minutes of simulation;
    // the tables are written under temporary names and renamed once complete.
    std::error_code ec;
    std::filesystem::create_directories(o.outDir, ec);
    const std::string flowsPath = o.outDir + "/flows.csv";
    const std::string seriesPath = o.outDir + "/series.csv";
    std::ofstream fo(flowsPath + ".tmp");
    std::ofstream so(seriesPath + ".tmp");
    if (ec || !fo || !so)
    {
        Fail("--out=" + o.outDir + ": cannot write to this folder" +
             (ec ? " (" + ec.message() + ")" : ""));
    }

    if (o.txBufferAt >= 0)
    {
        Simulator::Schedule(NanoSeconds(o.txBufferAt), &DumpTxBuffer);
    }
    if (o.logFrom >= 0)
    {
        Simulator::Schedule(NanoSeconds(o.logFrom), &SetLogs, true);
        Simulator::Schedule(NanoSeconds(o.logTo), &SetLogs, false);
    }
    auto wall0 = std::chrono::steady_clock::now();
    Simulator::Stop(duration);
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();

    WriteTables(fo, so, flows, duration, bin, wall);
    fo.close();
    so.close();
    if (!fo || !so)
    {
        Fail("--out=" + o.outDir + ": writing the tables failed");
    }
    std::filesystem::rename(flowsPath + ".tmp", flowsPath, ec);
    if (!ec)
    {
        std::filesystem::rename(seriesPath + ".tmp", seriesPath, ec);
    }
    if (ec)
    {
        Fail("--out=" + o.outDir + ": " + ec.message());
    }
    Simulator::Destroy();
    return 0;
}
