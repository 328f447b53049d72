// What `flumen validate` simulates: every testbed point of the manifests at the testbed's load
// (the requested load where the testbed recorded it, the measured load otherwise), each as one
// run per seed, and the per-iteration CDFs beside them. A run's folder name includes a hash of
// its scenario: a new calibration or a changed setting re-runs it instead of reusing a stale
// result. Each run simulates at most --max-sim-s seconds, or --budget-iterations (and half of
// one more) at the model's fastest testbed pace in the series where that is longer; a job
// unfinished by then makes the point "censored": only a lower bound on its mean is known (the
// testbed's worst points took minutes per iteration).
#ifndef FLUMEN_VALIDATION_PLAN_H
#define FLUMEN_VALIDATION_PLAN_H

#include "backend-options.h"
#include "point-pool.h"
#include "validation-report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace flumen
{

/** The options of `flumen validate` (see its usage text). */
struct ValidationOptions
{
    std::vector<std::string> manifests;
    std::string out;
    std::string calibrationFile;
    /**
     * --calibration-for C=FILE: the runs of configuration C take their profiles from FILE
     * instead of calibrationFile (a fold's, fitted on the other configuration: every point is
     * then judged out of sample).
     */
    std::map<std::string, std::string> configurationCalibration;
    bool quick = false;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    int iterations = 0; // 0: the mode's default
    int seeds = 0;      // 0: the mode's default (2; quick 1)
    /** Iterations of a per-iteration CDF's run (0: 30, or 300 with the flow engine). */
    int cdfIterations = 0;
    std::set<std::string> models;
    double maxSimS = 30;
    int budgetIterations = 3;
    bool reportOnly = false;
    std::string engine = "packet"; //!< simulation.engine of every run
    /** --compare-engines: the packet level's runs (a points folder) to set beside these. */
    std::string comparePacketRuns;
    /** Only the series with these names (empty: every series of the manifests). */
    std::set<std::string> series;
    /**
     * Fitted testbed parameters (scenario key -> value), set over the manifests' declared
     * settings in every run; empty: the calibration file's "testbed" values, if any.
     */
    nlohmann::json testbedValues = nlohmann::json::object();
    /** --set key=value: set in every run, over the manifests' settings and fitted values. */
    std::vector<std::string> settings;
    /** --runs: simulate only the runs whose name matches (empty: every run). */
    std::string runsPattern;
    /** Where the runs go: here, `jobs` at a time, or one SLURM job array per batch. */
    BackendOptions run;
};

/** The point pool's options for a validation's runs (`label` prefixes the progress lines). */
inline PoolOptions
ValidationPool(const ValidationOptions& o, const std::string& label, double progressIntervalS = 0)
{
    PoolOptions pool;
    pool.jobs = o.jobs;
    pool.label = label;
    pool.progressIntervalS = progressIntervalS;
    pool.backend = o.run.backend;
    pool.slurm = o.run.slurm;
    return pool;
}

/** One simulated setting and the runs (one per seed) that measure it. */
struct PlannedPoint
{
    ValidatedPoint point;
    std::vector<std::string> runIds;
};

struct PlannedCdf
{
    ValidatedCdf cdf;
    std::string runId;
    double budgetS = 0; //!< simulated seconds the run may take
};

/** A run of a published ring-bandwidth measurement's setting (its hops binned). */
struct PlannedRing
{
    ValidatedRing ring;
    std::string runId;
};

struct ValidationPlan
{
    std::vector<PoolPoint> runs; //!< each run once, however many points share it
    std::vector<PlannedPoint> points;
    std::vector<PlannedCdf> cdfs;
    std::vector<PlannedRing> rings;
    int iterations = 8; //!< per run at most, warm-up included
    int warmup = 2;
    /** Per series, the manifest's "scenario" settings (declared testbed facts). */
    std::vector<std::pair<std::string, std::string>> testbedSettings;
    /** Fitted testbed parameters set over them in every run (key -> value). */
    nlohmann::json testbedValues = nlohmann::json::object();
    std::string testbedValuesFrom; //!< where they come from, for the report
};

/**
 * What the option parser cannot check: manifests and --out given, --models built in; fills
 * the mode's default seeds. Throws std::invalid_argument.
 */
void CompleteValidationOptions(ValidationOptions& options);

/**
 * Loads the calibration file (if any) and the manifests, and plans every run; congested
 * points (testbed mean at least 1.2 x the idle reference) get options.seeds seeds. Every
 * scenario is resolved here, so bad input throws (naming the file) before anything runs, as
 * does a plan with nothing to simulate.
 */
ValidationPlan PlanValidation(const ValidationOptions& options);

/** The plan's runs by their series (run-store.h's files): series -> run ids. */
std::map<std::string, std::vector<std::string>> RunsBySeries(const ValidationPlan& plan);

/**
 * Reduces a plan to the runs of the points `keep` accepts: its CDFs and ring bandwidths go,
 * and every run no kept point uses (the points stay, reported as not run).
 */
void KeepPointRuns(ValidationPlan& plan, const std::function<bool(const ValidatedPoint&)>& keep);

/**
 * --runs: the runs whose name (their folder in DIR/points) matches `pattern`, an ECMAScript
 * regular expression searched anywhere in the name, in the plan's order. Throws
 * std::invalid_argument when the pattern is not a regular expression or matches no run.
 */
std::vector<PoolPoint> RunsMatching(const std::vector<PoolPoint>& runs, const std::string& pattern);

} // namespace flumen

#endif
