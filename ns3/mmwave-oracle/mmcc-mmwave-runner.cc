/* -*- Mode: C++; c-file-style: "gnu"; indent-tabs-mode: nil; -*- */
/*
 * mmcc-mmwave-runner: the thesis' urban 28 GHz set-up (Alramli thesis; the authors' public ns-3
 * scripts, Poorzare & Calveras' 5G-Urban_Deployment: bdp-size.cc, small-bdp.cc,
 * unlimited-RLC-Buffer.cc, remote-server.cc) in ns3-mmwave, written for mmcc from those
 * scripts' settings (not a copy of them), writing the tables mmcc compares with its own
 * (`mmcc validate mmwave`, docs/validation.md):
 *
 *   cd NS3_MMWAVE_TREE && mmcc-mmwave-runner --cca=newreno --rlcBuffer=2621440 --per=0 \
 *       --serverDelayMs=10 --simTime=12 --seed=1 --out=DIR
 *
 * (from the ns3-mmwave tree: its beamforming reads its tables relative to the working directory)
 *
 * It builds against ns3-mmwave before its obstacle model was removed (June 2020): the API of
 * ns-3-dev of early 2020 (`mmwave` namespace, MmWaveHelper, BuildingsObstaclePropagationLossModel).
 *
 * The set-up, each setting as the authors' scripts make it:
 * - remote host -(100 Gb/s, serverDelayMs one way, MTU 1500)- PGW, pfifo_fast on both devices,
 *   a per-byte error model (rate per) as the PGW device's ReceiveErrorModel (so it drops
 *   downlink data arriving from the server), as the scripts' RateErrorModel; by default
 *   (--errors=mmcc) its draws come from mmcc's own stream of that link direction
 *   ("link/0/ab/error" of the run seed, MmccStreamErrorModel), so that the same packets are lost
 *   in both simulators (common random numbers; a few losses per run leave single runs with
 *   independent losses far apart); --errors=ns3 uses ns-3's RateErrorModel and RNG;
 *   the EPC helper's defaults for S1-U;
 * - the mmWave cell: BuildingsObstaclePropagationLossModel, one resource block of 72 chunks,
 *   RLC AM with HARQ, RLC AM PollRetransmitTimer 4 ms, StatusProhibitTimer 1 ms,
 *   ReportBufferStatusTimer 4 ms, MaxTxBufferSize rlcBuffer; beamforming's long-term update
 *   every 100 ms; every device's TxQueue 1,000,000 packets;
 * - geometry (scenario 3 of the scripts): gNB at (0, 0, 15); five 0.5 m x 0.5 m x 10 m
 *   obstacles at x 49-49.5 m ("trees") and a 6.5 m x 6 m x 30 m building; the UE at
 *   (52, -0.2, 1.5), still, +y 1.5 m/s from 1 s, still from 5.3 s, +y from 9 s, -x 1.5 m/s
 *   from 19 s, still from 26 s, -x from 30 s, -x 30 m/s from 35 s, still from 60 s;
 * - TCP: MinRto 1 s, segments of 1400 bytes, send and receive buffers 6,553,600 bytes, the
 *   algorithm as TcpL4Protocol's SocketType; ns-3's defaults otherwise (SACK, timestamps,
 *   delayed ACKs of 2 segments / 200 ms), except two that ns-3 changed after this ns3-mmwave
 *   commit and before the ns-3.35 the thesis names (ns-3.33 in ns3-mmwave's history): an initial
 *   window of 10 segments (1 here) and PRR recovery (classic here). With them the stack is the
 *   one mmcc's `ns3` profile reproduces, so what differs is the radio path;
 * - the source: from 0.1 s a 1400-byte write every 11.2 us (1 Gb/s) for 5,000,000 writes, a
 *   write the full send buffer refuses being lost (the scripts' MyApp); a PacketSink at the UE;
 * - the mmWave algorithms from this project's ns-3 module (ns3/model, compiled in): RTTV,
 *   MSS-CCA, MRVHS, and FB-TCP with the sink's throughput handed to it every 100 ms, as the
 *   authors' scripts do.
 *
 * Outputs (CSV, in --out): flows.csv (one row), series.csv (per 100 ms: goodput at the sink,
 * the last cwnd, the mean RTT sample), radio.csv (per 1 ms: the UE's wide-band DL SINR report,
 * the DL transport blocks received by the UE: count, bytes, mean MCS, corrupted ones),
 * drops.csv (by cause); with --packetTrace also packets.csv (every segment sent and ACK received
 * by the sender); with --macTrace also mac.csv (every block the scheduler allocated to the UE, at
 * its slot's start: direction and bytes, an uplink block also when it carries nothing); with
 * --rlcTrace also rlc.csv (every RLC event of the bearer: a new PDU the gNB's RLC sends, a PDU the
 * UE's RLC receives, retransmissions included, an SDU the UE's PDCP delivers; t_ns, kind, bytes).
 */

#include "ns3/applications-module.h"
#include "ns3/buildings-module.h"
#include "ns3/config-store.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mmwave-helper.h"
#include "ns3/mmwave-point-to-point-epc-helper.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "../model/mmcc-stream-error-model.h"
#include "../model/tcp-fbtcp.h"

#include <cmath>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <sstream>
#include <vector>

using namespace ns3;
using namespace mmwave;

namespace
{

const double BIN_S = 0.1;

struct Bin
{
  uint64_t rxBytes = 0;
  double cwnd = -1;
  double rttSum = 0;
  uint32_t rttN = 0;
};

struct RadioMs
{
  double sinrLinSum = 0;
  uint32_t sinrN = 0;
  uint32_t tbs = 0;
  uint64_t tbBytes = 0;
  uint32_t mcsSum = 0;
  uint32_t corrupt = 0;
};

std::vector<Bin> g_bins;
std::map<int64_t, RadioMs> g_radio;
uint64_t g_rxBytes = 0;
uint64_t g_errorDrops = 0;
uint32_t g_fastRetransmits = 0;
uint32_t g_rtos = 0;
TcpSocketState::TcpCongState_t g_state = TcpSocketState::CA_OPEN;
Time g_lastRto;
uint64_t g_txBytes = 0;
uint64_t g_retxBytes = 0;
SequenceNumber32 g_highTx (0);
double g_lastCwnd = 0;
std::ofstream g_packets; //!< --packetTrace: the sender's segments and ACKs, one line each
std::ofstream g_mac;     //!< --macTrace: the UE's allocated blocks, one line each

/// --rlcTrace: the downlink's RLC events, one line each. The gNB's RLC AM `TxPDU` fires for its
/// new data PDUs and its STATUS PDUs only (`LteRlcAm::DoNotifyTxOpportunity`: a retransmission
/// from the retransmission buffer does not fire it), the UE's RLC `RxPDU` for every PDU it
/// receives, a retransmitted or duplicate one included (`LteRlcAm::DoReceivePdu`), and the UE's
/// PDCP `RxPDU` for each SDU the RLC delivers once. So the UE's received bytes less the gNB's
/// new ones are the RLC retransmissions that reached the UE. The uplink's: the UE PDCP's `TxPDU`
/// for each SDU (a TCP ACK) it hands its RLC (ue_ul_sdu), the UE RLC's `TxPDU` (ue_tx: its new
/// data PDUs and its STATUS PDUs) and the gNB RLC's `RxPDU` (gnb_rx).
std::ofstream g_rlc;

void
RlcEvent (const char *kind, uint32_t bytes)
{
  g_rlc << Simulator::Now ().GetNanoSeconds () << ',' << kind << ',' << bytes << '\n';
}

/// An RLC or PDCP PDU passed down (`TxPDU`): its `kind`, bound when connecting.
void
PduTx (const char *kind, uint16_t, uint8_t, uint32_t bytes)
{
  RlcEvent (kind, bytes);
}

/// An RLC or PDCP PDU received (`RxPDU`, with its delay).
void
PduRx (const char *kind, uint16_t, uint8_t, uint32_t bytes, uint64_t)
{
  RlcEvent (kind, bytes);
}

/// The data bearer's RLC and PDCP exist once the UE is connected: hook them then.
void
ConnectRlcTraces ()
{
  const std::string gnb = "/NodeList/*/DeviceList/*/LteEnbRrc/UeMap/*/DataRadioBearerMap/*/";
  const std::string ue = "/NodeList/*/DeviceList/*/LteUeRrc/DataRadioBearerMap/*/";
  Config::ConnectWithoutContext (gnb + "LteRlc/TxPDU", MakeBoundCallback (&PduTx, "gnb_tx"));
  Config::ConnectWithoutContext (ue + "LteRlc/RxPDU", MakeBoundCallback (&PduRx, "ue_rx"));
  Config::ConnectWithoutContext (ue + "LtePdcp/RxPDU", MakeBoundCallback (&PduRx, "ue_sdu"));
  Config::ConnectWithoutContext (ue + "LtePdcp/TxPDU", MakeBoundCallback (&PduTx, "ue_ul_sdu"));
  Config::ConnectWithoutContext (ue + "LteRlc/TxPDU", MakeBoundCallback (&PduTx, "ue_tx"));
  Config::ConnectWithoutContext (gnb + "LteRlc/RxPDU", MakeBoundCallback (&PduRx, "gnb_rx"));
}


//! --macTrace: a block the scheduler allocated to the UE, at the start of its slot
//! (MmWaveUePhy's ReportUplinkTbSize / ReportDownlinkTbSize); an uplink block may carry nothing
void
UeTb (const char *dir, uint64_t, uint64_t bytes)
{
  g_mac << Simulator::Now ().GetNanoSeconds () << ',' << dir << ',' << bytes << '\n';
}

void
UeUlTb (uint64_t imsi, uint64_t bytes)
{
  UeTb ("ul", imsi, bytes);
}

void
UeDlTb (uint64_t imsi, uint64_t bytes)
{
  UeTb ("dl", imsi, bytes);
}

Bin &
BinAt (Time t)
{
  size_t i = static_cast<size_t> (t.GetSeconds () / BIN_S);
  if (i >= g_bins.size ())
    {
      g_bins.resize (i + 1);
    }
  return g_bins[i];
}

void
SinkRx (Ptr<const Packet> p, const Address &)
{
  g_rxBytes += p->GetSize ();
  BinAt (Simulator::Now ()).rxBytes += p->GetSize ();
}

void
CwndChange (uint32_t, uint32_t w)
{
  g_lastCwnd = w;
  BinAt (Simulator::Now ()).cwnd = w;
}

void
RttSample (Time, Time rtt)
{
  Bin &b = BinAt (Simulator::Now ());
  b.rttSum += rtt.GetSeconds () * 1e3;
  b.rttN++;
}

/// Fast retransmits and timeouts from the congestion state (as mmcc-ns3-runner counts them):
/// each entry to CA_RECOVERY, each entry to CA_LOSS, and each doubling of the RTO while in
/// CA_LOSS (a further timeout changes no state).
void
CongStateChange (TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t s)
{
  if (s == TcpSocketState::CA_RECOVERY)
    {
      g_fastRetransmits++;
    }
  if (s == TcpSocketState::CA_LOSS)
    {
      g_rtos++;
    }
  g_state = s;
}

void
RtoChange (Time before, Time after)
{
  if (g_state == TcpSocketState::CA_LOSS && after >= before + before && g_lastRto != Simulator::Now ())
    {
      g_rtos++;
    }
  g_lastRto = Simulator::Now ();
}

void
SocketTx (Ptr<const Packet> p, const TcpHeader &h, Ptr<const TcpSocketBase>)
{
  uint32_t len = p->GetSize ();
  if (len == 0)
    {
      return;
    }
  g_txBytes += len;
  bool retx = h.GetSequenceNumber () < g_highTx;
  if (retx)
    {
      g_retxBytes += len;
    }
  else
    {
      g_highTx = h.GetSequenceNumber () + len;
    }
  if (g_packets.is_open ())
    {
      g_packets << Simulator::Now ().GetNanoSeconds () << ",tx," << h.GetSequenceNumber ().GetValue ()
                << "," << len << "," << (retx ? 1 : 0) << "\n";
    }
}

void
SocketRx (Ptr<const Packet>, const TcpHeader &h, Ptr<const TcpSocketBase>)
{
  if (g_packets.is_open () && (h.GetFlags () & TcpHeader::ACK))
    {
      g_packets << Simulator::Now ().GetNanoSeconds () << ",ack," << h.GetAckNumber ().GetValue () << ",0,0\n";
    }
}

void
PgwDrop (Ptr<const Packet>)
{
  g_errorDrops++;
}

void
UeSinrReport (uint64_t, SpectrumValue &sinr, SpectrumValue &)
{
  double sum = 0;
  uint32_t n = 0;
  for (Values::const_iterator it = sinr.ConstValuesBegin (); it != sinr.ConstValuesEnd (); ++it)
    {
      sum += *it;
      n++;
    }
  if (n > 0)
    {
      RadioMs &r = g_radio[Simulator::Now ().GetMilliSeconds ()];
      r.sinrLinSum += sum / n;
      r.sinrN++;
    }
}

void
UeRxTb (std::string, RxPacketTraceParams params)
{
  RadioMs &r = g_radio[Simulator::Now ().GetMilliSeconds ()];
  r.tbs++;
  r.tbBytes += params.m_tbSize;
  r.mcsSum += params.m_mcs;
  r.corrupt += params.m_corrupt ? 1 : 0;
}

Ptr<TcpFbTcp> g_fbtcp;
uint64_t g_fedBytes = 0;

/// FB-TCP's receiver feed (the authors' scripts: every 100 ms the packet sink's throughput
/// over the last 100 ms goes to the algorithm; mmcc's `receiver_feed = "100ms"`)
void
ReceiverFeed ()
{
  g_fbtcp->NotifyReceiverRate ((g_rxBytes - g_fedBytes) / 0.1);
  g_fedBytes = g_rxBytes;
  Simulator::Schedule (MilliSeconds (100), &ReceiverFeed);
}

void
ChangeSpeed (Ptr<Node> n, Vector v)
{
  n->GetObject<ConstantVelocityMobilityModel> ()->SetVelocity (v);
}

/// The scripts' source: one write of `size` bytes every size * 8 / rate seconds, `count`
/// writes, a write that does not fit the send buffer lost.
class RateSource : public Application
{
public:
  void
  Setup (Ptr<Socket> socket, Address peer, uint32_t size, uint32_t count, DataRate rate)
  {
    m_socket = socket;
    m_peer = peer;
    m_size = size;
    m_count = count;
    m_rate = rate;
  }

private:
  void
  StartApplication () override
  {
    m_running = true;
    m_socket->Bind ();
    m_socket->Connect (m_peer);
    Write ();
  }
  void
  StopApplication () override
  {
    m_running = false;
    Simulator::Cancel (m_next);
    m_socket->Close ();
  }
  void
  Write ()
  {
    m_socket->Send (Create<Packet> (m_size));
    if (++m_sent < m_count && m_running)
      {
        Time gap = Seconds (m_size * 8 / static_cast<double> (m_rate.GetBitRate ()));
        m_next = Simulator::Schedule (gap, &RateSource::Write, this);
      }
  }

  Ptr<Socket> m_socket;
  Address m_peer;
  uint32_t m_size = 0;
  uint32_t m_count = 0;
  uint32_t m_sent = 0;
  DataRate m_rate;
  EventId m_next;
  bool m_running = false;
};

std::string
TcpTypeName (const std::string &cca)
{
  static const std::map<std::string, std::string> names = {
    {"newreno", "ns3::TcpNewReno"},   {"highspeed", "ns3::TcpHighSpeed"},
    {"cubic", "ns3::TcpCubic"},       {"bbr", "ns3::TcpBbr"},
    {"scalable", "ns3::TcpScalable"}, {"westwood", "ns3::TcpWestwood"},
    {"vegas", "ns3::TcpVegas"},       {"yeah", "ns3::TcpYeah"},
    {"htcp", "ns3::TcpHtcp"},         {"hybla", "ns3::TcpHybla"},
    {"bic", "ns3::TcpBic"},           {"rttv", "ns3::TcpRttv"},
    {"msscca", "ns3::TcpMssCca"},     {"mrvhs", "ns3::TcpMrvhs"},
    {"fbtcp", "ns3::TcpFbTcp"},
  };
  std::map<std::string, std::string>::const_iterator it = names.find (cca);
  if (it == names.end ())
    {
      std::cerr << "mmcc-mmwave-runner: error: --cca=" << cca << " is not mapped" << std::endl;
      std::exit (2);
    }
  TypeId tid;
  if (!TypeId::LookupByNameFailSafe (it->second, &tid))
    {
      std::cerr << "mmcc-mmwave-runner: error: --cca=" << cca << ": " << it->second
                << " is not in this ns3-mmwave build" << std::endl;
      std::exit (2);
    }
  return it->second;
}

void
Obstacle (double x0, double x1, double y0, double y1, double h)
{
  Ptr<Building> b = Create<Building> ();
  b->SetBoundaries (Box (x0, x1, y0, y1, 0.0, h));
}

void
WriteOutputs (const std::string &out, const std::string &cca, double simTime, double cpu)
{
  std::ofstream f ((out + "/flows.csv").c_str ());
  f << "flow_id,cca,delivered_bytes,goodput_mbps,tx_bytes,retx_bytes,fast_retransmits,rtos,"
       "error_drops,cpu_s\n";
  f << "0," << cca << "," << g_rxBytes << "," << std::setprecision (9)
    << g_rxBytes * 8.0 / simTime / 1e6 << "," << g_txBytes << "," << g_retxBytes << ","
    << g_fastRetransmits << "," << g_rtos << "," << g_errorDrops << "," << cpu << "\n";
  std::ofstream s ((out + "/series.csv").c_str ());
  s << "t_s,throughput_mbps,cwnd_bytes,rtt_ms\n";
  size_t nbins = static_cast<size_t> (std::ceil (simTime / BIN_S - 1e-9));
  g_bins.resize (std::max (nbins, g_bins.size ()));
  double cwnd = -1;
  for (size_t i = 0; i < nbins; i++)
    {
      const Bin &b = g_bins[i];
      cwnd = b.cwnd >= 0 ? b.cwnd : cwnd;
      s << std::setprecision (6) << i * BIN_S << "," << std::setprecision (9)
        << b.rxBytes * 8.0 / BIN_S / 1e6 << ",";
      if (cwnd >= 0)
        {
          s << static_cast<uint64_t> (cwnd);
        }
      s << ",";
      if (b.rttN > 0)
        {
          s << b.rttSum / b.rttN;
        }
      s << "\n";
    }
  std::ofstream r ((out + "/radio.csv").c_str ());
  r << "t_ms,sinr_db,tbs,tb_bytes,mcs_mean,corrupt_tbs\n";
  for (std::map<int64_t, RadioMs>::const_iterator it = g_radio.begin (); it != g_radio.end (); ++it)
    {
      const RadioMs &m = it->second;
      r << it->first << ",";
      if (m.sinrN > 0)
        {
          r << std::setprecision (6) << 10 * std::log10 (m.sinrLinSum / m.sinrN);
        }
      r << "," << m.tbs << "," << m.tbBytes << ",";
      if (m.tbs > 0)
        {
          r << std::setprecision (4) << static_cast<double> (m.mcsSum) / m.tbs;
        }
      r << "," << m.corrupt << "\n";
    }
  std::ofstream d ((out + "/drops.csv").c_str ());
  d << "cause,packets\nerror_model," << g_errorDrops << "\n";
}

} // namespace

int
main (int argc, char *argv[])
{
  std::string cca = "newreno";
  std::string out = ".";
  bool packetTrace = false;
  bool macTrace = false;
  bool rlcTrace = false;
  std::string errors = "mmcc";
  uint32_t rlcBuffer = 2621440;
  double per = 0;
  double serverDelayMs = 10;
  double simTime = 60;
  uint32_t seed = 1;
  CommandLine cmd;
  cmd.AddValue ("cca", "algorithm (mmcc name)", cca);
  cmd.AddValue ("rlcBuffer", "RLC AM transmission buffer (bytes)", rlcBuffer);
  cmd.AddValue ("per", "packet error rate per byte on the PGW link", per);
  cmd.AddValue ("serverDelayMs", "server link one-way delay (ms)", serverDelayMs);
  cmd.AddValue ("simTime", "simulated seconds", simTime);
  cmd.AddValue ("seed", "run number of ns-3's random streams", seed);
  cmd.AddValue ("out", "output folder", out);
  cmd.AddValue ("errors", "mmcc: random losses from mmcc's stream (common random numbers); ns3: "
                "ns-3's RateErrorModel", errors);
  cmd.AddValue ("packetTrace", "also write packets.csv: every segment the sender sends and every "
                "ACK it receives (t_ns, kind, seq or ack, bytes, retransmission)", packetTrace);
  cmd.AddValue ("macTrace", "also write mac.csv: every block allocated to the UE, at its slot's "
                "start (t_ns, dir ul or dl, bytes)", macTrace);
  cmd.AddValue ("rlcTrace", "also write rlc.csv: every RLC event of the bearer (t_ns, kind, bytes): "
                "the gNB RLC's new PDUs (gnb_tx), the UE RLC's received PDUs, retransmissions "
                "included (ue_rx), the UE PDCP's delivered SDUs (ue_sdu); uplink: the UE PDCP's "
                "SDUs (ue_ul_sdu), the UE RLC's new PDUs (ue_tx), the gNB RLC's received PDUs "
                "(gnb_rx)", rlcTrace);
  cmd.Parse (argc, argv);
  if (simTime <= 0.1 || per < 0 || per >= 1 || rlcBuffer == 0 || (errors != "mmcc" && errors != "ns3"))
    {
      std::cerr << "mmcc-mmwave-runner: error: need simTime > 0.1, 0 <= per < 1, rlcBuffer > 0, "
                   "--errors=mmcc or ns3"
                << std::endl;
      return 2;
    }
  // ns3-mmwave's beamforming reads its antenna and fading tables relative to the working
  // directory: run from the ns3-mmwave tree
  if (!std::ifstream ("src/mmwave/model/BeamFormingMatrix/TxAntenna.txt").good ())
    {
      std::cerr << "mmcc-mmwave-runner: error: run it from the ns3-mmwave tree (its working "
                   "directory must hold src/mmwave/model/BeamFormingMatrix/)"
                << std::endl;
      return 2;
    }
  RngSeedManager::SetRun (seed);
  std::clock_t cpu0 = std::clock ();

  Config::SetDefault ("ns3::TcpSocketBase::MinRto", TimeValue (Seconds (1)));
  // ns-3.33+ defaults (the thesis' ns-3.35 and mmcc's ns3 profile), not this commit's
  Config::SetDefault ("ns3::TcpSocket::InitialCwnd", UintegerValue (10));
  Config::SetDefault ("ns3::TcpL4Protocol::RecoveryType", TypeIdValue (TcpPrrRecovery::GetTypeId ()));
  Config::SetDefault ("ns3::TcpSocket::SegmentSize", UintegerValue (1400));
  Config::SetDefault ("ns3::TcpSocket::SndBufSize", UintegerValue (131072 * 50));
  Config::SetDefault ("ns3::TcpSocket::RcvBufSize", UintegerValue (131072 * 50));
  Config::SetDefault ("ns3::TcpL4Protocol::SocketType", StringValue (TcpTypeName (cca)));
  Config::SetDefault ("ns3::MmWavePhyMacCommon::ResourceBlockNum", UintegerValue (1));
  Config::SetDefault ("ns3::MmWavePhyMacCommon::ChunkPerRB", UintegerValue (72));
  Config::SetDefault ("ns3::MmWaveHelper::RlcAmEnabled", BooleanValue (true));
  Config::SetDefault ("ns3::MmWaveHelper::HarqEnabled", BooleanValue (true));
  Config::SetDefault ("ns3::MmWaveFlexTtiMacScheduler::HarqEnabled", BooleanValue (true));
  Config::SetDefault ("ns3::MmWaveBeamforming::LongTermUpdatePeriod", TimeValue (MilliSeconds (100)));
  Config::SetDefault ("ns3::LteRlcAm::PollRetransmitTimer", TimeValue (MilliSeconds (4)));
  Config::SetDefault ("ns3::LteRlcAm::StatusProhibitTimer", TimeValue (MilliSeconds (1)));
  Config::SetDefault ("ns3::LteRlcAm::ReportBufferStatusTimer", TimeValue (MilliSeconds (4)));
  Config::SetDefault ("ns3::LteRlcAm::MaxTxBufferSize", UintegerValue (rlcBuffer));

  Ptr<MmWaveHelper> mmwave = CreateObject<MmWaveHelper> ();
  mmwave->SetAttribute ("PathlossModel", StringValue ("ns3::BuildingsObstaclePropagationLossModel"));
  mmwave->Initialize ();
  mmwave->SetHarqEnabled (true);
  Ptr<MmWavePointToPointEpcHelper> epc = CreateObject<MmWavePointToPointEpcHelper> ();
  mmwave->SetEpcHelper (epc);
  Ptr<Node> pgw = epc->GetPgwNode ();

  NodeContainer remote;
  remote.Create (1);
  InternetStackHelper internet;
  internet.Install (remote);
  PointToPointHelper p2p;
  p2p.SetDeviceAttribute ("DataRate", DataRateValue (DataRate ("100Gb/s")));
  p2p.SetDeviceAttribute ("Mtu", UintegerValue (1500));
  p2p.SetChannelAttribute ("Delay", TimeValue (MilliSeconds (serverDelayMs)));
  NetDeviceContainer wired = p2p.Install (pgw, remote.Get (0));
  if (errors == "mmcc")
    {
      // mmcc's link 0 (server - pgw), direction ab (server -> pgw), which carries the data
      Ptr<MmccStreamErrorModel> em = CreateObject<MmccStreamErrorModel> ();
      em->Configure (seed, "link/0/ab/error", MmccStreamErrorModel::UNIT_BYTE, per, true, false, {});
      wired.Get (0)->SetAttribute ("ReceiveErrorModel", PointerValue (em));
    }
  else
    {
      Ptr<RateErrorModel> em = CreateObject<RateErrorModel> ();
      em->SetAttribute ("ErrorRate", DoubleValue (per));
      wired.Get (0)->SetAttribute ("ReceiveErrorModel", PointerValue (em));
    }
  wired.Get (0)->TraceConnectWithoutContext ("PhyRxDrop", MakeCallback (&PgwDrop));
  TrafficControlHelper pfifo;
  pfifo.SetRootQueueDisc ("ns3::PfifoFastQueueDisc");
  pfifo.Install (wired);
  Ipv4AddressHelper ipv4;
  ipv4.SetBase ("1.0.0.0", "255.0.0.0");
  ipv4.Assign (wired);
  Ipv4StaticRoutingHelper routing;
  routing.GetStaticRouting (remote.Get (0)->GetObject<Ipv4> ())
      ->AddNetworkRouteTo (Ipv4Address ("7.0.0.0"), Ipv4Mask ("255.0.0.0"), 1);

  for (double y0 : {2.2, 5.6, 10.0, 13.8, 17.6})
    {
      Obstacle (49.0, 49.5, y0, y0 + 0.5, 10);
    }
  Obstacle (34.0, 40.5, 17.8, 23.8, 30);

  NodeContainer enb, ue;
  enb.Create (1);
  ue.Create (1);
  Ptr<ListPositionAllocator> at = CreateObject<ListPositionAllocator> ();
  at->Add (Vector (0.0, 0.0, 15.0));
  MobilityHelper still;
  still.SetMobilityModel ("ns3::ConstantPositionMobilityModel");
  still.SetPositionAllocator (at);
  still.Install (enb);
  BuildingsHelper::Install (enb);
  MobilityHelper moving;
  moving.SetMobilityModel ("ns3::ConstantVelocityMobilityModel");
  moving.Install (ue);
  ue.Get (0)->GetObject<MobilityModel> ()->SetPosition (Vector (52, -0.2, 1.5));
  const double steps[][4] = {{1, 0, 1.5, 0},   {5.3, 0, 0, 0},   {9, 0, 1.5, 0}, {19, -1.5, 0, 0},
                             {26, 0, 0, 0},    {30, -1.5, 0, 0}, {35, -30, 0, 0}, {60, 0, 0, 0}};
  for (const auto &s : steps)
    {
      Simulator::Schedule (Seconds (s[0]), &ChangeSpeed, ue.Get (0), Vector (s[1], s[2], s[3]));
    }
  BuildingsHelper::Install (ue);

  NetDeviceContainer enbDevs = mmwave->InstallEnbDevice (enb);
  NetDeviceContainer ueDevs = mmwave->InstallUeDevice (ue);
  internet.Install (ue);
  Ipv4InterfaceContainer ueIf = epc->AssignUeIpv4Address (ueDevs);
  mmwave->AttachToClosestEnb (ueDevs, enbDevs);
  routing.GetStaticRouting (ue.Get (0)->GetObject<Ipv4> ())
      ->SetDefaultRoute (epc->GetUeDefaultGatewayAddress (), 1);

  uint16_t port = 20000;
  Address sinkAddr (InetSocketAddress (ueIf.GetAddress (0), port));
  PacketSinkHelper sinkHelper ("ns3::TcpSocketFactory", InetSocketAddress (Ipv4Address::GetAny (), port));
  ApplicationContainer sinks = sinkHelper.Install (ue.Get (0));
  sinks.Start (Seconds (0));
  sinks.Stop (Seconds (simTime));
  sinks.Get (0)->TraceConnectWithoutContext ("Rx", MakeCallback (&SinkRx));

  Ptr<Socket> socket = Socket::CreateSocket (remote.Get (0), TcpSocketFactory::GetTypeId ());
  if (cca == "fbtcp")
    {
      g_fbtcp = CreateObject<TcpFbTcp> ();
      DynamicCast<TcpSocketBase> (socket)->SetCongestionControlAlgorithm (g_fbtcp);
      Simulator::Schedule (MilliSeconds (100), &ReceiverFeed);
    }
  socket->TraceConnectWithoutContext ("CongestionWindow", MakeCallback (&CwndChange));
  socket->TraceConnectWithoutContext ("RTT", MakeCallback (&RttSample));
  socket->TraceConnectWithoutContext ("CongState", MakeCallback (&CongStateChange));
  socket->TraceConnectWithoutContext ("RTO", MakeCallback (&RtoChange));
  socket->TraceConnectWithoutContext ("Tx", MakeCallback (&SocketTx));
  socket->TraceConnectWithoutContext ("Rx", MakeCallback (&SocketRx));
  if (packetTrace)
    {
      g_packets.open ((out + "/packets.csv").c_str ());
      g_packets << "t_ns,kind,seq,bytes,retx\n";
    }
  Ptr<RateSource> app = CreateObject<RateSource> ();
  app->Setup (socket, sinkAddr, 1400, 5000000, DataRate ("1000Mb/s"));
  remote.Get (0)->AddApplication (app);
  app->SetStartTime (Seconds (0.1));
  app->SetStopTime (Seconds (simTime));

  BuildingsHelper::MakeMobilityModelConsistent ();
  Config::Set ("/NodeList/*/DeviceList/*/TxQueue/MaxSize", QueueSizeValue (QueueSize ("1000000p")));
  Config::ConnectWithoutContext (
      "/NodeList/*/DeviceList/*/ComponentCarrierMapUe/*/MmWaveUePhy/ReportCurrentCellRsrpSinr",
      MakeCallback (&UeSinrReport));
  Config::Connect ("/NodeList/*/DeviceList/*/ComponentCarrierMapUe/*/MmWaveUePhy/DlSpectrumPhy/RxPacketTraceUe",
                   MakeCallback (&UeRxTb));
  if (macTrace)
    {
      g_mac.open ((out + "/mac.csv").c_str ());
      g_mac << "t_ns,dir,bytes\n";
      Config::ConnectWithoutContext (
          "/NodeList/*/DeviceList/*/ComponentCarrierMapUe/*/MmWaveUePhy/ReportUplinkTbSize",
          MakeCallback (&UeUlTb));
      Config::ConnectWithoutContext (
          "/NodeList/*/DeviceList/*/ComponentCarrierMapUe/*/MmWaveUePhy/ReportDownlinkTbSize",
          MakeCallback (&UeDlTb));
    }

  if (rlcTrace)
    {
      g_rlc.open ((out + "/rlc.csv").c_str ());
      g_rlc << "t_ns,kind,bytes\n";
      Simulator::Schedule (MilliSeconds (90), &ConnectRlcTraces);
    }

  Simulator::Stop (Seconds (simTime));
  Simulator::Run ();
  double cpu = static_cast<double> (std::clock () - cpu0) / CLOCKS_PER_SEC;
  WriteOutputs (out, cca, simTime, cpu);
  Simulator::Destroy ();
  return 0;
}
