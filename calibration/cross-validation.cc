#include "cross-validation.h"

#include "atomic-file.h"
#include "calibration-file.h"
#include "calibration-fit.h"
#include "calibration-plan.h"
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

// The series of the manifests with testbed points to validate (a CDF-only series is none),
// each with its configuration.
std::vector<std::pair<std::string, std::string>>
SeriesWithPoints(const ValidationOptions& o)
{
    std::vector<std::pair<std::string, std::string>> named;
    for (const auto& m : o.manifests)
    {
        Series s = LoadSeries(m);
        bool wanted = std::any_of(s.points.begin(), s.points.end(),
                                  [&](const SeriesPoint& p)
                                  { return o.models.empty() || o.models.count(p.model); });
        auto seen = std::find_if(named.begin(), named.end(),
                                 [&](const auto& n) { return n.first == s.name; });
        if (wanted && seen == named.end())
        {
            named.emplace_back(s.name, s.configuration);
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
    if (cv.parameters.empty() && !cv.split)
    {
        throw std::invalid_argument(
            "--cross-validate and --fit-on need --fit KEY=LO:HI (or --fit-split LO:HI)");
    }
    const auto named = SeriesWithPoints(o);
    std::vector<std::string> all;
    for (const auto& [name, configuration] : named)
    {
        all.push_back(name);
    }
    std::vector<SeriesSplit> splits;
    if (cv.fitOn.empty() && cv.foldBy == "configuration")
    {
        std::vector<std::string> configurations;
        for (const auto& [name, configuration] : named)
        {
            if (std::find(configurations.begin(), configurations.end(), configuration)
                == configurations.end())
            {
                configurations.push_back(configuration);
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
            for (const auto& [name, configuration] : named)
            {
                (configuration == held ? split.predicted : split.fitOn).push_back(name);
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
    std::vector<IdlePoint> tcp = LoadCalibrationPoints(o.manifests).tcpReferences;
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
            plan = PlanAt(at, predict, json::object(), false);
        }
        else
        {
            fold.name = name;
            fold.fit = FitOn(o, cv, fit, "fold " + name);
            plan = PlanAt(o, predict, fold.fit.values, false);
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

namespace
{

// --fit-split's folds.md and folds.csv: each model's share and compute time per fold.
void
WriteSplitFoldsReport(const std::string& dir, const CrossValidation& r,
                      const CrossValidationOptions& cv)
{
    const std::vector<std::string> header = { "model",
                                              "fold",
                                              "predicted",
                                              "fitted_on",
                                              "backward_share",
                                              "compute_s",
                                              "compute_jitter_cv",
                                              "idle_errors_pct",
                                              "loss_at_start",
                                              "loss_at_fit",
                                              "mean_rms_log_error_at_fit",
                                              "cross_rms_log_error_at_fit",
                                              "candidates",
                                              "tcp_host_ceiling_gbps" };
    std::vector<std::vector<std::string>> rows;
    std::string md = "# Each model's compute/communication split, fitted per fold\n\n";
    md += fmt::format(
        "Each fold fits every model's backward share (how much of its compute the ring can hide "
        "behind) on the loaded points of the series it is fitted on, searched over [{}, {}]; for "
        "each candidate share the compute time and its jitter are solved on the model's runs "
        "without cross traffic, so that the idle total stays the testbed's. The fold's profiles "
        "then predict the series left out (out of sample); its calibration file is "
        "folds/<fold>.calibration.json, with the hosts' TCP ceiling fitted again under them (on "
        "the TCP series' near-idle points, which are calibration points). The last rows fit on "
        "{} (in sample). Objective: weights mean {}, cross {}, p99 {} on the mean square of "
        "log(simulated / measured); a coordinate search on a {}-point grid, then {} rounds of "
        "half steps.\n\n",
        cv.splitRange.lo, cv.splitRange.hi,
        cv.fitOn.empty() ? "every series" : "the --fit-on series", cv.weights.mean,
        cv.weights.cross, cv.weights.p99, cv.search.gridPoints, cv.search.refineRounds);
    md += "| model | fold (predicted) | fitted on | backward share | compute s | idle runs error % "
          "| loss at start | loss at fit | mean rms % | cross rms % | candidates |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|\n";
    auto ceilingOf = [](const Fold& f)
    {
        json c = LoadCalibration(f.calibrationFile);
        return c.contains("transports") && c["transports"].contains("tcp") ? fmt::format(
                   "{:.3f}", c["transports"]["tcp"]["host_ceiling_gbps"].get<double>())
                                                                           : std::string();
    };
    std::vector<const Fold*> folds;
    for (const auto& f : r.folds)
    {
        folds.push_back(&f);
    }
    folds.push_back(&r.inSample);
    std::set<std::string> models;
    for (const Fold* f : folds)
    {
        for (const auto& m : f->split.models)
        {
            models.insert(m.model);
        }
    }
    for (const std::string& model : models)
    {
        for (const Fold* f : folds)
        {
            for (const auto& m : f->split.models)
            {
                if (m.model != model)
                {
                    continue;
                }
                std::string idle;
                for (const auto& [series, e] : m.idleErrors)
                {
                    idle += fmt::format("{}{:+.2f}", idle.empty() ? "" : " ", e);
                }
                const std::string predicted = f == &r.inSample
                                                  ? "in sample"
                                                  : fmt::format("{}", fmt::join(f->predicted, " "));
                const std::string on = fmt::format("{}", fmt::join(f->split.series, " "));
                const TestbedFit& t = m.fit;
                md += fmt::format(
                    "| {} | {} | {} | {:.4f} | {:.4f} | {} | {:.4f} | {:.4f} | {:.1f} | "
                    "{:.1f} | {} |\n",
                    model, predicted, on, m.backwardShare, m.computeS, idle, t.startTerms.loss,
                    t.bestTerms.loss, 100 * t.bestTerms.meanRms, 100 * t.bestTerms.crossRms,
                    t.search.evaluations.size());
                rows.push_back(
                    { model, f->name, predicted, on, fmt::format("{:.9g}", m.backwardShare),
                      fmt::format("{:.9g}", m.computeS), fmt::format("{:.9g}", m.jitterCv), idle,
                      fmt::format("{:.6g}", t.startTerms.loss),
                      fmt::format("{:.6g}", t.bestTerms.loss),
                      fmt::format("{:.6g}", t.bestTerms.meanRms),
                      fmt::format("{:.6g}", t.bestTerms.crossRms),
                      std::to_string(t.search.evaluations.size()), ceilingOf(*f) });
            }
        }
    }
    md += "\nThe hosts' TCP ceiling (job.tcp.host_ceiling_gbps) under each fold's profiles:";
    for (const Fold* f : folds)
    {
        const std::string c = ceilingOf(*f);
        md += fmt::format(" {} {};", f->name, c.empty() ? "none" : c + " Gbps");
    }
    md += "\n";
    if (r.folds.size() > 1)
    {
        md += "\nSpread of each model's fitted share across the folds (a share that swings between "
              "configurations is not a property of the model alone: the warning says the split "
              "stands in for a mechanism the model lacks):\n\n| model | min | max | share of the "
              "range searched | |\n|---|---|---|---|---|\n";
        for (const std::string& model : models)
        {
            double lo = 1e300, hi = -1e300;
            int n = 0;
            for (const auto& f : r.folds)
            {
                for (const auto& m : f.split.models)
                {
                    if (m.model == model)
                    {
                        lo = std::min(lo, m.backwardShare);
                        hi = std::max(hi, m.backwardShare);
                        ++n;
                    }
                }
            }
            if (n < 2)
            {
                md += fmt::format("| {} | {:.4f} | {:.4f} | - | fitted in one fold only |\n", model,
                                  lo, hi);
                continue;
            }
            const double share
                = DimensionPosition(cv.splitRange, hi) - DimensionPosition(cv.splitRange, lo);
            md += fmt::format("| {} | {:.4f} | {:.4f} | {:.0f} % | {} |\n", model, lo, hi,
                              100 * share, share > 0.25 ? "swings: a warning sign" : "stable");
        }
    }
    WriteFileAtomically((fs::path(dir) / "folds.csv").string(), FormatCsv(header, rows));
    WriteFileAtomically((fs::path(dir) / "folds.md").string(), md);
}

} // namespace

void
WriteFoldsReport(const std::string& dir, const CrossValidation& r, const CrossValidationOptions& cv)
{
    if (cv.split)
    {
        WriteSplitFoldsReport(dir, r, cv);
        return;
    }
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
        "(calibration/fit-search.h says why).\n\n",
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
