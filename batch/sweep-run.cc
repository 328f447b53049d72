#include "sweep-run.h"

#include "atomic-file.h"
#include "folder-lock.h"
#include "run-store.h"
#include "slurm-pool.h"
#include "slurm-submit.h"
#include "sweep-status.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<PoolPoint>
PoolPoints(const Sweep& sweep)
{
    std::vector<PoolPoint> pool;
    for (const auto& p : sweep.points)
    {
        pool.push_back(
            { p.id, p.scenario, { { "assignments", json(p.assignments) }, { "seed", p.seed } } });
    }
    return pool;
}

PoolOptions
SweepPoolOptions(const SweepOptions& o, const std::string& label, unsigned jobs)
{
    PoolOptions options;
    options.jobs = jobs;
    options.label = label;
    if (!o.calibration.empty())
        options.extraArgs = { "--calibration", o.calibration };
    return options;
}

int
RunSweepLocally(const SweepOptions& o, const Sweep& sweep)
{
    // One local sweep per folder (SLURM array tasks share it by design: one point each).
    FolderLock lock(o.out, "flumen sweep " + o.file);
    RemoveStaleTemporaries(o.out); // a killed sweep's results.csv.tmp.*, now that it is ours
    const fs::path points = fs::path(o.out) / "points";
    PoolResult run = RunPointPool(PoolPoints(sweep), points, SweepPoolOptions(o, "sweep", o.jobs));
    auto states = ClassifySweepPoints(sweep, points, {}, {});
    WriteSweepResults(sweep, o.out, states);
    std::cout << fmt::format("sweep: {} of {} points done ({} this run, {} skipped), {} failed; "
                             "{:.0f} s of simulation wall time this run (added over its points); "
                             "wrote {}\n",
                             CountStatus(states, "done"), sweep.points.size(), run.done,
                             run.skipped, run.failed, run.wallSeconds,
                             (fs::path(o.out) / "results.csv").string());
    return AllDone(states) ? 0 : 1;
}

int
RunSweepTask(const SweepOptions& o, const Sweep& sweep)
{
    size_t index = *o.task;
    if (index >= sweep.points.size())
    {
        std::cerr << fmt::format("flumen sweep: --task {}: the sweep has {} points (0..{})\n",
                                 index, sweep.points.size(), sweep.points.size() - 1);
        return 2;
    }
    if (!o.sweepId.empty() && o.sweepId != SweepId(sweep))
    {
        std::cerr << fmt::format("flumen sweep: {}: the sweep's points changed since this task was "
                                 "submitted (sweep id {} now, {} then); task {} does not run. "
                                 "Re-run `flumen sweep ... --backend slurm` to submit the "
                                 "current points\n",
                                 o.file, SweepId(sweep), o.sweepId, index);
        return 2;
    }
    // SLURM sends SIGTERM to every process of a cancelled, timed-out or preempted task. The
    // task stays alive to record its point's failure when flumen-run dies.
    PassTerminationToTaskGroup();

    const fs::path points = fs::path(o.out) / "points";
    std::vector<PoolPoint> one = { PoolPoints(sweep)[index] };
    RunPointPool(one, points, SweepPoolOptions(o, fmt::format("task {}", index), 1));
    if (TaskTerminated())
    {
        std::cerr << fmt::format("flumen sweep: task {} (point {}) terminated (cancelled, time "
                                 "limit or preemption); nothing partial is left\n",
                                 index, sweep.points[index].id);
        return 1;
    }
    bool done = PointFinished(points, sweep.points[index].id);
    auto states = ClassifySweepPoints(sweep, points, {}, {});
    if (done && AllDone(states))
    {
        // The last task to finish assembles results.csv (two racing tasks write the same).
        WriteSweepResults(sweep, o.out, states);
        std::cerr << fmt::format("flumen sweep: all {} points done; wrote {}\n",
                                 sweep.points.size(), (fs::path(o.out) / "results.csv").string());
    }
    return done ? 0 : 1;
}

size_t
CompactSweep(const SweepOptions& o, const Sweep& sweep)
{
    const FolderLock lock(o.out, "flumen sweep --compact");
    const fs::path points = fs::path(o.out) / "points";
    std::vector<std::string> done;
    for (const auto& p : sweep.points)
    {
        if (PointFinished(points, p.id))
            done.push_back(p.id);
    }
    return CompactRuns(points, { { fs::path(o.file).stem().string(), done } });
}

int
RunSweep(const SweepOptions& o, const Sweep& sweep)
{
    if (o.task)
        return RunSweepTask(o, sweep);
    if (o.status || o.collect)
        return ReportSweepStatus(sweep, o.out, o.collect);
    if (o.run.backend == PoolBackend::Slurm)
        return SubmitSweepToSlurm(o, sweep);
    return RunSweepLocally(o, sweep);
}

} // namespace flumen
