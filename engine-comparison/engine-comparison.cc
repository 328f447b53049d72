#include "engine-comparison.h"

#include "atomic-file.h"
#include "point-pool.h"
#include "run-store.h"
#include "run-summary.h"
#include "summary-statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace flumen
{

namespace fs = std::filesystem;

namespace
{

// Where a run belongs in the per-series table: its series (the manifest's), model and
// transport (one series, iteration-cdfs, holds both transports).
struct Group
{
    std::string series;
    std::string model;
    std::string transport;

    bool operator<(const Group& o) const
    {
        return std::tie(series, model, transport) < std::tie(o.series, o.model, o.transport);
    }
};

struct Pair
{
    std::string run;
    std::string point; //!< what the run is: the plan's label, or a sweep point's assignments
    /** The same at any seed (`about.point_at_any_seed`; a validation's label has no seed). */
    std::string pointAtAnySeed;
    Group group;
    std::string packetRun;
    std::string status;
    std::optional<RunSummary> packet;
    std::optional<RunSummary> flow;
};

std::optional<RunSummary>
Finished(const fs::path& points, const std::string& id)
{
    const std::optional<std::string> text = ReadRunFile(points, id, "summary.json");
    if (!text)
    {
        return std::nullopt;
    }
    return ParseRunSummary(*text, (points / id / "summary.json").string());
}

} // namespace

// The packet level's run of the same point: the same scenario (its id), or else the one run of
// the same point and seed (a packet validation with another time budget or iteration count).
std::string
PacketRunOf(const PoolPoint& r, const fs::path& packetPoints, PacketRunMatch match)
{
    const std::string id = r.about.value("packet_run", "");
    if (id.empty() || PointFinished(packetPoints, id) || match == PacketRunMatch::ExactId)
    {
        return id;
    }
    const std::string prefix = id.substr(0, id.rfind('-') + 1); // "<point>-s<seed>-"
    std::string found;
    for (const std::string& name : StoredRunIds(packetPoints))
    {
        if (name.rfind(prefix, 0) == 0 && name.find('-', prefix.size()) == std::string::npos)
        {
            if (!found.empty())
            {
                return id; // several: only the exact one would do
            }
            found = name;
        }
    }
    return found.empty() ? id : found;
}

namespace
{

// The flow engine's agreement targets (issue 29), |flow / packet - 1| in %: the mean iteration
// time at the median and run by run (its 95th percentile), the p99 at the median, and the
// achieved cross-traffic rate.
constexpr double kMeanMedianTargetPct = 3;
constexpr double kMeanTailTargetPct = 10;
constexpr double kP99MedianTargetPct = 10;
constexpr double kCrossTargetPct = 3;

// How many of these |differences| are beyond a target.
size_t
CountAbove(const std::vector<double>& v, double limit)
{
    return static_cast<size_t>(
        std::count_if(v.begin(), v.end(), [limit](double x) { return x > limit; }));
}

double
DiffPct(double flow, double packet)
{
    return packet != 0 ? (flow / packet - 1) * 100 : 0.0;
}

std::string
Num(double v, int digits)
{
    return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "";
}

double
Quantile(std::vector<double> v, double q)
{
    if (v.empty())
    {
        return std::nan("");
    }
    std::sort(v.begin(), v.end());
    return Percentile(v, q);
}

bool
Censored(const RunSummary& s)
{
    return s.jobFinished.has_value() && !*s.jobFinished;
}

double
MedianFct(const RunSummary& s)
{
    return s.crossTraffic.flows && s.crossTraffic.flows->completed > 0
               ? s.crossTraffic.flows->fctS.p50
               : std::nan("");
}

// One compared run's differences (flow / packet - 1, in per cent; NaN where not defined).
struct Compared
{
    Group group;
    std::string point; //!< the point at any seed: its runs at other seeds share it
    double packetMean;
    double flowMean;
    double meanDiff;
    double p99Diff;
    double crossDiff;
    double fctDiff;
    bool outOfDomain; //!< the flow run says it is out of the engine's domain
};

// The per-series table of engines.md: where the engines agree and where they do not.
std::string
GroupTable(const std::vector<Compared>& compared)
{
    std::map<Group, std::vector<const Compared*>> groups;
    for (const auto& c : compared)
    {
        groups[c.group].push_back(&c);
    }
    std::string md
        = "| series | model | transport | runs | mean diff, median \\|.\\| (%) "
          "| p95 \\|.\\| (%) | beyond "
          + fmt::format("{:g}", kMeanTailTargetPct)
          + " % | range (%) "
            "| cross-traffic rate diff, median \\|.\\| (%) "
            "| median FCT diff, median (%) |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& [group, runs] : groups)
    {
        std::vector<double> mean;
        std::vector<double> signedMean;
        std::vector<double> cross;
        std::vector<double> fct;
        for (const Compared* c : runs)
        {
            mean.push_back(std::abs(c->meanDiff));
            signedMean.push_back(c->meanDiff);
            if (std::isfinite(c->crossDiff))
            {
                cross.push_back(std::abs(c->crossDiff));
            }
            if (std::isfinite(c->fctDiff))
            {
                fct.push_back(c->fctDiff);
            }
        }
        const auto [lo, hi] = std::minmax_element(signedMean.begin(), signedMean.end());
        md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {:+.1f} to {:+.1f} | {} | {} |\n",
                          group.series, group.model, group.transport, runs.size(),
                          Num(Quantile(mean, 50), 1), Num(Quantile(mean, 95), 1),
                          CountAbove(mean, kMeanTailTargetPct), *lo, *hi,
                          Num(Quantile(cross, 50), 1),
                          fct.empty() ? "" : fmt::format("{:+.0f}", Quantile(fct, 50)));
    }
    return md;
}

// The points compared at two or more seeds: the packet level's own spread between a point's
// seeds (its largest mean over its smallest - 1, in per cent) and the flow engine's |difference|
// on the mean over each point's seeds. The spread says how far one run of a point can land
// from another of the same point in the reference itself.
void
CompareOverSeeds(const std::vector<Compared>& compared, EngineComparison& c)
{
    std::map<std::string, std::vector<const Compared*>> byPoint;
    for (const auto& d : compared)
    {
        if (!d.point.empty()) // (plans written before points had labels)
        {
            byPoint[d.point].push_back(&d);
        }
    }
    std::vector<double> spread;
    std::vector<double> overSeeds;
    for (const auto& [point, runs] : byPoint)
    {
        if (runs.size() < 2)
        {
            continue;
        }
        double lo = std::numeric_limits<double>::infinity();
        double hi = 0;
        double packet = 0;
        double flow = 0;
        for (const Compared* d : runs)
        {
            lo = std::min(lo, d->packetMean);
            hi = std::max(hi, d->packetMean);
            packet += d->packetMean;
            flow += d->flowMean;
        }
        spread.push_back(lo > 0 ? (hi / lo - 1) * 100 : 0.0);
        overSeeds.push_back(std::abs(DiffPct(flow, packet)));
    }
    c.pointsOverSeeds = spread.size();
    if (spread.empty())
    {
        return;
    }
    c.packetSeedSpreadP95Pct = Quantile(spread, 95);
    c.overSeedsP95AbsMeanDiffPct = Quantile(overSeeds, 95);
    c.lines.push_back(fmt::format(
        "  over the {} points compared at two or more seeds: the packet level's own spread "
        "between a point's seeds (its largest mean over its smallest - 1) median {:.1f} %, p95 "
        "{:.1f} %; flow against packet on the mean over each point's seeds, |diff| median "
        "{:.1f} %, p95 {:.1f} % ({} of the points beyond {:g} %)",
        spread.size(), Quantile(spread, 50), c.packetSeedSpreadP95Pct, Quantile(overSeeds, 50),
        c.overSeedsP95AbsMeanDiffPct, CountAbove(overSeeds, kMeanTailTargetPct),
        kMeanTailTargetPct));
}

// The series a run belongs to (the plan's `about`; empty for plans written before it) and
// its scenario's model and transport.
Group
GroupOf(const PoolPoint& r)
{
    const nlohmann::json job = r.scenario.value("job", nlohmann::json::object());
    return { r.about.value("series", std::string()), job.value("model", std::string()),
             job.value("transport", std::string()) };
}

} // namespace

EngineComparison
CompareEngines(const std::vector<PoolPoint>& runs, const fs::path& flowPoints,
               const fs::path& packetPoints, const std::string& dir, const ComparedRuns& what)
{
    std::vector<Pair> pairs;
    for (const auto& r : runs)
    {
        Pair p;
        p.run = r.id;
        p.point = r.about.value("point", std::string());
        // One plain cell (a swept list value holds commas).
        std::replace(p.point.begin(), p.point.end(), ',', ';');
        p.pointAtAnySeed = r.about.value("point_at_any_seed", p.point);
        p.group = GroupOf(r);
        p.packetRun = PacketRunOf(r, packetPoints, what.match);
        p.flow = Finished(flowPoints, p.run);
        p.packet = p.packetRun.empty() ? std::nullopt : Finished(packetPoints, p.packetRun);
        p.status = !p.flow                                    ? "no flow run"
                   : !p.packet                                ? "no packet run"
                   : Censored(*p.packet) || Censored(*p.flow) ? "censored"
                                                              : "compared";
        pairs.push_back(std::move(p));
    }

    EngineComparison c;
    c.runs = runs.size();
    std::vector<Compared> compared;
    std::vector<double> speedups;
    double slowest = std::numeric_limits<double>::infinity();
    std::string csv = "run,point,packet_run,status,series,model,transport,"
                      "packet_mean_s,flow_mean_s,mean_diff_pct,"
                      "packet_p99_s,flow_p99_s,p99_diff_pct,"
                      "packet_cross_gbps,flow_cross_gbps,cross_diff_pct,"
                      "packet_fct_p50_s,flow_fct_p50_s,fct_p50_diff_pct,"
                      "packet_queue_mean_bytes,flow_queue_mean_bytes,"
                      "packet_wall_s,flow_wall_s,flow_simulated_s,speedup,flow_out_of_domain\n";
    std::vector<double> queueRatios; // the bottleneck's mean queue, flow over packet
    std::vector<std::pair<double, std::string>> worst;
    for (const auto& p : pairs)
    {
        std::string row = fmt::format("{},{},{},{},{},{},{}", p.run, p.point, p.packetRun, p.status,
                                      p.group.series, p.group.model, p.group.transport);
        if (p.flow && p.flow->wallTimeS > 0)
        {
            slowest = std::min(slowest, p.flow->simulatedTimeS / p.flow->wallTimeS);
        }
        if (p.status == "compared")
        {
            const RunSummary& a = *p.packet;
            const RunSummary& b = *p.flow;
            const double dm = DiffPct(b.iterationTimeS.mean, a.iterationTimeS.mean);
            const double dp = DiffPct(b.iterationTimeS.p99, a.iterationTimeS.p99);
            const bool cross = a.crossTraffic.type != "none" && a.crossTraffic.achievedGbps > 0;
            const double dc
                = cross ? DiffPct(b.crossTraffic.achievedGbps, a.crossTraffic.achievedGbps)
                        : std::nan("");
            // NaN unless both engines completed flows (iperf's streams have none).
            const double df = DiffPct(MedianFct(b), MedianFct(a));
            const double speedup = b.wallTimeS > 0 ? a.wallTimeS / b.wallTimeS : std::nan("");
            const bool outOfDomain = !b.engineDomain.empty();
            compared.push_back({ p.group, p.pointAtAnySeed, a.iterationTimeS.mean,
                                 b.iterationTimeS.mean, dm, dp, dc, df, outOfDomain });
            if (std::isfinite(speedup))
            {
                speedups.push_back(speedup);
            }
            worst.emplace_back(std::abs(dm), fmt::format("| {} | {} | {} | {:+.1f} | {} | {} |",
                                                         p.run, Num(a.iterationTimeS.mean, 4),
                                                         Num(b.iterationTimeS.mean, 4), dm,
                                                         cross ? fmt::format("{:+.1f}", dc) : "",
                                                         outOfDomain ? "out" : "in"));
            const double packetQueue = a.bottleneck.meanQueueBytes;
            const double flowQueue = b.bottleneck.meanQueueBytes;
            if (packetQueue > 0 && flowQueue > 0)
            {
                queueRatios.push_back(flowQueue / packetQueue);
            }
            row += fmt::format(
                ",{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
                Num(a.iterationTimeS.mean, 6), Num(b.iterationTimeS.mean, 6), Num(dm, 2),
                Num(a.iterationTimeS.p99, 6), Num(b.iterationTimeS.p99, 6), Num(dp, 2),
                Num(a.crossTraffic.achievedGbps, 3), Num(b.crossTraffic.achievedGbps, 3),
                Num(dc, 2), Num(MedianFct(a), 9), Num(MedianFct(b), 9), Num(df, 2),
                Num(packetQueue, 0), Num(flowQueue, 0), Num(a.wallTimeS, 3), Num(b.wallTimeS, 4),
                Num(b.simulatedTimeS, 4), Num(speedup, 0), outOfDomain ? 1 : 0);
        }
        else
        {
            row += ",,,,,,,,,,,,,,,,,,,";
        }
        csv += row + "\n";
    }
    std::vector<double> meanDiff;
    std::vector<double> p99Diff;
    std::vector<double> crossDiff;
    std::vector<double> fctDiff;
    std::vector<double> fctSigned;
    std::vector<double> inDomainMeanDiff;
    for (const auto& d : compared)
    {
        meanDiff.push_back(std::abs(d.meanDiff));
        if (!d.outOfDomain)
        {
            inDomainMeanDiff.push_back(std::abs(d.meanDiff));
        }
        p99Diff.push_back(std::abs(d.p99Diff));
        if (std::isfinite(d.crossDiff))
        {
            crossDiff.push_back(std::abs(d.crossDiff));
        }
        if (std::isfinite(d.fctDiff))
        {
            fctDiff.push_back(std::abs(d.fctDiff));
            fctSigned.push_back(d.fctDiff);
        }
    }
    c.compared = meanDiff.size();
    c.medianAbsMeanDiffPct = Quantile(meanDiff, 50);
    c.p95AbsMeanDiffPct = Quantile(meanDiff, 95);
    c.medianAbsP99DiffPct = Quantile(p99Diff, 50);
    c.crossCompared = crossDiff.size();
    c.medianAbsCrossDiffPct = Quantile(crossDiff, 50);
    c.p95AbsCrossDiffPct = Quantile(crossDiff, 95);
    // The targets read per run too: how many runs miss them, not only the percentiles.
    c.runsMeanBeyondTenPct = CountAbove(meanDiff, kMeanTailTargetPct);
    c.runsCrossBeyondThreePct = CountAbove(crossDiff, kCrossTargetPct);
    c.medianAbsFctDiffPct = Quantile(fctDiff, 50);
    c.inDomain = inDomainMeanDiff.size();
    c.inDomainP95AbsMeanDiffPct = Quantile(inDomainMeanDiff, 95);
    c.medianSpeedup = Quantile(speedups, 50);
    c.slowestFlowRealTimeFactor = std::isfinite(slowest) ? slowest : 0;

    auto met = [](double v, double target) {
        return !std::isfinite(v) ? "n/a" : v <= target ? "met" : "missed";
    };
    c.lines.push_back(fmt::format("engines: {} of {} runs compared (finished and uncensored in "
                                  "both engines)",
                                  c.compared, c.runs));
    const size_t rerun
        = std::count_if(pairs.begin(), pairs.end(),
                        [](const Pair& p) { return p.flow && p.flow->engine == "packet"; });
    if (rerun > 0)
    {
        // engine auto: these "flow" runs are the packet level's own, by the auto rule.
        c.lines.push_back(fmt::format("  engine auto: {} of these runs went to the packet level "
                                      "(out of the flow engine's domain: each "
                                      "summary.json's engine_auto says why)",
                                      rerun));
    }
    c.lines.push_back(fmt::format("  mean iteration time |flow - packet|: median {:.1f} % "
                                  "(target {:g} %: {}), p95 {:.1f} % (target {:g} %: {}); {} of "
                                  "the {} runs beyond {:g} %",
                                  c.medianAbsMeanDiffPct, kMeanMedianTargetPct,
                                  met(c.medianAbsMeanDiffPct, kMeanMedianTargetPct),
                                  c.p95AbsMeanDiffPct, kMeanTailTargetPct,
                                  met(c.p95AbsMeanDiffPct, kMeanTailTargetPct),
                                  c.runsMeanBeyondTenPct, c.compared, kMeanTailTargetPct));
    if (c.inDomain == 0 && c.compared > 0)
    {
        c.lines.push_back(fmt::format("  in the flow engine's domain (what engine auto keeps): "
                                      "none of the {} runs; every one says it is out of it "
                                      "(engine_domain)",
                                      c.compared));
    }
    else if (c.compared > 0)
    {
        // What engine auto would keep at flow level, and how close that is: the runs that say
        // they are out of the engine's domain would go to the packet level.
        c.lines.push_back(fmt::format(
            "  in the flow engine's domain (what engine auto keeps): {} of the {} runs, mean "
            "iteration time |flow - packet| median {:.1f} %, p95 {:.1f} %{}",
            c.inDomain, c.compared, Quantile(inDomainMeanDiff, 50), c.inDomainP95AbsMeanDiffPct,
            c.inDomain == c.compared
                ? " (no run says it is out of it)"
                : fmt::format("; the other {} say they are out of it (engine_domain)",
                              c.compared - c.inDomain)));
    }
    CompareOverSeeds(compared, c);
    const std::string cross
        = c.crossCompared == 0
              ? std::string("no run with cross traffic to compare")
              : fmt::format("median {:.1f} % (target {:g} %: {} at the median), p95 {:.1f} %, {} "
                            "of the {} runs with cross traffic beyond {:g} %",
                            c.medianAbsCrossDiffPct, kCrossTargetPct,
                            met(c.medianAbsCrossDiffPct, kCrossTargetPct), c.p95AbsCrossDiffPct,
                            c.runsCrossBeyondThreePct, c.crossCompared, kCrossTargetPct);
    c.lines.push_back(fmt::format("  p99 iteration time: median {:.1f} % (target {:g} %: {}); "
                                  "achieved cross traffic: {}",
                                  c.medianAbsP99DiffPct, kP99MedianTargetPct,
                                  met(c.medianAbsP99DiffPct, kP99MedianTargetPct), cross));
    if (!fctDiff.empty())
    {
        // Without a target: the flow engine's queues are shallower than the packet level's,
        // so its completion times are lower bounds, and this line says how loose.
        c.lines.push_back(
            fmt::format("  cross traffic's median flow completion time: median |diff| "
                        "{:.0f} %, median diff {:+.0f} % (10th-90th percentile "
                        "{:+.0f} to {:+.0f} %) over {} runs with flows in both",
                        c.medianAbsFctDiffPct, Quantile(fctSigned, 50), Quantile(fctSigned, 10),
                        Quantile(fctSigned, 90), fctDiff.size()));
    }
    if (!queueRatios.empty())
    {
        // Standing queues (simulation.flow_queues): the flow engine's against the packet
        // level's, where both held one at the bottleneck.
        c.lines.push_back(fmt::format("  bottleneck's mean queue, flow / packet: median {:.2f} "
                                      "(10th-90th percentile {:.2f}-{:.2f}) over {} runs with "
                                      "a queue in both",
                                      Quantile(queueRatios, 50), Quantile(queueRatios, 10),
                                      Quantile(queueRatios, 90), queueRatios.size()));
    }
    c.lines.push_back(fmt::format("  speed: the flow engine ran a median {:.0f}x faster than the "
                                  "packet level; its slowest run {:.0f}x faster than real time",
                                  c.medianSpeedup, c.slowestFlowRealTimeFactor));

    std::sort(worst.begin(), worst.end(), std::greater<>());
    std::string md = "# Flow-level engine against the packet level\n\n"
                     "Same planned points, same scenarios and seeds; differences are "
                     "flow / packet - 1. Runs censored in either engine are left out.";
    md += (what.note.empty() ? "" : " " + what.note) + "\n\n";
    for (const auto& l : c.lines)
    {
        md += "- " + l.substr(l.find_first_not_of(' ')) + "\n";
    }
    md += "\nBy series, model and transport (runs compared; signed differences in the range and "
          "the FCT column):\n\n"
          + GroupTable(compared);
    md += "\nThe largest differences in the mean iteration time:\n\n"
          "| run | packet mean (s) | flow mean (s) | mean diff (%) | cross-traffic rate diff (%) "
          "| flow run's domain |\n|---|---|---|---|---|---|\n";
    for (size_t i = 0; i < std::min<size_t>(15, worst.size()); ++i)
    {
        md += worst[i].second + "\n";
    }
    md += "\nEvery run: engines.csv.\n";
    WriteFileSetAtomically(dir, { { "engines.csv", csv }, { "engines.md", md } });
    return c;
}

} // namespace flumen
