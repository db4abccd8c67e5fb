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
 */

#include "ns3/core-module.h"
#include "ns3/mmwave-amc.h"
#include "ns3/mmwave-mi-error-model.h"
#include "ns3/mmwave-phy-mac-common.h"
#include "ns3/mmwave-spectrum-value-helper.h"

#include <cmath>
#include <cstdio>

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
