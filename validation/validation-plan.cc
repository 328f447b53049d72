#include "validation-plan.h"

#include "validation-planner.h"

#include "calibration-file.h"
#include "series-manifest.h"

#include "ns3/model-profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

// The seeds beyond the first, once the whole plan is known (a point is congested or not by
// the testbed points of its series).
void
AddCongestedSeeds(ValidationPlan& plan, int seeds)
{
    // Congested points (testbed mean >= 1.2 x the idle reference) get more seeds. The idle
    // reference is the testbed's idle run (load 0), or its lowest-load point where it has none.
    std::map<std::pair<std::string, std::string>, CurvePoint> idleRef;
    for (const auto& pp : plan.points)
    {
        const auto& v = pp.point;
        auto key = std::make_pair(v.series, v.model);
        auto it = idleRef.find(key);
        if (v.testbed && !std::isnan(v.measuredGbps)
            && (it == idleRef.end() || v.measuredGbps < it->second.x))
        {
            idleRef[key] = { v.measuredGbps, v.testbedMeanS };
        }
    }
    // Two testbed points with the same scenario share its run (the planner runs an id once);
    // their extra seeds are shared the same way.
    std::set<std::string> planned;
    for (const auto& r : plan.runs)
    {
        planned.insert(r.id);
    }
    std::vector<PoolPoint> extra;
    for (auto& pp : plan.points)
    {
        auto& v = pp.point;
        auto key = std::make_pair(v.series, v.model);
        v.congested
            = v.testbed && !v.idle && idleRef.count(key) && v.testbedMeanS >= 1.2 * idleRef[key].t;
        if (v.congested && seeds > 1)
        {
            const auto& first = *std::find_if(plan.runs.begin(), plan.runs.end(),
                                              [&](const auto& r) { return r.id == pp.runIds[0]; });
            for (int seed = 2; seed <= seeds; ++seed)
            {
                PoolPoint r = first;
                r.scenario["seed"] = seed;
                std::string label = r.scenario["name"].get<std::string>();
                const std::string version = r.about["model_version"].get<std::string>();
                r.id = detail::RunId(label, seed, r.scenario, version);
                r.about["packet_run"] = detail::PacketRunId(label, seed, r.scenario, version);
                pp.runIds.push_back(r.id);
                if (planned.insert(r.id).second)
                {
                    extra.push_back(r);
                }
            }
        }
        v.seedsPlanned = static_cast<int>(pp.runIds.size());
    }
    plan.runs.insert(plan.runs.end(), extra.begin(), extra.end());
}

} // namespace

void
CompleteValidationOptions(ValidationOptions& o)
{
    if (o.manifests.empty() || o.out.empty())
    {
        throw std::invalid_argument("expected at least one manifest and --out DIR");
    }
    if (o.seeds == 0)
    {
        o.seeds = o.quick ? 1 : 2;
    }
    if (o.engine != "packet" && o.engine != "flow" && o.engine != "auto")
    {
        throw std::invalid_argument("--engine: expected packet, flow or auto, got '" + o.engine
                                    + "'");
    }
    if (!o.comparePacketRuns.empty() && o.engine == "packet")
    {
        throw std::invalid_argument("--compare-engines: needs --engine flow or auto (the packet "
                                    "runs are the reference it compares with)");
    }
    if (std::error_code ec;
        !o.comparePacketRuns.empty() && !std::filesystem::is_directory(o.comparePacketRuns, ec))
    {
        throw std::invalid_argument(
            "--compare-engines: '" + o.comparePacketRuns
            + "' is not a folder (expected a packet validation's points folder, e.g. "
              "results/validation/points)");
    }
    for (const auto& m : o.models)
    {
        if (!ns3::ModelProfile::BuiltIn(m))
        {
            throw std::invalid_argument("--models: '" + m + "' is not a built-in model");
        }
    }
}

std::map<std::string, std::vector<std::string>>
RunsBySeries(const ValidationPlan& plan)
{
    std::map<std::string, std::vector<std::string>> groups;
    for (const auto& run : plan.runs)
    {
        groups[run.about.value("series", std::string("runs"))].push_back(run.id);
    }
    return groups;
}

ValidationPlan
PlanValidation(const ValidationOptions& o)
{
    json calibration;
    detail::ValidationPlanner planner(o, o.calibrationFile.empty() ? nullptr : &calibration);
    if (!o.calibrationFile.empty())
    {
        calibration = LoadCalibration(o.calibrationFile);
    }
    std::vector<std::pair<std::string, std::string>> testbedSettings;
    std::set<std::string> seriesFound;
    for (const auto& m : o.manifests)
    {
        Series series = LoadSeries(m);
        seriesFound.insert(series.name);
        if (!o.series.empty() && !o.series.count(series.name))
        {
            continue;
        }
        if (!series.scenario.empty())
        {
            testbedSettings.push_back({ series.name, series.scenario.dump() });
        }
        for (const auto& [model, own] : series.modelScenario)
        {
            if (o.models.empty() || o.models.count(model))
            {
                testbedSettings.push_back({ series.name + " / " + model, own.dump() });
            }
        }
        for (const auto& c : series.cdfs)
        {
            if (!c.scenario.empty() && (o.models.empty() || o.models.count(c.model)))
            {
                testbedSettings.push_back(
                    { fmt::format("{} / {} CDF at {} Gbps over {}", series.name, c.model,
                                  c.requestedGbps, c.transport),
                      c.scenario.dump() });
            }
        }
        planner.AddSeries(series);
    }
    for (const auto& name : o.series)
    {
        if (!seriesFound.count(name))
        {
            throw std::invalid_argument(
                fmt::format("series '{}': not in the manifests given (their series: {})", name,
                            fmt::join(seriesFound, ", ")));
        }
    }
    ValidationPlan plan = planner.Take();
    if (plan.points.empty() && plan.cdfs.empty() && plan.rings.empty())
    {
        throw std::invalid_argument(std::string("nothing to simulate in the manifests given")
                                    + (o.models.empty() ? "" : " for the models asked for"));
    }
    plan.iterations = planner.Iterations();
    plan.warmup = planner.Warmup();
    plan.testbedSettings = testbedSettings;
    plan.testbedValues = planner.TestbedValues();
    if (o.testbedValues.empty() && !plan.testbedValues.empty())
    {
        const json& t = calibration["testbed"];
        std::vector<std::string> on;
        if (t.contains("fitted_on") && t["fitted_on"].is_array())
        {
            for (const auto& s : t["fitted_on"])
            {
                on.push_back(s.is_string() ? s.get<std::string>() : s.dump());
            }
        }
        plan.testbedValuesFrom = fmt::format("{}, fitted on {}", o.calibrationFile,
                                             on.empty() ? "unrecorded series"
                                                        : fmt::format("{}", fmt::join(on, ", ")));
    }
    AddCongestedSeeds(plan, o.seeds);
    return plan;
}

} // namespace flumen
