/*
 * mmcc-ns3-runner's measurements and diagnostics (declared in mmcc-runner.h).
 */
#include "mmcc-runner.h"

namespace mmcc_runner
{

void
Fail(const std::string& what)
{
    std::cerr << "mmcc-ns3-runner: error: " << what << std::endl;
    std::exit(2);
}

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

void
OnRx(size_t flow, Ptr<const Packet> p, const Address&)
{
    FlowStats& s = g_stats[flow];
    size_t i = s.BinNow();
    s.rxBytes[i] += p->GetSize();
    s.totalRx += p->GetSize();
}

} // namespace mmcc_runner
