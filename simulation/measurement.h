// What a run measures while it runs: the measurement window (opened when the first worker of
// any job begins its first measured iteration), each job's own window (its first worker's
// first measured iteration), the bytes of the jobs and the cross traffic at those moments,
// when each rank began, iterations done, and progress lines on stderr.
#ifndef FLUMEN_MEASUREMENT_H
#define FLUMEN_MEASUREMENT_H

#include "comm-phases.h"
#include "network.h"

#include "ns3/nstime.h"
#include "ns3/training-job-helper.h"

#include <chrono>
#include <map>
#include <optional>
#include <ostream>
#include <vector>

namespace flumen
{

struct Scenario;

/** One job as measured: its window, bytes and iterations. */
struct MeasuredJob
{
    const Scenario* spec = nullptr; //!< the job's keys (the scenario itself for one job)
    ns3::TrainingJob job;
    uint32_t workers = 0;
    uint32_t iterationsDone = 0; //!< over every worker
    bool finished = false;       //!< its last iteration ended (not followed in fixed-length runs)
    bool windowOpen = false;
    ns3::Time windowStart;
    ns3::Time windowEnd; //!< when it finished (the run's end if it did not)
    uint64_t bytesAtWindow = 0;
    /** Per rank: when its first iteration and its first measured iteration began. */
    std::map<uint32_t, ns3::Time> firstStart;
    std::map<uint32_t, ns3::Time> measuredStart;
    /** Rank 0's all-reduces, in the order they ended. */
    std::vector<CommPhase> comm;

    /** Payload bytes its ranks received so far. */
    uint64_t Bytes() const;
    uint64_t BytesInWindow() const { return Bytes() - bytesAtWindow; }
    /** Every worker ran every iteration. */
    bool Done() const;
};

class Measurement
{
  public:
    using Clock = std::chrono::steady_clock;

    Measurement(const Scenario& scenario, Network& network, std::ostream* progress,
                Clock::time_point wallStart);

    /** Follows a job's iterations (its trace sources); the run stops when every job is done. */
    void WatchJob(const Scenario& spec, const ns3::TrainingJob& job);
    void WatchCrossTraffic(const std::optional<CrossTraffic>& cross);
    /** Schedules what starts with the run: windows without a warm-up, progress lines. */
    void Schedule();
    /** Stops the run once it has taken this many wall seconds (0: never). */
    void StopAfterWallSeconds(double seconds);
    /** Whether StopAfterWallSeconds stopped it. */
    bool WallBudgetHit() const { return m_wallBudgetHit; }
    /** A fixed-length run: the jobs' end does not stop it. */
    void KeepRunningAfterTheJob();
    /** After the run: a window never opened (a job cut in its warm-up) is the whole run. */
    void CloseWindow();

    bool WindowIsWholeRun() const { return m_wholeRun; }
    bool WindowOpen() const { return m_windowOpen; }
    ns3::Time WindowStart() const { return m_windowStart; }
    const std::vector<MeasuredJob>& Jobs() const { return m_jobs; }
    /** Every job finished every iteration. */
    bool AllJobsDone() const;
    /** Bytes the cross traffic's receiver took since the window opened. */
    uint64_t CrossBytesInWindow() const;

  private:
    void OpenWindow();
    void OpenJobWindow(size_t job);
    void OnIterationStart(size_t job, uint32_t rank, uint32_t iteration, ns3::Time at);
    void OnIteration(size_t job, const ns3::IterationRecord& record);
    void OnAllReduce(size_t job, uint32_t rank, uint32_t iteration, ns3::Time start, ns3::Time end,
                     uint64_t bytes);
    void OnJobFinished(size_t job);
    void Progress();
    void CheckWallBudget();

    const Scenario& m_scenario;
    Network& m_network;
    std::ostream* m_progress;
    Clock::time_point m_wallStart;
    Clock::time_point m_lastProgress;
    std::vector<MeasuredJob> m_jobs;
    std::optional<CrossTraffic> m_cross;
    double m_wallBudgetS = 0;
    bool m_wallBudgetHit = false;
    bool m_windowOpen = false;
    bool m_wholeRun = false;
    ns3::Time m_windowStart;
    uint64_t m_crossBytesAtWindow = 0;
};

} // namespace flumen

#endif
