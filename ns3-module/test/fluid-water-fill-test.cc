// FluidNetwork's two water-fillings (fluid-network-sharing.cc): the heap of links that large
// networks take and the passes per level that small ones take give the same rates on random
// networks of capped, weighted, paced flows with headers at FIFO and round-robin links.
#include "ns3/fluid-network.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

using namespace ns3;

namespace
{

struct RandomNetwork
{
    std::vector<std::pair<double, bool>> links; //!< rate, fifo
    std::vector<FluidNetwork::FlowSpec> flows;
};

RandomNetwork
Draw(uint32_t seed, uint32_t nLinks, uint32_t nFlows)
{
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    RandomNetwork n;
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        n.links.emplace_back(1e9 * (5 + 95 * u(rng)), u(rng) < 0.3);
    }
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        FluidNetwork::FlowSpec s;
        const uint32_t hops = 1 + static_cast<uint32_t>(4 * u(rng));
        while (s.path.size() < hops)
        {
            const uint32_t l = static_cast<uint32_t>(nLinks * u(rng)) % nLinks;
            if (std::find(s.path.begin(), s.path.end(), l) == s.path.end())
            {
                s.path.push_back(l);
            }
        }
        s.weight = 0.25 + 4 * u(rng);
        s.wireFactor = 1 + 0.1 * u(rng);
        s.capBps = u(rng) < 0.5 ? 1e9 * (0.05 + 10 * u(rng)) : FluidNetwork::kUnbounded;
        s.paced = s.capBps < FluidNetwork::kUnbounded && u(rng) < 0.4;
        n.flows.push_back(s);
    }
    return n;
}

constexpr uint32_t kNever = 1000000;

/** Every flow's rate with the heap from `heapFrom` flows on, and groups of flows that share no
 * link filled apart from `componentsFrom` flows on. */
std::vector<double>
Rates(const RandomNetwork& n, uint32_t heapFrom, uint32_t componentsFrom = kNever,
      uint64_t* groups = nullptr)
{
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    net->SetAttribute("WaterFillHeapFrom", UintegerValue(heapFrom));
    net->SetAttribute("WaterFillComponentsFrom", UintegerValue(componentsFrom));
    for (const auto& [bps, fifo] : n.links)
    {
        net->AddLink(bps, fifo);
    }
    std::vector<uint64_t> ids;
    for (const auto& s : n.flows)
    {
        ids.push_back(net->StartFlow(s));
    }
    std::vector<double> rates;
    for (uint64_t id : ids)
    {
        rates.push_back(net->GetFlowRate(id));
    }
    if (groups)
    {
        *groups = net->GetFilledGroups();
    }
    net->Dispose();
    Simulator::Destroy();
    return rates;
}

} // namespace

TEST(FluidWaterFill, TheHeapAndThePassesPerLevelGiveTheSameRates)
{
    uint32_t compared = 0;
    uint32_t capped = 0;
    uint32_t zero = 0;
    for (uint32_t seed = 1; seed <= 4; ++seed)
    {
        const RandomNetwork n = Draw(seed, 40, 600);
        const std::vector<double> heap = Rates(n, 0);
        const std::vector<double> passes = Rates(n, kNever);
        ASSERT_EQ(heap.size(), passes.size());
        for (size_t i = 0; i < heap.size(); ++i)
        {
            // (A flow whose FIFO links the paced flows fill gets nothing, in both.)
            EXPECT_NEAR(heap[i], passes[i], 1e-9 * passes[i] + 1e-3)
                << "seed " << seed << " flow " << i;
            zero += passes[i] == 0;
            ++compared;
            capped += passes[i] == n.flows[i].capBps;
        }
        // Max-min's condition on the heap's rates: no link is overfull, and every flow that is
        // not paced (those keep their pace first) sits at its cap or crosses a full link.
        std::vector<double> sent(n.links.size(), 0);
        for (size_t i = 0; i < heap.size(); ++i)
        {
            for (uint32_t l : n.flows[i].path)
            {
                sent[l] += heap[i] * n.flows[i].wireFactor;
            }
        }
        for (size_t l = 0; l < n.links.size(); ++l)
        {
            EXPECT_LE(sent[l], n.links[l].first * (1 + 1e-9)) << "link " << l;
        }
        for (size_t i = 0; i < heap.size(); ++i)
        {
            const FluidNetwork::FlowSpec& f = n.flows[i];
            bool held = f.paced || heap[i] >= f.capBps * (1 - 1e-9);
            for (uint32_t l : f.path)
            {
                held = held || sent[l] >= n.links[l].first * (1 - 1e-9);
            }
            EXPECT_TRUE(held) << "seed " << seed << " flow " << i;
        }
    }
    EXPECT_EQ(compared, 2400u);
    // Both kinds of limit were exercised: caps and full links.
    EXPECT_GT(capped, 100u);
    EXPECT_LT(capped, 2300u);
    EXPECT_LT(zero, 600u);
}

/** How many groups of flows that share no link, directly or through others, the network has. */
uint32_t
Components(const RandomNetwork& n)
{
    std::vector<uint32_t> parent(n.links.size());
    for (uint32_t l = 0; l < parent.size(); ++l)
    {
        parent[l] = l;
    }
    auto root = [&parent](uint32_t l)
    {
        while (parent[l] != l)
        {
            l = parent[l];
        }
        return l;
    };
    for (const auto& f : n.flows)
    {
        for (uint32_t l : f.path)
        {
            parent[root(l)] = root(f.path[0]);
        }
    }
    std::set<uint32_t> roots;
    for (const auto& f : n.flows)
    {
        roots.insert(root(f.path[0]));
    }
    return static_cast<uint32_t>(roots.size());
}

TEST(FluidWaterFill, GroupsOfFlowsThatShareNoLinkFilledApartGetTheSameRates)
{
    for (uint32_t seed = 1; seed <= 4; ++seed)
    {
        // Sparse: many groups of a few flows, and some large ones.
        const RandomNetwork n = Draw(seed, 1500, 600);
        ASSERT_GT(Components(n), 50u) << "seed " << seed;
        for (uint32_t heapFrom : { 0u, 64u, kNever })
        {
            uint64_t wholeGroups = 0;
            uint64_t apartGroups = 0;
            const std::vector<double> whole = Rates(n, heapFrom, kNever, &wholeGroups);
            const std::vector<double> apart = Rates(n, heapFrom, 0, &apartGroups);
            // One recomputation: its paced flows' probe and the others' filling, each one group
            // as a whole, each split apart.
            EXPECT_EQ(wholeGroups, 2u);
            EXPECT_GT(apartGroups, 2 * 50u);
            ASSERT_EQ(whole.size(), apart.size());
            // Each group is filled by the method the whole would take. The heap fixes a group's
            // flows in the same order either way: to the bit. The passes may fix a flow at its
            // cap at another pass than the whole's, which can change the last bits of what its
            // links have left (none on these networks).
            for (size_t i = 0; i < whole.size(); ++i)
            {
                EXPECT_EQ(apart[i], whole[i])
                    << "seed " << seed << " heap from " << heapFrom << " flow " << i;
            }
        }
    }
}
