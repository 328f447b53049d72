// FluidTreeAllReduce, the flow engine's whole trees: its pipeline latency and the depth of each
// collective's trees (the whole trees against their slices end to end: tests/simulation,
// flow-whole-ring-test.cc).
#include "ns3/collective-trees.h"
#include "ns3/fluid-tree-all-reduce.h"

#include <gtest/gtest.h>

using namespace ns3;

TEST(WholeTree, DepthIsTheLongestWayFromTheRootToALeaf)
{
    // A star: every rank a child of the root.
    EXPECT_EQ(FluidTreeAllReduce::Depth(CollectiveTrees("star", 16).front()), 1u);
    // NCCL's binary trees over 15 ranks (children of r: 2r+1, 2r+2): 4 levels, 3 edges deep;
    // its mirror as deep.
    for (const auto& t : CollectiveTrees("nccl_tree", 15))
    {
        EXPECT_EQ(FluidTreeAllReduce::Depth(t), 3u);
    }
    // 16 ranks: one more level, 4 edges.
    EXPECT_EQ(FluidTreeAllReduce::Depth(CollectiveTrees("nccl_tree", 16).front()), 4u);
    // Two ranks, one edge; a single rank, none.
    EXPECT_EQ(FluidTreeAllReduce::Depth(CollectiveTrees("nccl_tree", 2).front()), 1u);
    ReductionTree alone;
    alone.parent = { -1 };
    EXPECT_EQ(FluidTreeAllReduce::Depth(alone), 0u);
}

TEST(WholeTree, PipelineLatencyIsTheFirstSliceUpAndDownBeyondTheBytes)
{
    const double bps = 100e9;
    const double slice = 1e6; // 80 us at 100 Gbps
    const Time hop = MicroSeconds(2);
    // Depth 3: 6 edges; the bytes already count one slice's time on the slowest link.
    EXPECT_NEAR(FluidTreeAllReduce::PipelineLatency(3, slice, bps, hop).GetSeconds(),
                5 * slice * 8 / bps + 6 * hop.GetSeconds(), 1e-12);
    // A star: up and down once.
    EXPECT_NEAR(FluidTreeAllReduce::PipelineLatency(1, slice, bps, hop).GetSeconds(),
                slice * 8 / bps + 2 * hop.GetSeconds(), 1e-12);
    // No edge, no latency.
    EXPECT_EQ(FluidTreeAllReduce::PipelineLatency(0, slice, bps, hop), Seconds(0));
}
