#include "horovod-coordinator.h"

#include "training-worker.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("HorovodCoordinator");
NS_OBJECT_ENSURE_REGISTERED(HorovodCoordinator);

TypeId
HorovodCoordinator::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::HorovodCoordinator")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<HorovodCoordinator>()
              .AddAttribute(
                  "CycleTime", "Horovod's cycle (HOROVOD_CYCLE_TIME; 1 ms since Horovod 0.21).",
                  TimeValue(MilliSeconds(1)), MakeTimeAccessor(&HorovodCoordinator::m_cycleTime),
                  MakeTimeChecker(MicroSeconds(1)))
              .AddAttribute("FusionThresholdBytes",
                            "Largest fused buffer (HOROVOD_FUSION_THRESHOLD; 128 MiB since 0.21).",
                            UintegerValue(128ULL * 1024 * 1024),
                            MakeUintegerAccessor(&HorovodCoordinator::m_fusionThreshold),
                            MakeUintegerChecker<uint64_t>(1))
              .AddTraceSource("Fused", "A fused all-reduce was issued (iteration, tensors, bytes).",
                              MakeTraceSourceAccessor(&HorovodCoordinator::m_fusedTrace),
                              "ns3::HorovodCoordinator::FusedTracedCallback");
    return tid;
}

HorovodCoordinator::HorovodCoordinator() = default;

void
HorovodCoordinator::AddWorker(Ptr<TrainingWorker> worker)
{
    m_workers.push_back(worker);
}

void
HorovodCoordinator::Start()
{
    // Horovod's loop runs from the start; its phase against the backward pass is arbitrary.
    m_cycleEvent.Cancel();
    m_cycleEvent = Simulator::Schedule(m_cycleTime, &HorovodCoordinator::Cycle, this);
}

void
HorovodCoordinator::DoDispose()
{
    m_cycleEvent.Cancel();
    m_workers.clear();
    m_iterations.clear();
    Object::DoDispose();
}

std::vector<uint64_t>
HorovodCoordinator::Fuse(const std::vector<uint64_t>& bytes, uint64_t threshold)
{
    std::vector<uint64_t> fused;
    uint64_t current = 0;
    bool open = false;
    for (uint64_t b : bytes)
    {
        if (open && current + b > threshold)
        {
            fused.push_back(current);
            current = 0;
            open = false;
        }
        current += b;
        open = true;
    }
    if (open)
    {
        fused.push_back(current);
    }
    return fused;
}

void
HorovodCoordinator::TensorReady(uint32_t rank, uint32_t iteration, uint32_t tensor)
{
    NS_ASSERT(tensor < m_tensorBytes.size());
    IterationState& it = m_iterations[iteration];
    if (it.readyRanks.empty())
    {
        it.readyRanks.assign(m_tensorBytes.size(), 0);
    }
    ++it.readyRanks[tensor];
    NS_LOG_LOGIC("rank " << rank << " iteration " << iteration << " tensor " << tensor);
}

bool
HorovodCoordinator::AllFinished() const
{
    for (const auto& w : m_workers)
    {
        if (!w->IsFinished())
        {
            return false;
        }
    }
    return true;
}

void
HorovodCoordinator::Cycle()
{
    const uint32_t ranks = static_cast<uint32_t>(m_workers.size());
    for (auto it = m_iterations.begin(); it != m_iterations.end();)
    {
        IterationState& st = it->second;
        // Every rank releases in the same order, so the tensors ready everywhere are a prefix.
        uint32_t end = st.nextTensor;
        while (end < st.readyRanks.size() && st.readyRanks[end] == ranks)
        {
            ++end;
        }
        uint32_t first = st.nextTensor;
        while (first < end)
        {
            FusedAllReduce f;
            f.iteration = it->first;
            f.firstTensor = first;
            while (first < end
                   && (f.tensors == 0 || f.bytes + m_tensorBytes[first] <= m_fusionThreshold))
            {
                f.bytes += m_tensorBytes[first];
                ++f.tensors;
                ++first;
            }
            m_fusedTrace(f.iteration, f.tensors, f.bytes);
            for (const auto& w : m_workers)
            {
                w->EnqueueAllReduce(f);
            }
        }
        st.nextTensor = end;
        if (end == st.readyRanks.size())
        {
            it = m_iterations.erase(it);
        }
        else
        {
            ++it;
        }
    }
    if (!AllFinished())
    {
        m_cycleEvent = Simulator::Schedule(m_cycleTime, &HorovodCoordinator::Cycle, this);
    }
}

} // namespace ns3
