/*
 * Uniform draws in [0, 1) stratified by blocks: each block of n consecutive draws takes one
 * value from each of the n equal slices of [0, 1), in a random order. Fed through a CDF, a
 * block holds the distribution's values in their exact proportions (to 1/n), so a heavy-tailed
 * size distribution offers its mean over a short run; each single draw is still uniform.
 * Used by the web-search schedules for flow sizes.
 */
#ifndef FLUMEN_STRATIFIED_UNIFORM_H
#define FLUMEN_STRATIFIED_UNIFORM_H

#include "ns3/random-variable-stream.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class StratifiedUniform
{
  public:
    /** Blocks of `block` draws; 0 or 1: independent draws. Starts a new block. */
    void SetBlock(uint32_t block);
    uint32_t GetBlock() const { return m_block; }
    /** The next draw, from `uniform` (which also shuffles each block's slices). */
    double Next(Ptr<UniformRandomVariable> uniform);

  private:
    uint32_t m_block = 0;
    std::vector<uint32_t> m_slices; //!< the current block's slice order
    size_t m_next = 0;
};

} // namespace ns3

#endif
