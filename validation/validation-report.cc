#include "validation-report.h"

#include "atomic-file.h"
#include "csv-format.h"
#include "summary-statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

namespace flumen
{

namespace fs = std::filesystem;

namespace
{

// Targets of the validation (see the README): median absolute errors in percent.
constexpr double kMeanTarget = 10;
constexpr double kCongestedTarget = 15;
constexpr double kP99Target = 25;
constexpr double kCongestionPointTargetGbps = 1;
constexpr double kAchievedTarget = 5;

std::string
Num(double v, int digits = 6)
{
    if (std::isnan(v))
    {
        return "";
    }
    if (std::isinf(v))
    {
        return v > 0 ? "inf" : "-inf";
    }
    return fmt::format("{:.{}f}", v, digits);
}

/** The summary of one series and model. */
struct SeriesSummary
{
    std::string series;
    std::string model;
    std::string transport;
    std::string configuration;
    std::string traffic;
    size_t validationPoints = 0; //!< testbed points with cross traffic, simulated
    size_t congestedPoints = 0;
    size_t missing = 0; //!< testbed points not (fully) simulated
    //! Validation points whose runs hit the simulated-time budget: only a lower bound on the
    //! simulated mean, so left out of the medians; "over": that bound exceeds the testbed.
    size_t censored = 0;
    size_t censoredOver = 0;
    double medianMean = kUnknown;
    double meanMean = kUnknown;
    double medianCongested = kUnknown;
    double medianP99 = kUnknown;
    double meanP99 = kUnknown;
    double medianExposed = kUnknown;
    double medianHidden = kUnknown;
    double medianAchieved = kUnknown;
    CongestionPoint testbedKnee;
    CongestionPoint simKnee;
    ExpFit testbedFit;
    ExpFit simFit;
    double idleMeasuredS = kUnknown;
    double idleSimulatedS = kUnknown;

    bool MeanOk() const { return medianMean <= kMeanTarget; }
    bool CongestedOk() const { return congestedPoints == 0 || medianCongested <= kCongestedTarget; }
    bool BeatsBaselines() const { return medianMean < std::min(medianExposed, medianHidden); }
    bool P99Ok() const { return medianP99 <= kP99Target; }
    bool KneeOk() const
    {
        return testbedKnee.found && simKnee.found
               && std::abs(testbedKnee.x - simKnee.x) <= kCongestionPointTargetGbps;
    }
    bool AchievedOk() const { return medianAchieved <= kAchievedTarget; }

    // A series with nothing simulated (not run yet, or failed) and nothing censored is not
    // judged against the targets, rather than missing every one of them.
    bool Judged() const { return validationPoints > 0 || censored > 0; }

    // The headline's verdict on the targets.
    std::string Verdict() const
    {
        if (!Judged())
        {
            return "none judged: no simulated points";
        }
        std::string missed;
        auto check = [&missed](bool ok, const char* target)
        {
            if (!ok)
            {
                missed += (missed.empty() ? "" : ", ") + std::string(target);
            }
        };
        check(MeanOk(), "mean");
        check(CongestedOk(), "congested");
        check(BeatsBaselines(), "baselines");
        check(P99Ok(), "p99");
        check(KneeOk(), "congestion point");
        check(AchievedOk(), "achieved rate");
        std::string verdict = missed.empty() ? "all" : "missed: " + missed;
        return censored ? verdict + " (censored points not counted)" : verdict;
    }
};

std::vector<SeriesSummary>
Summarise(const std::vector<ValidatedPoint>& points)
{
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<const ValidatedPoint*>> groups;
    for (const auto& p : points)
    {
        auto key = std::make_pair(p.series, p.model);
        if (!groups.count(key))
        {
            order.push_back(key);
        }
        groups[key].push_back(&p);
    }
    std::vector<SeriesSummary> out;
    for (const auto& key : order)
    {
        const auto& ps = groups[key];
        SeriesSummary s;
        s.series = key.first;
        s.model = key.second;
        s.transport = ps.front()->transport;
        s.configuration = ps.front()->configuration;
        s.traffic = ps.front()->traffic;
        std::vector<double> eMean;
        std::vector<double> eCongested;
        std::vector<double> eP99;
        std::vector<double> eExposed;
        std::vector<double> eHidden;
        std::vector<double> eAchieved;
        std::vector<CurvePoint> testbedCurve;
        std::vector<CurvePoint> simCurve;
        for (const auto* p : ps)
        {
            bool simulated = p->status == "done" || p->status == "partial";
            if (p->idle && p->testbed)
            {
                s.idleMeasuredS = p->testbedMeanS;
            }
            if (p->idle && simulated)
            {
                s.idleSimulatedS = p->simMeanS;
            }
            // Points without a measured rate (the TCP series' extended runs) have no x.
            if (p->testbed && (p->idle || std::isfinite(p->measuredGbps)))
            {
                testbedCurve.push_back({ p->idle ? 0.0 : p->measuredGbps, p->testbedMeanS });
            }
            if (simulated)
            {
                simCurve.push_back({ p->idle ? 0.0 : p->simAchievedGbps, p->simMeanS });
            }
            if (!p->testbed || p->idle || p->calibration)
            {
                continue;
            }
            if (p->status == "censored")
            {
                ++s.censored;
                s.censoredOver += p->simMeanLowerBoundS > p->testbedMeanS ? 1 : 0;
                continue;
            }
            if (!simulated)
            {
                ++s.missing;
                continue;
            }
            ++s.validationPoints;
            double e = PercentError(p->simMeanS, p->testbedMeanS);
            eMean.push_back(e);
            if (p->congested)
            {
                ++s.congestedPoints;
                eCongested.push_back(e);
            }
            eP99.push_back(PercentError(p->simP99S, p->testbedP99S));
            eExposed.push_back(PercentError(p->exposedS, p->testbedMeanS));
            eHidden.push_back(PercentError(p->hiddenS, p->testbedMeanS));
            if (p->measuredGbps > 0)
            {
                eAchieved.push_back(PercentError(p->simAchievedGbps, p->measuredGbps));
            }
        }
        s.medianMean = MedianAbs(eMean);
        s.meanMean = MeanAbs(eMean);
        s.medianCongested = MedianAbs(eCongested);
        s.medianP99 = MedianAbs(eP99);
        s.meanP99 = MeanAbs(eP99);
        s.medianExposed = MedianAbs(eExposed);
        s.medianHidden = MedianAbs(eHidden);
        s.medianAchieved = MedianAbs(eAchieved);
        s.testbedKnee = FindCongestionPoint(testbedCurve);
        s.simKnee = FindCongestionPoint(simCurve);
        s.testbedFit = FitExpCurve(testbedCurve);
        s.simFit = FitExpCurve(simCurve);
        out.push_back(s);
    }
    return out;
}

std::string
Knee(const CongestionPoint& c)
{
    return c.found ? fmt::format("({:.2f}, {:.3f})", c.x, c.t) : "none";
}

// "12" or "3 warm-up": how many iterations a censored point's indicative mean is over.
std::string
CompletedIterations(const ValidatedPoint& p)
{
    if (p.censoredCompletedIterations == 0)
    {
        return "";
    }
    return fmt::format("{}{}", p.censoredCompletedIterations,
                       p.censoredCompletedWarmup ? " warm-up" : "");
}

std::string
FitText(const ExpFit& f)
{
    return f.ok
               ? fmt::format("{:.4g} | {:.4g} | {:.4g} | {:.3g} | {:.3f}", f.a, f.b, f.c, f.n, f.r2)
               : "no fit | | | |";
}

// Appends one model's gnuplot data block: its rows sorted by load. gnuplot needs at least one
// row per block; a NaN row keeps the block indices aligned with the models.
void
AppendPlotBlock(std::string& data, const std::string& model,
                std::vector<std::pair<double, std::string>> rows, const char* emptyRow)
{
    std::sort(rows.begin(), rows.end());
    data += "# " + model + "\n";
    for (const auto& r : rows)
    {
        data += r.second;
    }
    data += rows.empty() ? std::string(emptyRow) + "\n\n\n" : "\n\n";
}

// Writes the plots with gnuplot into dir/plots; returns the PNG names, or why there are none.
std::vector<std::string>
WritePlots(const fs::path& dir, const std::vector<ValidatedPoint>& points,
           const std::vector<ValidatedCdf>& cdfs, std::string& problem)
{
    std::vector<std::string> pngs;
    fs::path tmp = dir / fmt::format("plots.tmp.{}", getpid());
    std::error_code ec;
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp, ec);
    std::string script
        = "set terminal pngcairo size 1000,650 font ',11'\n"
          "set grid\nset key top left\nset logscale y\n"
          "set xlabel 'cross traffic (Gbps): testbed measured, simulation achieved'\n"
          "set ylabel 'iteration time (s), bars up to p99'\n";
    std::vector<std::string> seriesNames;
    for (const auto& p : points)
    {
        if (std::find(seriesNames.begin(), seriesNames.end(), p.series) == seriesNames.end())
        {
            seriesNames.push_back(p.series);
        }
    }
    for (const auto& series : seriesNames)
    {
        std::vector<std::string> models;
        for (const auto& p : points)
        {
            if (p.series == series
                && std::find(models.begin(), models.end(), p.model) == models.end())
            {
                models.push_back(p.model);
            }
        }
        std::string testbedData;
        std::string simData;
        std::string censoredData; // lower bounds of censored points
        std::vector<bool> hasCensored;
        for (const auto& m : models)
        {
            std::vector<std::pair<double, std::string>> tb;
            std::vector<std::pair<double, std::string>> sim;
            std::vector<std::pair<double, std::string>> censored;
            for (const auto& p : points)
            {
                if (p.series != series || p.model != m)
                {
                    continue;
                }
                if (p.testbed && (p.idle || std::isfinite(p.measuredGbps)))
                {
                    double x = p.idle ? 0.0 : p.measuredGbps;
                    tb.push_back({ x, fmt::format("{} {} {}\n", x, p.testbedMeanS,
                                                  std::max(p.testbedMeanS, p.testbedP99S)) });
                }
                if (p.status == "done" || p.status == "partial")
                {
                    double x = p.idle ? 0.0 : p.simAchievedGbps;
                    sim.push_back({ x, fmt::format("{} {} {}\n", x, p.simMeanS,
                                                   std::max(p.simMeanS, p.simP99S)) });
                }
                if (p.status == "censored" && std::isfinite(p.simMeanLowerBoundS)
                    && (p.idle || std::isfinite(p.simAchievedGbps)))
                {
                    double x = p.idle ? 0.0 : p.simAchievedGbps;
                    censored.push_back({ x, fmt::format("{} {}\n", x, p.simMeanLowerBoundS) });
                }
            }
            AppendPlotBlock(testbedData, m, tb, "NaN NaN NaN");
            AppendPlotBlock(simData, m, sim, "NaN NaN NaN");
            AppendPlotBlock(censoredData, m, censored, "NaN NaN");
            hasCensored.push_back(!censored.empty());
        }
        std::string base = FileSafeName(series);
        WriteFileAtomically((tmp / (base + ".testbed.dat")).string(), testbedData);
        WriteFileAtomically((tmp / (base + ".simulated.dat")).string(), simData);
        WriteFileAtomically((tmp / (base + ".censored.dat")).string(), censoredData);
        script += fmt::format("set output '{}.png'\nset title '{}: testbed (filled, solid) "
                              "and simulation (open, dashed)' noenhanced\nplot ",
                              base, series);
        for (size_t k = 0; k < models.size(); ++k)
        {
            script += fmt::format(
                "{}'{tb}' index {k} using 1:2:2:3 with yerrorbars lc {c} pt 7 title '{m} testbed' "
                "noenhanced, '{tb}' index {k} using 1:2 with lines lc {c} notitle, "
                "'{sim}' index {k} using 1:2:2:3 with yerrorbars lc {c} pt 6 title '{m} "
                "simulated' noenhanced, '{sim}' index {k} using 1:2 with lines lc {c} dt 2 "
                "notitle",
                k ? ", " : "", fmt::arg("tb", base + ".testbed.dat"),
                fmt::arg("sim", base + ".simulated.dat"), fmt::arg("k", k), fmt::arg("c", k + 1),
                fmt::arg("m", models[k]));
            if (hasCensored[k])
            {
                // Open triangles pointing up: the simulated mean is at least there.
                script += fmt::format(", '{}' index {} using 1:2 with points lc {} pt 8 ps 1.5 "
                                      "title '{} simulated, censored (at least)' noenhanced",
                                      base + ".censored.dat", k, k + 1, models[k]);
            }
        }
        script += "\n";
        pngs.push_back(base + ".png");
    }
    script += "unset logscale y\nset key bottom right\nset xlabel 'iteration time (s)'\n"
              "set ylabel 'cumulative fraction'\n";
    for (const auto& c : cdfs)
    {
        if (c.simulated.empty())
        {
            continue;
        }
        std::string base
            = FileSafeName(fmt::format("cdf-{}-{}G-{}", c.model, c.requestedGbps, c.transport));
        std::string measured;
        for (const auto& p : c.measured)
        {
            measured += fmt::format("{} {}\n", p.seconds, p.fraction);
        }
        std::vector<double> s = c.simulated;
        std::sort(s.begin(), s.end());
        std::string simulated;
        for (size_t i = 0; i < s.size(); ++i)
        {
            simulated += fmt::format("{} {}\n", s[i], double(i + 1) / s.size());
        }
        WriteFileAtomically((tmp / (base + ".testbed.dat")).string(), measured);
        WriteFileAtomically((tmp / (base + ".simulated.dat")).string(), simulated);
        script += fmt::format("set output '{0}.png'\nset title '{1} at {2} Gbps web-search, "
                              "{3}: KS distance {4}' noenhanced\n"
                              "plot '{0}.testbed.dat' using 1:2 with steps lw 2 title "
                              "'testbed', '{0}.simulated.dat' using 1:2 with steps lw 2 dt 2 "
                              "title 'simulated ({5} iterations)'\n",
                              base, c.model, c.requestedGbps, c.transport, Num(c.ks, 3), s.size());
        pngs.push_back(base + ".png");
    }
    WriteFileAtomically((tmp / "plots.gp").string(), script);
    // Paths in the script are relative to it, so `gnuplot plots.gp` in DIR/plots redraws.
    std::string cmd = fmt::format("cd '{}' && gnuplot plots.gp > gnuplot.log 2>&1", tmp.string());
    int rc = std::system(cmd.c_str());
    if (rc != 0)
    {
        problem = fmt::format("gnuplot failed or is missing (exit {}); see {}/gnuplot.log; the "
                              "plot data and script are in plots/",
                              rc, (dir / "plots").string());
        pngs.clear();
    }
    fs::remove_all(dir / "plots", ec);
    fs::rename(tmp, dir / "plots", ec);
    if (ec)
    {
        problem = "cannot move the plots into place: " + ec.message();
        pngs.clear();
    }
    return pngs;
}

} // namespace

std::string
FileSafeName(const std::string& s)
{
    std::string o;
    for (char c : s)
    {
        o += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    }
    return o;
}

double
PercentError(double simulated, double measured)
{
    if (std::isnan(simulated) || std::isnan(measured) || measured == 0)
    {
        return kUnknown;
    }
    return 100.0 * (simulated - measured) / measured;
}

std::vector<std::string>
HeadlineLines(const std::vector<ValidatedPoint>& points)
{
    std::vector<std::string> lines;
    for (const auto& s : Summarise(points))
    {
        if (!s.Judged())
        {
            // Blank percentages would read as a result; say there is none.
            lines.push_back(fmt::format("{:<24} {:<12}  no point simulated yet: not judged",
                                        s.series, s.model));
            continue;
        }
        lines.push_back(fmt::format(
            "{:<24} {:<12} {:>2} points{}: median |error| of the mean {:>6}% (congested {} "
            "points: {}%), p99 {}%; baselines exposed {}%, hidden {}%; congestion point testbed {} "
            "simulated {}",
            s.series, s.model, s.validationPoints,
            s.censored
                ? fmt::format(" (+{} censored, {} above the testbed)", s.censored, s.censoredOver)
                : "",
            Num(s.medianMean, 1), s.congestedPoints, Num(s.medianCongested, 1), Num(s.medianP99, 1),
            Num(s.medianExposed, 1), Num(s.medianHidden, 1), Knee(s.testbedKnee), Knee(s.simKnee)));
    }
    return lines;
}

void
WriteValidationReport(const std::string& dirName, const std::vector<ValidatedPoint>& points,
                      const std::vector<ValidatedCdf>& cdfs, const ValidationMeta& meta)
{
    const fs::path dir(dirName);
    fs::create_directories(dir);

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
              Num(p.requestedGbps, 3),
              Num(p.offeredGbps, 3),
              Num(p.measuredGbps, 3),
              Num(p.simAchievedGbps, 3),
              Num(p.measuredGbps > 0 ? PercentError(p.simAchievedGbps, p.measuredGbps) : kUnknown,
                  2),
              Num(p.testbedMeanS),
              Num(p.testbedP99S),
              Num(p.simMeanS),
              Num(p.simP99S),
              Num(p.simMeanLowerBoundS),
              Num(PercentError(p.simMeanS, p.testbedMeanS), 2),
              Num(PercentError(p.simMeanLowerBoundS, p.testbedMeanS), 2),
              Num(p.censoredCompletedMeanS),
              CompletedIterations(p),
              Num(PercentError(p.censoredCompletedMeanS, p.testbedMeanS), 2),
              Num(PercentError(p.simP99S, p.testbedP99S), 2),
              Num(p.exposedS),
              Num(PercentError(p.exposedS, p.testbedMeanS), 2),
              Num(p.hiddenS),
              Num(PercentError(p.hiddenS, p.testbedMeanS), 2),
              p.idle ? "1" : "0",
              p.congested ? "1" : "0",
              p.calibration ? "1" : "0",
              fmt::format("{} ({} warm-up)", p.iterations, p.warmup),
              fmt::format("{}/{}", p.seeds, p.seedsPlanned),
              p.status,
              p.testbed ? p.source : "simulation only (no testbed idle run)" }));
    }

    std::vector<SeriesSummary> summaries = Summarise(points);
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
                                                        Num(s.medianMean, 2),
                                                        Num(s.meanMean, 2),
                                                        Num(s.medianCongested, 2),
                                                        Num(s.medianP99, 2),
                                                        Num(s.meanP99, 2),
                                                        Num(s.medianExposed, 2),
                                                        Num(s.medianHidden, 2),
                                                        Num(s.medianAchieved, 2),
                                                        Num(s.testbedKnee.x, 3),
                                                        Num(s.testbedKnee.t),
                                                        Num(s.simKnee.x, 3),
                                                        Num(s.simKnee.t),
                                                        Num(s.testbedFit.a, 6),
                                                        Num(s.testbedFit.b, 6),
                                                        Num(s.testbedFit.c, 6),
                                                        Num(s.testbedFit.n, 6),
                                                        Num(s.testbedFit.r2, 4),
                                                        Num(s.simFit.a, 6),
                                                        Num(s.simFit.b, 6),
                                                        Num(s.simFit.c, 6),
                                                        Num(s.simFit.n, 6),
                                                        Num(s.simFit.r2, 4),
                                                        yn(s.MeanOk()),
                                                        yn(s.CongestedOk()),
                                                        yn(s.BeatsBaselines()),
                                                        yn(s.P99Ok()),
                                                        yn(s.KneeOk()),
                                                        yn(s.AchievedOk()) }));
    }

    const std::vector<std::string> cdfsHeader{ "model",
                                               "transport",
                                               "configuration",
                                               "requested_gbps",
                                               "file",
                                               "testbed_iterations_median_s",
                                               "simulated_iterations",
                                               "simulated_median_s",
                                               "ks_distance",
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
            { c.model, c.transport, c.configuration, Num(c.requestedGbps, 1), c.file,
              Num(measuredMedian), std::to_string(s.size()),
              s.empty() ? "" : Num(Percentile(s, 50)), Num(c.ks, 3), c.status }));
    }

    std::string plotProblem;
    std::vector<std::string> pngs = WritePlots(dir, points, cdfs, plotProblem);

    // report.md: the headline tables, then the detail.
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
                          Num(s.medianMean, 1), Num(s.meanMean, 1), s.congestedPoints,
                          Num(s.medianCongested, 1), Num(s.medianP99, 1), Num(s.medianExposed, 1),
                          Num(s.medianHidden, 1), Num(s.medianAchieved, 1), Knee(s.testbedKnee),
                          Knee(s.simKnee), s.Verdict());
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
    md += "## Idle runs (calibration, not validation)\n\n| series | model | testbed mean s | "
          "simulated mean s | error % |\n|---|---|---|---|---|\n";
    for (const auto& s : summaries)
    {
        md += fmt::format("| {} | {} | {} | {} | {} |\n", s.series, s.model,
                          std::isnan(s.idleMeasuredS) ? "(no idle run)" : Num(s.idleMeasuredS),
                          Num(s.idleSimulatedS),
                          Num(PercentError(s.idleSimulatedS, s.idleMeasuredS), 2));
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
                           Num(p.requestedGbps, 1), Num(p.measuredGbps, 2), Num(p.testbedMeanS, 3),
                           Num(p.simMeanLowerBoundS, 3),
                           Num(PercentError(p.simMeanLowerBoundS, p.testbedMeanS), 1),
                           p.censoredCompletedIterations
                               ? fmt::format("{} over {}", Num(p.censoredCompletedMeanS, 3),
                                             CompletedIterations(p))
                               : fmt::format("none within {:.2f} s", p.censoredCutS),
                           Num(PercentError(p.censoredCompletedMeanS, p.testbedMeanS), 1));
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
        md += "\n## Per-iteration distributions (Kolmogorov-Smirnov)\n\n| model | transport | "
              "load Gbps | simulated iterations | KS distance | status |\n|---|---|---|---|---|---|"
              "\n";
        for (const auto& c : cdfs)
        {
            md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", c.model, c.transport,
                              c.requestedGbps, c.simulated.size(), Num(c.ks, 3), c.status);
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
          "model), cdfs.csv, plots/ (PNG, data and gnuplot script), points/ (each simulation's "
          "own outputs).\n";

    WriteFileAtomically((dir / "points.csv").string(), FormatCsv(pointsHeader, pointsRows));
    WriteFileAtomically((dir / "series.csv").string(), FormatCsv(seriesHeader, seriesRows));
    WriteFileAtomically((dir / "cdfs.csv").string(), FormatCsv(cdfsHeader, cdfsRows));
    WriteFileAtomically((dir / "report.md").string(), md);
}

} // namespace flumen
