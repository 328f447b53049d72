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

uint32_t
RingAllReduce::SlicesPerChunk(uint64_t bytes, uint32_t n, uint64_t sliceBytes)
{
    uint64_t largest = ChunkBytes(bytes, n, 0);
    if (sliceBytes == 0 || largest <= sliceBytes)
    {
        return 1;
    }
    return static_cast<uint32_t>((largest + sliceBytes - 1) / sliceBytes);
}

void
RingAllReduce::Setup(Ptr<RingTransport> transport, uint32_t rank, uint32_t ranks,
                     uint64_t sliceBytes)
{
    NS_ABORT_MSG_IF(ranks < 2, "RingAllReduce needs at least 2 ranks");
    NS_ABORT_MSG_IF(rank >= ranks, "RingAllReduce: rank out of range");
    m_transport = transport;
    m_rank = rank;
    m_ranks = ranks;
    m_sliceBytes = sliceBytes;
    m_transport->SetReceiveCallback(MakeCallback(&RingAllReduce::HandleReceived, this));
}

uint64_t
RingAllReduce::SliceBytesOf(uint32_t step, uint32_t sender, uint32_t slice) const
{
    uint64_t chunk = ChunkBytes(m_bytes, m_ranks, ChunkSentInStep(m_ranks, sender, step));
    return ChunkBytes(chunk, m_slices, slice);
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
    m_slices = SlicesPerChunk(bytes, m_ranks, m_sliceBytes);
    const uint32_t steps = 2 * (m_ranks - 1);
    const uint32_t previous = (m_rank + m_ranks - 1) % m_ranks;
    // Receives are posted for every slice up front (NCCL posts them as the step comes; the
    // order is the same and bytes that arrive early are kept, so the timing is unchanged).
    for (uint32_t s = 0; s < steps; ++s)
    {
        for (uint32_t j = 0; j < m_slices; ++j)
        {
            m_transport->PostReceive(SliceBytesOf(s, previous, j));
        }
    }
    for (uint32_t j = 0; j < m_slices; ++j)
    {
        m_transport->Send(SliceBytesOf(0, m_rank, j));
    }
}

void
RingAllReduce::HandleReceived(uint64_t bytes)
{
    NS_ABORT_MSG_IF(!m_running, "RingAllReduce: data from the previous rank while idle");
    const uint32_t steps = 2 * (m_ranks - 1);
    // The predecessor's stream is step-major: all slices of step s before any of step s+1.
    uint32_t index = m_received++;
    uint32_t step = index / m_slices;
    uint32_t slice = index % m_slices;
    NS_LOG_LOGIC("rank " << m_rank << " received step " << step << " slice " << slice);
    if (step + 1 < steps)
    {
        m_transport->Send(SliceBytesOf(step + 1, m_rank, slice));
    }
    if (m_received == steps * m_slices)
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
