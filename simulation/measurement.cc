#include "measurement.h"

#include "scenario.h"

#include "ns3/core-module.h"

#include <fmt/format.h>

namespace flumen
{

using namespace ns3;

Measurement::Measurement(const Scenario& scenario, Network& network, std::ostream* progress,
                         Clock::time_point wallStart)
    : m_scenario(scenario), m_network(network),
      m_progress(scenario.progressIntervalS > 0 ? progress : nullptr), m_wallStart(wallStart),
      m_lastProgress(wallStart)
{
}

void
Measurement::WatchJob(const TrainingJob& job)
{
    m_job = job;
    m_workers = job.workers.GetN();
    for (uint32_t i = 0; i < job.workers.GetN(); ++i)
    {
        job.workers.Get(i)->TraceConnectWithoutContext(
            "IterationStart", MakeCallback(&Measurement::OnIterationStart, this));
    }
    job.recorder->SetIterationCallback(MakeCallback(&Measurement::OnIteration, this));
    job.recorder->SetAllFinishedCallback(MakeCallback(&Measurement::Stop, this));
}

void
Measurement::WatchCrossTraffic(const std::optional<CrossTraffic>& cross)
{
    m_cross = cross;
}

void
Measurement::Schedule()
{
    const Scenario& s = m_scenario;
    if (!s.jobEnabled || s.warmupIterations == 0)
    {
        Simulator::Schedule(s.jobEnabled ? Seconds(0) : Seconds(s.crossStartS),
                            &Measurement::OpenWindow, this);
    }
    if (m_progress)
    {
        Simulator::Schedule(MilliSeconds(1), &Measurement::Progress, this);
    }
}

void
Measurement::KeepRunningAfterTheJob()
{
    if (m_job.recorder)
    {
        m_job.recorder->SetAllFinishedCallback(MakeNullCallback<void>());
    }
}

void
Measurement::CloseWindow()
{
    // A job cut before any worker began a measured iteration never opened the window: the
    // rates are then measured over the whole run, warm-up included, rather than over an
    // empty window (the monitors have recorded since the start).
    if (!m_windowOpen)
    {
        m_wholeRun = true;
        m_windowOpen = true;
        m_windowStart = Seconds(0);
        m_crossBytesAtWindow = 0;
        m_jobBytesAtWindow = 0;
    }
}

uint64_t
Measurement::CrossBytesInWindow() const
{
    return m_cross ? m_cross->bytesReceived() - m_crossBytesAtWindow : 0;
}

uint64_t
Measurement::JobBytesInWindow() const
{
    return JobBytes() - m_jobBytesAtWindow;
}

uint64_t
Measurement::JobBytes() const
{
    uint64_t b = 0;
    for (uint32_t r = 0; r < m_job.channels.size(); ++r)
    {
        b += m_job.BytesReceived(r);
    }
    return b;
}

void
Measurement::OpenWindow()
{
    m_windowOpen = true;
    m_windowStart = Simulator::Now();
    m_network.ResetPortCounters();
    m_crossBytesAtWindow = m_cross ? m_cross->bytesReceived() : 0;
    m_jobBytesAtWindow = JobBytes();
}

void
Measurement::OnIterationStart(uint32_t rank, uint32_t iteration, Time at)
{
    if (iteration == 0)
    {
        m_firstStart[rank] = at;
    }
    if (iteration == m_scenario.warmupIterations)
    {
        m_measuredStart[rank] = at;
        // The window opens when the first worker begins its first measured iteration.
        if (!m_windowOpen)
        {
            OpenWindow();
        }
    }
}

void
Measurement::Stop()
{
    Simulator::Stop();
}

void
Measurement::OnIteration(const IterationRecord&)
{
    ++m_iterationsDone;
}

void
Measurement::Progress()
{
    auto now = Clock::now();
    double sinceLast = std::chrono::duration<double>(now - m_lastProgress).count();
    if (sinceLast >= m_scenario.progressIntervalS)
    {
        m_lastProgress = now;
        double wall = std::chrono::duration<double>(now - m_wallStart).count();
        double sim = Simulator::Now().GetSeconds();
        std::string its = m_workers
                              ? fmt::format("iterations {}/{} per worker",
                                            m_iterationsDone / m_workers, m_scenario.iterations)
                              : std::string("cross traffic only");
        *m_progress << fmt::format("[flumen] simulated {:.4f} s | {} | wall {:.1f} s "
                                   "({:.0f}x real time)\n",
                                   sim, its, wall, sim > 0 ? wall / sim : 0.0)
                    << std::flush;
    }
    Simulator::Schedule(MilliSeconds(1), &Measurement::Progress, this);
}

} // namespace flumen
