// The cross-validation's reports: report.md out of sample and in-sample/report.md (the
// validation's report with a note on what was fitted where), and folds.md and folds.csv: each
// fold's fitted testbed values (or, with --fit-split, each model's fitted compute/communication
// split), its losses, and their spread across the folds.
#include "cross-validation.h"

#include "atomic-file.h"
#include "calibration-file.h"
#include "csv-format.h"
#include "fit-search.h"
#include "validation-report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace flumen
{

using nlohmann::json;
namespace fs = std::filesystem;

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

std::string
DescribeFold(const Fold& fold, const CrossValidationOptions& cv)
{
    if (!cv.split)
    {
        return DescribeValues(fold.fit.values);
    }
    std::string shares;
    for (const auto& m : fold.split.models)
    {
        shares += fmt::format("{}{} share {:.3f} compute {:.4f} s", shares.empty() ? "" : ", ",
                              m.model, m.backwardShare, m.computeS);
    }
    return fmt::format("{} ({})", shares, fold.calibrationFile);
}

void
WriteCrossValidationReports(const ValidationOptions& o, const CrossValidationOptions& cv,
                            const CrossValidation& r, const std::string& command)
{
    const std::string names = !cv.fitOn.empty()              ? "the --fit-on series"
                              : cv.foldBy == "configuration" ? "the other configuration"
                                                             : "the other series";
    std::string values;
    for (const auto& fold : r.folds)
    {
        values += fmt::format("{}{}: {}", values.empty() ? "" : "; ",
                              fmt::format("{}", fmt::join(fold.predicted, "+")),
                              DescribeFold(fold, cv));
    }
    ValidationMeta meta = MetaOf(o, r.outOfSamplePlan, r.outOfSample, command, r.coreSecondsNow);
    if (cv.split)
    {
        meta.calibration = "each fold's calibration file (folds/<fold>.calibration.json: every "
                           "model's split fitted on the other series, its compute time held by the "
                           "idle runs; the models it does not fit from "
                           + o.calibrationFile + ")";
    }
    meta.fitNote = fmt::format(
        "**Out of sample.** Every point below is predicted with {} fitted on {} "
        "only, never on its own series (per predicted series: {}; folds.md gives each fold's fit "
        "and their spread). In-sample errors (parameters fitted on the points judged) are in "
        "in-sample/report.md, apart{}. {}",
        cv.split ? "each model's compute/communication split (backward share, and the compute "
                   "time that keeps its idle runs)"
                 : "testbed parameters",
        names, values,
        cv.fitEngine.empty() || cv.fitEngine == o.engine
            ? std::string()
            : fmt::format(" (fits and in-sample runs with the {} engine, the predictions with "
                          "the {} engine)",
                          cv.fitEngine, o.engine),
        !cv.fitOn.empty()
            ? "The ring's own bandwidth and the CDFs of a predicted series are predicted with "
              "it; a series of CDFs alone is not run."
        : cv.foldBy == "configuration"
            ? "The per-iteration CDFs and the ring's own bandwidth below are predicted the same "
              "way, each by the fold that leaves its configuration out."
            : "The ring's own bandwidth and the CDFs of a series with points are predicted by "
              "its fold; a series of CDFs alone is in in-sample/report.md only.");
    ValidationMeta inMeta = MetaOf(o, r.inSamplePlan, r.inSamplePoints, command, r.coreSecondsNow);
    inMeta.fitNote = fmt::format(
        "**In sample: every point here is judged by parameters fitted on it** ({}: {}). The "
        "out-of-sample errors, the headline, are in ../report.md.",
        cv.fitOn.empty() ? "fitted on every series" : "fitted on the --fit-on series",
        DescribeFold(r.inSample, cv));
    WriteValidationReport(o.out, r.outOfSample.points, r.outOfSample.cdfs, meta,
                          r.outOfSample.rings);
    WriteValidationReport((fs::path(o.out) / "in-sample").string(), r.inSamplePoints.points,
                          r.inSamplePoints.cdfs, inMeta, r.inSamplePoints.rings);
    WriteFoldsReport(o.out, r, cv);
}

} // namespace flumen
