/*
 * Collects per-worker, per-iteration phase times from TrainingWorker's IterationPhases trace,
 * and tells when every worker has finished its iterations (the runner stops the simulation
 * then).
 */
#ifndef FLUMEN_ITERATION_RECORDER_H
#define FLUMEN_ITERATION_RECORDER_H

#include "training-worker.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <vector>

namespace ns3
{

using IterationRecord = IterationPhases;

class IterationRecorder : public Object
{
  public:
    static TypeId GetTypeId();

    void Watch(Ptr<TrainingWorker> worker);
    /** Runs once, when every watched worker has recorded all its iterations. */
    void SetAllFinishedCallback(Callback<void> cb) { m_allFinished = cb; }
    /** Runs at every completed iteration (progress reporting). */
    void SetIterationCallback(Callback<void, const IterationRecord&> cb) { m_onIteration = cb; }

    /** Completed iterations, in completion order. */
    const std::vector<IterationRecord>& GetRecords() const { return m_records; }
    uint32_t GetWorkers() const { return static_cast<uint32_t>(m_workers.size()); }

  protected:
    void DoDispose() override;

  private:
    void HandlePhases(const IterationPhases& phases);

    std::vector<Ptr<TrainingWorker>> m_workers;
    std::vector<IterationRecord> m_records;
    Callback<void> m_allFinished;
    Callback<void, const IterationRecord&> m_onIteration;
};

} // namespace ns3

#endif
