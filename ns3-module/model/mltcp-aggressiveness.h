/*
 * MLTCP's bandwidth aggressiveness (Rajasekaran, Narang, Zabreyko, Ghobadi, "MLTCP: A
 * Distributed Technique to Approximate Centralized Flow Scheduling For Machine Learning",
 * HotNets '24; arXiv 2402.09589): a training job's flow scales its window increase (or its
 * rate increase) by
 *
 *     F(bytes_ratio) = Slope x bytes_ratio + Intercept,
 *
 * bytes_ratio being the bytes it has sent in the current training iteration over the bytes
 * it sends in a whole one. A flow late in its communication phase grabs bandwidth from one
 * that has just begun, so the job ahead finishes first and the phases of competing jobs slide
 * apart, iteration by iteration, until they interleave.
 *
 * The iteration's total is learned from the previous iteration (nothing tells a socket how
 * much a job will send, so a sender-side implementation must learn it); until a whole
 * iteration has been seen F is 1, the base protocol. Iteration boundaries come from the job
 * (StartIteration), where the kernel infers them from the idle gap between phases: flumen's
 * worker knows them exactly. Slope and Intercept are flumen's defaults (F from 0.5 to 1.5 over
 * an iteration, 1 on average, so a lone flow keeps its base protocol's mean aggressiveness);
 * the paper's own values were not at hand (docs/mltcp.md).
 */
#ifndef FLUMEN_MLTCP_AGGRESSIVENESS_H
#define FLUMEN_MLTCP_AGGRESSIVENESS_H

#include "ns3/callback.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

class MltcpAggressiveness : public Object
{
  public:
    static TypeId GetTypeId();
    MltcpAggressiveness();

    /** What counts the flow's bytes sent (payload, monotone). */
    void SetBytesCounter(Callback<uint64_t> counter) { m_counter = counter; }
    /** A training iteration begins: the bytes since the previous call were a whole one. */
    void StartIteration();
    /** F of the flow's progress now (1 until a whole iteration has been seen). */
    double Factor() const;
    /** F of a given bytes ratio (clamped to [0, 1]). */
    double Of(double bytesRatio) const;
    /** The bytes of the last whole iteration (0: none seen yet). */
    uint64_t GetIterationBytes() const { return m_iterationBytes; }

  protected:
    void DoDispose() override;

  private:
    uint64_t Count() const { return m_counter.IsNull() ? 0 : m_counter(); }

    double m_slope;
    double m_intercept;
    Callback<uint64_t> m_counter;
    bool m_started = false;
    uint64_t m_bytesAtStart = 0;
    uint64_t m_iterationBytes = 0;
};

} // namespace ns3

#endif
