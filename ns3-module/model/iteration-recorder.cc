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
    m_workers.push_back(worker);
    worker->TraceConnectWithoutContext("IterationPhases",
                                       MakeCallback(&IterationRecorder::HandlePhases, this));
}

void
IterationRecorder::HandlePhases(const IterationPhases& r)
{
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
