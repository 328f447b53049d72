#include "collective-trees.h"

#include "ns3/abort.h"

namespace ns3
{

namespace
{

ReductionTree
Star(uint32_t n, uint32_t root)
{
    ReductionTree t;
    t.root = root;
    t.parent.assign(n, static_cast<int32_t>(root));
    t.parent[root] = -1;
    return t;
}

// A binary tree in heap order over `order` (position p's children at 2p+1 and 2p+2).
ReductionTree
Binary(const std::vector<uint32_t>& order)
{
    ReductionTree t;
    t.root = order.front();
    t.parent.assign(order.size(), -1);
    for (size_t p = 1; p < order.size(); ++p)
    {
        t.parent[order[p]] = static_cast<int32_t>(order[(p - 1) / 2]);
    }
    return t;
}

std::vector<uint32_t>
Ranks(uint32_t n, bool mirrored)
{
    std::vector<uint32_t> order(n);
    for (uint32_t p = 0; p < n; ++p)
    {
        order[p] = mirrored ? n - 1 - p : p;
    }
    return order;
}

} // namespace

std::vector<uint32_t>
ReductionTree::Children(uint32_t rank) const
{
    std::vector<uint32_t> out;
    for (uint32_t r = 0; r < parent.size(); ++r)
    {
        if (parent[r] == static_cast<int32_t>(rank))
        {
            out.push_back(r);
        }
    }
    return out;
}

std::vector<std::string>
CollectiveNames()
{
    return {
        "ring", "nccl_tree", "star", "tree", "binary_tree_star", "clique", "parameter_server"
    };
}

std::vector<ReductionTree>
CollectiveTrees(const std::string& collective, uint32_t n, uint32_t servers)
{
    NS_ABORT_MSG_IF(n < 2, "a collective needs at least 2 ranks");
    std::vector<ReductionTree> trees;
    if (collective == "nccl_tree")
    {
        trees.push_back(Binary(Ranks(n, false)));
        trees.push_back(Binary(Ranks(n, true)));
    }
    else if (collective == "star" || collective == "tree")
    {
        trees.push_back(Star(n, 0));
    }
    else if (collective == "binary_tree_star")
    {
        trees.push_back(Binary(Ranks(n, false)));
    }
    else if (collective == "clique" || collective == "parameter_server")
    {
        const uint32_t k = collective == "clique" ? n : servers;
        NS_ABORT_MSG_IF(k < 1 || k > n, "parameter_server: 1 to " << n << " servers");
        for (uint32_t i = 0; i < k; ++i)
        {
            trees.push_back(Star(n, i));
        }
    }
    return trees;
}

uint32_t
TreeLinks(const std::vector<ReductionTree>& trees)
{
    uint32_t links = 0;
    for (const auto& t : trees)
    {
        links += static_cast<uint32_t>(t.parent.size()) - 1;
    }
    return links;
}

} // namespace ns3
