/*
 * All-reduce over reduction trees (CollectiveTrees: NCCL's double binary tree, KungFu's
 * star, tree, binary-tree-star and clique, a parameter server). The buffer is cut into one
 * equal shard per tree; each shard is cut into slices (SliceBytes at most, as NCCL pipelines
 * its steps). A rank sends slice j of a shard to its parent once it holds slice j from every
 * child (a leaf at once); the root, holding slice j from every child, has it reduced and
 * sends it to its children; a rank forwards slice j to its children as it arrives from its
 * parent. A rank is done when it holds every reduced slice of every shard.
 *
 * Every tree edge has its own link, a pair of transports (one on each rank, each sending to
 * the other), so that each direction carries one kind of message in slice order: reduced
 * slices up, results down. Receive buffers are unbounded, as in RingAllReduce.
 */
#ifndef FLUMEN_TREE_ALL_REDUCE_H
#define FLUMEN_TREE_ALL_REDUCE_H

#include "collective-trees.h"
#include "ring-transport.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class TreeAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /** This rank's links in one tree: to its parent (null at the root), to each child. */
    struct TreeLinks
    {
        Ptr<RingTransport> parent;
        std::vector<Ptr<RingTransport>> children; //!< in ReductionTree::Children order
    };

    /** Bytes rank r sends in one all-reduce of `bytes` over these trees, exactly. */
    static uint64_t BytesSentByRank(uint64_t bytes, const std::vector<ReductionTree>& trees,
                                    uint32_t r);

    void Setup(const std::vector<ReductionTree>& trees, const std::vector<TreeLinks>& links,
               uint32_t rank, uint64_t sliceBytes);
    /** Starts one all-reduce; `done` runs when this rank holds the fully reduced buffer. */
    void Start(uint64_t bytes, Callback<void> done);
    bool IsRunning() const { return m_running; }

  protected:
    void DoDispose() override;

  private:
    struct Shard
    {
        uint64_t bytes = 0;
        uint32_t slices = 1;
        std::vector<uint32_t> fromChildren;  //!< per slice: children whose part arrived
        std::vector<uint32_t> childMessages; //!< per child: messages received so far
        uint32_t fromParent = 0;             //!< results received from the parent so far
    };

    uint64_t SliceBytes(const Shard& s, uint32_t slice) const;
    void HandleFromChild(uint32_t tree, uint32_t child, uint64_t bytes);
    void HandleFromParent(uint32_t tree, uint64_t bytes);
    /** Slice `slice` of shard `tree` is reduced here: send it on. */
    void Reduced(uint32_t tree, uint32_t slice);
    void SendDown(uint32_t tree, uint32_t slice);
    void SliceDone();

    std::vector<ReductionTree> m_trees;
    std::vector<TreeLinks> m_links;
    uint32_t m_rank = 0;
    uint64_t m_sliceBytes = 0;
    std::vector<Shard> m_shards;
    uint64_t m_slicesLeft = 0;
    bool m_running = false;
    Callback<void> m_done;
};

} // namespace ns3

#endif
