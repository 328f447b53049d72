/*
 * Installs a synchronous data-parallel job (Horovod over NCCL) on a set of hosts: one
 * TrainingWorker per host (rank = position in the list), one Horovod coordinator, and per
 * NCCL channel a ring transport from each rank to the next (TCP sockets on ports
 * ListenPort + channel, or an RDMA queue pair numbered channel + 1), and an
 * IterationRecorder watching every worker.
 */
#ifndef FLUMEN_TRAINING_JOB_HELPER_H
#define FLUMEN_TRAINING_JOB_HELPER_H

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/horovod-coordinator.h"
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
    Ptr<HorovodCoordinator> coordinator;
    std::vector<std::vector<Ptr<RingTransport>>> channels; //!< [rank][channel]
    Ptr<IterationRecorder> recorder;

    /** Every transport of rank `rank`, summed: payload bytes sent / received. */
    uint64_t BytesSent(uint32_t rank) const;
    uint64_t BytesReceived(uint32_t rank) const;
};

class TrainingJobHelper
{
  public:
    /** TCP's first listening port; channel c listens on kTcpListenPortBase + c. */
    static constexpr uint16_t kTcpListenPortBase = 45000;

    TrainingJobHelper();

    /** The model: tensors, phase durations and jitter come from the profile. */
    void SetModel(const ModelProfile& profile);
    void SetIterations(uint32_t iterations);
    /** NCCL channels: parallel rings, each with its own transport (default 1). */
    void SetChannels(uint32_t channels);
    /** Transport type ("ns3::TcpRingTransport" or "ns3::RdmaRingTransport") and attributes. */
    void SetTransport(const std::string& typeId);
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    void SetWorkerAttribute(const std::string& name, const AttributeValue& value);
    void SetCoordinatorAttribute(const std::string& name, const AttributeValue& value);

    /**
     * Installs rank i on nodes.Get(i), whose IPv4 address is addresses[i]. Workers and the
     * Horovod loop start at `start`.
     */
    TrainingJob Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses,
                        Time start = Seconds(0)) const;

    /** Fixes the random streams of the job's workers; returns how many were used. */
    static int64_t AssignStreams(const TrainingJob& job, int64_t stream);

  private:
    ObjectFactory m_workerFactory;
    ObjectFactory m_transportFactory;
    ObjectFactory m_coordinatorFactory;
    ModelProfile m_profile;
    uint32_t m_channels = 1;
};

} // namespace ns3

#endif
