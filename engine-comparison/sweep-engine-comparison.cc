#include "sweep-engine-comparison.h"

#include "scenario.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

const char* const kEngineKey = "simulation.engine";

// A point's assignments but its engine, for pairing (`exact`: the values as JSON, so that 15
// and "15" differ) or to read ("cross_traffic.load_gbps=15 "); its runs at other seeds share
// them.
std::string
AssignmentsWithoutEngine(const SweepPoint& p, bool exact)
{
    std::string label;
    for (const auto& [key, value] : p.assignments)
    {
        if (key != kEngineKey)
        {
            label += key + "="
                     + (value.is_string() && !exact ? value.get<std::string>() : value.dump())
                     + " ";
        }
    }
    return label;
}

// A point without its engine, its seed included ("cross_traffic.load_gbps=15 seed=1").
std::string
WithoutEngine(const SweepPoint& p, bool exact)
{
    return AssignmentsWithoutEngine(p, exact) + "seed=" + std::to_string(p.seed);
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

void
MarkOrCheckBothEngines(const std::string& out, bool compareEngines)
{
    const std::filesystem::path marker = std::filesystem::path(out) / kBothEnginesMarker;
    if (compareEngines)
    {
        std::filesystem::create_directories(out);
        std::ofstream(marker) << "swept with --compare-engines: each point in both engines\n";
    }
    else if (std::filesystem::exists(marker))
    {
        throw std::invalid_argument(
            out
            + ": this folder was swept with --compare-engines (each point's identity holds "
              "its engine); add --compare-engines to use it");
    }
}

EngineComparison
CompareSweepEngines(const Sweep& sweep, const std::string& out)
{
    std::map<std::string, std::string> packetIds;
    for (const auto& p : sweep.points)
    {
        if (EngineOf(p) == "packet")
        {
            packetIds[WithoutEngine(p, true)] = p.id;
        }
    }
    std::string series = std::filesystem::path(sweep.source).stem().string();
    std::replace(series.begin(), series.end(), ',', ';'); // one plain CSV cell
    std::vector<PoolPoint> flowRuns;
    for (const auto& p : sweep.points)
    {
        if (EngineOf(p) == "flow")
        {
            const auto packet = packetIds.find(WithoutEngine(p, true));
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
                    { "point", WithoutEngine(p, false) },
                    { "point_at_any_seed", AssignmentsWithoutEngine(p, false) },
                    { "packet_run", packet == packetIds.end() ? "" : packet->second } } });
        }
    }
    // Both engines' runs in one folder, each packet run by its exact id: a search by point and
    // seed could find another point's run, or the flow run itself.
    const std::filesystem::path points = std::filesystem::path(out) / "points";
    return CompareEngines(flowRuns, points, points, out, { PacketRunMatch::ExactId, "" });
}

} // namespace flumen
