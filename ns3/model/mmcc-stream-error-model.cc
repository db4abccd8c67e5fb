/*
 * mmcc's random packet losses inside ns-3 (see the header).
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "mmcc-stream-error-model.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-header.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MmccStreamErrorModel");
NS_OBJECT_ENSURE_REGISTERED(MmccStreamErrorModel);

namespace
{

uint64_t
Rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/// SplitMix64 (Steele, Lea & Flood 2014), the seeding step of rng.rs.
uint64_t
SplitMix64(uint64_t& state)
{
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/// 64-bit FNV-1a of the stream name.
uint64_t
Fnv1a(const std::string& name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char b : name)
    {
        h ^= b;
        h *= 0x00000100000001B3ULL;
    }
    return h;
}

} // namespace

MmccRng::MmccRng(uint64_t seed, const std::string& name)
{
    uint64_t st = seed ^ Rotl(Fnv1a(name), 17);
    for (auto& x : m_s)
    {
        x = SplitMix64(st);
    }
    if (m_s[0] == 0 && m_s[1] == 0 && m_s[2] == 0 && m_s[3] == 0)
    {
        m_s[0] = 1;
    }
}

uint64_t
MmccRng::NextU64()
{
    const uint64_t result = Rotl(m_s[1] * 5, 7) * 9;
    const uint64_t t = m_s[1] << 17;
    m_s[2] ^= m_s[0];
    m_s[3] ^= m_s[1];
    m_s[1] ^= m_s[2];
    m_s[0] ^= m_s[3];
    m_s[2] ^= t;
    m_s[3] = Rotl(m_s[3], 45);
    return result;
}

double
MmccRng::Uniform()
{
    return static_cast<double>(NextU64() >> 11) * (1.0 / static_cast<double>(1ULL << 53));
}

bool
MmccRng::Bernoulli(double p)
{
    if (p <= 0.0)
    {
        return false;
    }
    if (p >= 1.0)
    {
        return true;
    }
    return Uniform() < p;
}

TypeId
MmccStreamErrorModel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::MmccStreamErrorModel")
                            .SetParent<ErrorModel>()
                            .SetGroupName("Network")
                            .AddConstructor<MmccStreamErrorModel>();
    return tid;
}

MmccStreamErrorModel::MmccStreamErrorModel() = default;

void
MmccStreamErrorModel::Configure(uint64_t seed,
                                const std::string& stream,
                                Unit unit,
                                double rate,
                                bool carriesData,
                                bool carriesAcks,
                                std::vector<uint64_t> dropList)
{
    m_seed = seed;
    m_stream = stream;
    m_unit = unit;
    m_rate = std::clamp(rate, 0.0, 1.0);
    m_carriesData = carriesData;
    m_carriesAcks = carriesAcks;
    std::sort(dropList.begin(), dropList.end());
    m_dropList = std::move(dropList);
    DoReset();
}

bool
MmccStreamErrorModel::IsSubject(Ptr<const Packet> p) const
{
    Ptr<Packet> copy = p->Copy();
    PppHeader ppp;
    if (copy->GetSize() < ppp.GetSerializedSize())
    {
        return false;
    }
    copy->RemoveHeader(ppp);
    if (ppp.GetProtocol() != 0x0021) // IPv4 (RFC 1332)
    {
        return false;
    }
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    if (ip.GetProtocol() != 6) // TCP
    {
        return false;
    }
    TcpHeader tcp;
    copy->PeekHeader(tcp);
    if (tcp.GetFlags() & (TcpHeader::SYN | TcpHeader::FIN))
    {
        return false;
    }
    const bool payload = ip.GetPayloadSize() > tcp.GetSerializedSize();
    return payload ? m_carriesData : m_carriesAcks;
}

uint64_t
MmccStreamErrorModel::Arrivals() const
{
    return m_arrivals;
}

bool
MmccStreamErrorModel::DoCorrupt(Ptr<Packet> p)
{
    if (!IsSubject(p))
    {
        return false;
    }
    // mmcc Channel::verdict: the drop list first, then the random model
    const uint64_t idx = m_arrivals++;
    if (m_dropNext < m_dropList.size() && m_dropList[m_dropNext] == idx)
    {
        m_dropNext++;
        return true;
    }
    if (m_rate <= 0.0)
    {
        return false;
    }
    double per = m_rate;
    if (m_unit != UNIT_PACKET && m_rate < 1.0)
    {
        // 1 - (1 - p)^n = -expm1(n ln(1 - p)) (error_model.rs; exact for tiny p)
        const double units = (m_unit == UNIT_BIT ? 8.0 : 1.0) * p->GetSize();
        per = -std::expm1(units * std::log1p(-m_rate));
    }
    return m_rng.Bernoulli(per);
}

void
MmccStreamErrorModel::DoReset()
{
    m_rng = MmccRng(m_seed, m_stream);
    m_arrivals = 0;
    m_dropNext = 0;
}

} // namespace ns3
