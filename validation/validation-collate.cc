#include "validation-collate.h"

#include "atomic-file.h"
#include "run-outputs.h"
#include "run-store.h"
#include "run-summary.h"
#include "summary-statistics.h"
#include "testbed-settings.h"

#include "ns3/model-profile.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

// What one finished simulation run says.
struct RunResult
{
    RunSummary summary;
    std::vector<double> warmupDurations; //!< all workers
    bool jobFinished = true;
    double meanS = kUnknown;       //!< measured iterations, all workers
    double lowerBoundS = kUnknown; //!< an unfinished job: the mean is at least this
};

// Reads a finished run: its summary and its measured iteration times (all workers), appended
// to `durations`; the warm-up ones go to run.warmupDurations.
bool
ReadRun(const fs::path& dir, RunResult& run, std::vector<double>& durations)
{
    const fs::path points = dir.parent_path();
    const std::string id = dir.filename().string();
    const std::optional<std::string> summary = ReadRunFile(points, id, "summary.json");
    if (!summary)
    {
        return false;
    }
    run.summary = ParseRunSummary(*summary, (dir / "summary.json").string());
    run.jobFinished = run.summary.jobFinished.value_or(true);
    run.meanS = run.summary.iterationTimeS.mean;
    if (!run.jobFinished)
    {
        if (!run.summary.unfinished)
        {
            throw RunSummaryError(fmt::format("{}: key 'iteration_time_lower_bound_s': expected "
                                              "present in an unfinished run",
                                              (dir / "summary.json").string()));
        }
        run.lowerBoundS = run.summary.unfinished->lowerBoundS;
    }
    for (const auto& r : ParseIterationsCsv(ReadRunFile(points, id, "iterations.csv").value_or(""),
                                            (dir / "iterations.csv").string()))
    {
        (r.warmup ? run.warmupDurations : durations).push_back(r.DurationS());
    }
    return true;
}

// Reads the runs of a plan, each once however many points and CDFs share it.
class Collator
{
  public:
    explicit Collator(const fs::path& pointsDir) : pointsDir(pointsDir) {}

    // Per point, pools the seeds' iterations.
    ValidatedPoint Point(const PlannedPoint& pp)
    {
        auto v = pp.point;
        std::vector<double> durations;
        double achieved = 0;
        int achievedSeeds = 0;
        std::string failure;
        int unfinished = 0;
        double bound = 0; // mean over seeds of each seed's mean or, if unfinished, lower bound
        std::vector<double> warmups;
        for (const auto& id : pp.runIds)
        {
            RunResult run;
            if (ReadRun(pointsDir / id, run, durations))
            {
                Account(id, run);
                ++v.seeds;
                v.outOfDomainSeeds += run.summary.engineDomain.empty() ? 0 : 1;
                // Runs of older versions cut before any measured iteration began have an
                // empty measurement window and no achieved rate.
                if (run.summary.windowEndS > run.summary.windowStartS)
                {
                    achieved += run.summary.crossTraffic.achievedGbps;
                    ++achievedSeeds;
                }
                unfinished += run.jobFinished ? 0 : 1;
                if (!run.jobFinished)
                {
                    v.censoredCutS = run.summary.simulatedTimeS;
                }
                warmups.insert(warmups.end(), run.warmupDurations.begin(),
                               run.warmupDurations.end());
                bound += run.jobFinished ? run.meanS : run.lowerBoundS;
            }
            else if (failure.empty())
            {
                failure = PointFailure(pointsDir, id);
            }
        }
        if (v.seeds > 0)
        {
            v.simAchievedGbps = v.idle              ? 0.0
                                : achievedSeeds > 0 ? achieved / achievedSeeds
                                                    : kUnknown;
        }
        if (v.seeds > 0 && unfinished > 0)
        {
            v.simMeanLowerBoundS = bound / v.seeds;
            const auto& completed = durations.empty() ? warmups : durations;
            if (!completed.empty())
            {
                v.censoredCompletedMeanS = Summarize(completed).mean;
                v.censoredCompletedIterations = static_cast<int>(completed.size());
                v.censoredCompletedWarmup = durations.empty();
            }
        }
        else if (v.seeds > 0 && !durations.empty())
        {
            auto st = Summarize(durations);
            v.simMeanS = st.mean;
            v.simP99S = st.p99;
        }
        v.status = unfinished > 0              ? "censored"
                   : v.seeds == v.seedsPlanned ? "done"
                   : v.seeds > 0               ? "partial"
                                 : (failure.empty() ? "not run" : "failed: " + failure);
        if (v.seeds != v.seedsPlanned)
        {
            ++incomplete;
        }
        return v;
    }

    ValidatedRing Ring(const PlannedRing& pr)
    {
        ValidatedRing r = pr.ring;
        RunResult run;
        std::vector<double> durations;
        if (ReadRun(pointsDir / pr.runId, run, durations))
        {
            Account(pr.runId, run);
            r.hops = run.summary.ringHops;
            r.simMeanS = run.jobFinished ? run.meanS : kUnknown;
            r.status = !run.jobFinished ? "censored (hops over the window still given)"
                       : r.hops.empty() ? "done: no ring hops (the flow engine keeps none)"
                                        : "done";
        }
        else
        {
            std::string f = PointFailure(pointsDir, pr.runId);
            r.status = f.empty() ? "not run" : "failed: " + f;
            ++incomplete;
        }
        return r;
    }

    ValidatedCdf Cdf(const PlannedCdf& pc)
    {
        auto c = pc.cdf;
        RunResult run;
        if (ReadRun(pointsDir / pc.runId, run, c.simulated))
        {
            Account(pc.runId, run);
            // An unfinished run's iterations are its first ones only: the KS distance is
            // computed, and the status says so.
            c.ks = c.simulated.empty() ? kUnknown : KolmogorovSmirnov(c.simulated, c.measured);
            c.simulatedIterations = run.summary.workers > 0
                                        ? static_cast<int>(c.simulated.size() / run.summary.workers)
                                        : 0;
            const double n = c.simulatedIterations;
            const double m = static_cast<double>(c.measured.size());
            c.ksCritical = n > 0 && m > 0 ? 1.358 * std::sqrt((n + m) / (n * m)) : kUnknown;
            c.status = run.jobFinished
                           ? "done"
                           : fmt::format("censored: {} iterations by {:.3g} s simulated",
                                         c.simulated.size(), pc.budgetS);
        }
        else
        {
            std::string f = PointFailure(pointsDir, pc.runId);
            c.status = f.empty() ? "not run" : "failed: " + f;
            ++incomplete;
        }
        return c;
    }

    const fs::path pointsDir;
    size_t incomplete = 0;
    double coreSeconds = 0; // the runs' own wall times, each run once
    // Ids of the runs read: a run shared by two points, or by a point and a CDF, is read twice.
    std::set<std::string> runsRead;

  private:
    void Account(const std::string& id, const RunResult& run)
    {
        if (runsRead.insert(id).second)
        {
            coreSeconds += run.summary.wallTimeS;
        }
    }
};

// Baselines from the idle time: measured where the testbed has it, simulated otherwise.
void
AddBaselines(std::vector<ValidatedPoint>& points)
{
    std::map<std::pair<std::string, std::string>, double> idleTime;
    for (const auto& q : points)
    {
        if (q.idle)
        {
            idleTime[{ q.series, q.model }] = q.testbed ? q.testbedMeanS : q.simMeanS;
        }
    }
    for (auto& v : points)
    {
        auto it = idleTime.find({ v.series, v.model });
        double t0 = it == idleTime.end() ? kUnknown : it->second;
        double bits = 8
                      * ns3::ModelProfile::BuiltIn(v.model)->RingBytesPerWorker(
                          static_cast<uint32_t>(JobWorkers(v.configuration)));
        double x = v.idle ? 0.0 : v.measuredGbps;
        if (!std::isnan(t0) && !std::isnan(x))
        {
            v.exposedS = BaselineExposed(t0, bits, 25e9, x * 1e9);
            v.hiddenS = BaselineHidden(t0, bits, 25e9, x * 1e9);
        }
    }
}

} // namespace

CollatedValidation
CollateValidation(const ValidationPlan& plan, const fs::path& pointsDir)
{
    Collator collator(pointsDir);
    CollatedValidation out;
    for (const auto& pp : plan.points)
    {
        out.points.push_back(collator.Point(pp));
    }
    AddBaselines(out.points);
    for (const auto& pc : plan.cdfs)
    {
        out.cdfs.push_back(collator.Cdf(pc));
    }
    for (const auto& pr : plan.rings)
    {
        out.rings.push_back(collator.Ring(pr));
    }
    out.incomplete = collator.incomplete;
    out.coreSeconds = collator.coreSeconds;
    out.runsRead = collator.runsRead.size();
    return out;
}

ValidationMeta
MetaOf(const ValidationOptions& o, const ValidationPlan& plan, const CollatedValidation& got,
       const std::string& command, double coreSecondsNow)
{
    ValidationMeta meta;
    meta.command = command;
    meta.quick = o.quick;
    meta.iterations = plan.iterations;
    meta.warmup = plan.warmup;
    meta.coreSecondsNow = coreSecondsNow;
    meta.maxSimS = o.maxSimS;
    meta.budgetIterations = o.budgetIterations;
    meta.runsDone = got.runsRead;
    meta.runsPlanned = plan.runs.size();
    meta.coreSeconds = got.coreSeconds;
    meta.testbedSettings = plan.testbedSettings;
    meta.commandSettings = o.settings;
    meta.calibration = o.calibrationFile.empty()
                           ? "the built-in model profiles (calibrated with `flumen calibrate` on "
                             "the testbed's idle runs; README, Calibration)"
                           : "the calibration file " + o.calibrationFile;
    for (const auto& [configuration, file] : o.configurationCalibration)
    {
        meta.calibration += fmt::format("; configuration {}'s runs the calibration file {}",
                                        configuration, file);
    }
    if (!o.configurationCalibration.empty() && meta.fitNote.empty())
    {
        std::string folds;
        for (const auto& [configuration, file] : o.configurationCalibration)
        {
            folds += fmt::format("{}configuration {}: {}", folds.empty() ? "" : "; ", configuration,
                                 file);
        }
        meta.fitNote = fmt::format(
            "**Out of sample where a configuration's profiles were fitted on the other one** ({}: "
            "each file's fitted_on says which series; folds.md of the cross-validation that wrote "
            "them gives the values). The idle runs are calibration points, never judged.",
            folds);
    }
    if (!plan.testbedValues.empty())
    {
        std::string values;
        for (const auto& [key, v] : plan.testbedValues.items())
        {
            values += fmt::format("{}`{}` = {}", values.empty() ? "" : ", ", key, v.dump());
        }
        meta.fitNote = fmt::format(
            "Testbed parameters fitted to loaded testbed points ({}), set over the manifests' "
            "declared values in every run: {}. A point of a series they were fitted on is judged "
            "in sample (`flumen validate --cross-validate` judges every series out of sample).",
            plan.testbedValuesFrom.empty() ? "given to this run" : plan.testbedValuesFrom, values);
    }
    return meta;
}

} // namespace flumen
