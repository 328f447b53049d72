// The numbers of the trees' links (NumberTreeLinks): the transports of a host take their ports
// from them, so two links meeting at a rank must never share one, and their count must not grow
// with the ranks where the trees' fan-out does not.
#include "ns3/collective-trees.h"

#include <gtest/gtest.h>

#include <set>
#include <utility>

using namespace ns3;

namespace
{

// Every rank's links (to its parent and to each child, in every tree) have distinct numbers
// below the count; returns how many links met at the busiest rank.
size_t
CheckDistinctAtEveryRank(const std::vector<ReductionTree>& trees, const TreeLinkNumbers& numbers)
{
    const size_t n = trees.front().parent.size();
    std::vector<std::set<uint32_t>> atRank(n);
    std::vector<size_t> links(n, 0);
    EXPECT_EQ(numbers.ofRank.size(), trees.size());
    for (size_t t = 0; t < trees.size(); ++t)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            const int32_t p = trees[t].parent[r];
            if (p < 0)
            {
                continue;
            }
            const uint32_t number = numbers.ofRank[t][r];
            EXPECT_LT(number, numbers.count);
            EXPECT_TRUE(atRank[r].insert(number).second) << "tree " << t << " rank " << r;
            EXPECT_TRUE(atRank[p].insert(number).second) << "tree " << t << " parent " << p;
            ++links[r];
            ++links[p];
        }
    }
    return *std::max_element(links.begin(), links.end());
}

} // namespace

TEST(CollectiveTrees, LinksMeetingAtARankNeverShareANumber)
{
    for (const std::string& collective : CollectiveNames())
    {
        for (uint32_t n : { 2u, 3u, 4u, 7u, 16u, 33u })
        {
            const auto trees = CollectiveTrees(collective, n, 2);
            if (trees.empty())
            {
                continue; // the ring
            }
            const TreeLinkNumbers numbers = NumberTreeLinks(trees);
            const size_t busiest = CheckDistinctAtEveryRank(trees, numbers);
            EXPECT_GE(numbers.count, busiest) << collective << " over " << n;
        }
    }
}

TEST(CollectiveTrees, ADoubleBinaryTreeNeedsSixNumbersAtAnySizeAStarOnePerRank)
{
    for (uint32_t n : { 4u, 64u, 1024u, 4096u })
    {
        const auto trees = CollectiveTrees("nccl_tree", n);
        const TreeLinkNumbers numbers = NumberTreeLinks(trees);
        // Two trees, each with at most two children and a parent per rank.
        EXPECT_EQ(numbers.count, 6u) << n;
        CheckDistinctAtEveryRank(trees, numbers);
        // The star's root meets every other rank.
        EXPECT_EQ(NumberTreeLinks(CollectiveTrees("star", n)).count, n) << n;
    }
}
