/*
 * Installs a synchronous data-parallel job on a set of hosts: one TrainingWorker per host
 * (rank = position in the list), a ring transport from each rank to the next, and an
 * IterationRecorder watching them all.
 */
#ifndef FLUMEN_TRAINING_JOB_HELPER_H
#define FLUMEN_TRAINING_JOB_HELPER_H

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/ipv4-address.h"
#include "ns3/iteration-recorder.h"
#include "ns3/model-profile.h"
#include "ns3/node-container.h"
#include "ns3/object-factory.h"
#include "ns3/training-worker.h"

#include <vector>

namespace ns3
{

struct TrainingJob
{
    ApplicationContainer workers;
    std::vector<Ptr<RingTransport>> transports; //!< transport of rank i
    Ptr<IterationRecorder> recorder;
};

class TrainingJobHelper
{
  public:
    TrainingJobHelper();

    /** The model: gradient bytes, compute time and jitter come from the profile. */
    void SetModel(const ModelProfile& profile);
    void SetIterations(uint32_t iterations);
    /** Transport type ("ns3::TcpRingTransport") and its attributes. */
    void SetTransport(const std::string& typeId);
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    void SetWorkerAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Installs rank i on nodes.Get(i), whose IPv4 address is addresses[i]. Workers start
     * at `start`.
     */
    TrainingJob Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses,
                        Time start = Seconds(0)) const;

    /** Fixes the random streams of the job's workers; returns how many were used. */
    static int64_t AssignStreams(const TrainingJob& job, int64_t stream);

  private:
    ObjectFactory m_workerFactory;
    ObjectFactory m_transportFactory;
};

} // namespace ns3

#endif
