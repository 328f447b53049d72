#include "training-job-helper.h"

#include "ns3/flow-ring-transport.h"

#include "ns3/abort.h"
#include "ns3/collective-trees.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/simulator.h"
#include "ns3/tcp-ring-transport.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

uint64_t
TrainingJob::BytesSent(uint32_t rank) const
{
    uint64_t total = 0;
    for (const auto& t : channels.at(rank))
    {
        total += t->GetBytesSent();
    }
    return total;
}

uint64_t
TrainingJob::BytesReceived(uint32_t rank) const
{
    uint64_t total = 0;
    for (const auto& t : channels.at(rank))
    {
        total += t->GetBytesReceived();
    }
    return total;
}

TrainingJobHelper::TrainingJobHelper()
{
    m_workerFactory.SetTypeId(TrainingWorker::GetTypeId());
    m_transportFactory.SetTypeId(TcpRingTransport::GetTypeId());
    m_coordinatorFactory.SetTypeId(HorovodCoordinator::GetTypeId());
}

void
TrainingJobHelper::SetModel(const ModelProfile& profile)
{
    m_profile = profile;
    m_workerFactory.Set("ForwardTime", TimeValue(Seconds(profile.forwardSeconds)));
    m_workerFactory.Set("BackwardTime", TimeValue(Seconds(profile.backwardSeconds)));
    m_workerFactory.Set("StepTime", TimeValue(Seconds(profile.stepSeconds)));
    m_workerFactory.Set("ComputeJitterCv", DoubleValue(profile.computeJitterCv));
}

void
TrainingJobHelper::SetIterations(uint32_t iterations)
{
    m_workerFactory.Set("Iterations", UintegerValue(iterations));
}

void
TrainingJobHelper::SetChannels(uint32_t channels)
{
    NS_ABORT_MSG_IF(channels < 1 || channels > 64, "TrainingJobHelper: 1..64 channels");
    m_channels = channels;
}

void
TrainingJobHelper::SetTransport(const std::string& typeId)
{
    m_transportFactory.SetTypeId(typeId);
}

void
TrainingJobHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transportFactory.Set(name, value);
}

void
TrainingJobHelper::SetWorkerAttribute(const std::string& name, const AttributeValue& value)
{
    m_workerFactory.Set(name, value);
}

void
TrainingJobHelper::SetCoordinatorAttribute(const std::string& name, const AttributeValue& value)
{
    m_coordinatorFactory.Set(name, value);
}

void
TrainingJobHelper::SetCollective(const std::string& name, uint32_t servers)
{
    const auto names = CollectiveNames();
    NS_ABORT_MSG_IF(std::find(names.begin(), names.end(), name) == names.end(),
                    "TrainingJobHelper: unknown collective " << name);
    m_collective = name;
    m_servers = servers;
}

std::vector<uint16_t>
TrainingJobHelper::TcpPorts(uint32_t workers) const
{
    std::vector<uint16_t> ports;
    if (m_collective == "ring")
    {
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            ports.push_back(static_cast<uint16_t>(kTcpListenPortBase + c));
        }
        return ports;
    }
    const uint32_t links = NumberTreeLinks(CollectiveTrees(m_collective, workers, m_servers)).count;
    for (uint32_t l = 0; l < links; ++l)
    {
        ports.push_back(static_cast<uint16_t>(kTcpListenPortBase + kFirstLinkIndex + l));
    }
    return ports;
}

Ptr<RingTransport>
TrainingJobHelper::MakeTransport(Ptr<Node> node, Ipv4Address peer, Ipv4Address previous,
                                 uint32_t index) const
{
    Ptr<RingTransport> transport = m_transportFactory.Create<RingTransport>();
    if (Ptr<TcpRingTransport> tcp = DynamicCast<TcpRingTransport>(transport))
    {
        UintegerValue sockets;
        tcp->GetAttribute("SocketsPerPeer", sockets);
        tcp->SetAttribute("ListenPort", UintegerValue(kTcpListenPortBase + index));
        tcp->SetAttribute("LocalPortBase",
                          UintegerValue(kTcpLocalPortBase + index * sockets.Get()));
        tcp->SetNode(node);
        tcp->SetNextAddress(peer);
    }
    else if (Ptr<RdmaRingTransport> rdma = DynamicCast<RdmaRingTransport>(transport))
    {
        rdma->SetAttribute("QueuePair", UintegerValue(index + 1));
        rdma->SetNode(node);
        rdma->SetNextAddress(peer);
        rdma->SetPreviousAddress(previous);
    }
    else if (Ptr<FlowRingTransport> flow = DynamicCast<FlowRingTransport>(transport))
    {
        UintegerValue connections;
        flow->GetAttribute("Connections", connections);
        flow->SetAttribute("Port", UintegerValue(kTcpListenPortBase + index));
        flow->SetAttribute("GrantPort", UintegerValue(kGrantPortBase + index));
        flow->SetAttribute("LocalPortBase",
                           UintegerValue(kTcpLocalPortBase + index * connections.Get()));
        flow->SetNode(node);
        flow->SetNextAddress(peer);
        flow->SetPreviousAddress(previous);
    }
    return transport;
}

void
TrainingJobHelper::InstallTrees(const NodeContainer& nodes,
                                const std::vector<Ipv4Address>& addresses,
                                const std::vector<ReductionTree>& trees, TrainingJob& job,
                                std::vector<std::vector<TreeAllReduce::TreeLinks>>& links) const
{
    const uint32_t n = nodes.GetN();
    job.channels.assign(n, {});
    links.assign(n, std::vector<TreeAllReduce::TreeLinks>(trees.size()));
    const TreeLinkNumbers numbers = NumberTreeLinks(trees);
    NS_ABORT_MSG_IF(numbers.count > kMaxLinks, "TrainingJobHelper: the trees' links need "
                                                   << numbers.count
                                                   << " transport numbers per host, " << kMaxLinks
                                                   << " at most");
    for (uint32_t t = 0; t < trees.size(); ++t)
    {
        for (uint32_t p = 0; p < n; ++p)
        {
            links[p][t].children.resize(trees[t].Children(p).size());
        }
        for (uint32_t r = 0; r < n; ++r)
        {
            if (trees[t].parent[r] < 0)
            {
                continue;
            }
            const uint32_t p = static_cast<uint32_t>(trees[t].parent[r]);
            const uint32_t index = kFirstLinkIndex + numbers.ofRank[t][r];
            // A tree link's two ends send to each other and receive from each other.
            Ptr<RingTransport> up = MakeTransport(nodes.Get(r), addresses[p], addresses[p], index);
            Ptr<RingTransport> down
                = MakeTransport(nodes.Get(p), addresses[r], addresses[r], index);
            const auto siblings = trees[t].Children(p);
            const size_t position
                = std::find(siblings.begin(), siblings.end(), r) - siblings.begin();
            links[r][t].parent = up;
            links[p][t].children[position] = down;
            job.channels[r].push_back(up);
            job.channels[p].push_back(down);
        }
    }
}

void
TrainingJobHelper::InstallWholeRings(TrainingJob& job) const
{
    for (uint32_t c = 0; c < m_channels; ++c)
    {
        std::vector<Ptr<FlowRingTransport>> hops;
        for (const auto& channels : job.channels)
        {
            hops.push_back(DynamicCast<FlowRingTransport>(channels[c]));
            NS_ABORT_MSG_IF(!hops.back(), "TrainingJobHelper: a whole ring needs the flow engine's "
                                          "transport (ns3::FlowRingTransport)");
        }
        Ptr<FluidRingAllReduce> ring = CreateObject<FluidRingAllReduce>();
        ring->Setup(hops);
        for (uint32_t rank = 0; rank < hops.size(); ++rank)
        {
            hops[rank]->SetWholeRing(ring, rank);
        }
        job.wholeRings.push_back(ring);
    }
}

void
TrainingJobHelper::InstallWholeTrees(
    const std::vector<ReductionTree>& trees,
    const std::vector<std::vector<TreeAllReduce::TreeLinks>>& links, TrainingJob& job) const
{
    const auto flow = [](const Ptr<RingTransport>& t)
    {
        Ptr<FlowRingTransport> f = DynamicCast<FlowRingTransport>(t);
        NS_ABORT_MSG_IF(!f, "TrainingJobHelper: whole trees need the flow engine's transport "
                            "(ns3::FlowRingTransport)");
        return f;
    };
    std::vector<std::vector<FluidTreeAllReduce::Edges>> edges(links.size());
    for (size_t r = 0; r < links.size(); ++r)
    {
        for (const auto& tree : links[r])
        {
            FluidTreeAllReduce::Edges e;
            e.parent = tree.parent ? flow(tree.parent) : nullptr;
            for (const auto& child : tree.children)
            {
                e.children.push_back(flow(child));
            }
            edges[r].push_back(e);
        }
    }
    job.wholeTrees = CreateObject<FluidTreeAllReduce>();
    job.wholeTrees->Setup(trees, edges);
}

TrainingJob
TrainingJobHelper::Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses,
                           Time start) const
{
    const uint32_t n = nodes.GetN();
    NS_ABORT_MSG_IF(n < 2, "a ring needs at least 2 workers");
    NS_ABORT_MSG_IF(addresses.size() != n, "one address per worker node expected");
    NS_ABORT_MSG_IF(m_profile.parameters == 0, "TrainingJobHelper: SetModel first");
    TrainingJob job;
    job.recorder = CreateObject<IterationRecorder>();
    job.coordinator = m_coordinatorFactory.Create<HorovodCoordinator>();
    job.coordinator->SetTensorBytes(m_profile.ReleaseBytes());
    const std::vector<double> release = m_profile.ReleaseFractions();
    const std::vector<ReductionTree> trees = CollectiveTrees(m_collective, n, m_servers);
    std::vector<std::vector<TreeAllReduce::TreeLinks>> treeLinks;
    if (trees.empty()) // the ring
    {
        for (uint32_t rank = 0; rank < n; ++rank)
        {
            std::vector<Ptr<RingTransport>> channels;
            for (uint32_t c = 0; c < m_channels; ++c)
            {
                channels.push_back(MakeTransport(nodes.Get(rank), addresses[(rank + 1) % n],
                                                 addresses[(rank + n - 1) % n], c));
            }
            job.channels.push_back(channels);
        }
        if (m_wholeRing)
        {
            InstallWholeRings(job);
        }
    }
    else
    {
        InstallTrees(nodes, addresses, trees, job, treeLinks);
        if (m_wholeRing)
        {
            InstallWholeTrees(trees, treeLinks, job);
        }
    }
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        const std::vector<Ptr<RingTransport>>& channels = job.channels[rank];
        Ptr<TrainingWorker> worker = m_workerFactory.Create<TrainingWorker>();
        worker->SetAttribute("Rank", UintegerValue(rank));
        worker->SetAttribute("Ranks", UintegerValue(n));
        worker->SetChannels(channels);
        if (!treeLinks.empty())
        {
            worker->SetTrees(trees, treeLinks[rank]);
            worker->SetWholeTrees(job.wholeTrees);
        }
        worker->SetCoordinator(job.coordinator);
        worker->SetReleaseFractions(release);
        worker->SetStartTime(start);
        nodes.Get(rank)->AddApplication(worker);
        job.coordinator->AddWorker(worker);
        job.recorder->Watch(worker);
        job.workers.Add(worker);
    }
    Simulator::Schedule(start, &HorovodCoordinator::Start, job.coordinator);
    return job;
}

int64_t
TrainingJobHelper::AssignStreams(const TrainingJob& job, int64_t stream)
{
    int64_t used = 0;
    for (uint32_t i = 0; i < job.workers.GetN(); ++i)
    {
        used += DynamicCast<TrainingWorker>(job.workers.Get(i))->AssignStreams(stream + used);
    }
    for (const auto& rank : job.channels)
    {
        for (const auto& transport : rank)
        {
            used += transport->AssignStreams(stream + used);
        }
    }
    return used;
}

} // namespace ns3
