/*
 * Ring all-reduce (reduce-scatter then all-gather) of one buffer over a RingTransport.
 * With N ranks the buffer is cut into N chunks; in step s (0 .. 2N-3) rank r sends chunk
 * (r - s) mod N and receives chunk (r - s - 1) mod N. A rank sends step s+1 only once it has
 * received step s from its predecessor: the dependency that makes the whole ring as slow as
 * its most congested link.
 *
 * NCCL pipelines each step in slices: every chunk is cut into the same number of slices
 * (SliceBytes at most), and slice j of step s+1 goes out as soon as slice j of step s has
 * arrived. Receive buffers are unbounded here (NCCL bounds them to NCCL_STEPS slots).
 */
#ifndef FLUMEN_RING_ALLREDUCE_H
#define FLUMEN_RING_ALLREDUCE_H

#include "ring-transport.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

class RingAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /** Size of chunk c when `bytes` are split over n ranks (the first bytes%n chunks get one more).
     */
    static uint64_t ChunkBytes(uint64_t bytes, uint32_t n, uint32_t c);
    /** Bytes rank r sends in one all-reduce of `bytes` over n ranks: 2(n-1)/n x bytes, exactly. */
    static uint64_t BytesSentByRank(uint64_t bytes, uint32_t n, uint32_t r);
    /** Chunk index rank r sends in step s. */
    static uint32_t ChunkSentInStep(uint32_t n, uint32_t r, uint32_t s);

    /** Slices each chunk is cut into: ceil(largest chunk / sliceBytes); 1 when sliceBytes is 0. */
    static uint32_t SlicesPerChunk(uint64_t bytes, uint32_t n, uint64_t sliceBytes);

    /** sliceBytes = 0: every step is one message (no pipelining). */
    void Setup(Ptr<RingTransport> transport, uint32_t rank, uint32_t ranks,
               uint64_t sliceBytes = 0);
    /** Starts one all-reduce; `done` runs when this rank holds the fully reduced buffer. */
    void Start(uint64_t bytes, Callback<void> done);
    bool IsRunning() const { return m_running; }

  protected:
    void DoDispose() override;

  private:
    void HandleReceived(uint64_t bytes);

    Ptr<RingTransport> m_transport;
    uint32_t m_rank = 0;
    uint32_t m_ranks = 1;
    uint64_t SliceBytesOf(uint32_t step, uint32_t sender, uint32_t slice) const;

    uint64_t m_sliceBytes = 0;
    uint64_t m_bytes = 0;
    uint32_t m_slices = 1;   //!< slices per chunk in the current all-reduce
    uint32_t m_received = 0; //!< slices received in the current all-reduce
    bool m_running = false;
    Callback<void> m_done;
};

} // namespace ns3

#endif
