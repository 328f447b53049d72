/*
 * A job's communication phases: each fused all-reduce of its rank 0, from its start to its end
 * (comm.csv), and how much of one job's all-reduce time another job's all-reduces share: the
 * measure of whether jobs on shared links interleave (MLTCP, CASSINI; docs/mltcp.md).
 */
#ifndef FLUMEN_COMM_PHASES_H
#define FLUMEN_COMM_PHASES_H

#include <cstdint>
#include <string>
#include <vector>

namespace flumen
{

struct CommPhase
{
    std::string job; //!< job.name
    uint32_t iteration = 0;
    double startS = 0;
    double endS = 0;
    uint64_t bytes = 0;
    bool warmup = false;
};

/** Header: job,iteration,start_s,end_s,bytes,warmup (rank 0's all-reduces, in time order). */
std::string FormatCommCsv(const std::vector<CommPhase>& rows);

/**
 * The share of `mine`'s all-reduce time (the union of its intervals) during which one of
 * `others`' runs; 0 if `mine` has none. Intervals need not be sorted.
 */
double CommOverlap(const std::vector<CommPhase>& mine, const std::vector<CommPhase>& others);

} // namespace flumen

#endif
