// What a run measures while it runs: the measurement window (opened when the first worker
// begins its first measured iteration), the bytes of the job and the cross traffic at that
// moment, when each rank began, iterations done, and progress lines on stderr.
#ifndef FLUMEN_MEASUREMENT_H
#define FLUMEN_MEASUREMENT_H

#include "network.h"

#include "ns3/nstime.h"
#include "ns3/training-job-helper.h"

#include <chrono>
#include <map>
#include <optional>
#include <ostream>

namespace flumen
{

struct Scenario;

class Measurement
{
  public:
    using Clock = std::chrono::steady_clock;

    Measurement(const Scenario& scenario, Network& network, std::ostream* progress,
                Clock::time_point wallStart);

    /** Follows the job's iterations (its trace sources) and stops the run when it is done. */
    void WatchJob(const ns3::TrainingJob& job);
    void WatchCrossTraffic(const std::optional<CrossTraffic>& cross);
    /** Schedules what starts with the run: the window without a warm-up, progress lines. */
    void Schedule();
    /** A fixed-length run: the job's end does not stop it. */
    void KeepRunningAfterTheJob();
    /** After the run: a window never opened (the job cut in its warm-up) is the whole run. */
    void CloseWindow();

    bool WindowIsWholeRun() const { return m_wholeRun; }
    ns3::Time WindowStart() const { return m_windowStart; }
    uint32_t IterationsDone() const { return m_iterationsDone; }
    uint32_t Workers() const { return m_workers; }
    /** Per rank: when its first iteration and its first measured iteration began. */
    const std::map<uint32_t, ns3::Time>& FirstStart() const { return m_firstStart; }
    const std::map<uint32_t, ns3::Time>& MeasuredStart() const { return m_measuredStart; }
    /** Bytes since the window opened: the cross traffic's receiver, the job's ranks. */
    uint64_t CrossBytesInWindow() const;
    uint64_t JobBytesInWindow() const;

  private:
    uint64_t JobBytes() const;
    void OpenWindow();
    void OnIterationStart(uint32_t rank, uint32_t iteration, ns3::Time at);
    void OnIteration(const ns3::IterationRecord& record);
    void Progress();
    void Stop();

    const Scenario& m_scenario;
    Network& m_network;
    std::ostream* m_progress;
    Clock::time_point m_wallStart;
    Clock::time_point m_lastProgress;
    ns3::TrainingJob m_job;
    std::optional<CrossTraffic> m_cross;
    bool m_windowOpen = false;
    bool m_wholeRun = false;
    ns3::Time m_windowStart;
    uint64_t m_crossBytesAtWindow = 0;
    uint64_t m_jobBytesAtWindow = 0;
    uint32_t m_iterationsDone = 0;
    uint32_t m_workers = 0;
    std::map<uint32_t, ns3::Time> m_firstStart;
    std::map<uint32_t, ns3::Time> m_measuredStart;
};

} // namespace flumen

#endif
