#include "collective-trees.h"

#include "ns3/abort.h"

#include <algorithm>

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

TreeLinkNumbers
NumberTreeLinks(const std::vector<ReductionTree>& trees)
{
    TreeLinkNumbers out;
    for (const ReductionTree& t : trees)
    {
        const auto n = static_cast<uint32_t>(t.parent.size());
        std::vector<std::vector<uint32_t>> children(n);
        for (uint32_t r = 0; r < n; ++r)
        {
            if (t.parent[r] >= 0)
            {
                children[t.parent[r]].push_back(r);
            }
        }
        uint32_t block = 1;
        for (const auto& c : children)
        {
            block = std::max(block, static_cast<uint32_t>(c.size()) + 1);
        }
        // Parents before their children (breadth first from the root); the root's own number is
        // taken as the block's last, so that its children start at the block's first.
        std::vector<uint32_t> local(n, block - 1);
        std::vector<uint32_t> order{ t.root };
        for (size_t i = 0; i < order.size(); ++i)
        {
            const uint32_t p = order[i];
            for (size_t k = 0; k < children[p].size(); ++k)
            {
                local[children[p][k]] = static_cast<uint32_t>((local[p] + 1 + k) % block);
                order.push_back(children[p][k]);
            }
        }
        NS_ABORT_MSG_IF(order.size() != n, "NumberTreeLinks: a tree does not reach every rank");
        std::vector<uint32_t>& numbers = out.ofRank.emplace_back(n);
        for (uint32_t r = 0; r < n; ++r)
        {
            numbers[r] = out.count + local[r];
        }
        out.count += block;
    }
    return out;
}

} // namespace ns3
