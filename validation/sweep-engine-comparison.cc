#include "sweep-engine-comparison.h"

#include "scenario.h"

#include <filesystem>
#include <map>

namespace flumen
{

using nlohmann::json;

namespace
{

const char* const kEngineKey = "simulation.engine";

// A point's identity without its engine: its other assignments and its seed
// ("cross_traffic.load_gbps=15 seed=1").
std::string
WithoutEngine(const SweepPoint& p)
{
    std::string label;
    for (const auto& [key, value] : p.assignments)
    {
        if (key != kEngineKey)
        {
            label
                += key + "=" + (value.is_string() ? value.get<std::string>() : value.dump()) + " ";
        }
    }
    return label + "seed=" + std::to_string(p.seed);
}

std::string
EngineOf(const SweepPoint& p)
{
    for (const auto& [key, value] : p.assignments)
    {
        if (key == kEngineKey && value.is_string())
        {
            return value.get<std::string>();
        }
    }
    return "";
}

} // namespace

json
BothEnginesGrid()
{
    return { { kEngineKey, { "packet", "flow" } } };
}

EngineComparison
CompareSweepEngines(const Sweep& sweep, const std::string& out)
{
    std::map<std::string, std::string> packetIds;
    for (const auto& p : sweep.points)
    {
        if (EngineOf(p) == "packet")
        {
            packetIds[WithoutEngine(p)] = p.id;
        }
    }
    const std::string series = std::filesystem::path(sweep.source).stem().string();
    std::vector<PoolPoint> flowRuns;
    for (const auto& p : sweep.points)
    {
        if (EngineOf(p) == "flow")
        {
            const auto packet = packetIds.find(WithoutEngine(p));
            // The model and transport the point resolves to (the sweep file may leave them to
            // the defaults): the comparison's table groups by them.
            const Scenario resolved = ResolveScenario(p.scenario, sweep.source);
            const std::vector<const Scenario*> jobs = Jobs(resolved);
            const json job = jobs.empty() ? json::object()
                                          : json{ { "model", jobs[0]->modelName },
                                                  { "transport", jobs[0]->transport } };
            flowRuns.push_back(
                { p.id,
                  { { "job", job } },
                  { { "series", series },
                    { "point", WithoutEngine(p) },
                    { "packet_run", packet == packetIds.end() ? "" : packet->second } } });
        }
    }
    const std::filesystem::path points = std::filesystem::path(out) / "points";
    return CompareEngines(flowRuns, points, points, out);
}

} // namespace flumen
