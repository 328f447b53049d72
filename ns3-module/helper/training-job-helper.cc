#include "training-job-helper.h"

#include "ns3/flow-ring-transport.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/simulator.h"
#include "ns3/tcp-ring-transport.h"
#include "ns3/uinteger.h"

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
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        std::vector<Ptr<RingTransport>> channels;
        for (uint32_t c = 0; c < m_channels; ++c)
        {
            Ptr<RingTransport> transport = m_transportFactory.Create<RingTransport>();
            if (Ptr<TcpRingTransport> tcp = DynamicCast<TcpRingTransport>(transport))
            {
                UintegerValue sockets;
                tcp->GetAttribute("SocketsPerPeer", sockets);
                tcp->SetAttribute("ListenPort", UintegerValue(kTcpListenPortBase + c));
                tcp->SetAttribute("LocalPortBase", UintegerValue(40000 + c * sockets.Get()));
                tcp->SetNode(nodes.Get(rank));
                tcp->SetNextAddress(addresses[(rank + 1) % n]);
            }
            else if (Ptr<RdmaRingTransport> rdma = DynamicCast<RdmaRingTransport>(transport))
            {
                rdma->SetAttribute("QueuePair", UintegerValue(c + 1));
                rdma->SetNode(nodes.Get(rank));
                rdma->SetNextAddress(addresses[(rank + 1) % n]);
            }
            else if (Ptr<FlowRingTransport> flow = DynamicCast<FlowRingTransport>(transport))
            {
                flow->SetAttribute("Port", UintegerValue(kTcpListenPortBase + c));
                flow->SetNode(nodes.Get(rank));
                flow->SetNextAddress(addresses[(rank + 1) % n]);
            }
            channels.push_back(transport);
        }
        Ptr<TrainingWorker> worker = m_workerFactory.Create<TrainingWorker>();
        worker->SetAttribute("Rank", UintegerValue(rank));
        worker->SetAttribute("Ranks", UintegerValue(n));
        worker->SetChannels(channels);
        worker->SetCoordinator(job.coordinator);
        worker->SetReleaseFractions(release);
        worker->SetStartTime(start);
        nodes.Get(rank)->AddApplication(worker);
        job.coordinator->AddWorker(worker);
        job.recorder->Watch(worker);
        job.workers.Add(worker);
        job.channels.push_back(channels);
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
    return used;
}

} // namespace ns3
