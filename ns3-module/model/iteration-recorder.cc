#include "iteration-recorder.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("IterationRecorder");
NS_OBJECT_ENSURE_REGISTERED(IterationRecorder);

TypeId
IterationRecorder::GetTypeId()
{
    static TypeId tid = TypeId("ns3::IterationRecorder")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<IterationRecorder>();
    return tid;
}

void
IterationRecorder::Watch(Ptr<TrainingWorker> worker)
{
    uint32_t rank = worker->GetRank();
    if (m_open.size() <= rank)
    {
        m_open.resize(rank + 1);
    }
    m_workers.push_back(worker);
    worker->TraceConnectWithoutContext("IterationStart",
                                       MakeCallback(&IterationRecorder::HandleStart, this));
    worker->TraceConnectWithoutContext("ComputeEnd",
                                       MakeCallback(&IterationRecorder::HandleComputeEnd, this));
    worker->TraceConnectWithoutContext("IterationEnd",
                                       MakeCallback(&IterationRecorder::HandleEnd, this));
}

void
IterationRecorder::HandleStart(uint32_t rank, uint32_t iteration, Time at)
{
    IterationRecord& r = m_open.at(rank);
    r = IterationRecord();
    r.rank = rank;
    r.iteration = iteration;
    r.start = at;
}

void
IterationRecorder::HandleComputeEnd(uint32_t rank, uint32_t iteration, Time at)
{
    m_open.at(rank).computeEnd = at;
}

void
IterationRecorder::HandleEnd(uint32_t rank, uint32_t iteration, Time at)
{
    IterationRecord& r = m_open.at(rank);
    r.end = at;
    m_records.push_back(r);
    if (!m_onIteration.IsNull())
    {
        m_onIteration(r);
    }
    for (const auto& w : m_workers)
    {
        if (!w->IsFinished())
        {
            return;
        }
    }
    if (!m_allFinished.IsNull())
    {
        Callback<void> cb = m_allFinished;
        m_allFinished = MakeNullCallback<void>();
        cb();
    }
}

void
IterationRecorder::DoDispose()
{
    m_workers.clear();
    m_allFinished = MakeNullCallback<void>();
    m_onIteration = MakeNullCallback<void, const IterationRecord&>();
    Object::DoDispose();
}

} // namespace ns3
