// comm.csv's rows and the overlap of one job's all-reduce time with other jobs'.
#include "comm-phases.h"

#include <gtest/gtest.h>

using namespace flumen;

namespace
{

CommPhase
Phase(const std::string& job, double start, double end, bool warmup = false)
{
    CommPhase p;
    p.job = job;
    p.startS = start;
    p.endS = end;
    p.bytes = 1000;
    p.warmup = warmup;
    return p;
}

} // namespace

TEST(CommPhases, OverlapIsTheShareOfMyTimeBesideTheOthers)
{
    // a: [0, 1] and [2, 4] (3 s, the second given first); b: [0.5, 2.5] and [3.5, 5].
    const std::vector<CommPhase> a = { Phase("a", 2, 4), Phase("a", 0, 1) };
    const std::vector<CommPhase> b = { Phase("b", 0.5, 2.5), Phase("b", 3.5, 5) };
    EXPECT_DOUBLE_EQ(CommOverlap(a, b), (0.5 + 0.5 + 0.5) / 3.0);
    // b's 3.5 s against a's: [0.5, 1], [2, 2.5], [3.5, 4].
    EXPECT_DOUBLE_EQ(CommOverlap(b, a), 1.5 / 3.5);
    // Overlapping intervals of one job count once; an interleaved pair shares nothing.
    const std::vector<CommPhase> twice = { Phase("a", 0, 2), Phase("a", 1, 3) };
    EXPECT_DOUBLE_EQ(CommOverlap(twice, { Phase("b", 2, 5) }), 1.0 / 3.0);
    EXPECT_DOUBLE_EQ(CommOverlap({ Phase("a", 0, 1) }, { Phase("b", 1, 2) }), 0.0);
    EXPECT_DOUBLE_EQ(CommOverlap({}, b), 0.0);
    EXPECT_DOUBLE_EQ(CommOverlap(a, {}), 0.0);
}

TEST(CommPhases, CsvHasOneRowPerAllReduce)
{
    CommPhase p = Phase("job-a", 0.25, 0.5, true);
    p.iteration = 3;
    p.bytes = 123456;
    EXPECT_EQ(FormatCommCsv({ p, Phase("b", 1, 2) }), "job,iteration,start_s,end_s,bytes,warmup\n"
                                                      "job-a,3,0.250000000,0.500000000,123456,1\n"
                                                      "b,0,1.000000000,2.000000000,1000,0\n");
}
