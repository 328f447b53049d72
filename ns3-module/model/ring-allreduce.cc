#include "ring-allreduce.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(RingAllReduce);

std::pair<double, double>
RingPacing::StepAndSlice(uint64_t bytes, uint32_t ranks) const
{
    const double chunk = std::ceil(double(bytes) / ranks);
    if (!flowControl)
    {
        return { chunk, sliceBytes > 0 ? std::min<double>(chunk, double(sliceBytes)) : chunk };
    }
    const uint64_t step = slicing.LoopChunkBytes(bytes, ranks);
    return { double(step), double(slicing.SliceBytes(step)) };
}

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
    if (n < 2)
    {
        return 0;
    }
    // Steps 0..n-1 send every chunk once (r, r-1, ...); steps n..2n-3 all but the last two of
    // that order, r+2 and r+1 (mod n). In closed form: a whole ring's ranks ask it per
    // all-reduce, and a sum over the steps made that n^2.
    return 2 * bytes - ChunkBytes(bytes, n, (r + 1) % n) - ChunkBytes(bytes, n, (r + 2) % n);
}

void
RingAllReduce::Setup(Ptr<RingTransport> transport, uint32_t rank, uint32_t ranks,
                     const RingPacing& pacing)
{
    NS_ABORT_MSG_IF(ranks < 2, "RingAllReduce needs at least 2 ranks");
    NS_ABORT_MSG_IF(rank >= ranks, "RingAllReduce: rank out of range");
    m_transport = transport;
    m_rank = rank;
    m_ranks = ranks;
    m_pacing = pacing;
    m_slots = pacing.flowControl ? pacing.slicing.SlotsInSlices() : 0;
    NS_ABORT_MSG_IF(pacing.flowControl && m_slots == 0, "RingAllReduce: no FIFO slots");
    m_transport->SetClearToSend(pacing.flowControl);
    m_transport->SetReceiveCallback(MakeCallback(&RingAllReduce::HandleReceived, this));
    m_transport->SetSendCompleteCallback(MakeCallback(&RingAllReduce::HandleSent, this));
}

void
RingAllReduce::Start(uint64_t bytes, Callback<void> done)
{
    NS_LOG_FUNCTION(this << m_rank << bytes);
    NS_ABORT_MSG_IF(m_running, "RingAllReduce: all-reduce already running");
    m_ops = m_pacing.flowControl
                ? RingSchedule::Nccl(bytes, m_ranks, m_rank, m_pacing.slicing)
                : RingSchedule::Pipelined(bytes, m_ranks, m_rank, m_pacing.sliceBytes);
    m_next = 0;
    m_nextReceive = 0;
    m_posted = m_arrived = m_consumed = 0;
    m_done = done;
    m_running = true;
    if (m_ops.empty())
    {
        // Nothing to move (an empty buffer): done, from a fresh event as a transfer would be.
        Simulator::ScheduleNow(&RingAllReduce::Advance, this);
        return;
    }
    PostReceives();
    Advance();
}

void
RingAllReduce::PostReceives()
{
    while (m_nextReceive < m_ops.size() && (m_slots == 0 || m_posted - m_consumed < m_slots))
    {
        const RingOp& op = m_ops[m_nextReceive++];
        if (op.receive > 0)
        {
            ++m_posted;
            m_transport->PostReceive(op.receive);
        }
    }
}

void
RingAllReduce::Advance()
{
    if (m_advancing || !m_running)
    {
        return; // a transport's callback from inside Send or PostReceive: the loop goes on
    }
    m_advancing = true;
    while (m_next < m_ops.size())
    {
        const RingOp& op = m_ops[m_next];
        if (op.receive > 0 && m_arrived == m_consumed)
        {
            break; // its slice is not here yet
        }
        if (op.send > 0 && m_slots > 0 && m_sendInUse >= m_slots)
        {
            break; // the send FIFO is full
        }
        ++m_next;
        if (op.receive > 0)
        {
            ++m_consumed;
            PostReceives(); // the slot is free again: NCCL re-posts it
        }
        if (op.send > 0)
        {
            ++m_sendInUse;
            m_transport->Send(op.send);
        }
    }
    m_advancing = false;
    if (m_next == m_ops.size())
    {
        m_running = false;
        m_ops.clear();
        Callback<void> done = m_done;
        m_done = MakeNullCallback<void>();
        done();
    }
}

void
RingAllReduce::HandleReceived(uint64_t bytes)
{
    NS_ABORT_MSG_IF(!m_running || m_arrived >= m_posted,
                    "RingAllReduce: data from the previous rank that no receive was posted for");
    NS_LOG_LOGIC("rank " << m_rank << " received " << bytes << " bytes, receive " << m_arrived);
    ++m_arrived;
    Advance();
}

void
RingAllReduce::HandleSent(uint64_t bytes)
{
    if (m_sendInUse > 0)
    {
        --m_sendInUse;
    }
    Advance();
}

void
RingAllReduce::DoDispose()
{
    m_transport = nullptr;
    m_done = MakeNullCallback<void>();
    Object::DoDispose();
}

} // namespace ns3
