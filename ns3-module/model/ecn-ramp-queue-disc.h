/*
 * A switch port's queue with DCQCN's ECN marking (Zhu et al., 2015): on arrival, with q the
 * bytes already queued, an ECN-capable packet is marked CE with probability 0 below Kmin,
 * Pmax (q - Kmin) / (Kmax - Kmin) between, and 1 at or above Kmax. The instantaneous queue is
 * used, not RED's average, and marks are drawn independently (no RED count spacing).
 * Packets that are not ECN-capable are never marked nor early-dropped; every packet is
 * tail-dropped when it does not fit in MaxSize.
 */
#ifndef FLUMEN_ECN_RAMP_QUEUE_DISC_H
#define FLUMEN_ECN_RAMP_QUEUE_DISC_H

#include "ns3/queue-disc.h"
#include "ns3/random-variable-stream.h"

namespace ns3
{

class EcnRampQueueDisc : public QueueDisc
{
  public:
    static TypeId GetTypeId();
    EcnRampQueueDisc();
    ~EcnRampQueueDisc() override;

    static constexpr const char* kLimitExceeded = "Queue disc limit exceeded";
    static constexpr const char* kRampMark = "ECN ramp mark";

    /** Marking probability for an arrival that finds `queuedBytes` waiting. */
    double MarkProbability(uint32_t queuedBytes) const;
    /** The ramp itself, in any unit of queue (the flow engine's fluid queues use it too). */
    static double Ramp(double queued, double kmin, double kmax, double pmax);
    int64_t AssignStreams(int64_t stream);

  private:
    bool DoEnqueue(Ptr<QueueDiscItem> item) override;
    Ptr<QueueDiscItem> DoDequeue() override;
    bool CheckConfig() override;
    void InitializeParams() override;

    uint32_t m_kmin;
    uint32_t m_kmax;
    double m_pmax;
    Ptr<UniformRandomVariable> m_uniform;
};

} // namespace ns3

#endif
