// The tree-based collectives over an in-memory link: every rank finishes every all-reduce, and
// the bytes each rank sends match each algorithm's formula, written here from the algorithm's
// definition (not from TreeAllReduce::BytesSentByRank, which is checked against it too).
#include "ns3/collective-trees.h"
#include "ns3/ring-allreduce.h"
#include "ns3/simulator.h"
#include "ns3/tree-all-reduce.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>

using namespace ns3;

namespace
{

// One end of an in-memory link: a message arrives at the other end 1 us after it is sent;
// receives complete in the order posted, bytes arriving before the post count towards it.
class MemoryTransport : public RingTransport
{
  public:
    Ptr<MemoryTransport> peer;
    uint64_t sent = 0;

    void Start() override {}
    void Send(uint64_t bytes) override
    {
        sent += bytes;
        Ptr<MemoryTransport> to = peer;
        Simulator::Schedule(MicroSeconds(1), [to, bytes] { to->Arrive(bytes); });
    }
    void PostReceive(uint64_t bytes) override
    {
        m_posted.push_back(bytes);
        Complete();
    }
    uint64_t GetBytesSent() const override { return sent; }
    uint64_t GetBytesReceived() const override { return m_received; }

  private:
    void Arrive(uint64_t bytes)
    {
        m_buffered += bytes;
        m_received += bytes;
        Complete();
    }
    void Complete()
    {
        while (!m_posted.empty() && m_buffered >= m_posted.front())
        {
            const uint64_t b = m_posted.front();
            m_posted.pop_front();
            m_buffered -= b;
            NotifyReceiveComplete(b);
        }
    }

    std::deque<uint64_t> m_posted;
    uint64_t m_buffered = 0;
    uint64_t m_received = 0;
};

struct Outcome
{
    std::vector<uint64_t> sent;   //!< bytes each rank sent
    std::vector<uint32_t> done;   //!< all-reduces each rank finished
    std::vector<double> finishUs; //!< when each rank finished its last one
};

// Runs all-reduces of sizes[0], sizes[1], ... on every rank (each rank starts its next one
// when its previous one is done, as a worker does); rank r starts its first at startUs[r].
Outcome
RunAllReduces(const std::vector<ReductionTree>& trees, uint32_t n,
              const std::vector<uint64_t>& sizes, uint64_t sliceBytes,
              const std::vector<double>& startUs)
{
    const auto rounds = static_cast<uint32_t>(sizes.size());
    Outcome out;
    std::vector<uint32_t>& done = out.done;
    out.finishUs.assign(n, 0);
    std::vector<std::vector<TreeAllReduce::TreeLinks>> links(
        n, std::vector<TreeAllReduce::TreeLinks>(trees.size()));
    std::vector<std::vector<Ptr<MemoryTransport>>> ends(n);
    for (uint32_t t = 0; t < trees.size(); ++t)
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            links[r][t].children.resize(trees[t].Children(r).size());
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            if (trees[t].parent[r] < 0)
            {
                continue;
            }
            const auto p = static_cast<uint32_t>(trees[t].parent[r]);
            auto up = CreateObject<MemoryTransport>();
            auto down = CreateObject<MemoryTransport>();
            up->peer = down;
            down->peer = up;
            links[r][t].parent = up;
            const auto siblings = trees[t].Children(p);
            links[p][t].children[std::find(siblings.begin(), siblings.end(), r) - siblings.begin()]
                = down;
            ends[r].push_back(up);
            ends[p].push_back(down);
        }
    }
    done.assign(n, 0);
    std::vector<Ptr<TreeAllReduce>> ranks;
    std::function<void(uint32_t)> next = [&](uint32_t r)
    {
        out.finishUs[r] = Simulator::Now().GetMicroSeconds();
        if (++done[r] < rounds)
        {
            ranks[r]->Start(sizes[done[r]], Callback<void>([&next, r] { next(r); }));
        }
    };
    for (uint32_t r = 0; r < n; ++r)
    {
        ranks.push_back(CreateObject<TreeAllReduce>());
        ranks[r]->Setup(trees, links[r], r, sliceBytes);
    }
    for (uint32_t r = 0; r < n; ++r)
    {
        Simulator::Schedule(MicroSeconds(r < startUs.size() ? startUs[r] : 0),
                            [&ranks, &sizes, &next, r] {
                                ranks[r]->Start(sizes[0], Callback<void>([&next, r] { next(r); }));
                            });
    }
    Simulator::Run();
    Simulator::Destroy();
    out.sent.assign(n, 0);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (const auto& e : ends[r])
        {
            out.sent[r] += e->sent;
            e->peer = nullptr; // the two ends hold each other
        }
        for (auto& t : links[r])
        {
            t = {};
        }
    }
    for (auto& t : ranks)
    {
        t->Dispose();
    }
    return out;
}

uint32_t
BinaryChildren(uint32_t position, uint32_t n)
{
    return (2 * position + 1 < n ? 1 : 0) + (2 * position + 2 < n ? 1 : 0);
}

// Each algorithm's bytes sent by rank r per all-reduce of b bytes over n ranks.
uint64_t
Formula(const std::string& c, uint32_t n, uint64_t b, uint32_t r, uint32_t servers)
{
    if (c == "star" || c == "tree")
    {
        return r == 0 ? (n - 1) * b : b; // the root broadcasts to all; the others push once
    }
    if (c == "binary_tree_star")
    {
        return (r == 0 ? 0 : b) + BinaryChildren(r, n) * b;
    }
    if (c == "nccl_tree")
    {
        const uint64_t h0 = b - b / 2, h1 = b / 2; // the halves; the mirror tree has n-1-r at r
        const uint32_t m = n - 1 - r;
        return (r == 0 ? 0 : h0) + BinaryChildren(r, n) * h0 + (m == 0 ? 0 : h1)
               + BinaryChildren(m, n) * h1;
    }
    // clique (n servers) and parameter_server: push every shard to its server, and a server
    // sends its reduced shard to the n-1 others.
    const uint32_t k = c == "clique" ? n : servers;
    uint64_t total = 0;
    for (uint32_t i = 0; i < k; ++i)
    {
        const uint64_t shard = b / k + (i < b % k ? 1 : 0);
        total += i == r ? (n - 1) * shard : shard;
    }
    return total;
}

} // namespace

TEST(TreeAllReduce, BytesPerRankMatchEachAlgorithmsFormula)
{
    for (const std::string c :
         { "nccl_tree", "star", "tree", "binary_tree_star", "clique", "parameter_server" })
    {
        for (uint32_t n : { 2u, 3u, 4u, 5u, 8u })
        {
            for (uint64_t bytes : { 1000003ull, 4ull * 25557032 })
            {
                const uint32_t servers = std::min(n, 3u);
                const auto trees = CollectiveTrees(c, n, servers);
                ASSERT_FALSE(trees.empty()) << c;
                const Outcome o = RunAllReduces(trees, n, { bytes, bytes, bytes }, 65536, {});
                for (uint32_t r = 0; r < n; ++r)
                {
                    EXPECT_EQ(o.done[r], 3u) << c << " n=" << n << " rank " << r;
                    EXPECT_EQ(o.sent[r], 3 * Formula(c, n, bytes, r, servers))
                        << c << " n=" << n << " rank " << r;
                    EXPECT_EQ(TreeAllReduce::BytesSentByRank(bytes, trees, r),
                              Formula(c, n, bytes, r, servers))
                        << c << " n=" << n << " rank " << r;
                }
            }
        }
    }
}

TEST(TreeAllReduce, CliqueMovesWhatTheRingDoes)
{
    // Reduce-scatter and all-gather over a full mesh: 2(n-1)/n of the buffer per rank, as the
    // ring, in two hops instead of 2(n-1).
    for (uint32_t n : { 3u, 4u, 6u })
    {
        const uint64_t bytes = 12ull * 1000 * 1000;
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(TreeAllReduce::BytesSentByRank(bytes, CollectiveTrees("clique", n), r),
                      RingAllReduce::BytesSentByRank(bytes, n, r));
        }
    }
}

TEST(TreeAllReduce, EachLevelCostsAMessageUpAndOneDown)
{
    // 1 us per message, no bandwidth limit: the deepest leaf of a binary tree finishes after
    // 2 x depth message times (up to the root and back), sliced or not, since the slices of a
    // level travel together. Depth: 1 for 2 ranks, 3 for 8 (0 -> 1 -> 3 -> 7).
    for (auto [n, depth] : { std::pair<uint32_t, double>{ 2, 1 }, { 8, 3 } })
    {
        for (uint64_t slice : { 0ull, 100ull })
        {
            const Outcome o
                = RunAllReduces(CollectiveTrees("binary_tree_star", n), n, { 1000 }, slice, {});
            EXPECT_DOUBLE_EQ(*std::max_element(o.finishUs.begin(), o.finishUs.end()), 2 * depth)
                << n << " ranks, slice " << slice;
            EXPECT_DOUBLE_EQ(o.finishUs[0], depth) << "the root has the result after the way up";
        }
    }
    // A star is one level whatever its size.
    const Outcome star = RunAllReduces(CollectiveTrees("star", 6), 6, { 1000 }, 0, {});
    EXPECT_DOUBLE_EQ(*std::max_element(star.finishUs.begin(), star.finishUs.end()), 2.0);
}

TEST(TreeAllReduce, EmptyShardsStillFinish)
{
    // Two bytes over five shards: three shards are empty and move nothing.
    const Outcome o = RunAllReduces(CollectiveTrees("clique", 5), 5, { 2, 2 }, 0, {});
    for (uint32_t r = 0; r < 5; ++r)
    {
        EXPECT_EQ(o.done[r], 2u) << r;
    }
}

TEST(TreeAllReduce, EarlyArrivalsAndChangingSizesKeepEveryRankInStep)
{
    // Horovod's fused all-reduces differ in size, and ranks start them at different times: a
    // root that starts last finds its children's slices waiting and may finish while it posts
    // its receives. Every rank must still finish each all-reduce once, sending its formula.
    const std::vector<uint64_t> sizes = { 1000003, 4 * 25557032ull, 17, 65536, 3 };
    for (const std::string c : { "star", "clique", "nccl_tree", "parameter_server" })
    {
        const uint32_t n = 4;
        const auto trees = CollectiveTrees(c, n, 2);
        for (const auto& start :
             { std::vector<double>{ 500, 0, 0, 0 }, std::vector<double>{ 0, 300, 600, 900 } })
        {
            const Outcome o = RunAllReduces(trees, n, sizes, 65536, start);
            for (uint32_t r = 0; r < n; ++r)
            {
                uint64_t expected = 0;
                for (uint64_t b : sizes)
                {
                    expected += Formula(c, n, b, r, 2);
                }
                EXPECT_EQ(o.done[r], sizes.size()) << c << " rank " << r;
                EXPECT_EQ(o.sent[r], expected) << c << " rank " << r;
            }
        }
    }
}
