#include "validation-report.h"

#include "atomic-file.h"
#include "csv-format.h"
#include "series-summary.h"
#include "summary-statistics.h"
#include "validation-plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

namespace flumen
{

namespace fs = std::filesystem;

namespace
{

// points.csv: one row per testbed point (and simulated-only idle reference).
std::string
PointsCsv(const std::vector<ValidatedPoint>& points)
{
    const std::vector<std::string> pointsHeader{ "series",
                                                 "model",
                                                 "transport",
                                                 "configuration",
                                                 "traffic",
                                                 "index",
                                                 "requested_gbps",
                                                 "offered_gbps",
                                                 "testbed_measured_gbps",
                                                 "simulated_achieved_gbps",
                                                 "achieved_error_pct",
                                                 "testbed_mean_s",
                                                 "testbed_p99_s",
                                                 "simulated_mean_s",
                                                 "simulated_p99_s",
                                                 "simulated_mean_lower_bound_s",
                                                 "mean_error_pct",
                                                 "mean_error_lower_bound_pct",
                                                 "censored_completed_mean_s",
                                                 "censored_completed_iterations",
                                                 "censored_completed_error_pct",
                                                 "p99_error_pct",
                                                 "exposed_baseline_s",
                                                 "exposed_error_pct",
                                                 "hidden_baseline_s",
                                                 "hidden_error_pct",
                                                 "testbed_wire_share",
                                                 "idle",
                                                 "congested",
                                                 "used_for_calibration",
                                                 "iterations",
                                                 "seeds",
                                                 "status",
                                                 "testbed_source" };
    std::vector<std::vector<std::string>> pointsRows;
    for (const auto& p : points)
    {
        pointsRows.push_back(std::vector<std::string>(
            { p.series,
              p.model,
              p.transport,
              p.configuration,
              p.traffic,
              std::isnan(p.index) ? std::string() : fmt::format("{:g}", p.index),
              NumberText(p.requestedGbps, 3),
              NumberText(p.offeredGbps, 3),
              NumberText(p.measuredGbps, 3),
              NumberText(p.simAchievedGbps, 3),
              NumberText(p.measuredGbps > 0 ? PercentError(p.simAchievedGbps, p.measuredGbps)
                                            : kUnknown,
                         2),
              NumberText(p.testbedMeanS),
              NumberText(p.testbedP99S),
              NumberText(p.simMeanS),
              NumberText(p.simP99S),
              NumberText(p.simMeanLowerBoundS),
              NumberText(PercentError(p.simMeanS, p.testbedMeanS), 2),
              NumberText(PercentError(p.simMeanLowerBoundS, p.testbedMeanS), 2),
              NumberText(p.censoredCompletedMeanS),
              CompletedIterations(p),
              NumberText(PercentError(p.censoredCompletedMeanS, p.testbedMeanS), 2),
              NumberText(PercentError(p.simP99S, p.testbedP99S), 2),
              NumberText(p.exposedS),
              NumberText(PercentError(p.exposedS, p.testbedMeanS), 2),
              NumberText(p.hiddenS),
              NumberText(PercentError(p.hiddenS, p.testbedMeanS), 2),
              NumberText(p.testbedWireShare, 4),
              p.idle ? "1" : "0",
              p.congested ? "1" : "0",
              p.calibration ? "1" : "0",
              fmt::format("{} ({} warm-up)", p.iterations, p.warmup),
              fmt::format("{}/{}", p.seeds, p.seedsPlanned),
              p.status,
              p.testbed ? p.source : "simulation only (no testbed idle run)" }));
    }

    return FormatCsv(pointsHeader, pointsRows);
}

// series.csv: one row per series and model, every figure of the headline and the targets met.
std::string
SeriesCsv(const std::vector<SeriesSummary>& summaries)
{
    const std::vector<std::string> seriesHeader{ "series",
                                                 "model",
                                                 "transport",
                                                 "configuration",
                                                 "traffic",
                                                 "validation_points",
                                                 "congested_points",
                                                 "points_missing",
                                                 "points_censored",
                                                 "censored_above_testbed",
                                                 "median_abs_mean_error_pct",
                                                 "mean_abs_mean_error_pct",
                                                 "median_abs_congested_error_pct",
                                                 "median_abs_p99_error_pct",
                                                 "mean_abs_p99_error_pct",
                                                 "median_abs_exposed_baseline_error_pct",
                                                 "median_abs_hidden_baseline_error_pct",
                                                 "median_abs_achieved_rate_error_pct",
                                                 "testbed_congestion_gbps",
                                                 "testbed_congestion_s",
                                                 "simulated_congestion_gbps",
                                                 "simulated_congestion_s",
                                                 "testbed_fit_a",
                                                 "testbed_fit_b",
                                                 "testbed_fit_c",
                                                 "testbed_fit_n",
                                                 "testbed_fit_r2",
                                                 "simulated_fit_a",
                                                 "simulated_fit_b",
                                                 "simulated_fit_c",
                                                 "simulated_fit_n",
                                                 "simulated_fit_r2",
                                                 "mean_target_met",
                                                 "congested_target_met",
                                                 "beats_baselines",
                                                 "p99_target_met",
                                                 "congestion_point_met",
                                                 "achieved_rate_met" };
    std::vector<std::vector<std::string>> seriesRows;
    for (const auto& s : summaries)
    {
        // Target columns: 1 met, 0 missed, empty when the series is not judged.
        auto yn = [&s](bool b) { return s.Judged() ? std::string(b ? "1" : "0") : std::string(); };
        seriesRows.push_back(std::vector<std::string>({ s.series,
                                                        s.model,
                                                        s.transport,
                                                        s.configuration,
                                                        s.traffic,
                                                        std::to_string(s.validationPoints),
                                                        std::to_string(s.congestedPoints),
                                                        std::to_string(s.missing),
                                                        std::to_string(s.censored),
                                                        std::to_string(s.censoredOver),
                                                        NumberText(s.medianMean, 2),
                                                        NumberText(s.meanMean, 2),
                                                        NumberText(s.medianCongested, 2),
                                                        NumberText(s.medianP99, 2),
                                                        NumberText(s.meanP99, 2),
                                                        NumberText(s.medianExposed, 2),
                                                        NumberText(s.medianHidden, 2),
                                                        NumberText(s.medianAchieved, 2),
                                                        NumberText(s.testbedKnee.x, 3),
                                                        NumberText(s.testbedKnee.t),
                                                        NumberText(s.simKnee.x, 3),
                                                        NumberText(s.simKnee.t),
                                                        NumberText(s.testbedFit.a, 6),
                                                        NumberText(s.testbedFit.b, 6),
                                                        NumberText(s.testbedFit.c, 6),
                                                        NumberText(s.testbedFit.n, 6),
                                                        NumberText(s.testbedFit.r2, 4),
                                                        NumberText(s.simFit.a, 6),
                                                        NumberText(s.simFit.b, 6),
                                                        NumberText(s.simFit.c, 6),
                                                        NumberText(s.simFit.n, 6),
                                                        NumberText(s.simFit.r2, 4),
                                                        yn(s.MeanOk()),
                                                        yn(s.CongestedOk()),
                                                        yn(s.BeatsBaselines()),
                                                        yn(s.P99Ok()),
                                                        yn(s.KneeOk()),
                                                        yn(s.AchievedOk()) }));
    }

    return FormatCsv(seriesHeader, seriesRows);
}

// cdfs.csv: one row per per-iteration CDF, with its Kolmogorov-Smirnov distance.
std::string
CdfsCsv(const std::vector<ValidatedCdf>& cdfs)
{
    const std::vector<std::string> cdfsHeader{ "model",
                                               "transport",
                                               "configuration",
                                               "requested_gbps",
                                               "file",
                                               "testbed_iterations_median_s",
                                               "testbed_iterations",
                                               "simulated_iterations",
                                               "simulated_median_s",
                                               "ks_distance",
                                               "ks_critical_5pct",
                                               "status" };
    std::vector<std::vector<std::string>> cdfsRows;
    for (const auto& c : cdfs)
    {
        double measuredMedian = kUnknown;
        for (const auto& p : c.measured)
        {
            if (p.fraction >= 0.5)
            {
                measuredMedian = p.seconds;
                break;
            }
        }
        std::vector<double> s = c.simulated;
        std::sort(s.begin(), s.end());
        cdfsRows.push_back(std::vector<std::string>(
            { c.model, c.transport, c.configuration, NumberText(c.requestedGbps, 1), c.file,
              NumberText(measuredMedian), std::to_string(c.measured.size()),
              std::to_string(c.simulatedIterations), s.empty() ? "" : NumberText(Percentile(s, 50)),
              NumberText(c.ks, 3), NumberText(c.ksCritical, 3), c.status }));
    }
    return FormatCsv(cdfsHeader, cdfsRows);
}

// The injection rate of the simulated hop from `from` (or into `to`), NaN when not simulated.
double
HopRate(const ValidatedRing& r, const std::string& from, const std::string& to)
{
    for (const auto& h : r.hops)
    {
        if ((!from.empty() && h.from == from) || (!to.empty() && h.to == to))
        {
            return h.injectionGbps;
        }
    }
    return kUnknown;
}

// ring-bandwidth.csv: one row per published ring-bandwidth measurement.
std::string
RingsCsv(const std::vector<ValidatedRing>& rings)
{
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : rings)
    {
        rows.push_back({ r.series, r.published.model, NumberText(r.published.requestedGbps, 3),
                         NumberText(r.published.dlOnlyGbps, 3), NumberText(HopRate(r, "S1", ""), 4),
                         NumberText(r.published.dlSharedGbps, 3),
                         NumberText(HopRate(r, "S0", ""), 4), NumberText(HopRate(r, "", "S0"), 4),
                         NumberText(r.simMeanS, 6), r.status, r.published.source });
    }
    return FormatCsv({ "series", "model", "requested_gbps", "published_dl_only_gbps",
                       "simulated_s1_to_s3_injection_gbps", "published_dl_shared_gbps",
                       "simulated_s0_to_s1_injection_gbps", "simulated_s3_to_s0_injection_gbps",
                       "simulated_mean_s", "status", "source" },
                     rows);
}

// report.md: the headline tables, then the detail, then the plots (or why there are none).
// The points whose measured traffic needs more than the shared port's wire in the runs' frames.
std::string
BeyondTheWireParagraph(const std::vector<ValidatedPoint>& points)
{
    std::vector<const ValidatedPoint*> beyond;
    for (const auto& p : points)
    {
        if (p.testbedWireShare > 1)
        {
            beyond.push_back(&p);
        }
    }
    std::string md = fmt::format(
        "The wire: `testbed_wire_share` (points.csv) is the share of the shared port's rate "
        "(its line rate; in B the host's receive rate where the runs declare one) that the "
        "testbed's own measured traffic needs in the runs' frames: the measured "
        "cross traffic in TCP frames and the ring's hop through that port (a worker's ring bytes "
        "over the testbed's mean iteration) in the job's frames, ACKs left out. {} of {} "
        "points are beyond 1: no simulation of these frames and this port can carry what the "
        "testbed measured there, and its error is a floor, not a mechanism missed.",
        beyond.size(), points.size());
    if (!beyond.empty())
    {
        std::sort(beyond.begin(), beyond.end(),
                  [](auto* a, auto* b) { return a->testbedWireShare > b->testbedWireShare; });
        md += " Largest first:";
        for (const ValidatedPoint* p : beyond)
        {
            md += fmt::format(" {} {} at {} Gbps {:.3f};", p->series, p->model,
                              NumberText(p->measuredGbps, 3), p->testbedWireShare);
        }
        md.back() = '.';
    }
    return md + "\n\n";
}

std::string
ReportMarkdown(const std::vector<ValidatedPoint>& points, const std::vector<ValidatedCdf>& cdfs,
               const std::vector<SeriesSummary>& summaries, const ValidationMeta& meta,
               const std::vector<std::string>& pngs, const std::string& plotProblem,
               const std::vector<ValidatedRing>& rings)
{
    std::string md = "# flumen validation report\n\n";
    // Both times are sums of the runs' own wall times (one core each), not the command's
    // elapsed time, which depends on --jobs.
    md += fmt::format("Command: `{}`{}. Simulation runs finished: {} of {}; their own wall "
                      "times add up to {:.2f} core-hours (one core per run, this or earlier "
                      "invocations), {:.0f} s of it in runs of this invocation.\n\n",
                      meta.command, meta.quick ? " (quick: a ResNet-50 subset)" : "", meta.runsDone,
                      meta.runsPlanned, meta.coreSeconds / 3600.0, meta.coreSecondsNow);
    md += fmt::format(
        "Compute profiles: {}. They come from the runs without cross traffic only. Fitted "
        "beyond those runs, and declared here: the hosts' TCP ceiling "
        "(`job.tcp.host_ceiling_gbps`), fitted to each TCP series' lowest-load point (at most "
        "2.5 Gbps), since the TCP series has no run without cross traffic. All these points are "
        "marked `used_for_calibration` in points.csv and left out of every error below. Each "
        "point ran up to {} iterations ({} warm-up left out) per seed: as many as fit in the "
        "simulated-time budget at the testbed's pace, at least 3 (then 1 warm-up); points.csv "
        "gives each point's count. The simulation offers the "
        "testbed's requested load where the testbed recorded it (TCP series) and its measured "
        "load otherwise (the RDMA series record only what was measured). The simulated curve is "
        "drawn against the simulated achieved rate, the testbed's against its measured rate.\n\n",
        meta.calibration, meta.iterations, meta.warmup);
    if (!meta.testbedSettings.empty())
    {
        md += "Testbed settings declared by the manifests (facts about the testbed, not fitted), "
              "merged into every simulated run of the series, calibration included:\n\n";
        for (const auto& [series, settings] : meta.testbedSettings)
        {
            md += fmt::format("- {}: `{}`\n", series, settings);
        }
        md += "\n";
    }
    if (!meta.commandSettings.empty())
    {
        md += fmt::format("Set on the command line (`--set`) in every run, over the manifests' "
                          "settings and any fitted values: `{}`. Not part of the shipped "
                          "validation.\n\n",
                          fmt::join(meta.commandSettings, "`, `"));
    }
    if (!meta.fitNote.empty())
    {
        md += meta.fitNote + "\n\n";
    }
    md += "Targets (per series and model): median |error| of the mean iteration time at most "
          "10 % over the validation points and at most 15 % over the congested ones (testbed "
          "mean at least 1.2 x its idle mean), below both closed-form baselines, p99 within 25 %, "
          "congestion point within 1 Gbps, achieved cross-traffic rate within 5 %.\n\n";
    md += "## Headline\n\n| series | model | points | median abs err mean % | mean abs err % | "
          "congested: n, median abs err % | p99 median abs err % | baseline exposed % | "
          "baseline hidden % | achieved rate err % | congestion point testbed | simulated | "
          "targets met |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& s : summaries)
    {
        md += fmt::format("| {} | {} | {}{} | {} | {} | {}, {} | {} | {} | {} | {} | {} | {} | {} "
                          "|\n",
                          s.series, s.model, s.validationPoints,
                          (s.missing ? fmt::format(" ({} not simulated)", s.missing) : "")
                              + (s.censored ? fmt::format(" (+{} censored, {} of them above the "
                                                          "testbed)",
                                                          s.censored, s.censoredOver)
                                            : ""),
                          NumberText(s.medianMean, 1), NumberText(s.meanMean, 1), s.congestedPoints,
                          NumberText(s.medianCongested, 1), NumberText(s.medianP99, 1),
                          NumberText(s.medianExposed, 1), NumberText(s.medianHidden, 1),
                          NumberText(s.medianAchieved, 1), KneeText(s.testbedKnee),
                          KneeText(s.simKnee), s.Verdict());
    }
    if (meta.maxSimS > 0)
    {
        md += fmt::format(
            "\nCensored points: each run may simulate at most {} s (`--max-sim-s`){}. A run that "
            "reaches it before its iterations finish gives only a lower bound on the mean "
            "iteration time (iterations run back to back: at least the time since the rank's "
            "first measured iteration over the measured iterations; a run cut before any "
            "measured iteration began: the time since its start over all its iterations, warm-up "
            "included, and its achieved cross-traffic rate is then measured over the whole run, "
            "or left empty for runs of versions before 2026-11-25). Such points are listed in "
            "points.csv with `simulated_mean_lower_bound_s` and left out of every median; where "
            "the bound already exceeds the testbed's mean, the simulation is certainly too "
            "slow there, and the headline counts them.\n",
            meta.maxSimS,
            meta.budgetIterations > 0
                ? fmt::format(", or {}.5 iterations at the testbed's fastest mean for the model "
                              "in that series where that is longer (a CDF run: at its own mean; "
                              "`--budget-iterations`), so that a run the simulation does not "
                              "slow finishes",
                              meta.budgetIterations)
                : std::string());
    }
    md += "\nBaselines, from the same idle time (measured where the testbed has an idle run, "
          "simulated otherwise) and the model's ring all-reduce volume D: communication fully "
          "exposed, t = (t0 - D/C) + D/(C - x); fully hidden until longer, t = max(t0, "
          "D/(C - x)); C = 25 Gbps, x = measured cross traffic.\n\n";
    md += BeyondTheWireParagraph(points);
    md += "## Idle runs (calibration, not validation)\n\n| series | model | testbed mean s | "
          "simulated mean s | error % |\n|---|---|---|---|---|\n";
    for (const auto& s : summaries)
    {
        md += fmt::format("| {} | {} | {} | {} | {} |\n", s.series, s.model,
                          std::isnan(s.idleMeasuredS) ? "(no idle run)"
                                                      : NumberText(s.idleMeasuredS),
                          NumberText(s.idleSimulatedS),
                          NumberText(PercentError(s.idleSimulatedS, s.idleMeasuredS), 2));
    }
    std::vector<const ValidatedPoint*> censoredPoints;
    for (const auto& p : points)
    {
        if (p.status == "censored" && p.testbed)
        {
            censoredPoints.push_back(&p);
        }
    }
    std::stable_sort(censoredPoints.begin(), censoredPoints.end(),
                     [](const auto* a, const auto* b)
                     {
                         return std::tie(a->series, a->model, a->offeredGbps)
                                < std::tie(b->series, b->model, b->offeredGbps);
                     });
    std::string censoredRows;
    for (const auto* pp : censoredPoints)
    {
        const auto& p = *pp;
        censoredRows
            += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", p.series, p.model,
                           NumberText(p.requestedGbps, 1), NumberText(p.measuredGbps, 2),
                           NumberText(p.testbedMeanS, 3), NumberText(p.simMeanLowerBoundS, 3),
                           NumberText(PercentError(p.simMeanLowerBoundS, p.testbedMeanS), 1),
                           p.censoredCompletedIterations
                               ? fmt::format("{} over {}", NumberText(p.censoredCompletedMeanS, 3),
                                             CompletedIterations(p))
                               : fmt::format("none within {:.2f} s", p.censoredCutS),
                           NumberText(PercentError(p.censoredCompletedMeanS, p.testbedMeanS), 1));
    }
    if (!censoredRows.empty())
    {
        md += "\n## Censored points (left out of every median)\n\nThe lower bound is what the "
              "headline judges. Beside it, indicative only: the mean of the iterations the runs "
              "completed before the cut (all workers and seeds; the warm-up iterations where no "
              "measured one completed), which leaves out the slower iterations still running at "
              "the cut.\n\n| series | model | requested Gbps | testbed measured Gbps | testbed "
              "mean s | simulated lower bound s | error % | completed iterations: mean s | error "
              "% |\n|---|---|---|---|---|---|---|---|---|\n";
        md += censoredRows;
    }
    md += "\n## Fits t(x) = A exp(B / (C - x)^n)\n\n| series | model | testbed A | B | C | n | "
          "R^2 | simulated A | B | C | n | R^2 |\n|---|---|---|---|---|---|---|---|---|---|---|---|"
          "\n";
    for (const auto& s : summaries)
    {
        md += fmt::format("| {} | {} | {} | {} |\n", s.series, s.model, FitText(s.testbedFit),
                          FitText(s.simFit));
    }
    if (!cdfs.empty())
    {
        md += "\n## Per-iteration distributions (Kolmogorov-Smirnov)\n\nThe distance between "
              "the measured CDF and the simulated iterations, beside the distance above which two "
              "samples of these sizes differ at the 5 % level (1.358 sqrt((n + m) / (n m)); "
              "iterations per worker, as the workers' iterations are synchronous).\n\n| model | "
              "transport | load Gbps | testbed iterations | simulated iterations | KS distance | "
              "5 % critical distance | distributions differ | status |\n"
              "|---|---|---|---|---|---|---|---|---|\n";
        for (const auto& c : cdfs)
        {
            md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", c.model,
                              c.transport, c.requestedGbps, c.measured.size(),
                              c.simulatedIterations, NumberText(c.ks, 3),
                              NumberText(c.ksCritical, 3),
                              std::isfinite(c.ks) && std::isfinite(c.ksCritical)
                                  ? (c.ks > c.ksCritical ? "yes" : "no")
                                  : "",
                              c.status);
        }
    }
    if (!rings.empty())
    {
        md += "\n## The ring's own bandwidth (published per-flow rates)\n\nThe rate each ring "
              "hop's bytes were sent at over the measurement window (bins of 100 us weighted by "
              "their bytes, `injection_gbps` in a run's summary.json) beside the published "
              "averages of tcpdump's per-packet injection rates. The thesis's flow 1 is a DL-only "
              "node's outbound ring flow (S1 to S3: not congested locally), flow 2 the shared "
              "node S0's (outbound, S0 to S1); the hop into S0 (S3 to S0), which crosses the "
              "bottleneck, is given beside them. The published figures average a few iterations "
              "of one run; the simulated ones the measured iterations of one seed.\n\n| series | "
              "model | requested Gbps | published DL-only (flow 1) | simulated S1 to S3 | "
              "published DL-shared (flow 2) | simulated S0 to S1 | simulated S3 to S0 | "
              "simulated mean iteration s | status | source |\n|---|---|---|---|---|---|---|---|"
              "---|---|---|\n";
        for (const auto& r : rings)
        {
            md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
                              r.series, r.published.model, r.published.requestedGbps,
                              r.published.dlOnlyGbps, NumberText(HopRate(r, "S1", ""), 2),
                              r.published.dlSharedGbps, NumberText(HopRate(r, "S0", ""), 2),
                              NumberText(HopRate(r, "", "S0"), 2), NumberText(r.simMeanS, 3),
                              r.status, r.published.source);
        }
    }
    md += "\n## Plots\n\n";
    if (!plotProblem.empty())
    {
        md += "No plots: " + plotProblem + ".\n";
    }
    for (const auto& png : pngs)
    {
        md += fmt::format("![{0}](plots/{0})\n\n", png);
    }
    md += "\nFiles: points.csv (every point), series.csv (every figure above, per series and "
          "model), cdfs.csv, ring-bandwidth.csv, plots/ (PNG, data and gnuplot script), points/ "
          "(each simulation's own outputs).\n";

    return md;
}

} // namespace

void
WriteValidationReport(const std::string& dirName, const std::vector<ValidatedPoint>& points,
                      const std::vector<ValidatedCdf>& cdfs, const ValidationMeta& meta,
                      const std::vector<ValidatedRing>& rings)
{
    const fs::path dir(dirName);
    fs::create_directories(dir);
    std::vector<SeriesSummary> summaries = SummariseSeries(points);
    std::string plotProblem;
    const fs::path staging = dir / fmt::format("plots.tmp.{}", ProcessTag());
    std::vector<std::string> pngs = DrawValidationPlots(staging, points, cdfs, plotProblem);
    // The tables and report.md as one set (report.md last): a full disk or a kill leaves the
    // previous report or none, never new tables beside an old report. The plots move in after
    // it (a kill between the two leaves the new report beside the previous plots).
    try
    {
        WriteFileSetAtomically(dir.string(),
                               { { "points.csv", PointsCsv(points) },
                                 { "series.csv", SeriesCsv(summaries) },
                                 { "cdfs.csv", CdfsCsv(cdfs) },
                                 { "ring-bandwidth.csv", RingsCsv(rings) },
                                 { "report.md", ReportMarkdown(points, cdfs, summaries, meta, pngs,
                                                               plotProblem, rings) } });
    }
    catch (...)
    {
        std::error_code ec;
        fs::remove_all(staging, ec);
        throw;
    }
    std::error_code ec;
    fs::remove_all(dir / "plots", ec);
    fs::rename(staging, dir / "plots", ec);
    if (ec)
    {
        throw std::runtime_error(fmt::format("{}: cannot move the plots into place: {}",
                                             (dir / "plots").string(), ec.message()));
    }
}

} // namespace flumen
