/*
 * mmcc's random packet losses inside ns-3: an ErrorModel that draws from the same random stream,
 * for the same packets, as the mmcc simulator's link direction does.
 *
 * Two simulators compared with independent random losses need many seeds before their means
 * agree to a few percent (at a loss rate of 1e-3, five 20 s runs leave a standard error of
 * 6-12 % on the mean goodput). Drawing the losses from common random numbers removes that noise
 * from the comparison: the n-th packet mmcc would see on a link direction is lost in both
 * simulators or in neither, and each simulator's loss process stays exactly Bernoulli.
 *
 * - MmccRng: mmcc's generator (crates/mmcc-core/src/rng.rs): xoshiro256** (Blackman & Vigna
 *   2018) seeded through SplitMix64 from the run seed XOR the 64-bit FNV-1a hash of the stream
 *   name rotated left by 17; uniform = top 53 bits / 2^53. The test suite pins its output to the
 *   values the Rust tests pin.
 * - MmccStreamErrorModel: counts the packets mmcc has on the direction (TCP segments without
 *   SYN or FIN: with payload on a direction that carries data, pure ACKs on one that carries
 *   ACKs; ns-3's handshake packets are not in mmcc and are never dropped), drops the n-th of them
 *   when n is in the direction's drop list (mmcc's `drop_list`), and otherwise loses it with the
 *   probability of the unit (packet: p; byte: 1 - (1 - p)^size; bit: 1 - (1 - p)^(8 size), with
 *   ns-3's RateErrorModel's size: the packet as the receiving device sees it) drawn from the
 *   stream "link/<i>/<ab|ba>/error" of the run seed, as mmcc's Channel::verdict does.
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef MMCC_STREAM_ERROR_MODEL_H
#define MMCC_STREAM_ERROR_MODEL_H

#include "ns3/error-model.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/// mmcc's seeded random stream (rng.rs), bit for bit.
class MmccRng
{
  public:
    /// The stream called `name` of the run seeded with `seed`.
    MmccRng(uint64_t seed, const std::string& name);
    /// Next 64 uniformly distributed bits (xoshiro256**).
    uint64_t NextU64();
    /// Uniform in [0, 1) with 53 bits of precision.
    double Uniform();
    /// True with probability p (no draw when p <= 0 or p >= 1, as in rng.rs).
    bool Bernoulli(double p);

  private:
    std::array<uint64_t, 4> m_s;
};

class MmccStreamErrorModel : public ErrorModel
{
  public:
    enum Unit
    {
        UNIT_PACKET,
        UNIT_BYTE,
        UNIT_BIT,
    };

    static TypeId GetTypeId();
    MmccStreamErrorModel();

    /// The link direction's settings: run seed, stream name ("link/<i>/<ab|ba>/error"), unit and
    /// rate of the random model (rate 0: none), which TCP packets mmcc has on the direction, and
    /// the indices (among those packets, from 0) to drop whatever the random model says.
    void Configure(uint64_t seed,
                   const std::string& stream,
                   Unit unit,
                   double rate,
                   bool carriesData,
                   bool carriesAcks,
                   std::vector<uint64_t> dropList);

    /// Is this packet (as a point-to-point device receives it: PPP, IPv4, TCP) one mmcc has on
    /// the direction?
    bool IsSubject(Ptr<const Packet> p) const;
    /// Packets counted so far (mmcc's arrivals on the direction).
    uint64_t Arrivals() const;

  private:
    bool DoCorrupt(Ptr<Packet> p) override;
    void DoReset() override;

    uint64_t m_seed{1};
    std::string m_stream;
    Unit m_unit{UNIT_PACKET};
    double m_rate{0.0};
    bool m_carriesData{true};
    bool m_carriesAcks{false};
    std::vector<uint64_t> m_dropList;
    size_t m_dropNext{0};
    uint64_t m_arrivals{0};
    MmccRng m_rng{1, ""};
};

} // namespace ns3

#endif
