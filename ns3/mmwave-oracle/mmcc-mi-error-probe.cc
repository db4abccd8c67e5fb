/*
 * mmcc-mi-error-probe: ns3-mmwave's block error curve, measured by running its MI error model.
 *
 * For every MCS (0-28) and a block of 1, 8 and 22 data symbols (72 chunks, ChunkPerRB 72, one
 * resource block, as the thesis' set-up), a flat channel (the same SINR on every chunk) and a
 * first transmission, it finds by bisection the SINR at which the transport block's error rate
 * (MmWaveMiErrorModel::GetTbDecodificationStats, the block size from
 * MmWaveAmc::GetTbSizeFromMcsSymbols) is 10 % and the SINR at which it is 1 %, and prints
 * mcs,symbols,bytes,sinr10_db,sinr1_db,width_db. mmcc's NS3_MMWAVE_MCS thresholds are the
 * 22-symbol sinr10 and NS3_MMWAVE_BLER_WIDTH_DB the 22-symbol widths (crates/mmcc-core/src/
 * radio/mcs.rs, docs/radio.md). Build: make -C ns3/mmwave-oracle probe NS3_MMWAVE=/path/to/tree.
 *
 * With --faded it instead prints mean_db,draw,mcs: for mean SINRs of -2..14 dB and 10 draws
 * each, 72 chunks whose linear SINRs are the mean times independent unit exponentials (Rayleigh
 * chunks), drawn from splitmix64 seeded with 1 + 1000 * (mean_db + 2) + draw (chunk k takes the
 * k-th output u in [0, 1) as 53 bits and -ln(1 - u)), and the MCS ns3-mmwave's UE would report
 * for them after a 22-symbol block at MCS 8 (MmWaveAmc::CreateCqiFeedbackWbTdma's MCS, before
 * the CQI). crates/mmcc-core/src/radio/mi.rs draws the same chunks and compares its choice
 * (validation/mmwave-probes/mi-faded-mcs.csv).
 */

#include "ns3/core-module.h"
#include "ns3/mmwave-amc.h"
#include "ns3/mmwave-mi-error-model.h"
#include "ns3/mmwave-phy-mac-common.h"
#include "ns3/mmwave-spectrum-value-helper.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace ns3;
using namespace mmwave;

namespace {

//! The block error rate of `bytes` at `mcs` on a flat channel of `db` dB over `chunks`.
double
Bler (Ptr<SpectrumModel> model, const std::vector<int> &chunks, uint32_t bytes, uint8_t mcs, double db)
{
  SpectrumValue sinr (model);
  sinr = std::pow (10.0, db / 10.0);
  MmWaveHarqProcessInfoList_t first;
  return MmWaveMiErrorModel::GetTbDecodificationStats (sinr, chunks, bytes, mcs, first).tbler;
}

//! The SINR (dB) at which the error rate falls to `level`: the curve falls with the SINR.
double
Crossing (Ptr<SpectrumModel> model, const std::vector<int> &chunks, uint32_t bytes, uint8_t mcs, double level)
{
  double lo = -20, hi = 40;
  for (int i = 0; i < 60; i++)
    {
      double mid = 0.5 * (lo + hi);
      if (Bler (model, chunks, bytes, mcs, mid) > level)
        {
          lo = mid;
        }
      else
        {
          hi = mid;
        }
    }
  return hi;
}

//! splitmix64 (Steele, Lea & Flood 2014), the generator both sides of the faded probe share.
uint64_t
SplitMix (uint64_t &state)
{
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

//! The MCS MmWaveAmc chooses for Rayleigh chunks about each mean SINR (see the file's comment).
void
Faded (Ptr<MmWaveAmc> amc, Ptr<SpectrumModel> model)
{
  std::printf ("mean_db,draw,mcs\n");
  uint32_t tb = amc->GetTbSizeFromMcsSymbols (8, 22) / 8;
  for (int mdb = -2; mdb <= 14; mdb++)
    {
      for (int draw = 0; draw < 10; draw++)
        {
          uint64_t state = 1 + 1000 * (mdb + 2) + draw;
          SpectrumValue sinr (model);
          for (Values::iterator it = sinr.ValuesBegin (); it != sinr.ValuesEnd (); ++it)
            {
              double u = (SplitMix (state) >> 11) * (1.0 / 9007199254740992.0);
              *it = std::pow (10.0, mdb / 10.0) * -std::log (1.0 - u);
            }
          int mcs = 0;
          amc->CreateCqiFeedbackWbTdma (sinr, 22, tb, mcs);
          std::printf ("%d,%d,%d\n", mdb, draw, mcs);
        }
    }
}

} // namespace

int
main (int argc, char *argv[])
{
  Ptr<MmWavePhyMacCommon> config = CreateObject<MmWavePhyMacCommon> ();
  config->SetAttribute ("ChunkPerRB", UintegerValue (72));
  config->SetAttribute ("ResourceBlockNum", UintegerValue (1));
  Ptr<MmWaveAmc> amc = CreateObject<MmWaveAmc> (config);
  Ptr<SpectrumModel> model = MmWaveSpectrumValueHelper::GetSpectrumModel (config);
  std::vector<int> chunks;
  for (int i = 0; i < 72; i++)
    {
      chunks.push_back (i);
    }
  if (argc > 1 && std::string (argv[1]) == "--faded")
    {
      Faded (amc, model);
      return 0;
    }
  std::printf ("mcs,symbols,bytes,sinr10_db,sinr1_db,width_db\n");
  for (uint8_t mcs = 0; mcs <= 28; mcs++)
    {
      for (unsigned symbols : {1u, 8u, 22u})
        {
          uint32_t bytes = amc->GetTbSizeFromMcsSymbols (mcs, symbols) / 8;
          double s10 = Crossing (model, chunks, bytes, mcs, 0.1);
          double s1 = Crossing (model, chunks, bytes, mcs, 0.01);
          std::printf ("%u,%u,%u,%.3f,%.3f,%.3f\n", mcs, symbols, bytes, s10, s1, s1 - s10);
        }
    }
  return 0;
}
