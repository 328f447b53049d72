#include "training-worker.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TrainingWorker");
NS_OBJECT_ENSURE_REGISTERED(TrainingWorker);

TypeId
TrainingWorker::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::TrainingWorker")
              .SetParent<Application>()
              .SetGroupName("Flumen")
              .AddConstructor<TrainingWorker>()
              .AddAttribute("Rank", "Position of this worker in the ring.", UintegerValue(0),
                            MakeUintegerAccessor(&TrainingWorker::m_rank),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("Ranks", "Number of workers in the ring.", UintegerValue(2),
                            MakeUintegerAccessor(&TrainingWorker::m_ranks),
                            MakeUintegerChecker<uint32_t>(2))
              .AddAttribute("Iterations", "Training iterations to run, warm-up included.",
                            UintegerValue(10), MakeUintegerAccessor(&TrainingWorker::m_iterations),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("GradientBytes",
                            "Bytes all-reduced per iteration (parameters x 4 for fp32).",
                            UintegerValue(4 * 25557032ULL),
                            MakeUintegerAccessor(&TrainingWorker::m_gradientBytes),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("ComputeTime", "Mean compute time of one iteration (no communication).",
                            TimeValue(MilliSeconds(100)),
                            MakeTimeAccessor(&TrainingWorker::m_computeTime),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute("ComputeJitterCv",
                            "Coefficient of variation of the compute time (normal, truncated "
                            "at +-3 sigma).",
                            DoubleValue(0.0),
                            MakeDoubleAccessor(&TrainingWorker::m_computeJitterCv),
                            MakeDoubleChecker<double>(0.0, 0.3))
              .AddTraceSource("IterationStart", "An iteration began (rank, iteration, time).",
                              MakeTraceSourceAccessor(&TrainingWorker::m_iterationStartTrace),
                              "ns3::TrainingWorker::IterationTracedCallback")
              .AddTraceSource("ComputeEnd",
                              "An iteration's computation ended and its all-reduce began.",
                              MakeTraceSourceAccessor(&TrainingWorker::m_computeEndTrace),
                              "ns3::TrainingWorker::IterationTracedCallback")
              .AddTraceSource("IterationEnd",
                              "An iteration's all-reduce completed (rank, iteration, time).",
                              MakeTraceSourceAccessor(&TrainingWorker::m_iterationEndTrace),
                              "ns3::TrainingWorker::IterationTracedCallback");
    return tid;
}

TrainingWorker::TrainingWorker()
{
    m_jitter = CreateObject<NormalRandomVariable>();
    m_allReduce = CreateObject<RingAllReduce>();
}

int64_t
TrainingWorker::AssignStreams(int64_t stream)
{
    m_jitter->SetStream(stream);
    return 1;
}

void
TrainingWorker::DoDispose()
{
    m_computeEvent.Cancel();
    m_allReduce->Dispose();
    m_allReduce = nullptr;
    m_transport = nullptr;
    Application::DoDispose();
}

void
TrainingWorker::StartApplication()
{
    NS_ABORT_MSG_IF(!m_transport, "TrainingWorker " << m_rank << ": no transport set");
    NS_ABORT_MSG_IF(m_rank >= m_ranks, "TrainingWorker: Rank must be below Ranks");
    m_running = true;
    m_allReduce->Setup(m_transport, m_rank, m_ranks);
    m_transport->Start();
    BeginIteration();
}

void
TrainingWorker::StopApplication()
{
    m_running = false;
    m_computeEvent.Cancel();
}

Time
TrainingWorker::DrawComputeTime()
{
    if (m_computeJitterCv <= 0.0)
    {
        return m_computeTime;
    }
    // Truncated at +-3 sigma so a draw can never be negative (cv <= 0.3 enforced).
    double z = m_jitter->GetValue(0.0, 1.0, 3.0);
    return Seconds(m_computeTime.GetSeconds() * (1.0 + m_computeJitterCv * z));
}

void
TrainingWorker::BeginIteration()
{
    if (!m_running || IsFinished())
    {
        return;
    }
    m_iterationStartTrace(m_rank, m_iterationsDone, Simulator::Now());
    m_computeEvent = Simulator::Schedule(DrawComputeTime(), &TrainingWorker::ComputeDone, this);
}

void
TrainingWorker::ComputeDone()
{
    m_computeEndTrace(m_rank, m_iterationsDone, Simulator::Now());
    m_allReduce->Start(m_gradientBytes, MakeCallback(&TrainingWorker::AllReduceDone, this));
}

void
TrainingWorker::AllReduceDone()
{
    NS_LOG_INFO("rank " << m_rank << " finished iteration " << m_iterationsDone << " at "
                        << Simulator::Now().As(Time::S));
    uint32_t finished = m_iterationsDone++; // counted first: trace sinks see IsFinished()
    m_iterationEndTrace(m_rank, finished, Simulator::Now());
    BeginIteration();
}

} // namespace ns3
