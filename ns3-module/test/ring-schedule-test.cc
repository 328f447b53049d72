// RingSchedule: NCCL 2.7.8's loops, chunks and slices, and the pipelined ring without loops.
#include "ns3/ring-schedule.h"

#include <gtest/gtest.h>

#include <vector>

using ns3::NcclSlicing;
using ns3::RingOp;
using ns3::RingSchedule;

namespace
{

std::vector<uint64_t>
Sends(const std::vector<RingOp>& ops)
{
    std::vector<uint64_t> v;
    for (const RingOp& op : ops)
    {
        if (op.send > 0)
        {
            v.push_back(op.send);
        }
    }
    return v;
}

std::vector<uint64_t>
Receives(const std::vector<RingOp>& ops)
{
    std::vector<uint64_t> v;
    for (const RingOp& op : ops)
    {
        if (op.receive > 0)
        {
            v.push_back(op.receive);
        }
    }
    return v;
}

const std::vector<uint64_t> kSizes = { 4, 1000, 98304, 1000003, 6 << 20, 102230128, 134217728 };

} // namespace

TEST(NcclSchedule, EveryByteGoesRoundTheRingTwiceLessTwoHops)
{
    // Reduce-scatter and all-gather move each chunk over N - 1 hops each: the ranks together
    // send 2 (N - 1) x the buffer, exactly, in both schedules.
    for (uint32_t n : { 2u, 3u, 4u, 7u })
    {
        for (uint64_t bytes : kSizes)
        {
            uint64_t nccl = 0;
            uint64_t pipelined = 0;
            for (uint32_t r = 0; r < n; ++r)
            {
                nccl += RingSchedule::BytesSent(RingSchedule::Nccl(bytes, n, r, NcclSlicing()));
                pipelined += RingSchedule::BytesSent(RingSchedule::Pipelined(bytes, n, r, 524288));
            }
            EXPECT_EQ(nccl, 2 * (n - 1) * bytes) << "n=" << n << " bytes=" << bytes;
            EXPECT_EQ(pipelined, 2 * (n - 1) * bytes) << "n=" << n << " bytes=" << bytes;
        }
    }
}

TEST(NcclSchedule, EachRankReceivesWhatItsPredecessorSentInOrder)
{
    for (uint32_t n : { 2u, 3u, 5u })
    {
        for (uint64_t bytes : kSizes)
        {
            for (uint32_t r = 0; r < n; ++r)
            {
                const uint32_t previous = (r + n - 1) % n;
                EXPECT_EQ(Receives(RingSchedule::Nccl(bytes, n, r, NcclSlicing())),
                          Sends(RingSchedule::Nccl(bytes, n, previous, NcclSlicing())))
                    << "n=" << n << " bytes=" << bytes << " rank " << r;
                EXPECT_EQ(Receives(RingSchedule::Pipelined(bytes, n, r, 524288)),
                          Sends(RingSchedule::Pipelined(bytes, n, previous, 524288)));
            }
        }
    }
}

TEST(NcclSchedule, LoopsOfRanksTimesChunkInSlicesOfTwoSteps)
{
    // 128 MiB over 3 ranks: loops of 3 x 2 MiB, 22 of them (the last one short); a full chunk
    // goes in 2 slices of 1 MiB (2 of the 8 slots of 512 KiB each). 2N - 1 = 5 phases a loop.
    const NcclSlicing s;
    EXPECT_EQ(s.StepBytes(), 524288u);
    EXPECT_EQ(s.ChunkBytes(), 2097152u);
    EXPECT_EQ(s.SlotsInSlices(), 4u);
    const auto ops = RingSchedule::Nccl(134217728, 3, 0, s);
    uint64_t largest = 0;
    for (const RingOp& op : ops)
    {
        largest = std::max({ largest, op.send, op.receive });
    }
    EXPECT_EQ(largest, 1048576u);
    const uint64_t loops = (134217728 + 3 * 2097152 - 1) / (3 * 2097152);
    EXPECT_EQ(loops, 22u);
    // Each loop: 2 slices in each of 5 phases (the last loop's chunks are smaller, but still
    // more than a minimal slice each: 2 slices too).
    EXPECT_EQ(ops.size(), loops * 5 * 2);
    // The first loop starts with the rank's own chunk's two slices, sent only.
    EXPECT_EQ(ops[0].receive, 0u);
    EXPECT_EQ(ops[0].send, 1048576u);
    EXPECT_EQ(ops[2].receive, 1048576u); // then receive-reduce-send
    EXPECT_EQ(ops[2].send, 1048576u);
    EXPECT_EQ(ops[9].send, 0u); // the loop's last phase only receives
}

TEST(NcclSchedule, SmallOperationsGetSmallerChunksAndOneSlice)
{
    // 96 KiB over 4 ranks: realChunkSize = 96 KiB / 4 = 24 KiB (a multiple of the 2 KiB
    // alignment); a slice is at least sliceSize / 32 = 32 KiB, so the chunk is one slice.
    const auto ops = RingSchedule::Nccl(98304, 4, 1, NcclSlicing());
    EXPECT_EQ(ops.size(), 7u); // 2N - 1 phases, one slice each
    for (const RingOp& op : ops)
    {
        EXPECT_EQ(std::max(op.send, op.receive), 24576u);
    }
    // 1000 bytes over 3 ranks: one aligned chunk of 2 KiB holds it all; the other two ranks'
    // chunks are empty and left out, so each rank moves the one chunk when it comes by.
    uint64_t total = 0;
    for (uint32_t r = 0; r < 3; ++r)
    {
        for (const RingOp& op : RingSchedule::Nccl(1000, 3, r, NcclSlicing()))
        {
            EXPECT_EQ(std::max(op.send, op.receive), 1000u);
            total += op.send;
        }
    }
    EXPECT_EQ(total, 4000u);
}

TEST(NcclSchedule, PipelinedStepsAreWholeChunksInEqualSlices)
{
    // 10 MB over 4 ranks in 512 KiB slices: chunks of 2.5 MB, 5 slices each, 2N - 1 phases.
    const auto ops = RingSchedule::Pipelined(10000000, 4, 2, 524288);
    EXPECT_EQ(ops.size(), 7u * 5u);
    EXPECT_EQ(ops[0].send, 500000u);
    EXPECT_EQ(ops[5].receive, 500000u);
    EXPECT_EQ(RingSchedule::Pipelined(10000000, 4, 2, 0).size(), 7u); // whole steps
}

TEST(NcclSchedule, SmallOperationsUseFewerChannels)
{
    // getAlgoInfo (enqueue.cc): channels drop one by one while bytes < channels x 256 x 64.
    const NcclSlicing s;
    EXPECT_EQ(s.ChannelsFor(16 << 10, 2), 1u);
    EXPECT_EQ(s.ChannelsFor((32 << 10) - 1, 2), 1u);
    EXPECT_EQ(s.ChannelsFor(32 << 10, 2), 2u);
    EXPECT_EQ(s.ChannelsFor(128 << 20, 2), 2u);
    EXPECT_EQ(s.ChannelsFor(40 << 10, 4), 2u);
    EXPECT_EQ(s.ChannelsFor(1, 1), 1u);
}
