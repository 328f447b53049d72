/*
 * The order in which one rank of a ring all-reduce moves its slices: a list of operations, each
 * a slice received from the previous rank (reduced, or copied), a slice sent to the next rank,
 * or both (NCCL's recvReduceSend: receive a chunk's partial sum, add its own, pass it on).
 *
 * Two schedules:
 * - NCCL 2.7.8's (src/collectives/device/all_reduce.h, runRing): the buffer goes round the ring
 *   in loops of ranks x chunk bytes; each loop is a whole ring all-reduce (2 (N-1) steps) of
 *   chunks of at most ChunkSteps x step bytes, each chunk in SlicesPerChunk slices (a smaller
 *   chunk, and so smaller slices, for the last loop and small operations: realChunkSize).
 * - The pipelined ring without loops: every step moves a whole chunk (bytes / N) in slices of at
 *   most sliceBytes; kept as the model without NCCL's flow control (job.nccl.flow_control false).
 *
 * In both, op k of rank r receives what rank r-1 sent in its op k-1 of the same phase, and the
 * bytes sent by all ranks together are 2 (N-1) x the buffer, exactly. Slices of no bytes are left
 * out: NCCL still passes them through its FIFO, as a 0-byte network message taking two slots
 * (primitives.h); here they cost nothing (an approximation for small operations only).
 */
#ifndef FLUMEN_RING_SCHEDULE_H
#define FLUMEN_RING_SCHEDULE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ns3
{

/** NCCL's slicing of the ring (defaults: NCCL 2.7.8, SIMPLE protocol). */
struct NcclSlicing
{
    uint64_t bufferBytes = 4 << 20; //!< per connection (NCCL_BUFFSIZE, src/init.cc)
    uint32_t steps = 8;             //!< FIFO slots of a connection (NCCL_STEPS, devcomm.h)
    uint32_t chunkSteps = 4;        //!< ALLREDUCE_CHUNKSTEPS (collectives.h): NCCL_STEPS / 2
    uint32_t sliceSteps = 2;        //!< ALLREDUCE_SLICESTEPS (collectives.h): NCCL_STEPS / 4
    /** GPU threads of the ring's kernel: 256 where the NIC is at most 12 GB/s wide (tuning.cc),
     * a 25 Gbps NIC's case. */
    uint32_t threads = 256;

    /** A chunk is a multiple of this: threads x 8 bytes (all_reduce.h, ALIGN_SIZE). */
    uint64_t AlignBytes() const { return threads * 8ull; }
    /** Channels an operation of `bytes` uses out of `channels`: fewer while bytes < channels x
     * threads x 64 (enqueue.cc, getAlgoInfo; NCCL_SIMPLE_THREAD_THRESHOLD 64). */
    uint32_t ChannelsFor(uint64_t bytes, uint32_t channels) const
    {
        while (channels > 1 && bytes < uint64_t(channels) * threads * 64)
        {
            --channels;
        }
        return channels;
    }

    uint64_t StepBytes() const { return bufferBytes / steps; }
    uint64_t ChunkBytes() const { return StepBytes() * chunkSteps; }
    uint32_t SlicesPerChunk() const { return chunkSteps / sliceSteps; }
    /** Slices a connection holds at once: its FIFO's slots over the slots a slice takes. */
    uint32_t SlotsInSlices() const { return steps / sliceSteps; }
    /** A loop's chunk (all_reduce.h, realChunkSize) when `bytes` are left over `ranks`:
     * at most ChunkBytes, aligned up to AlignBytes. */
    uint64_t LoopChunkBytes(uint64_t bytes, uint32_t ranks) const
    {
        const uint64_t real = std::min(ChunkBytes(), (bytes + ranks - 1) / ranks);
        return (real + AlignBytes() - 1) / AlignBytes() * AlignBytes();
    }
    /** A slice of a chunk of `chunk` bytes (primitives.h): half the chunk in 16-element pieces
     * of 4-byte elements, at least sliceSize / 32, at most the chunk. */
    uint64_t SliceBytes(uint64_t chunk) const
    {
        const uint64_t grain = 16 * 4;
        const uint64_t half = (chunk + grain * SlicesPerChunk() - 1) / (grain * SlicesPerChunk());
        return std::min(chunk, std::max(half * grain, StepBytes() * sliceSteps / 32));
    }
};

struct RingOp
{
    uint64_t receive = 0; //!< bytes received from the previous rank first (0: none)
    uint64_t send = 0;    //!< bytes then sent to the next rank (0: none)
};

class RingSchedule
{
  public:
    /** NCCL's loops, chunks and slices for `rank` of `ranks` over `bytes` (one channel's). */
    static std::vector<RingOp> Nccl(uint64_t bytes, uint32_t ranks, uint32_t rank,
                                    const NcclSlicing& slicing);
    /** Steps of whole chunks, each in equal slices of at most sliceBytes (0: one slice). */
    static std::vector<RingOp> Pipelined(uint64_t bytes, uint32_t ranks, uint32_t rank,
                                         uint64_t sliceBytes);
    /** The bytes of the operations' sends, summed. */
    static uint64_t BytesSent(const std::vector<RingOp>& ops);
};

} // namespace ns3

#endif
