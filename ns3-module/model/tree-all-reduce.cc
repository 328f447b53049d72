#include "tree-all-reduce.h"

#include "ring-allreduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TreeAllReduce");
NS_OBJECT_ENSURE_REGISTERED(TreeAllReduce);

TypeId
TreeAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TreeAllReduce")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<TreeAllReduce>();
    return tid;
}

uint64_t
TreeAllReduce::BytesSentByRank(uint64_t bytes, const std::vector<ReductionTree>& trees, uint32_t r)
{
    const uint32_t k = static_cast<uint32_t>(trees.size());
    uint64_t total = 0;
    for (uint32_t t = 0; t < k; ++t)
    {
        const uint64_t shard = RingAllReduce::ChunkBytes(bytes, k, t);
        total += shard * ((r != trees[t].root ? 1 : 0) + trees[t].Children(r).size());
    }
    return total;
}

void
TreeAllReduce::Setup(const std::vector<ReductionTree>& trees, const std::vector<TreeLinks>& links,
                     uint32_t rank, uint64_t sliceBytes)
{
    NS_ABORT_MSG_IF(trees.empty() || trees.size() != links.size(),
                    "TreeAllReduce: one set of links per tree expected");
    m_trees = trees;
    m_links = links;
    m_rank = rank;
    m_sliceBytes = sliceBytes;
    for (uint32_t t = 0; t < trees.size(); ++t)
    {
        const bool root = trees[t].root == rank;
        NS_ABORT_MSG_IF(root != !links[t].parent, "TreeAllReduce: a parent link iff not the root");
        NS_ABORT_MSG_IF(links[t].children.size() != trees[t].Children(rank).size(),
                        "TreeAllReduce: one link per child expected");
        if (links[t].parent)
        {
            links[t].parent->SetReceiveCallback(
                MakeCallback(&TreeAllReduce::HandleFromParent, this).Bind(t));
        }
        for (uint32_t c = 0; c < links[t].children.size(); ++c)
        {
            links[t].children[c]->SetReceiveCallback(
                MakeCallback(&TreeAllReduce::HandleFromChild, this).Bind(t, c));
        }
    }
}

uint64_t
TreeAllReduce::SliceBytes(const Shard& s, uint32_t slice) const
{
    return RingAllReduce::ChunkBytes(s.bytes, s.slices, slice);
}

void
TreeAllReduce::Start(uint64_t bytes, Callback<void> done)
{
    NS_LOG_FUNCTION(this << m_rank << bytes);
    NS_ABORT_MSG_IF(m_running, "TreeAllReduce: an all-reduce is already running");
    m_running = true;
    m_done = done;
    const uint32_t k = static_cast<uint32_t>(m_trees.size());
    m_shards.assign(k, Shard{});
    m_slicesLeft = 0;
    for (uint32_t t = 0; t < k; ++t)
    {
        Shard& s = m_shards[t];
        s.bytes = RingAllReduce::ChunkBytes(bytes, k, t);
        s.slices = s.bytes == 0 ? 0 // an empty shard moves nothing
                   : m_sliceBytes == 0
                       ? 1
                       : static_cast<uint32_t>((s.bytes + m_sliceBytes - 1) / m_sliceBytes);
        s.fromChildren.assign(s.slices, 0);
        s.childMessages.assign(m_links[t].children.size(), 0);
        m_slicesLeft += s.slices;
    }
    if (m_slicesLeft == 0)
    {
        m_running = false;
        Simulator::ScheduleNow([this] { m_done(); });
        return;
    }
    // Posting completes at once what arrived early (children that started first), so every
    // shard is set up, and every slice counted, before the first post.
    for (uint32_t t = 0; t < k; ++t)
    {
        const Shard& s = m_shards[t];
        for (uint32_t j = 0; j < s.slices; ++j)
        {
            for (const auto& child : m_links[t].children)
            {
                child->PostReceive(SliceBytes(s, j));
            }
            if (m_links[t].parent)
            {
                m_links[t].parent->PostReceive(SliceBytes(s, j));
            }
        }
    }
    // A leaf holds its own part of every slice: it goes up at once.
    for (uint32_t t = 0; t < k; ++t)
    {
        if (m_links[t].children.empty())
        {
            for (uint32_t j = 0; j < m_shards[t].slices; ++j)
            {
                Reduced(t, j);
            }
        }
    }
}

void
TreeAllReduce::HandleFromChild(uint32_t tree, uint32_t child, uint64_t)
{
    Shard& s = m_shards[tree];
    const uint32_t slice = s.childMessages[child]++;
    NS_ABORT_MSG_IF(!m_running || slice >= s.slices,
                    "TreeAllReduce rank "
                        << m_rank << ": a message beyond the all-reduce from child " << child
                        << " of tree " << tree);
    if (++s.fromChildren[slice] == m_links[tree].children.size())
    {
        Reduced(tree, slice);
    }
}

void
TreeAllReduce::Reduced(uint32_t tree, uint32_t slice)
{
    if (m_links[tree].parent)
    {
        m_links[tree].parent->Send(SliceBytes(m_shards[tree], slice));
        return;
    }
    SendDown(tree, slice); // the root: the slice is fully reduced
    SliceDone();
}

void
TreeAllReduce::HandleFromParent(uint32_t tree, uint64_t)
{
    const uint32_t slice = m_shards[tree].fromParent++;
    NS_ABORT_MSG_IF(!m_running || slice >= m_shards[tree].slices,
                    "TreeAllReduce rank " << m_rank << ": a message beyond the all-reduce from the "
                                          << "parent in tree " << tree);
    SendDown(tree, slice);
    SliceDone();
}

void
TreeAllReduce::SendDown(uint32_t tree, uint32_t slice)
{
    for (const auto& child : m_links[tree].children)
    {
        child->Send(SliceBytes(m_shards[tree], slice));
    }
}

void
TreeAllReduce::SliceDone()
{
    if (--m_slicesLeft == 0)
    {
        // After the event that finished it: the worker's next all-reduce must not start
        // inside this one's Start (a root can finish while posting its receives).
        m_running = false;
        Simulator::ScheduleNow([this] { m_done(); });
    }
}

void
TreeAllReduce::DoDispose()
{
    m_links.clear();
    m_done = Callback<void>();
    Object::DoDispose();
}

} // namespace ns3
