#include "fluid-tree-all-reduce.h"

#include "flow-ring-transport.h"
#include "ring-allreduce.h"
#include "tree-all-reduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidTreeAllReduce");
NS_OBJECT_ENSURE_REGISTERED(FluidTreeAllReduce);

TypeId
FluidTreeAllReduce::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FluidTreeAllReduce")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<FluidTreeAllReduce>()
              .AddTraceSource("AllReduceDone",
                              "A tree all-reduce is done at every rank: the bytes rank 0 sent, "
                              "and the seconds from the last rank's join.",
                              MakeTraceSourceAccessor(&FluidTreeAllReduce::m_doneTrace),
                              "ns3::FluidTreeAllReduce::DoneTracedCallback");
    return tid;
}

Time
FluidTreeAllReduce::PipelineLatency(uint32_t depth, double sliceBytes, double bps, Time hopDelay)
{
    if (depth == 0)
    {
        return Seconds(0);
    }
    const double edges = 2.0 * depth;
    return Seconds((edges - 1) * sliceBytes * 8 / bps) + hopDelay * static_cast<int64_t>(edges);
}

uint32_t
FluidTreeAllReduce::Depth(const ReductionTree& tree)
{
    uint32_t deepest = 0;
    for (uint32_t r = 0; r < tree.parent.size(); ++r)
    {
        uint32_t d = 0;
        for (int32_t at = static_cast<int32_t>(r); tree.parent[at] >= 0; at = tree.parent[at])
        {
            ++d;
        }
        deepest = std::max(deepest, d);
    }
    return deepest;
}

void
FluidTreeAllReduce::Setup(const std::vector<ReductionTree>& trees,
                          const std::vector<std::vector<Edges>>& edges)
{
    NS_ABORT_MSG_IF(trees.empty(), "FluidTreeAllReduce: no tree");
    for (const auto& rank : edges)
    {
        NS_ABORT_MSG_IF(rank.size() != trees.size(),
                        "FluidTreeAllReduce: every rank needs its edges in every tree");
    }
    m_trees = trees;
    m_edges = edges;
    m_all.Reset(static_cast<uint32_t>(edges.size()), "FluidTreeAllReduce");
    m_paths.clear();
}

void
FluidTreeAllReduce::Join(uint32_t rank, uint64_t bytes, uint64_t sliceBytes, Callback<void> done)
{
    AllReduce& a = m_all.Join(rank, bytes, done);
    a.sliceBytes = sliceBytes;
    if (!m_running && m_all.FrontReady())
    {
        Begin();
    }
}

void
FluidTreeAllReduce::Begin()
{
    m_running = true;
    AllReduce& a = m_all.Front();
    a.start = Simulator::Now();
    a.latest = Simulator::Now();
    const auto k = static_cast<uint32_t>(m_trees.size());
    if (m_paths.empty()) // routes and caps do not change (DCQCN is refused here)
    {
        for (uint32_t t = 0; t < k; ++t)
        {
            Tree tree;
            tree.depth = Depth(m_trees[t]);
            Time delays(0);
            uint32_t count = 0;
            const auto add = [&](const Ptr<FlowRingTransport>& edge)
            {
                const FluidNetwork::FlowSpec one = edge->WholeRingHop();
                tree.path.insert(tree.path.end(), one.path.begin(), one.path.end());
                tree.capBps = std::min(tree.capBps, one.capBps);
                tree.lineBps = std::min(
                    { tree.lineBps, one.capBps,
                      edge->GetNetwork()->GetLinkCapacity(one.path.front()) / one.wireFactor });
                delays += edge->HopDelay();
                ++count;
            };
            for (const auto& rank : m_edges) // up
            {
                if (rank[t].parent)
                {
                    add(rank[t].parent);
                }
            }
            for (const auto& rank : m_edges) // down
            {
                for (const auto& child : rank[t].children)
                {
                    add(child);
                }
            }
            tree.hopDelay = count ? delays / static_cast<int64_t>(count) : Time(0);
            m_paths.push_back(tree);
        }
    }
    a.flowsLeft = 0;
    for (uint32_t t = 0; t < k; ++t)
    {
        const uint64_t shard = RingAllReduce::ChunkBytes(a.bytes, k, t);
        if (shard > 0 && !m_paths[t].path.empty())
        {
            ++a.flowsLeft;
        }
    }
    if (a.flowsLeft == 0)
    {
        Simulator::ScheduleNow(&FluidTreeAllReduce::Finish, this);
        return;
    }
    for (uint32_t t = 0; t < k; ++t)
    {
        const uint64_t shard = RingAllReduce::ChunkBytes(a.bytes, k, t);
        if (shard == 0 || m_paths[t].path.empty())
        {
            continue;
        }
        // What the tree's edges share (weight, headers, class): any one edge's.
        const Ptr<FlowRingTransport> any
            = m_trees[t].root == 0 ? m_edges[0][t].children.front() : m_edges[0][t].parent;
        FluidNetwork::FlowSpec spec = any->WholeRingHop();
        spec.path = m_paths[t].path;
        spec.capBps = m_paths[t].capBps;
        spec.bytes = static_cast<double>(shard);
        spec.done = MakeCallback(&FluidTreeAllReduce::HandleFlowDone, this).Bind(t, shard);
        any->GetNetwork()->StartFlow(spec);
    }
}

void
FluidTreeAllReduce::HandleFlowDone(uint32_t t, uint64_t shard, uint64_t)
{
    AllReduce& a = m_all.Front();
    const Tree& tree = m_paths[t];
    // The first slice fills the pipeline at the line's pace: the edges ahead of it are idle
    // until it arrives (with the tree's shared rate instead, NCCL's tree over 16 workers came
    // out 6 % slower than its slices, a clique 9 %; at the line's, both within 1 %).
    const double slice
        = a.sliceBytes == 0 ? static_cast<double>(shard) : std::min<double>(a.sliceBytes, shard);
    a.latest
        = std::max(a.latest, Simulator::Now()
                                 + PipelineLatency(tree.depth, slice, tree.lineBps, tree.hopDelay));
    if (--a.flowsLeft == 0)
    {
        Simulator::Schedule(a.latest - Simulator::Now(), &FluidTreeAllReduce::Finish, this);
    }
}

void
FluidTreeAllReduce::Finish()
{
    AllReduce a = m_all.Pop();
    ++m_allReduces;
    m_running = false;
    const auto k = static_cast<uint32_t>(m_trees.size());
    // Each edge's two transports: the child's sends its reduced shard up and receives the
    // result; the parent's the other way round (as TreeAllReduce's messages would count).
    for (uint32_t t = 0; t < k; ++t)
    {
        const uint64_t shard = RingAllReduce::ChunkBytes(a.bytes, k, t);
        for (const auto& rank : m_edges)
        {
            if (rank[t].parent)
            {
                rank[t].parent->CountWholeRing(shard, shard);
            }
            for (const auto& child : rank[t].children)
            {
                child->CountWholeRing(shard, shard);
            }
        }
    }
    m_doneTrace(TreeAllReduce::BytesSentByRank(a.bytes, m_trees, 0),
                (Simulator::Now() - a.start).GetSeconds());
    // (A rank's callback may join the next all-reduce: it begins once the last has.)
    for (auto& done : a.done)
    {
        done();
    }
    if (!m_running && m_all.FrontReady())
    {
        Begin();
    }
}

void
FluidTreeAllReduce::DoDispose()
{
    m_edges.clear();
    m_all.Clear();
    Object::DoDispose();
}

} // namespace ns3
