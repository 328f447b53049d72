// The ring schedule: chunking, which chunk each rank sends in each step, bytes per rank.
#include "ns3/ring-allreduce.h"

#include <gtest/gtest.h>

#include <set>

using ns3::RingAllReduce;

TEST(RingSchedule, ChunksCoverTheBufferExactly)
{
    for (uint32_t n : { 2u, 3u, 4u, 7u })
    {
        for (uint64_t bytes : { 0ull, 1ull, 10ull, 102230128ull, 1000003ull })
        {
            uint64_t total = 0;
            for (uint32_t c = 0; c < n; ++c)
            {
                uint64_t b = RingAllReduce::ChunkBytes(bytes, n, c);
                EXPECT_LE(b, bytes / n + 1);
                EXPECT_GE(b, bytes / n);
                total += b;
            }
            EXPECT_EQ(total, bytes) << "n=" << n;
        }
    }
}

TEST(RingSchedule, StepSIsChunkRMinusS)
{
    EXPECT_EQ(RingAllReduce::ChunkSentInStep(4, 0, 0), 0u);
    EXPECT_EQ(RingAllReduce::ChunkSentInStep(4, 0, 1), 3u);
    EXPECT_EQ(RingAllReduce::ChunkSentInStep(4, 2, 3), 3u);
    EXPECT_EQ(RingAllReduce::ChunkSentInStep(4, 1, 5), 0u);
    EXPECT_EQ(RingAllReduce::ChunkSentInStep(3, 0, 2), 1u);
}

TEST(RingSchedule, ReceivedChunkIsTheOneSentNextStep)
{
    // What rank r receives in step s (its predecessor's send) is what it sends in step s+1:
    // the store-and-forward dependency of the ring.
    for (uint32_t n : { 3u, 4u, 5u })
    {
        for (uint32_t r = 0; r < n; ++r)
        {
            for (uint32_t s = 0; s + 1 < 2 * (n - 1); ++s)
            {
                uint32_t received = RingAllReduce::ChunkSentInStep(n, (r + n - 1) % n, s);
                EXPECT_EQ(received, RingAllReduce::ChunkSentInStep(n, r, s + 1));
            }
        }
    }
}

TEST(RingSchedule, ReduceScatterVisitsEveryChunkOnce)
{
    // In the N-1 reduce-scatter steps a rank sends N-1 distinct chunks, and in all-gather
    // it forwards N-1 distinct chunks.
    const uint32_t n = 4;
    for (uint32_t r = 0; r < n; ++r)
    {
        std::set<uint32_t> rs, ag;
        for (uint32_t s = 0; s < n - 1; ++s)
        {
            rs.insert(RingAllReduce::ChunkSentInStep(n, r, s));
            ag.insert(RingAllReduce::ChunkSentInStep(n, r, s + n - 1));
        }
        EXPECT_EQ(rs.size(), n - 1);
        EXPECT_EQ(ag.size(), n - 1);
    }
}

TEST(RingSchedule, BytesPerRankAreTwoNMinusOneOverN)
{
    for (uint32_t n : { 3u, 4u })
    {
        uint64_t bytes = 12 * 1000 * 1000; // divisible by 3 and 4
        for (uint32_t r = 0; r < n; ++r)
        {
            EXPECT_EQ(RingAllReduce::BytesSentByRank(bytes, n, r), 2 * (n - 1) * bytes / n);
        }
    }
    // Not divisible: within the rounding of two chunks.
    uint64_t odd = 4 * 25557032ull + 1;
    double exact = 2.0 * 2 / 3 * odd;
    EXPECT_NEAR(double(RingAllReduce::BytesSentByRank(odd, 3, 1)), exact, 2.0);
    // The closed form against its definition: the chunk each of the 2(n-1) steps sends.
    for (uint32_t n : { 2u, 3u, 5u, 8u, 13u })
    {
        for (uint64_t b : { uint64_t(0), uint64_t(1), uint64_t(n + 1), odd })
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                uint64_t steps = 0;
                for (uint32_t step = 0; step < 2 * (n - 1); ++step)
                {
                    steps += RingAllReduce::ChunkBytes(b, n,
                                                       RingAllReduce::ChunkSentInStep(n, r, step));
                }
                EXPECT_EQ(RingAllReduce::BytesSentByRank(b, n, r), steps)
                    << b << " B, " << n << " ranks, rank " << r;
            }
        }
    }
}
