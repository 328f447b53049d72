#include "calibration-plan.h"

#include "child-process.h"
#include "run-scenario.h"
#include "scenario.h"

#include "ns3/model-profile.h"
#include "ns3/star-topology-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

// A testbed point to simulate, with its series' experiment and settings.
IdlePoint
PointOf(const Series& series, const SeriesPoint& sp)
{
    IdlePoint p;
    p.series = series.name;
    p.configuration = series.configuration;
    p.transport = series.transport;
    p.workers = series.workers;
    p.model = sp.model;
    p.measuredMeanS = sp.meanS;
    p.measuredP99S = sp.p99S;
    p.source = sp.source;
    p.testbedSettings = ScenarioOf(series, sp.model);
    return p;
}

double
SimulateIdle(const IdlePoint& p, double computeS, double backwardShare, double jitterCv,
             uint32_t iterations, double hostCeilingGbps = 0)
{
    json user = { { "name", "calibrate-" + p.series + "-" + p.model },
                  { "topology", { { "configuration", p.configuration } } },
                  { "job",
                    { { "model", p.model },
                      { "transport", p.transport },
                      { "iterations", iterations },
                      { "warmup_iterations", 1 },
                      { "compute_s", computeS },
                      { "backward_share", backwardShare },
                      { "compute_jitter_cv", jitterCv } } },
                  { "cross_traffic", { { "type", "none" } } },
                  { "outputs", { { "link_bin_us", 0 } } },
                  { "simulation", { { "progress_interval_s", 0 } } } };
    if (p.loadGbps > 0)
    {
        user["cross_traffic"] = { { "type", p.crossTraffic }, { "load_gbps", p.loadGbps } };
    }
    if (hostCeilingGbps > 0)
    {
        user["job"]["tcp"] = { { "host_ceiling_gbps", hostCeilingGbps } };
    }
    user.merge_patch(p.testbedSettings);
    Scenario s = ResolveScenario(user, p.source);
    const size_t workers = ns3::StarTopologyHelper::JobHosts(s.configuration, s.hosts).size();
    if (workers != static_cast<size_t>(p.workers))
    {
        throw std::runtime_error(fmt::format("{}: the series has {} workers; configuration {} "
                                             "runs the job on {}",
                                             p.source, p.workers, p.configuration, workers));
    }
    RunOutput out = RunScenario(s);
    return out.summary.iterationTimeS.mean;
}

} // namespace

CalibrationPoints
LoadCalibrationPoints(const std::vector<std::string>& manifests,
                      const std::vector<std::string>& settings)
{
    CalibrationPoints found;
    std::vector<IdlePoint>& points = found.idle;
    std::vector<IdlePoint>& tcpReferences = found.tcpReferences;
    for (const auto& m : manifests)
    {
        Series series = LoadSeries(m);
        for (const auto& assignment : settings)
        {
            ApplyOverride(series.scenario, assignment); // checked by the caller's plan already
            for (auto& [model, own] : series.modelScenario)
            {
                ApplyOverride(own, assignment); // --set wins over a model's own setting too
            }
        }
        bool any = false;
        // No idle run in a TCP series: each model's near-idle point serves as the
        // reference for the hosts' TCP ceiling (declared as fitted beyond idle runs).
        for (const SeriesPoint* sp : NearIdleTcpReferences(series))
        {
            if (ns3::ModelProfile::BuiltIn(sp->model))
            {
                IdlePoint p = PointOf(series, *sp);
                p.loadGbps = PointLoadGbps(*sp);
                p.crossTraffic = series.crossTraffic;
                tcpReferences.push_back(p);
                any = true;
            }
        }
        for (const auto& sp : series.points)
        {
            if (!sp.idle)
            {
                continue;
            }
            if (!ns3::ModelProfile::BuiltIn(sp.model))
            {
                std::cerr << "flumen: " << sp.source << ": model '" << sp.model
                          << "' is not built in; skipped\n";
                continue;
            }
            IdlePoint p = PointOf(series, sp);
            p.spread = std::max(0.0, sp.p99S - sp.meanS) / sp.meanS;
            points.push_back(p);
            any = true;
        }
        if (!any)
        {
            std::cerr << "flumen: note: " << m
                      << " has no run without cross traffic (nor a TCP point at most "
                      << kNearIdleGbps << " Gbps): nothing to calibrate from it\n";
        }
    }
    return found;
}

double
JitterCvFor(double spread, double backwardShare)
{
    double s = backwardShare;
    return std::min(0.3, spread / 2.326 / std::sqrt((1 - s) * (1 - s) + s * s));
}

std::vector<double>
SimulateIdleRuns(const std::vector<IdleRun>& runs, uint32_t iterations, unsigned jobs)
{
    std::vector<ChildTask> tasks;
    for (const IdleRun& r : runs)
    {
        tasks.push_back(JsonTask(
            [r, iterations]
            {
                return json{ { "mean_s",
                               SimulateIdle(*r.point, r.computeS, r.backwardShare, r.jitterCv,
                                            iterations, r.hostCeilingGbps) } };
            }));
    }
    // Children finish in any order: whichever ends first frees its core for the next run, so
    // that a long fit never keeps a core idle.
    std::vector<double> means;
    for (const ChildResult& r : RunInChildren(tasks, jobs))
    {
        json answer = JsonAnswer(r, "the simulation process died");
        if (answer.contains("error"))
        {
            throw std::runtime_error(answer["error"].get<std::string>());
        }
        means.push_back(answer["mean_s"].get<double>());
    }
    return means;
}

} // namespace flumen
