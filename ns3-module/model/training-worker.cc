#include "training-worker.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

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
              .AddAttribute(
                  "ForwardTime", "Mean duration of the forward pass.", TimeValue(MilliSeconds(30)),
                  MakeTimeAccessor(&TrainingWorker::m_forwardTime), MakeTimeChecker(Seconds(0)))
              .AddAttribute("BackwardTime", "Mean duration of the backward pass.",
                            TimeValue(MilliSeconds(60)),
                            MakeTimeAccessor(&TrainingWorker::m_backwardTime),
                            MakeTimeChecker(Seconds(0)))
              .AddAttribute(
                  "StepTime", "Mean duration of the optimizer step (after all reductions).",
                  TimeValue(MilliSeconds(5)), MakeTimeAccessor(&TrainingWorker::m_stepTime),
                  MakeTimeChecker(Seconds(0)))
              .AddAttribute("ComputeJitterCv",
                            "Coefficient of variation of each compute phase (normal, truncated "
                            "at +-3 sigma).",
                            DoubleValue(0.0), MakeDoubleAccessor(&TrainingWorker::m_jitterCv),
                            MakeDoubleChecker<double>(0.0, 0.3))
              .AddAttribute("SliceBytes",
                            "Slice of the collectives without NCCL's flow control (a ring with "
                            "NcclFlowControl false, and the reduction trees): each step is "
                            "pipelined in pieces of at most this many bytes (0 = whole steps).",
                            UintegerValue(512 * 1024),
                            MakeUintegerAccessor(&TrainingWorker::m_sliceBytes),
                            MakeUintegerChecker<uint64_t>())
              .AddAttribute("NcclFlowControl",
                            "The ring moves NCCL 2.7.8's loops, chunks and slices through "
                            "FIFOs of NcclSteps slots at each end of a connection (posted "
                            "receives as clear to send over RoCE); false: unbounded, every "
                            "step a whole chunk in slices of SliceBytes.",
                            BooleanValue(true),
                            MakeBooleanAccessor(&TrainingWorker::m_ncclFlowControl),
                            MakeBooleanChecker())
              .AddAttribute(
                  "NcclBufferBytes",
                  "NCCL's buffer per connection and channel, NcclSteps slots (NCCL_BUFFSIZE; "
                  "2.7.8: 4 MiB, src/init.cc).",
                  UintegerValue(NcclSlicing().bufferBytes),
                  MakeUintegerAccessor(&TrainingWorker::m_ncclBufferBytes),
                  MakeUintegerChecker<uint64_t>(4096))
              .AddAttribute("NcclSteps", "FIFO slots of a connection (NCCL_STEPS, devcomm.h: 8).",
                            UintegerValue(NcclSlicing().steps),
                            MakeUintegerAccessor(&TrainingWorker::m_ncclSteps),
                            MakeUintegerChecker<uint32_t>(1, 1024))
              .AddAttribute("NcclChunkSteps",
                            "Slots of a ring chunk (ALLREDUCE_CHUNKSTEPS, collectives.h: 4).",
                            UintegerValue(NcclSlicing().chunkSteps),
                            MakeUintegerAccessor(&TrainingWorker::m_ncclChunkSteps),
                            MakeUintegerChecker<uint32_t>(1, 1024))
              .AddAttribute(
                  "NcclThreads",
                  "GPU threads of NCCL's ring kernel: its chunks are multiples of 8 bytes "
                  "each, and operations under 64 bytes each use fewer channels (2.7.8: "
                  "256 for a NIC of at most 12 GB/s, tuning.cc).",
                  UintegerValue(NcclSlicing().threads),
                  MakeUintegerAccessor(&TrainingWorker::m_ncclThreads),
                  MakeUintegerChecker<uint32_t>(32, 1024))
              .AddAttribute("NcclSliceSteps",
                            "Slots of a ring slice (ALLREDUCE_SLICESTEPS, collectives.h: 2).",
                            UintegerValue(NcclSlicing().sliceSteps),
                            MakeUintegerAccessor(&TrainingWorker::m_ncclSliceSteps),
                            MakeUintegerChecker<uint32_t>(1, 1024))
              .AddTraceSource("IterationStart", "An iteration began (rank, iteration, time).",
                              MakeTraceSourceAccessor(&TrainingWorker::m_iterationStartTrace),
                              "ns3::TrainingWorker::IterationTracedCallback")
              .AddTraceSource("BackwardEnd",
                              "The backward pass released its last gradient (rank, iteration, "
                              "time).",
                              MakeTraceSourceAccessor(&TrainingWorker::m_backwardEndTrace),
                              "ns3::TrainingWorker::IterationTracedCallback")
              .AddTraceSource("IterationEnd",
                              "An iteration's optimizer step completed (rank, iteration, time).",
                              MakeTraceSourceAccessor(&TrainingWorker::m_iterationEndTrace),
                              "ns3::TrainingWorker::IterationTracedCallback")
              .AddTraceSource("IterationPhases",
                              "An iteration completed: the times of all its phases.",
                              MakeTraceSourceAccessor(&TrainingWorker::m_phasesTrace),
                              "ns3::TrainingWorker::PhasesTracedCallback")
              .AddTraceSource("AllReduce",
                              "A fused all-reduce completed on this rank (rank, iteration, its "
                              "start and end, bytes): the communication phases.",
                              MakeTraceSourceAccessor(&TrainingWorker::m_allReduceTrace),
                              "ns3::TrainingWorker::AllReduceTracedCallback");
    return tid;
}

TrainingWorker::TrainingWorker()
{
    m_jitter = CreateObject<NormalRandomVariable>();
    m_allReduce = CreateObject<NcclAllReduce>();
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
    for (auto& e : m_events)
    {
        e.Cancel();
    }
    m_events.clear();
    m_allReduce->Dispose();
    m_allReduce = nullptr;
    if (m_treeAllReduce)
    {
        m_treeAllReduce->Dispose();
        m_treeAllReduce = nullptr;
    }
    m_treeLinks.clear();
    m_wholeTrees = nullptr;
    m_channels.clear();
    m_coordinator = nullptr;
    Application::DoDispose();
}

void
TrainingWorker::StartApplication()
{
    NS_ABORT_MSG_IF(m_channels.empty(), "TrainingWorker " << m_rank << ": no transport set");
    NS_ABORT_MSG_IF(!m_coordinator, "TrainingWorker " << m_rank << ": no Horovod coordinator");
    NS_ABORT_MSG_IF(m_rank >= m_ranks, "TrainingWorker: Rank must be below Ranks");
    NS_ABORT_MSG_IF(m_release.size() != m_coordinator->GetTensorBytes().size(),
                    "TrainingWorker: release fractions and tensor list differ in length");
    m_running = true;
    if (m_trees.empty())
    {
        RingPacing pacing;
        pacing.flowControl = m_ncclFlowControl;
        pacing.slicing.bufferBytes = m_ncclBufferBytes;
        pacing.slicing.steps = m_ncclSteps;
        pacing.slicing.chunkSteps = m_ncclChunkSteps;
        pacing.slicing.sliceSteps = m_ncclSliceSteps;
        pacing.slicing.threads = m_ncclThreads;
        pacing.sliceBytes = m_sliceBytes;
        NS_ABORT_MSG_IF(m_ncclFlowControl
                            && (m_ncclSliceSteps > m_ncclChunkSteps
                                || m_ncclChunkSteps % m_ncclSliceSteps != 0
                                || m_ncclChunkSteps > m_ncclSteps),
                        "TrainingWorker: NCCL slice steps must divide chunk steps, which must "
                        "not exceed the steps");
        m_allReduce->Setup(m_channels, m_rank, m_ranks, pacing);
    }
    else if (!m_wholeTrees) // whole trees run as FluidTreeAllReduce's flows instead
    {
        m_treeAllReduce = CreateObject<TreeAllReduce>();
        m_treeAllReduce->Setup(m_trees, m_treeLinks, m_rank, m_sliceBytes);
    }
    for (auto& t : m_channels)
    {
        t->Start();
    }
    BeginIteration();
}

void
TrainingWorker::StopApplication()
{
    m_running = false;
    for (auto& e : m_events)
    {
        e.Cancel();
    }
    m_events.clear();
}

Time
TrainingWorker::Jittered(Time mean)
{
    if (m_jitterCv <= 0.0 || mean.IsZero())
    {
        return mean;
    }
    // Truncated at +-3 sigma so a draw can never be negative (cv <= 0.3 enforced).
    double z = m_jitter->GetValue(0.0, 1.0, 3.0);
    return Seconds(mean.GetSeconds() * (1.0 + m_jitterCv * z));
}

void
TrainingWorker::BeginIteration()
{
    if (!m_running || IsFinished())
    {
        return;
    }
    m_events.clear();
    m_phases = IterationPhases();
    m_phases.rank = m_rank;
    m_phases.iteration = m_iterationsDone;
    m_phases.start = Simulator::Now();
    m_reducedTensors = 0;
    m_backwardDone = false;
    m_stepping = false;
    m_iterationStartTrace(m_rank, m_iterationsDone, Simulator::Now());
    for (const Ptr<RingTransport>& channel : m_channels)
    {
        channel->StartIteration();
    }
    m_events.push_back(
        Simulator::Schedule(Jittered(m_forwardTime), &TrainingWorker::ForwardDone, this));
}

void
TrainingWorker::ForwardDone()
{
    m_phases.forwardEnd = Simulator::Now();
    Time backward = Jittered(m_backwardTime);
    for (uint32_t i = 0; i < m_release.size(); ++i)
    {
        m_events.push_back(Simulator::Schedule(Seconds(backward.GetSeconds() * m_release[i]),
                                               &TrainingWorker::ReleaseTensor, this, i));
    }
    // Scheduled after the releases: at equal times ns-3 runs events in scheduling order.
    m_events.push_back(Simulator::Schedule(backward, &TrainingWorker::BackwardDone, this));
}

void
TrainingWorker::ReleaseTensor(uint32_t tensor)
{
    m_coordinator->TensorReady(m_rank, m_iterationsDone, tensor);
}

void
TrainingWorker::BackwardDone()
{
    m_phases.backwardEnd = Simulator::Now();
    m_backwardDone = true;
    m_backwardEndTrace(m_rank, m_iterationsDone, Simulator::Now());
    MaybeStep();
}

void
TrainingWorker::EnqueueAllReduce(const FusedAllReduce& f)
{
    NS_ABORT_MSG_IF(f.iteration != m_iterationsDone,
                    "TrainingWorker " << m_rank << ": all-reduce for iteration " << f.iteration
                                      << " while in iteration " << m_iterationsDone);
    m_queue.push_back(f);
    if (!m_reducing)
    {
        StartNextAllReduce();
    }
}

void
TrainingWorker::StartNextAllReduce()
{
    if (m_queue.empty())
    {
        return;
    }
    m_reducing = true;
    m_allReduceStart = Simulator::Now();
    auto done = MakeCallback(&TrainingWorker::AllReduceDone, this);
    if (m_wholeTrees)
    {
        m_wholeTrees->Join(m_rank, m_queue.front().bytes, m_sliceBytes, done);
    }
    else if (m_treeAllReduce)
    {
        m_treeAllReduce->Start(m_queue.front().bytes, done);
    }
    else
    {
        m_allReduce->Start(m_queue.front().bytes, done);
    }
}

void
TrainingWorker::AllReduceDone()
{
    FusedAllReduce f = m_queue.front();
    m_queue.pop_front();
    m_reducing = false;
    ++m_allReducesDone;
    m_allReduceTrace(m_rank, m_iterationsDone, m_allReduceStart, Simulator::Now(), f.bytes);
    m_reducedTensors += f.tensors;
    if (m_reducedTensors == m_release.size())
    {
        m_phases.commEnd = Simulator::Now();
        MaybeStep();
    }
    StartNextAllReduce();
}

void
TrainingWorker::MaybeStep()
{
    if (m_stepping || !m_backwardDone || m_reducedTensors < m_release.size())
    {
        return;
    }
    m_stepping = true;
    m_events.push_back(Simulator::Schedule(Jittered(m_stepTime), &TrainingWorker::StepDone, this));
}

void
TrainingWorker::StepDone()
{
    m_phases.end = Simulator::Now();
    NS_LOG_INFO("rank " << m_rank << " finished iteration " << m_iterationsDone << " at "
                        << Simulator::Now().As(Time::S));
    uint32_t finished = m_iterationsDone++; // counted first: trace sinks see IsFinished()
    m_phasesTrace(m_phases);
    m_iterationEndTrace(m_rank, finished, Simulator::Now());
    BeginIteration();
}

} // namespace ns3
