/*
 * Horovod's background loop for one job (Horovod 0.21 with NCCL). Workers report each
 * gradient tensor as the backward pass produces it. Every cycle (CycleTime) the coordinator
 * takes the tensors that every rank has ready, in release order, fuses them into buffers of
 * at most FusionThresholdBytes (a larger tensor travels alone) and hands the fused
 * all-reduces to every worker, in the same order; each worker runs them one at a time, as
 * Horovod's NCCL operations queue on one CUDA stream.
 *
 * Not modelled: the coordination messages themselves (their latency is well below a cycle
 * on the testbed's network) and the response cache.
 */
#ifndef FLUMEN_HOROVOD_COORDINATOR_H
#define FLUMEN_HOROVOD_COORDINATOR_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class TrainingWorker;

/** One fused all-reduce: which iteration, how many tensors, how many bytes. */
struct FusedAllReduce
{
    uint32_t iteration = 0;
    uint32_t firstTensor = 0; //!< index in release order
    uint32_t tensors = 0;
    uint64_t bytes = 0;
};

class HorovodCoordinator : public Object
{
  public:
    static TypeId GetTypeId();
    HorovodCoordinator();

    /** Signature of the Fused trace: iteration, tensors fused, bytes. */
    typedef void (*FusedTracedCallback)(uint32_t iteration, uint32_t tensors, uint64_t bytes);

    /** Gradient tensor sizes in bytes, in the order the backward pass releases them. */
    void SetTensorBytes(const std::vector<uint64_t>& bytes) { m_tensorBytes = bytes; }
    const std::vector<uint64_t>& GetTensorBytes() const { return m_tensorBytes; }
    void AddWorker(Ptr<TrainingWorker> worker);
    /** Starts the background loop (its first cycle ends one CycleTime from now). */
    void Start();

    /** A rank's backward pass produced tensor `tensor` of `iteration`. */
    void TensorReady(uint32_t rank, uint32_t iteration, uint32_t tensor);

    /**
     * How `bytes` (in release order) fuse when all are ready in one cycle: the number of
     * all-reduces Horovod issues for them with threshold `threshold`.
     */
    static std::vector<uint64_t> Fuse(const std::vector<uint64_t>& bytes, uint64_t threshold);

  protected:
    void DoDispose() override;

  private:
    struct IterationState
    {
        std::vector<uint32_t> readyRanks; //!< per tensor
        uint32_t nextTensor = 0;          //!< first tensor not yet handed out
    };

    void Cycle();
    bool AllFinished() const;

    Time m_cycleTime;
    uint64_t m_fusionThreshold;

    std::vector<uint64_t> m_tensorBytes;
    std::vector<Ptr<TrainingWorker>> m_workers;
    std::map<uint32_t, IterationState> m_iterations;
    EventId m_cycleEvent;

    TracedCallback<uint32_t, uint32_t, uint64_t> m_fusedTrace;
};

} // namespace ns3

#endif
