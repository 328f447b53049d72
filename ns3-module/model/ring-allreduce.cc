#include "ring-allreduce.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

TypeId
RingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingAllReduce")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<RingAllReduce>();
    return tid;
}

uint64_t
RingAllReduce::ChunkBytes(uint64_t bytes, uint32_t n, uint32_t c)
{
    return bytes / n + (c < bytes % n ? 1 : 0);
}

uint32_t
RingAllReduce::ChunkSentInStep(uint32_t n, uint32_t r, uint32_t s)
{
    // (r - s) mod n without unsigned wrap-around.
    return static_cast<uint32_t>((r + static_cast<uint64_t>(s / n + 1) * n - s % n) % n);
}

uint64_t
RingAllReduce::BytesSentByRank(uint64_t bytes, uint32_t n, uint32_t r)
{
    uint64_t total = 0;
    for (uint32_t s = 0; n > 1 && s < 2 * (n - 1); ++s)
    {
        total += ChunkBytes(bytes, n, ChunkSentInStep(n, r, s));
    }
    return total;
}

void
RingAllReduce::Setup(Ptr<RingTransport> transport, uint32_t rank, uint32_t ranks)
{
    NS_ABORT_MSG_IF(ranks < 2, "RingAllReduce needs at least 2 ranks");
    NS_ABORT_MSG_IF(rank >= ranks, "RingAllReduce: rank out of range");
    m_transport = transport;
    m_rank = rank;
    m_ranks = ranks;
    m_transport->SetReceiveCallback(MakeCallback(&RingAllReduce::HandleReceived, this));
}

void
RingAllReduce::Start(uint64_t bytes, Callback<void> done)
{
    NS_LOG_FUNCTION(this << m_rank << bytes);
    NS_ABORT_MSG_IF(m_running, "RingAllReduce: all-reduce already running");
    m_running = true;
    m_bytes = bytes;
    m_received = 0;
    m_done = done;
    const uint32_t steps = 2 * (m_ranks - 1);
    // Receives are posted for every step up front (NCCL posts them as the step comes; the
    // order is the same and bytes that arrive early are kept, so the timing is unchanged).
    for (uint32_t s = 0; s < steps; ++s)
    {
        uint32_t chunk = ChunkSentInStep(m_ranks, (m_rank + m_ranks - 1) % m_ranks, s);
        m_transport->PostReceive(ChunkBytes(bytes, m_ranks, chunk));
    }
    m_transport->Send(ChunkBytes(bytes, m_ranks, ChunkSentInStep(m_ranks, m_rank, 0)));
}

void
RingAllReduce::HandleReceived(uint64_t bytes)
{
    NS_ABORT_MSG_IF(!m_running, "RingAllReduce: data from the previous rank while idle");
    const uint32_t steps = 2 * (m_ranks - 1);
    uint32_t step = m_received++;
    NS_LOG_LOGIC("rank " << m_rank << " received step " << step);
    if (step + 1 < steps)
    {
        m_transport->Send(ChunkBytes(m_bytes, m_ranks, ChunkSentInStep(m_ranks, m_rank, step + 1)));
    }
    if (m_received == steps)
    {
        m_running = false;
        Callback<void> done = m_done;
        m_done = MakeNullCallback<void>();
        done();
    }
}

void
RingAllReduce::DoDispose()
{
    m_transport = nullptr;
    m_done = MakeNullCallback<void>();
    Object::DoDispose();
}

} // namespace ns3
