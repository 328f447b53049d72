/*
 * The flow engine's tree all-reduces in closed form (simulation.flow_ring "whole"): each
 * reduction tree's shard as one fluid flow over every edge of its tree, up and down, instead of
 * TreeAllReduce's slices over each edge (NCCL's double binary tree, KungFu's star, tree,
 * binary-tree-star and clique, the parameter server: collective-trees.h).
 *
 * Where nothing holds a standing queue, a tree's pipeline runs in step: every edge moves its
 * shard, each slice up to the root and back down, so in the steady state every edge of a tree
 * moves at the pace of its slowest. The tree is then one flow whose path is every edge's path
 * in turn (a link that several edges cross carries it as often: the root's link of a star
 * carries its n-1 edges), and water-filling gives it the rate of its most loaded link. It starts
 * when the last rank has joined and moves the shard; each rank is done when the pipeline has
 * drained: after the flow, the first slice's way up and down the tree beyond its bytes, at the
 * line's pace (PipelineLatency; the edges ahead of the first slice are idle). Against the
 * slices: within 1.1 % for every tree collective over 16 workers, 2.2 % slower for NCCL's tree
 * of 32 beside web-search (tests/simulation/flow-whole-ring-test.cc), 6.9 % faster for 1,024
 * beside web-search behind 4:1 uplinks, whose edges the slices run at their own uplinks' rates
 * (docs/flow-engine.md, The whole trees).
 *
 * What the slices do that this does not (as for the whole ring, fluid-ring-all-reduce.h): an
 * edge faster than the tree's slowest sends ahead into the unbounded receive buffers and idles
 * later, here it spreads its bytes over the whole; the bytes of all edges start and end
 * together. Events: two per all-reduce and tree, against edges x slices.
 */
#ifndef FLUMEN_FLUID_TREE_ALL_REDUCE_H
#define FLUMEN_FLUID_TREE_ALL_REDUCE_H

#include "collective-trees.h"
#include "fluid-all-reduce-joins.h"
#include "fluid-network.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class FlowRingTransport;

class FluidTreeAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /** One rank's edges in one tree: to its parent (null at the root), to each child. */
    struct Edges
    {
        Ptr<FlowRingTransport> parent;
        std::vector<Ptr<FlowRingTransport>> children; //!< in ReductionTree::Children order
    };

    /**
     * Latency of a tree's all-reduce beyond its bytes: the first slice crosses `depth` edges up
     * and `depth` down, each a slice's time at `bps` and the edge's propagation, less the one
     * slice time the bytes already count. `hopDelay`: the edges' mean propagation.
     */
    static Time PipelineLatency(uint32_t depth, double sliceBytes, double bps, Time hopDelay);
    /** Edges from the root to the deepest leaf. */
    static uint32_t Depth(const ReductionTree& tree);

    /** The trees and every rank's edges in each ([rank][tree]). */
    void Setup(const std::vector<ReductionTree>& trees,
               const std::vector<std::vector<Edges>>& edges);
    /** Rank `rank` starts its next all-reduce of `bytes`, pipelined in slices of `sliceBytes`
     * (0: whole shards); `done` runs when it holds the result. Every rank joins the same
     * all-reduces in the same order. */
    void Join(uint32_t rank, uint64_t bytes, uint64_t sliceBytes, Callback<void> done);
    /** All-reduces run as flows so far. */
    uint64_t GetAllReduces() const { return m_allReduces; }

    /** Signature of the AllReduceDone trace: bytes rank 0 sent, seconds from start to done. */
    typedef void (*DoneTracedCallback)(uint64_t bytes, double seconds);

  protected:
    void DoDispose() override;

  private:
    struct AllReduce : JoinedAllReduce
    {
        uint64_t sliceBytes = 0;
        uint32_t flowsLeft = 0;
        Time latest; //!< when the last tree is drained
    };
    /** One tree: its path over every edge, up then down, and what its flows share. */
    struct Tree
    {
        std::vector<uint32_t> path;
        double capBps = FluidNetwork::kUnbounded;
        double lineBps = FluidNetwork::kUnbounded; //!< its slowest edge's first link, or cap
        Time hopDelay;                             //!< its edges' mean propagation
        uint32_t depth = 0;
    };
    void Begin();
    /** Tree `tree`'s flow of `shard` bytes is done. */
    void HandleFlowDone(uint32_t tree, uint64_t shard, uint64_t flow);
    void Finish();

    std::vector<ReductionTree> m_trees;
    std::vector<std::vector<Edges>> m_edges; //!< [rank][tree]
    std::vector<Tree> m_paths;               //!< by tree (made at the first all-reduce)
    AllReduceJoins<AllReduce> m_all;         //!< from the one running (or waiting for ranks) on
    bool m_running = false;
    uint64_t m_allReduces = 0;
    TracedCallback<uint64_t, double> m_doneTrace;
};

} // namespace ns3

#endif
