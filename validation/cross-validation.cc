#include "cross-validation.h"

#include "atomic-file.h"
#include "csv-format.h"
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

// The series of the manifests with testbed points to validate (a CDF-only series is none).
std::vector<std::string>
SeriesWithPoints(const ValidationOptions& o)
{
    std::vector<std::string> names;
    for (const auto& m : o.manifests)
    {
        Series s = LoadSeries(m);
        bool wanted = std::any_of(s.points.begin(), s.points.end(),
                                  [&](const SeriesPoint& p)
                                  { return o.models.empty() || o.models.count(p.model); });
        if (wanted && std::find(names.begin(), names.end(), s.name) == names.end())
        {
            names.push_back(s.name);
        }
    }
    return names;
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

// Appends b's plan to a (points, CDFs and runs, each run once).
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
    if (cv.parameters.empty())
    {
        throw std::invalid_argument("--cross-validate and --fit-on need --fit KEY=LO:HI");
    }
    const std::vector<std::string> all = SeriesWithPoints(o);
    std::vector<SeriesSplit> splits;
    if (cv.fitOn.empty())
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
            splits.push_back({ rest, { held } });
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
        splits.push_back({ fit, predict });
    }
    // Every plan once before anything runs: bad input fails here.
    for (const auto& [fit, predict] : splits)
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

CrossValidation
RunCrossValidation(const ValidationOptions& o, const CrossValidationOptions& cv,
                   const std::vector<SeriesSplit>& splits)
{
    CrossValidation out;
    const fs::path pointsDir = fs::path(o.out) / "points";
    PoolOptions pool = ValidationPool(o, "", 10);
    for (const auto& [fit, predict] : splits)
    {
        Fold fold;
        fold.predicted = predict;
        const std::string name = fmt::format("{}", fmt::join(predict, "+"));
        std::cerr << fmt::format("validate: fold {}: fitting on {}\n", name, fmt::join(fit, ", "));
        fold.fit = FitOn(o, cv, fit, "fold " + name);
        out.coreSecondsNow += fold.fit.coreSeconds;
        ValidationPlan plan = PlanAt(o, predict, fold.fit.values, false);
        pool.label = "predict " + name;
        out.coreSecondsNow += RunBatch(plan.runs, pointsDir, pool);
        Join(out.outOfSamplePlan, plan);
        out.folds.push_back(std::move(fold));
    }
    out.outOfSample = CollateValidation(out.outOfSamplePlan, pointsDir);

    if (cv.fitOn.empty())
    {
        std::cerr << "validate: in sample: fitting on every series\n";
        // Every series: the first fold's fitted and predicted ones together.
        std::vector<std::string> all = splits.front().predicted;
        all.insert(all.end(), splits.front().fitOn.begin(), splits.front().fitOn.end());
        out.inSample.fit = FitOn(o, cv, all, "in sample");
        out.coreSecondsNow += out.inSample.fit.coreSeconds;
        out.inSamplePlan = PlanValidation(
            [&]
            {
                ValidationOptions at = o;
                at.testbedValues = out.inSample.fit.values;
                return at;
            }());
    }
    else
    {
        out.inSample.fit = out.folds.front().fit;
        out.inSamplePlan = PlanAt(o, splits.front().fitOn, out.inSample.fit.values, true);
    }
    pool.label = "in sample";
    out.coreSecondsNow += RunBatch(out.inSamplePlan.runs, pointsDir, pool);
    out.inSamplePoints = CollateValidation(out.inSamplePlan, pointsDir);
    return out;
}

void
WriteFoldsReport(const std::string& dir, const CrossValidation& r, const CrossValidationOptions& cv)
{
    std::vector<std::string> header = { "fold", "predicted", "fitted_on" };
    for (const auto& p : cv.parameters)
    {
        header.push_back(p.key);
    }
    for (const char* h : { "loss_at_start", "loss_at_fit", "mean_rms_log_error_at_fit",
                           "cross_rms_log_error_at_fit", "candidates" })
    {
        header.push_back(h);
    }
    std::vector<std::vector<std::string>> rows;
    std::string md = "# Testbed parameters fitted per fold\n\n";
    md += fmt::format(
        "Each fold fits the parameters on the other series' loaded points and predicts its own "
        "series with them (out of sample); the last row fits on {} (in sample). Objective: "
        "weights mean {}, cross {}, p99 {} on the mean square of log(simulated / measured). "
        "Method: a coordinate search on a {}-point grid per key, then {} rounds of half steps "
        "(validation/fit-search.h says why).\n\n",
        cv.fitOn.empty() ? "every series" : "the --fit-on series", cv.weights.mean,
        cv.weights.cross, cv.weights.p99, cv.search.gridPoints, cv.search.refineRounds);
    md += "| fold (predicted) | fitted on |";
    for (const auto& p : cv.parameters)
    {
        md += fmt::format(" {} [{}, {}] |", p.key, p.range.lo, p.range.hi);
    }
    md += " loss at start | loss at fit | mean rms % | cross rms % | candidates |\n|---|---|";
    for (size_t k = 0; k < cv.parameters.size() + 5; ++k)
    {
        md += "---|";
    }
    md += "\n";
    auto row = [&](const std::string& name, const Fold& f)
    {
        const TestbedFit& t = f.fit;
        std::string on = fmt::format("{}", fmt::join(t.series, " "));
        std::vector<std::string> cells
            = { name, fmt::format("{}", fmt::join(f.predicted, " ")), on };
        md += fmt::format("| {} | {} |", name, on);
        for (const auto& p : cv.parameters)
        {
            double v = t.values[p.key].get<double>();
            cells.push_back(fmt::format("{:.9g}", v));
            md += fmt::format(" {:.6g} |", v);
        }
        for (double x :
             { t.startTerms.loss, t.bestTerms.loss, t.bestTerms.meanRms, t.bestTerms.crossRms })
        {
            cells.push_back(fmt::format("{:.6g}", x));
        }
        cells.push_back(std::to_string(t.search.evaluations.size()));
        rows.push_back(cells);
        md += fmt::format(" {:.4f} | {:.4f} | {:.1f} | {:.1f} | {} |\n", t.startTerms.loss,
                          t.bestTerms.loss, 100 * t.bestTerms.meanRms, 100 * t.bestTerms.crossRms,
                          t.search.evaluations.size());
    };
    for (const auto& f : r.folds)
    {
        row(fmt::format("{}", fmt::join(f.predicted, "+")), f);
    }
    row("in sample", r.inSample);
    if (r.folds.size() > 1)
    {
        md += "\nSpread of each value across the folds (a physical constant whose value swings "
              "between folds is poorly identified by the data, or stands in for a mechanism the "
              "model lacks):\n\n| key | min | max | max / min | share of the range searched | "
              "|\n|---|---|---|---|---|---|\n";
        for (const auto& p : cv.parameters)
        {
            double lo = 1e300, hi = -1e300;
            for (const auto& f : r.folds)
            {
                double v = f.fit.values[p.key].get<double>();
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            double share = DimensionPosition(p.range, hi) - DimensionPosition(p.range, lo);
            md += fmt::format("| {} | {:.6g} | {:.6g} | {} | {:.0f} % | {} |\n", p.key, lo, hi,
                              lo > 0 ? fmt::format("{:.2f}", hi / lo) : std::string("-"),
                              100 * share, share > 0.25 ? "swings: a warning sign" : "stable");
        }
    }
    WriteFileAtomically((fs::path(dir) / "folds.csv").string(), FormatCsv(header, rows));
    WriteFileAtomically((fs::path(dir) / "folds.md").string(), md);
}

} // namespace flumen
