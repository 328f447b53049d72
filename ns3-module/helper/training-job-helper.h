/*
 * Installs a synchronous data-parallel job (Horovod over NCCL) on a set of hosts: one
 * TrainingWorker per host (rank = position in the list), one Horovod coordinator, an
 * IterationRecorder watching every worker, and the collective's transports. The ring: per
 * NCCL channel c a transport from each rank to the next (transport index c). A tree-based
 * collective (CollectiveTrees): per tree edge a link, a transport on each end sending to the
 * other (transport indices 64, 65, ...). Transport index i is TCP port
 * kTcpListenPortBase + i, RDMA queue pair i + 1, or flow-engine port kTcpListenPortBase + i.
 */
#ifndef FLUMEN_TRAINING_JOB_HELPER_H
#define FLUMEN_TRAINING_JOB_HELPER_H

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/fluid-ring-all-reduce.h"
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
    std::vector<Ptr<FluidRingAllReduce>> wholeRings;       //!< per channel (SetWholeRing)
    Ptr<FluidTreeAllReduce> wholeTrees; //!< a tree collective's trees (SetWholeRing)
    Ptr<IterationRecorder> recorder;

    /** Every transport of rank `rank`, summed: payload bytes sent / received. */
    uint64_t BytesSent(uint32_t rank) const;
    uint64_t BytesReceived(uint32_t rank) const;
};

class TrainingJobHelper
{
  public:
    /** TCP's first listening port; transport index i listens on kTcpListenPortBase + i. */
    static constexpr uint16_t kTcpListenPortBase = 45000;
    /** Connection k of transport index i binds kTcpLocalPortBase + i x connections + k. */
    static constexpr uint16_t kTcpLocalPortBase = 40000;
    /** Flow engine: transport index i receives its successor's clear to send here + i. */
    static constexpr uint16_t kGrantPortBase = 55000;
    /** The first transport index of tree links (ring channels are 0..63). */
    static constexpr uint32_t kFirstLinkIndex = 64;
    /** Tree link numbers per host at most (NumberTreeLinks: a host's links differ, two hosts'
     * may share one): their ports stay below the ring's local ports' range. */
    static constexpr uint32_t kMaxLinks = 2000;

    TrainingJobHelper();

    /** The model: tensors, phase durations and jitter come from the profile. */
    void SetModel(const ModelProfile& profile);
    void SetIterations(uint32_t iterations);
    /** NCCL channels: parallel rings, each with its own transport (default 1). */
    void SetChannels(uint32_t channels);
    /** The flow engine's collective in closed form: each channel's ring all-reduces as one
     * fluid flow (FluidRingAllReduce), a tree collective's as one flow per tree
     * (FluidTreeAllReduce); their transports FlowRingTransport. Default false: slices. */
    void SetWholeRing(bool on) { m_wholeRing = on; }
    /**
     * The collective: "ring" (default) or a tree-based one of CollectiveTrees, with
     * `servers` for parameter_server.
     */
    void SetCollective(const std::string& name, uint32_t servers = 1);
    /** TCP ports the job's transports listen on, for telling job traffic from the rest. */
    std::vector<uint16_t> TcpPorts(uint32_t workers) const;
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

    /** Fixes the random streams of the job's workers and transports; returns how many were
     * used. */
    static int64_t AssignStreams(const TrainingJob& job, int64_t stream);

  private:
    /** A transport of `node` sending to `peer`, with transport index `index`. */
    /** A link's end on `node`: it sends to `peer` and receives from `previous`. */
    Ptr<RingTransport> MakeTransport(Ptr<Node> node, Ipv4Address peer, Ipv4Address previous,
                                     uint32_t index) const;
    /** Each channel's rings as one FluidRingAllReduce over its ranks' transports. */
    void InstallWholeRings(TrainingJob& job) const;
    /** The trees as one FluidTreeAllReduce over their edges' transports. */
    void InstallWholeTrees(const std::vector<ReductionTree>& trees,
                           const std::vector<std::vector<TreeAllReduce::TreeLinks>>& links,
                           TrainingJob& job) const;
    /** Links of every tree edge; fills each rank's transports and tree links. */
    void InstallTrees(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses,
                      const std::vector<ReductionTree>& trees, TrainingJob& job,
                      std::vector<std::vector<TreeAllReduce::TreeLinks>>& links) const;

    ObjectFactory m_workerFactory;
    ObjectFactory m_transportFactory;
    ObjectFactory m_coordinatorFactory;
    ModelProfile m_profile;
    uint32_t m_channels = 1;
    bool m_wholeRing = false;
    std::string m_collective = "ring";
    uint32_t m_servers = 1;
};

} // namespace ns3

#endif
