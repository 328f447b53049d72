/*
 * Ring all-reduce (reduce-scatter then all-gather) of one buffer over a RingTransport: one rank's
 * side of one NCCL channel. It runs the rank's RingSchedule in order, as NCCL's GPU threads run
 * their primitives: an operation that receives waits for that slice to arrive from the previous
 * rank; one that sends waits for a free slot in the connection's send FIFO. A rank therefore
 * sends a slice of step s+1 only once it has received it in step s: the dependency that makes
 * the whole ring as slow as its most congested link.
 *
 * NCCL's flow control (FlowControl, the default): each connection holds SlotsInSlices slices at
 * each end (NCCL_STEPS slots, SliceSteps slots a slice).
 * - Receive side: a receive is posted for a slot only once the GPU has consumed the slot's
 *   previous slice (src/transport/net.cc, recvProxy; the head the GPU posts in primitives.h).
 *   Over RoCE the posted receive is the sender's clear to send (src/transport/net_ib.cc,
 *   ncclIbPostFifo): RdmaRingTransport and FlowRingTransport send no slice before it.
 * - Send side: a slice occupies a send slot from the GPU's write until the transport reports it
 *   sent (RDMA: acknowledged; sockets: written into the socket; net.cc, sendProxy).
 * Without flow control: every receive is posted at the start, sends never wait for a slot, and
 * each step moves a whole chunk in slices of at most SliceBytes (the model before NCCL's flow
 * control, kept for comparison).
 */
#ifndef FLUMEN_RING_ALLREDUCE_H
#define FLUMEN_RING_ALLREDUCE_H

#include "ring-schedule.h"
#include "ring-transport.h"

#include "ns3/callback.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/** How a ring paces itself: NCCL's slicing and flow control, or the plain pipeline. */
struct RingPacing
{
    bool flowControl = true;
    NcclSlicing slicing;             //!< with flow control
    uint64_t sliceBytes = 512 << 10; //!< without: each step in slices of at most this (0: whole)

    /** What a rank sends in one step of an all-reduce of `bytes` over `ranks` (with flow
     * control, a loop's chunk), and the first slice of it. */
    std::pair<double, double> StepAndSlice(uint64_t bytes, uint32_t ranks) const;
};

class RingAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /** Size of chunk c when `bytes` are split over n ranks (the first bytes%n chunks get one more).
     */
    static uint64_t ChunkBytes(uint64_t bytes, uint32_t n, uint32_t c);
    /** Bytes rank r sends in one all-reduce of `bytes` over n ranks without loops: 2(n-1)/n x
     * bytes (NCCL's loops give each rank the same to within a chunk's alignment). */
    static uint64_t BytesSentByRank(uint64_t bytes, uint32_t n, uint32_t r);
    /** Chunk index rank r sends in step s. */
    static uint32_t ChunkSentInStep(uint32_t n, uint32_t r, uint32_t s);

    void Setup(Ptr<RingTransport> transport, uint32_t rank, uint32_t ranks,
               const RingPacing& pacing);
    /** Starts one all-reduce; `done` runs when this rank holds the fully reduced buffer. */
    void Start(uint64_t bytes, Callback<void> done);
    bool IsRunning() const { return m_running; }
    /** Slices handed to the transport and not yet reported sent (at most the slots). */
    uint32_t GetSendSlotsInUse() const { return m_sendInUse; }
    /** Receives posted whose slice the GPU has not consumed yet (at most the slots). */
    uint32_t GetReceivesOutstanding() const { return m_posted - m_consumed; }

  protected:
    void DoDispose() override;

  private:
    void HandleReceived(uint64_t bytes);
    void HandleSent(uint64_t bytes);
    /** Runs operations in order while their slices are here and their send slots free. */
    void Advance();
    /** Posts receives up to the slots (all of them without flow control). */
    void PostReceives();

    Ptr<RingTransport> m_transport;
    uint32_t m_rank = 0;
    uint32_t m_ranks = 1;
    RingPacing m_pacing;
    uint32_t m_slots = 0; //!< per end of the connection, in slices; 0: unbounded

    std::vector<RingOp> m_ops; //!< the current all-reduce's
    size_t m_next = 0;         //!< next operation to run
    size_t m_nextReceive = 0;  //!< next operation whose receive is to be posted
    uint32_t m_posted = 0;     //!< receives posted in this all-reduce
    uint32_t m_arrived = 0;    //!< of them, complete
    uint32_t m_consumed = 0;   //!< of them, consumed by an operation
    uint32_t m_sendInUse = 0;  //!< across all-reduces: a slice's slot frees when it is sent
    bool m_running = false;
    bool m_advancing = false;
    Callback<void> m_done;
};

} // namespace ns3

#endif
