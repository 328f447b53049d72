#include "nccl-all-reduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NcclAllReduce");
NS_OBJECT_ENSURE_REGISTERED(NcclAllReduce);

TypeId
NcclAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::NcclAllReduce")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<NcclAllReduce>();
    return tid;
}

void
NcclAllReduce::Setup(const std::vector<Ptr<RingTransport>>& channels, uint32_t rank, uint32_t ranks,
                     const RingPacing& pacing)
{
    NS_ABORT_MSG_IF(channels.empty(), "NcclAllReduce: at least one channel needed");
    m_pacing = pacing;
    m_channels = channels;
    m_rings.clear();
    for (const auto& t : channels)
    {
        Ptr<RingAllReduce> ring = CreateObject<RingAllReduce>();
        ring->Setup(t, rank, ranks, pacing);
        m_rings.push_back(ring);
    }
}

void
NcclAllReduce::Start(uint64_t bytes, Callback<void> done)
{
    NS_ABORT_MSG_IF(m_pending > 0, "NcclAllReduce: a collective is already running");
    m_done = done;
    const uint32_t all = static_cast<uint32_t>(m_rings.size());
    const uint32_t c = m_pacing.flowControl ? m_pacing.slicing.ChannelsFor(bytes, all) : all;
    m_pending = c;
    for (uint32_t i = 0; i < c; ++i)
    {
        const uint64_t share = RingAllReduce::ChunkBytes(bytes, c, i);
        const Callback<void> done = MakeCallback(&NcclAllReduce::ChannelDone, this);
        if (m_channels[i]->RunsWholeAllReduces())
        {
            m_channels[i]->WholeAllReduce(share, m_pacing, done); // the engine's whole ring
            continue;
        }
        m_rings[i]->Start(share, done);
    }
}

void
NcclAllReduce::ChannelDone()
{
    NS_ASSERT(m_pending > 0);
    if (--m_pending == 0)
    {
        Callback<void> done = m_done;
        m_done = MakeNullCallback<void>();
        done();
    }
}

void
NcclAllReduce::DoDispose()
{
    for (auto& r : m_rings)
    {
        r->Dispose();
    }
    m_rings.clear();
    m_channels.clear();
    m_done = MakeNullCallback<void>();
    Object::DoDispose();
}

} // namespace ns3
