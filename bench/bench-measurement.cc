#include "bench-measurement.h"

#include "child-process.h"
#include "run-scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

namespace flumen
{

using nlohmann::json;

namespace
{

double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n == 0 ? 0.0 : (n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]));
}

} // namespace

json
MeasureScenario(const Scenario& s, double seconds)
{
    using Clock = std::chrono::steady_clock;
    RunOptions options;
    options.fixedDurationS = seconds;
    // link.csv and flows.csv written as a run writes them, while it goes (memory flat).
    std::string dir = (std::filesystem::temp_directory_path() / "flumen-bench-XXXXXX").string();
    if (!::mkdtemp(dir.data()))
    {
        throw std::runtime_error(fmt::format("{}: cannot create: {}", dir, std::strerror(errno)));
    }
    options.streamDir = dir;
    auto t0 = Clock::now();
    RunOutput out;
    try
    {
        out = RunScenario(s, options);
    }
    catch (...)
    {
        std::filesystem::remove_all(dir);
        throw;
    }
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    std::filesystem::remove_all(dir);
    const RunSummary& sm = out.summary;
    return { { "simulated_s", sm.simulatedTimeS },
             { "wall_s", wall },
             { "events", sm.events },
             { "tor_packets", sm.torForwardedPackets },
             { "packet_hops", sm.packetHops },
             { "iterations_done", out.rows.size() } };
}

json
MeasureInChild(const Measurement& measure)
{
    ChildResult child = RunInChild(JsonTask(measure));
    json r = JsonAnswer(child, "the measurement process died");
    r["peak_rss_mb"] = child.peakRssMb;
    return r;
}

json
RepeatedMeasurement(const Measurement& measure, int repeats)
{
    std::vector<json> runs;
    std::vector<double> walls;
    for (int i = 0; i < repeats; ++i)
    {
        json r = MeasureInChild(measure);
        if (r.contains("error"))
        {
            return r;
        }
        walls.push_back(r["wall_s"].get<double>());
        runs.push_back(r);
    }
    double med = Median(walls);
    auto best = std::min_element(runs.begin(), runs.end(),
                                 [&](const json& a, const json& b) {
                                     return std::abs(a["wall_s"].get<double>() - med)
                                            < std::abs(b["wall_s"].get<double>() - med);
                                 });
    json r = *best;
    r["wall_s"] = med;
    r["wall_s_runs"] = walls;
    double sim = r["simulated_s"].get<double>();
    double hops = r["packet_hops"].get<double>();
    r["wall_per_simulated_s"] = sim > 0 ? med / sim : 0.0;
    r["events_per_wall_s"] = med > 0 ? r["events"].get<double>() / med : 0.0;
    r["wall_us_per_packet_hop"] = hops > 0 ? med * 1e6 / hops : 0.0;
    return r;
}

} // namespace flumen
