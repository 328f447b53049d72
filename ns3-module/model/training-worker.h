/*
 * One data-parallel worker (one GPU server) under Horovod: each iteration runs the forward
 * pass, then the backward pass, which releases gradient tensors in reverse layer order
 * (each when its layer's share of the backward time has elapsed), then waits until every
 * tensor of the iteration is all-reduced, then runs the optimizer step. The Horovod
 * coordinator decides which fused all-reduces run; this worker runs them one at a time with
 * NCCL's ring over its channels, or over reduction trees (TreeAllReduce). Forward, backward and
 * step durations each get the same relative jitter (normal, truncated at +-3 sigma).
 */
#ifndef FLUMEN_TRAINING_WORKER_H
#define FLUMEN_TRAINING_WORKER_H

#include "fluid-tree-all-reduce.h"
#include "horovod-coordinator.h"
#include "nccl-all-reduce.h"
#include "ring-transport.h"
#include "tree-all-reduce.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <vector>

namespace ns3
{

/** The phases of one iteration on one worker. */
struct IterationPhases
{
    uint32_t rank = 0;
    uint32_t iteration = 0;
    Time start;       //!< forward began
    Time forwardEnd;  //!< backward began
    Time backwardEnd; //!< last gradient released
    Time commEnd;     //!< last all-reduce of the iteration completed
    Time end;         //!< optimizer step done

    /** Time between the end of the backward pass and the end of communication (exposed). */
    Time Waiting() const { return commEnd > backwardEnd ? commEnd - backwardEnd : Time(0); }
    Time StepStart() const { return std::max(commEnd, backwardEnd); }
};

class TrainingWorker : public Application
{
  public:
    static TypeId GetTypeId();
    TrainingWorker();

    /** Signature of the iteration trace sources: rank, iteration index, time. */
    typedef void (*IterationTracedCallback)(uint32_t rank, uint32_t iteration, Time at);
    /** Signature of the IterationPhases trace source. */
    typedef void (*PhasesTracedCallback)(const IterationPhases& phases);
    /** Signature of the AllReduce trace source: rank, iteration, start, end, bytes. */
    typedef void (*AllReduceTracedCallback)(uint32_t rank, uint32_t iteration, Time start, Time end,
                                            uint64_t bytes);

    /**
     * The ring: one transport per NCCL channel, each to the next rank. With SetTrees, every
     * transport of this rank instead (each is started with the worker).
     */
    void SetChannels(const std::vector<Ptr<RingTransport>>& channels) { m_channels = channels; }
    /** A tree-based collective (CollectiveTrees) instead of the ring, over these links. */
    void SetTrees(const std::vector<ReductionTree>& trees,
                  const std::vector<TreeAllReduce::TreeLinks>& links)
    {
        m_trees = trees;
        m_treeLinks = links;
    }
    /** With SetTrees: its all-reduces run as part of `trees`, each tree one flow (the flow
     * engine's simulation.flow_ring "whole"), not over its links' slices. */
    void SetWholeTrees(Ptr<FluidTreeAllReduce> trees) { m_wholeTrees = trees; }
    const std::vector<Ptr<RingTransport>>& GetChannels() const { return m_channels; }
    void SetCoordinator(Ptr<HorovodCoordinator> coordinator) { m_coordinator = coordinator; }
    /**
     * When in the backward pass each gradient tensor is released, as a fraction of the
     * backward time, in release order (non-decreasing, last = 1). Must match the
     * coordinator's tensor list.
     */
    void SetReleaseFractions(const std::vector<double>& fractions) { m_release = fractions; }

    uint32_t GetRank() const { return m_rank; }
    uint32_t GetIterationsDone() const { return m_iterationsDone; }
    bool IsFinished() const { return m_iterationsDone >= m_iterations; }
    /** All-reduces this worker has completed so far. */
    uint64_t GetAllReducesDone() const { return m_allReducesDone; }

    /** Called by the coordinator: run this fused all-reduce after those queued before. */
    void EnqueueAllReduce(const FusedAllReduce& f);

    /** Assigns a fixed stream to the jitter random variable; returns streams used. */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void BeginIteration();
    void ForwardDone();
    void ReleaseTensor(uint32_t tensor);
    void BackwardDone();
    void StartNextAllReduce();
    void AllReduceDone();
    void MaybeStep();
    void StepDone();
    Time Jittered(Time mean);

    // Attributes
    uint32_t m_rank;
    uint32_t m_ranks;
    uint32_t m_iterations;
    Time m_forwardTime;
    Time m_backwardTime;
    Time m_stepTime;
    double m_jitterCv;
    uint64_t m_sliceBytes;
    bool m_ncclFlowControl;
    uint64_t m_ncclBufferBytes;
    uint32_t m_ncclSteps;
    uint32_t m_ncclChunkSteps;
    uint32_t m_ncclSliceSteps;
    uint32_t m_ncclThreads;

    std::vector<Ptr<RingTransport>> m_channels;
    Ptr<HorovodCoordinator> m_coordinator;
    std::vector<double> m_release;
    Ptr<NcclAllReduce> m_allReduce;
    std::vector<ReductionTree> m_trees; //!< empty: the ring
    std::vector<TreeAllReduce::TreeLinks> m_treeLinks;
    Ptr<TreeAllReduce> m_treeAllReduce;
    Ptr<FluidTreeAllReduce> m_wholeTrees; //!< SetWholeTrees's (null: slice by slice)
    Ptr<NormalRandomVariable> m_jitter;
    std::vector<EventId> m_events;
    std::deque<FusedAllReduce> m_queue;
    bool m_reducing = false;
    Time m_allReduceStart;         //!< of the one under way
    uint32_t m_reducedTensors = 0; //!< of the current iteration
    bool m_backwardDone = false;
    bool m_stepping = false;
    IterationPhases m_phases;
    uint32_t m_iterationsDone = 0;
    uint64_t m_allReducesDone = 0;
    bool m_running = false;

    TracedCallback<uint32_t, uint32_t, Time> m_iterationStartTrace;
    TracedCallback<uint32_t, uint32_t, Time> m_backwardEndTrace;
    TracedCallback<uint32_t, uint32_t, Time> m_iterationEndTrace;
    TracedCallback<const IterationPhases&> m_phasesTrace;
    TracedCallback<uint32_t, uint32_t, Time, Time, uint64_t> m_allReduceTrace;
};

} // namespace ns3

#endif
