/*
 * One data-parallel worker (one GPU server): each iteration it computes, then all-reduces
 * its gradients with the ring; the next iteration starts when its all-reduce completes.
 * For now one compute phase per iteration; Horovod's layer-wise release and fusion come
 * with the RDMA/Horovod issue.
 */
#ifndef FLUMEN_TRAINING_WORKER_H
#define FLUMEN_TRAINING_WORKER_H

#include "ring-allreduce.h"
#include "ring-transport.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class TrainingWorker : public Application
{
  public:
    static TypeId GetTypeId();
    TrainingWorker();

    /** Signature of the iteration trace sources: rank, iteration index, time. */
    typedef void (*IterationTracedCallback)(uint32_t rank, uint32_t iteration, Time at);

    void SetTransport(Ptr<RingTransport> transport) { m_transport = transport; }
    Ptr<RingTransport> GetTransport() const { return m_transport; }
    uint32_t GetRank() const { return m_rank; }
    uint32_t GetIterationsDone() const { return m_iterationsDone; }
    bool IsFinished() const { return m_iterationsDone >= m_iterations; }

    /** Assigns a fixed stream to the compute-jitter random variable; returns streams used. */
    int64_t AssignStreams(int64_t stream);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void BeginIteration();
    void ComputeDone();
    void AllReduceDone();
    Time DrawComputeTime();

    // Attributes
    uint32_t m_rank;
    uint32_t m_ranks;
    uint32_t m_iterations;
    uint64_t m_gradientBytes;
    Time m_computeTime;
    double m_computeJitterCv;

    Ptr<RingTransport> m_transport;
    Ptr<RingAllReduce> m_allReduce;
    Ptr<NormalRandomVariable> m_jitter;
    EventId m_computeEvent;
    uint32_t m_iterationsDone = 0;
    bool m_running = false;

    TracedCallback<uint32_t, uint32_t, Time> m_iterationStartTrace;
    TracedCallback<uint32_t, uint32_t, Time> m_computeEndTrace;
    TracedCallback<uint32_t, uint32_t, Time> m_iterationEndTrace;
};

} // namespace ns3

#endif
