#include "training-job-helper.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/tcp-ring-transport.h"
#include "ns3/uinteger.h"

namespace ns3
{

TrainingJobHelper::TrainingJobHelper()
{
    m_workerFactory.SetTypeId(TrainingWorker::GetTypeId());
    m_transportFactory.SetTypeId(TcpRingTransport::GetTypeId());
}

void
TrainingJobHelper::SetModel(const ModelProfile& profile)
{
    m_workerFactory.Set("GradientBytes", UintegerValue(profile.GradientBytes()));
    m_workerFactory.Set("ComputeTime", TimeValue(Seconds(profile.computeSeconds)));
    m_workerFactory.Set("ComputeJitterCv", DoubleValue(profile.computeJitterCv));
}

void
TrainingJobHelper::SetIterations(uint32_t iterations)
{
    m_workerFactory.Set("Iterations", UintegerValue(iterations));
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

TrainingJob
TrainingJobHelper::Install(const NodeContainer& nodes, const std::vector<Ipv4Address>& addresses,
                           Time start) const
{
    const uint32_t n = nodes.GetN();
    NS_ABORT_MSG_IF(n < 2, "a ring needs at least 2 workers");
    NS_ABORT_MSG_IF(addresses.size() != n, "one address per worker node expected");
    TrainingJob job;
    job.recorder = CreateObject<IterationRecorder>();
    for (uint32_t rank = 0; rank < n; ++rank)
    {
        Ptr<RingTransport> transport = m_transportFactory.Create<RingTransport>();
        if (Ptr<TcpRingTransport> tcp = DynamicCast<TcpRingTransport>(transport))
        {
            tcp->SetNode(nodes.Get(rank));
            tcp->SetNextAddress(addresses[(rank + 1) % n]);
        }
        Ptr<TrainingWorker> worker = m_workerFactory.Create<TrainingWorker>();
        worker->SetAttribute("Rank", UintegerValue(rank));
        worker->SetAttribute("Ranks", UintegerValue(n));
        worker->SetTransport(transport);
        worker->SetStartTime(start);
        nodes.Get(rank)->AddApplication(worker);
        job.recorder->Watch(worker);
        job.workers.Add(worker);
        job.transports.push_back(transport);
    }
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
