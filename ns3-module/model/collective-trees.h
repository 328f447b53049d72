/*
 * The all-reduce strategies other than the ring, each as reduction trees: the buffer is cut
 * into shards, one per tree; a shard is reduced up its tree to the root and broadcast back
 * down (TreeAllReduce runs them). With one worker per host:
 *
 * - nccl_tree: NCCL's double binary tree: two halves, one over a binary tree rooted at rank 0
 *   (children of r: 2r+1, 2r+2), one over its mirror (rank n-1-r in r's place), so that a
 *   leaf of one is an inner node of the other (NCCL mirrors for even rank counts and shifts
 *   for odd ones; the mirror is used for both here).
 * - star (KungFu STAR): the whole buffer to rank 0 and back.
 * - tree (KungFu TREE): a star of each host's first worker over the others' hosts, rooted at
 *   the first host; with one worker per host it is the star.
 * - binary_tree_star (KungFu BINARY_TREE_STAR): a star inside each host, a binary tree
 *   between hosts; with one worker per host, the binary tree rooted at rank 0.
 * - clique (KungFu CLIQUE): n shards, shard i reduced at and broadcast from rank i over a
 *   star: every pair of workers exchanges 2/n of the buffer.
 * - parameter_server: k servers on ranks 0..k-1 (co-located with workers, as BytePS and
 *   KungFu place them): shard i pushed to server i and pulled back from it.
 */
#ifndef FLUMEN_COLLECTIVE_TREES_H
#define FLUMEN_COLLECTIVE_TREES_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/** One shard's tree: parent[r] of every rank (-1 at the root). The shards are equal. */
struct ReductionTree
{
    std::vector<int32_t> parent;
    uint32_t root = 0;

    std::vector<uint32_t> Children(uint32_t rank) const;
};

/** The collectives a job can run: "ring" (RingAllReduce) and the tree-based ones above. */
std::vector<std::string> CollectiveNames();

/**
 * The trees of a tree-based collective over n ranks (`servers`: parameter_server's k). Empty
 * for "ring" and for unknown names.
 */
std::vector<ReductionTree> CollectiveTrees(const std::string& collective, uint32_t n,
                                           uint32_t servers = 1);

/**
 * A number for each tree edge (the link between a rank and its parent), such that the links
 * meeting at any rank have different numbers: a link's two transports take their ports from it,
 * so the ports a rank needs grow with the trees' widest fan-out, not with the ranks (a double
 * binary tree needs 6 numbers at any size, a star over n ranks n). Tree t's links take a block
 * of (its most children + 1) numbers; within it the children of a rank take the numbers after
 * the one of the rank's own link to its parent, in turn (mod the block), so none meets another.
 */
struct TreeLinkNumbers
{
    std::vector<std::vector<uint32_t>> ofRank; //!< [tree][rank]: its link to its parent's
    uint32_t count = 0;                        //!< numbers used: 0 .. count - 1
};
TreeLinkNumbers NumberTreeLinks(const std::vector<ReductionTree>& trees);

} // namespace ns3

#endif
