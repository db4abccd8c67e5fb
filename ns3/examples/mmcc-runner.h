/*
 * The parts of mmcc-ns3-runner (mmcc-ns3-runner.cc) shared by its files: the per-flow
 * measurements, the run's globals (trace hooks reach them from ns-3 callbacks), and the
 * declarations of the helpers in mmcc-runner.cc (measurements, diagnostics) and
 * mmcc-runner-links.cc (links, queues, error models, TCP attributes).
 */
#ifndef MMCC_RUNNER_H
#define MMCC_RUNNER_H

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

namespace mmcc_runner
{

/// Print `what` as the runner's error and exit with status 2.
[[noreturn]] void Fail(const std::string& what);

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

/// Per-flow measurements, by flow index.
extern std::vector<FlowStats> g_stats;
/// `--cwnd-trace`: every change of flow 0's congestion window (ns time, bytes), or null.
extern std::ofstream* g_cwndTrace;
/// Packets dropped by receive error models (PhyRxDrop of the devices that have one).
extern uint64_t g_errorDrops;
/// Packets that reached a device with a receive error model (dropped or not).
extern uint64_t g_errorModelPackets;
/// `--txbuffer-at`: flow 0's socket, whose transmit buffer is written at one instant.
extern Ptr<Socket> g_flow0Socket;
/// `--log`: the ns-3 log components switched on for a window of simulated time.
extern std::vector<std::string> g_logComponents;

/// Flow 0's transmit buffer (ns-3's own scoreboard) on stderr (`--txbuffer-at`).
void DumpTxBuffer();
/// A whole decimal integer (nothing else in `text`), into `*out`.
bool ParseWholeInt(const std::string& text, int64_t* out);
/// A byte count kept as a double (NaN: not known yet) for a table: whole, or "nan".
std::string WholeBytes(double v);
/// Switch the `--log` components on or off.
void SetLogs(bool on);
/// The receiving application read `p` for `flow`.
void OnRx(size_t flow, Ptr<const Packet> p, const Address&);

/// mmcc algorithm name -> ns-3 TypeId name.
std::string Ns3TypeName(const std::string& cca);
/// Configure one link direction (`dev` sends, `peer` receives): queue, error model, rate steps.
void ConfigureDirection(const json& d,
                        Ptr<PointToPointNetDevice> dev,
                        Ptr<PointToPointNetDevice> peer,
                        const std::string& where,
                        uint64_t seed,
                        bool mmccDraws);
/// ns-3's TcpSocket / TcpSocketBase defaults from a flow's resolved TCP settings.
void SetTcpDefaults(const json& tcp);

} // namespace mmcc_runner

#endif
