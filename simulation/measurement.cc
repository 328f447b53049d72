#include "measurement.h"

#include "run-summary.h"
#include "scenario.h"

#include "ns3/core-module.h"

#include <fmt/format.h>

namespace flumen
{

using namespace ns3;

uint64_t
MeasuredJob::Bytes() const
{
    uint64_t b = 0;
    for (uint32_t r = 0; r < job.channels.size(); ++r)
    {
        b += job.BytesReceived(r);
    }
    return b;
}

bool
MeasuredJob::Done() const
{
    return iterationsDone >= workers * spec->iterations;
}

Measurement::Measurement(const Scenario& scenario, Network& network, std::ostream* progress,
                         Clock::time_point wallStart)
    : m_scenario(scenario), m_network(network),
      m_progress(scenario.progressIntervalS > 0 ? progress : nullptr), m_wallStart(wallStart),
      m_lastProgress(wallStart)
{
}

void
Measurement::WatchJob(const Scenario& spec, const TrainingJob& job)
{
    const size_t index = m_jobs.size();
    MeasuredJob m;
    m.spec = &spec;
    m.job = job;
    m.workers = job.workers.GetN();
    m_jobs.push_back(m);
    for (uint32_t i = 0; i < job.workers.GetN(); ++i)
    {
        job.workers.Get(i)->TraceConnectWithoutContext(
            "IterationStart", MakeCallback(&Measurement::OnIterationStart, this, index));
    }
    if (job.workers.GetN() > 0)
    {
        job.workers.Get(0)->TraceConnectWithoutContext(
            "AllReduce", MakeCallback(&Measurement::OnAllReduce, this, index));
    }
    job.recorder->SetIterationCallback(MakeCallback(&Measurement::OnIteration, this, index));
    job.recorder->SetAllFinishedCallback(MakeCallback(&Measurement::OnJobFinished, this, index));
}

void
Measurement::OnAllReduce(size_t job, uint32_t, uint32_t iteration, Time start, Time end,
                         uint64_t bytes)
{
    MeasuredJob& m = m_jobs[job];
    m.comm.push_back({ m.spec->jobName, iteration, start.GetSeconds(), end.GetSeconds(), bytes,
                       iteration < m.spec->warmupIterations });
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
    if (m_jobs.empty())
    {
        Simulator::Schedule(Seconds(s.crossStartS), &Measurement::OpenWindow, this);
    }
    for (size_t j = 0; j < m_jobs.size(); ++j)
    {
        // Without a warm-up a job's window opens as it starts (the first one's: the run's).
        if (m_jobs[j].spec->warmupIterations == 0)
        {
            Simulator::Schedule(Seconds(m_jobs[j].spec->jobStartS), &Measurement::OpenJobWindow,
                                this, j);
        }
    }
    if (m_progress)
    {
        Simulator::Schedule(MilliSeconds(1), &Measurement::Progress, this);
    }
}

void
Measurement::StopAfterWallSeconds(double seconds)
{
    m_wallBudgetS = seconds;
    if (seconds > 0)
    {
        Simulator::Schedule(MicroSeconds(100), &Measurement::CheckWallBudget, this);
    }
}

void
Measurement::CheckWallBudget()
{
    if (std::chrono::duration<double>(Clock::now() - m_wallStart).count() >= m_wallBudgetS)
    {
        m_wallBudgetHit = true;
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(MicroSeconds(100), &Measurement::CheckWallBudget, this);
}

void
Measurement::KeepRunningAfterTheJob()
{
    for (auto& m : m_jobs)
    {
        m.job.recorder->SetAllFinishedCallback(MakeNullCallback<void>());
    }
}

void
Measurement::CloseWindow()
{
    // A job cut before any worker began a measured iteration never opened its window: its
    // rates are then measured over the whole run, warm-up included, rather than over an
    // empty window (the monitors have recorded since the start).
    if (!m_windowOpen)
    {
        m_wholeRun = true;
        m_windowOpen = true;
        m_windowStart = Seconds(0);
        m_crossBytesAtWindow = 0;
    }
    for (auto& m : m_jobs)
    {
        if (!m.finished)
        {
            m.windowEnd = Simulator::Now();
        }
        if (!m.windowOpen)
        {
            m.windowOpen = true;
            m.windowStart = Seconds(0);
            m.bytesAtWindow = 0;
        }
    }
}

bool
Measurement::AllJobsDone() const
{
    for (const auto& m : m_jobs)
    {
        if (!m.Done())
        {
            return false;
        }
    }
    return true;
}

uint64_t
Measurement::CrossBytesInWindow() const
{
    return m_cross ? m_cross->bytesReceived() - m_crossBytesAtWindow : 0;
}

void
Measurement::OpenWindow()
{
    m_windowOpen = true;
    m_windowStart = Simulator::Now();
    m_network.ResetPortCounters();
    m_crossBytesAtWindow = m_cross ? m_cross->bytesReceived() : 0;
}

void
Measurement::OpenJobWindow(size_t job)
{
    MeasuredJob& m = m_jobs[job];
    if (m.windowOpen)
    {
        return;
    }
    m.windowOpen = true;
    m.windowStart = Simulator::Now();
    // The run's window opens with the first job's.
    if (!m_windowOpen)
    {
        OpenWindow();
    }
    m.bytesAtWindow = m.Bytes();
}

void
Measurement::OnIterationStart(size_t job, uint32_t rank, uint32_t iteration, Time at)
{
    MeasuredJob& m = m_jobs[job];
    if (iteration == 0)
    {
        m.firstStart[rank] = at;
    }
    if (iteration == m.spec->warmupIterations)
    {
        m.measuredStart[rank] = at;
        // A job's window opens when its first worker begins its first measured iteration.
        OpenJobWindow(job);
    }
}

void
Measurement::OnJobFinished(size_t job)
{
    m_jobs[job].finished = true;
    m_jobs[job].windowEnd = Simulator::Now();
    for (const auto& m : m_jobs)
    {
        if (!m.finished)
        {
            return;
        }
    }
    Simulator::Stop();
}

void
Measurement::OnIteration(size_t job, const IterationRecord&)
{
    ++m_jobs[job].iterationsDone;
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
        std::string its;
        for (const auto& m : m_jobs)
        {
            its += fmt::format("{}iterations {}{}/{} per worker", its.empty() ? "" : ", ",
                               m_jobs.size() > 1 ? m.spec->jobName + " " : "",
                               m.iterationsDone / std::max(1u, m.workers), m.spec->iterations);
        }
        *m_progress << fmt::format("[flumen] simulated {:.4f} s | {} | wall {:.1f} s "
                                   "({})\n",
                                   sim, its.empty() ? "cross traffic only" : its, wall,
                                   RealTimePace(sim > 0 ? wall / sim : 0.0))
                    << std::flush;
    }
    Simulator::Schedule(MilliSeconds(1), &Measurement::Progress, this);
}

} // namespace flumen
