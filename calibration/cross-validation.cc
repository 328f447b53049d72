#include "cross-validation.h"

#include "atomic-file.h"
#include "calibration-file.h"
#include "calibration-fit.h"
#include "calibration-plan.h"
#include "point-pool.h"
#include "series-manifest.h"
#include "slurm-pool.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;
namespace fs = std::filesystem;

namespace
{

// A manifest's series as the folds see it: its configuration, and whether it has testbed points
// to fit on (a CDF-only series has none: it can only be predicted).
struct FoldedSeries
{
    std::string name;
    std::string configuration;
    bool points = false;
};

// The series of the manifests with points or CDFs of the models asked for, each once.
std::vector<FoldedSeries>
SeriesToFold(const ValidationOptions& o)
{
    std::vector<FoldedSeries> named;
    auto asked
        = [&o](const std::string& model) { return o.models.empty() || o.models.count(model); };
    for (const auto& m : o.manifests)
    {
        Series s = LoadSeries(m);
        const bool points = std::any_of(s.points.begin(), s.points.end(),
                                        [&](const SeriesPoint& p) { return asked(p.model); });
        const bool cdfs = std::any_of(s.cdfs.begin(), s.cdfs.end(),
                                      [&](const SeriesCdf& c) { return asked(c.model); });
        auto seen = std::find_if(named.begin(), named.end(),
                                 [&](const FoldedSeries& n) { return n.name == s.name; });
        if (seen != named.end())
        {
            seen->points = seen->points || points;
        }
        else if (points || cdfs)
        {
            named.push_back({ s.name, s.configuration, points });
        }
    }
    return named;
}

// The options of the fits: the fit engine where one is named.
ValidationOptions
FitOptionsOf(const ValidationOptions& o, const CrossValidationOptions& cv)
{
    ValidationOptions f = o;
    if (!cv.fitEngine.empty())
    {
        f.engine = cv.fitEngine;
    }
    return f;
}

// The plan of `series` with fitted `values` (without their CDF runs unless `cdfs`).
ValidationPlan
PlanAt(const ValidationOptions& o, const std::vector<std::string>& series, const json& values,
       bool cdfs)
{
    ValidationOptions at = o;
    at.series = std::set<std::string>(series.begin(), series.end());
    at.testbedValues = values;
    ValidationPlan plan = PlanValidation(at);
    if (!cdfs)
    {
        KeepPointRuns(plan, [](const ValidatedPoint&) { return true; });
    }
    return plan;
}

TestbedFit
FitOn(const ValidationOptions& o, const CrossValidationOptions& cv,
      const std::vector<std::string>& series, const std::string& label)
{
    TestbedFitRequest r;
    r.base = o;
    r.base.series = std::set<std::string>(series.begin(), series.end());
    r.parameters = cv.parameters;
    r.weights = cv.weights;
    r.search = cv.search;
    r.pointsDir = fs::path(o.out) / "points";
    r.label = label;
    return FitTestbed(r);
}

// Appends b's plan to a (points, CDFs, ring-bandwidth runs and runs, each run once).
void
Join(ValidationPlan& a, const ValidationPlan& b)
{
    std::set<std::string> ids;
    for (const auto& r : a.runs)
    {
        ids.insert(r.id);
    }
    for (const auto& r : b.runs)
    {
        if (ids.insert(r.id).second)
        {
            a.runs.push_back(r);
        }
    }
    a.points.insert(a.points.end(), b.points.begin(), b.points.end());
    a.cdfs.insert(a.cdfs.end(), b.cdfs.begin(), b.cdfs.end());
    a.rings.insert(a.rings.end(), b.rings.begin(), b.rings.end());
    a.iterations = b.iterations;
    a.warmup = b.warmup;
    for (const auto& s : b.testbedSettings)
    {
        if (std::find(a.testbedSettings.begin(), a.testbedSettings.end(), s)
            == a.testbedSettings.end())
        {
            a.testbedSettings.push_back(s);
        }
    }
}

} // namespace

std::vector<SeriesSplit>
SplitSeries(const ValidationOptions& o, const CrossValidationOptions& cv)
{
    if (cv.parameters.empty() && !cv.split)
    {
        throw std::invalid_argument(
            "--cross-validate and --fit-on need --fit KEY=LO:HI (or --fit-split LO:HI)");
    }
    const auto named = SeriesToFold(o);
    std::vector<std::string> all; // the series with points
    for (const auto& s : named)
    {
        if (s.points)
        {
            all.push_back(s.name);
        }
    }
    std::vector<SeriesSplit> splits;
    if (cv.fitOn.empty() && cv.foldBy == "configuration")
    {
        std::vector<std::string> configurations;
        for (const auto& s : named)
        {
            if (s.points
                && std::find(configurations.begin(), configurations.end(), s.configuration)
                       == configurations.end())
            {
                configurations.push_back(s.configuration);
            }
        }
        if (configurations.size() < 2)
        {
            throw std::invalid_argument("--folds configuration: leaving one configuration out "
                                        "needs series in two configurations or more");
        }
        for (const auto& held : configurations)
        {
            SeriesSplit split;
            split.name = "configuration " + held;
            // (A CDF-only series is predicted with its configuration's points, never fitted on.)
            for (const auto& s : named)
            {
                if (s.configuration == held)
                {
                    split.predicted.push_back(s.name);
                }
                else if (s.points)
                {
                    split.fitOn.push_back(s.name);
                }
            }
            splits.push_back(split);
        }
    }
    else if (cv.fitOn.empty())
    {
        if (all.size() < 2)
        {
            throw std::invalid_argument("--cross-validate: leaving one series out needs two "
                                        "series with testbed points or more");
        }
        for (const auto& held : all)
        {
            std::vector<std::string> rest;
            std::copy_if(all.begin(), all.end(), std::back_inserter(rest),
                         [&](const std::string& s) { return s != held; });
            splits.push_back({ rest, { held }, held });
        }
    }
    else
    {
        std::vector<std::string> fit, predict;
        for (const auto& s : all)
        {
            (cv.fitOn.count(s) ? fit : predict).push_back(s);
        }
        for (const auto& s : cv.fitOn)
        {
            if (std::find(all.begin(), all.end(), s) == all.end())
            {
                throw std::invalid_argument(
                    fmt::format("--fit-on: series '{}' has no testbed points in the manifests "
                                "given (their series: {})",
                                s, fmt::join(all, ", ")));
            }
        }
        if (predict.empty())
        {
            throw std::invalid_argument("--fit-on: every series is fitted on; none is left to "
                                        "predict");
        }
        splits.push_back({ fit, predict, fmt::format("{}", fmt::join(predict, "+")) });
    }
    // Every plan once before anything runs: bad input fails here.
    for (const auto& [fit, predict, name] : splits)
    {
        PlanAt(o, fit, json::object(), false);
        PlanAt(o, predict, json::object(), false);
    }
    return splits;
}

namespace
{

// A batch's runs; SLURM cutting some short stops the cross-validation (the next run retries).
double
RunBatch(const std::vector<PoolPoint>& runs, const fs::path& dir, const PoolOptions& pool)
{
    PoolResult ran = RunPointPool(runs, dir, pool);
    StopIfCutShort(ran, pool.label);
    return ran.wallSeconds;
}

} // namespace

namespace
{

// --fit-split: each model's split fitted on `series`, its profiles written as a calibration file
// (with the hosts' TCP ceiling fitted again under them where the manifests have TCP references).
Fold
FitSplitOn(const ValidationOptions& o, const CrossValidationOptions& cv,
           const std::vector<std::string>& fitOn, const std::string& name)
{
    std::vector<std::string> series;
    for (const auto& m : o.manifests)
    {
        const Series s = LoadSeries(m);
        if (std::find(fitOn.begin(), fitOn.end(), s.name) != fitOn.end()
            && (cv.fitTransport.empty() || s.transport == cv.fitTransport))
        {
            series.push_back(s.name);
        }
    }
    if (series.empty())
    {
        throw std::invalid_argument(
            fmt::format("fold {}: no {}series to fit on among {}", name,
                        cv.fitTransport.empty() ? "" : cv.fitTransport + " ",
                        fmt::format("{}", fmt::join(fitOn, ", "))));
    }
    SplitFitRequest r;
    r.base = FitOptionsOf(o, cv);
    r.base.series = std::set<std::string>(series.begin(), series.end());
    r.share = cv.splitRange;
    r.weights = cv.weights;
    r.search = cv.search;
    r.pointsDir = fs::path(o.out) / "points";
    r.label = name;
    Fold fold;
    fold.name = name;
    fold.split = FitSplits(r);
    json base = o.calibrationFile.empty() ? json() : LoadCalibration(o.calibrationFile);
    json calibration = SplitCalibration(base, fold.split, r);
    calibration["written_by"] = "flumen validate --fit-split";
    calibration["engine"] = r.base.engine;
    calibration["fitted_on"] = series;
    std::vector<IdlePoint> tcp = LoadCalibrationPoints(o.manifests, o.settings).tcpReferences;
    if (!tcp.empty())
    {
        for (auto& p : tcp)
        {
            p.testbedSettings["simulation"]["engine"] = r.base.engine;
        }
        std::cerr << fmt::format("{}: the hosts' TCP ceiling under these profiles\n", name);
        calibration["transports"]["tcp"]
            = FitHostCeiling(tcp, calibration["models"], r.idleIterations, o.jobs);
    }
    const fs::path dir = fs::path(o.out) / "folds";
    fs::create_directories(dir);
    std::string file = name;
    std::replace(file.begin(), file.end(), ' ', '-');
    fold.calibrationFile = (dir / (file + ".calibration.json")).string();
    WriteFileAtomically(fold.calibrationFile, calibration.dump(2) + "\n");
    fold.fit.series = fold.split.series;
    fold.fit.coreSeconds = fold.split.coreSeconds;
    return fold;
}

} // namespace

CrossValidation
RunCrossValidation(const ValidationOptions& o, const CrossValidationOptions& cv,
                   const std::vector<SeriesSplit>& splits)
{
    CrossValidation out;
    const fs::path pointsDir = fs::path(o.out) / "points";
    PoolOptions pool = ValidationPool(o, "", 10);
    for (const auto& split : splits)
    {
        const auto& [fit, predict, name] = split;
        std::cerr << fmt::format("validate: fold {}: fitting on {}\n", name, fmt::join(fit, ", "));
        Fold fold;
        ValidationPlan plan;
        if (cv.split)
        {
            fold = FitSplitOn(o, cv, fit, name);
            ValidationOptions at = o;
            at.calibrationFile = fold.calibrationFile;
            plan = PlanAt(at, predict, json::object(), true);
        }
        else
        {
            fold.name = name;
            fold.fit = FitOn(o, cv, fit, "fold " + name);
            plan = PlanAt(o, predict, fold.fit.values, true);
        }
        fold.predicted = predict;
        out.coreSecondsNow += fold.fit.coreSeconds;
        pool.label = "predict " + name;
        out.coreSecondsNow += RunBatch(plan.runs, pointsDir, pool);
        Join(out.outOfSamplePlan, plan);
        out.folds.push_back(std::move(fold));
    }
    out.outOfSample = CollateValidation(out.outOfSamplePlan, pointsDir);

    // In sample: every series, with the fit's engine.
    const ValidationOptions fitOptions = FitOptionsOf(o, cv);
    std::vector<std::string> every = splits.front().predicted;
    every.insert(every.end(), splits.front().fitOn.begin(), splits.front().fitOn.end());
    if (cv.split)
    {
        const std::vector<std::string> on = cv.fitOn.empty() ? every : splits.front().fitOn;
        std::cerr << "validate: in sample: fitting on " << fmt::format("{}", fmt::join(on, ", "))
                  << "\n";
        out.inSample = FitSplitOn(o, cv, on, "in sample");
        ValidationOptions at = fitOptions;
        at.calibrationFile = out.inSample.calibrationFile;
        out.inSamplePlan
            = cv.fitOn.empty() ? PlanValidation(at) : PlanAt(at, on, json::object(), true);
    }
    else if (cv.fitOn.empty())
    {
        std::cerr << "validate: in sample: fitting on every series\n";
        out.inSample.fit = FitOn(o, cv, every, "in sample");
        out.inSamplePlan = PlanValidation(
            [&]
            {
                ValidationOptions at = fitOptions;
                at.testbedValues = out.inSample.fit.values;
                return at;
            }());
    }
    else
    {
        out.inSample.fit = out.folds.front().fit;
        out.inSamplePlan = PlanAt(fitOptions, splits.front().fitOn, out.inSample.fit.values, true);
    }
    out.inSample.name = "in sample";
    out.coreSecondsNow += out.inSample.fit.coreSeconds;
    pool.label = "in sample";
    out.coreSecondsNow += RunBatch(out.inSamplePlan.runs, pointsDir, pool);
    out.inSamplePoints = CollateValidation(out.inSamplePlan, pointsDir);
    return out;
}

} // namespace flumen
