#include "ring-schedule.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

namespace
{

uint64_t
DivUp(uint64_t a, uint64_t b)
{
    return (a + b - 1) / b;
}

// Chunk index rank r handles in phase p of a loop, (r - p) mod n: it sends that chunk in phase
// p and received it (from r - 1, which sent it in phase p - 1) just before.
uint32_t
ChunkOfPhase(uint32_t n, uint32_t r, uint32_t p)
{
    return static_cast<uint32_t>((r + static_cast<uint64_t>(p / n + 1) * n - p % n) % n);
}

// One loop of the ring: 2N - 1 phases (send; N - 2 receive-reduce-sends; receive-reduce-copy-
// send; N - 2 receive-copy-sends; receive), each over the slices of the phase's chunk.
template <typename SliceOf>
void
AppendLoop(std::vector<RingOp>& ops, uint32_t n, uint32_t rank, uint32_t slices,
           const SliceOf& sliceOf)
{
    const uint32_t phases = 2 * n - 1;
    for (uint32_t p = 0; p < phases; ++p)
    {
        const uint32_t chunk = ChunkOfPhase(n, rank, p);
        for (uint32_t j = 0; j < slices; ++j)
        {
            const uint64_t bytes = sliceOf(chunk, j);
            if (bytes == 0)
            {
                continue;
            }
            RingOp op;
            op.receive = p > 0 ? bytes : 0;
            op.send = p + 1 < phases ? bytes : 0;
            ops.push_back(op);
        }
    }
}

} // namespace

std::vector<RingOp>
RingSchedule::Nccl(uint64_t bytes, uint32_t ranks, uint32_t rank, const NcclSlicing& s)
{
    NS_ABORT_MSG_IF(ranks < 2 || rank >= ranks, "RingSchedule: rank " << rank << " of " << ranks);
    NS_ABORT_MSG_IF(s.steps == 0 || s.sliceSteps == 0 || s.chunkSteps < s.sliceSteps
                        || s.chunkSteps % s.sliceSteps != 0 || s.chunkSteps > s.steps
                        || s.StepBytes() == 0 || s.threads == 0,
                    "RingSchedule: inconsistent NCCL slicing");
    std::vector<RingOp> ops;
    const uint64_t chunkBytes = s.ChunkBytes();
    const uint32_t slices = s.SlicesPerChunk();
    for (uint64_t loop = 0; loop < bytes; loop += static_cast<uint64_t>(ranks) * chunkBytes)
    {
        const uint64_t real = s.LoopChunkBytes(bytes - loop, ranks);
        auto chunkOf = [&](uint32_t c)
        {
            const uint64_t offset = loop + c * real;
            return offset >= bytes ? 0 : std::min(real, bytes - offset);
        };
        auto sliceOf = [&](uint32_t c, uint32_t j)
        {
            const uint64_t chunk = chunkOf(c);
            const uint64_t dataSize = s.SliceBytes(chunk);
            const uint64_t offset = j * dataSize;
            return offset >= chunk ? 0 : std::min(dataSize, chunk - offset);
        };
        AppendLoop(ops, ranks, rank, slices, sliceOf);
    }
    return ops;
}

std::vector<RingOp>
RingSchedule::Pipelined(uint64_t bytes, uint32_t ranks, uint32_t rank, uint64_t sliceBytes)
{
    NS_ABORT_MSG_IF(ranks < 2 || rank >= ranks, "RingSchedule: rank " << rank << " of " << ranks);
    auto split = [](uint64_t total, uint64_t parts, uint64_t k)
    { return total / parts + (k < total % parts ? 1 : 0); };
    const uint64_t largest = split(bytes, ranks, 0);
    const uint32_t slices = sliceBytes == 0 || largest <= sliceBytes
                                ? 1
                                : static_cast<uint32_t>(DivUp(largest, sliceBytes));
    std::vector<RingOp> ops;
    AppendLoop(ops, ranks, rank, slices,
               [&](uint32_t c, uint32_t j) { return split(split(bytes, ranks, c), slices, j); });
    return ops;
}

uint64_t
RingSchedule::BytesSent(const std::vector<RingOp>& ops)
{
    uint64_t total = 0;
    for (const RingOp& op : ops)
    {
        total += op.send;
    }
    return total;
}

} // namespace ns3
