/*
 * The flow engine's ring all-reduce in closed form: one channel's whole ring as one fluid flow
 * (simulation.flow_ring "whole"), instead of RingAllReduce's slices over each hop.
 *
 * Where nothing holds a standing queue, a ring's hops run in step: a rank forwards what it
 * receives, so every hop moves the same bytes at the rate of the slowest (the ring's
 * dependency, ring-allreduce.h), and NCCL's window never binds (its bound, a few slices per
 * round trip, is far above the line rate without queueing). The ring is then one flow whose path
 * is every hop's path in turn: water-filling gives it the rate of its most loaded hop, on
 * every hop at once, and it takes that rate's share on each link it crosses. It starts when the
 * last rank has joined (until then the ranks that joined wait for their successors' receives)
 * and moves each rank's 2(n-1)/n of the buffer; each rank is done when its last step has
 * arrived: after the flow, the pipeline's latency (StepLatency).
 *
 * Behind standing queues (a RoCE ring under NCCL's flow control at FIFO ports) the window binds
 * where a hop's queue stands: the flow is then a window flow with NCCL's bytes in flight
 * (SlotsInSlices slices) per hop, each over its hop's round trip and the queues on that hop
 * alone (FluidNetwork's window segments), so the ring moves at its slowest connection's
 * W / (RTT + Q / C); each step's first slice waits for the queues on its hop too (their mean
 * over the flow joins the hop's delay in StepLatency). A drop keeps the window (lossBeta 1):
 * NCCL's slots bound what is in flight however the NIC recovers.
 *
 * What the slices do that this does not (docs/flow-engine.md, "The whole ring"): a hop slowed
 * for less time than its slices take runs behind and catches up by the window; ranks that
 * join early move nothing; the bytes of all hops start and end together. Events: two per
 * all-reduce and channel, against 2(n-1) x n x slices.
 */
#ifndef FLUMEN_FLUID_RING_ALL_REDUCE_H
#define FLUMEN_FLUID_RING_ALL_REDUCE_H

#include "fluid-all-reduce-joins.h"
#include "fluid-network.h"
#include "ring-allreduce.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

class FlowRingTransport;

class FluidRingAllReduce : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * Latency of a whole ring all-reduce beyond its bytes at `bps`: each of its 2(n-1) steps
     * waits for the previous step's first slice to cross a hop unless the step's own chunk takes
     * longer to send, and the last step's first slice crosses once more. A chunk's steps go
     * round the ring, so they cross every hop in turn: `hopDelays` (one per rank's hop) are
     * taken evenly. `chunkBytes` is what a rank sends per step, `sliceBytes` its first slice.
     */
    static Time StepLatency(double chunkBytes, double sliceBytes, double bps,
                            const std::vector<Time>& hopDelays);

    /** The ring's hops: rank r's channel transport, to rank r + 1 (all of the same network). */
    void Setup(const std::vector<Ptr<FlowRingTransport>>& hops);
    /** Rank `rank` starts its next all-reduce of `bytes`, paced as `pacing` says; `done` runs
     * when it holds the result. Every rank joins the same all-reduces in the same order. */
    void Join(uint32_t rank, uint64_t bytes, const RingPacing& pacing, Callback<void> done);
    /** All-reduces run as one flow so far. */
    uint64_t GetAllReduces() const { return m_allReduces; }

    /** Signature of the AllReduceDone trace: bytes each rank sent, seconds from start to done. */
    typedef void (*DoneTracedCallback)(uint64_t bytes, double seconds);

  protected:
    void DoDispose() override;

  private:
    struct AllReduce : JoinedAllReduce
    {
        double stepBytes = 0;    //!< what a rank sends per step
        double sliceBytes = 0;   //!< the step's first slice
        bool flowControl = true; //!< NCCL's: a queue pair waits for its clear to send
        Time flowStart;          //!< its bytes' first (after a queue pair's clear to send)
        double flowBytes = 0;
        double windowBytes = 0; //!< NCCL's bytes in flight per connection (flow control)
        /** Each hop's queueing (delay x seconds) at the flow's start: its mean over the flow
         * lengthens the steps' latency. */
        std::vector<double> queueingAtStart;
    };
    void Begin();
    /** NCCL's window per hop (queue pairs): m_segments, once the path is made. */
    void MakeWindowSegments();
    void StartFlow(FluidNetwork::FlowSpec spec);
    void HandleFlowDone(uint64_t flow);
    /** Hop h's queueing so far: its links' queues' delay integrated over time (seconds^2). */
    double HopQueueing(uint32_t hop) const;
    void Finish();

    /** Not owned: each transport holds its ring (SetWholeRing), so a Ptr back would be a
     * cycle that nothing frees; the ring is used only while they run. */
    std::vector<FlowRingTransport*> m_hops;
    AllReduceJoins<AllReduce> m_all; //!< from the one running (or waiting for ranks) on
    std::vector<uint32_t> m_path;    //!< every hop's path, rank order (made at the first)
    double m_capBps = FluidNetwork::kUnbounded; //!< the hops' lowest cap
    std::vector<Time> m_hopDelays;              //!< each hop's propagation, by rank
    std::vector<uint32_t> m_hopBegins;          //!< where each hop's links begin in m_path
    /** Each hop's window segment: [0] its own grants in its cycle, [1] the next hop's too. */
    std::vector<FluidNetwork::FlowSpec::WindowSegment> m_segments[2];
    double m_lineBps = 0; //!< the slowest hop's first link (for empty all-reduces)
    bool m_running = false;
    uint64_t m_allReduces = 0;

    TracedCallback<uint64_t, double> m_doneTrace;
};

} // namespace ns3

#endif
