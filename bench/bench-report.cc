#include "bench-report.h"

#include "atomic-file.h"
#include "bench-measurement.h"
#include "canonical-scenarios.h"
#include "ns3-anchor.h"
#include "ns3-event-cost.h"

#include <fmt/format.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <thread>

namespace flumen
{

using nlohmann::json;

namespace
{

std::string
UtcNow()
{
    char buf[32];
    std::time_t t = std::time(nullptr);
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
    return std::string(buf);
}

// ns-3's cost of an empty event, each repeat in a child: the one of median cost, with every
// repeat's cost (wall_us_per_event_runs).
json
EmptyEventCost(const BenchOptions& o)
{
    const uint64_t events = o.quick ? 200000 : 5000000;
    std::cerr << fmt::format("[bench] empty events: {} x {}\n", events, o.repeats);
    std::vector<json> runs;
    std::vector<double> costs;
    for (int i = 0; i < o.repeats; ++i)
    {
        json r = MeasureInChild([&] { return MeasureNs3EmptyEvents(events); });
        if (r.contains("error"))
        {
            return r;
        }
        costs.push_back(r["wall_us_per_event"].get<double>());
        runs.push_back(r);
    }
    std::sort(
        runs.begin(), runs.end(),
        [](const json& a, const json& b)
        { return a["wall_us_per_event"].get<double>() < b["wall_us_per_event"].get<double>(); });
    json r = runs[runs.size() / 2];
    r["wall_us_per_event_runs"] = costs;
    return r;
}

// One canonical scenario measured, set against the anchor's time per packet hop.
json
BenchScenario(const CanonicalScenario& c, const BenchOptions& o, double anchorPerHop,
              double emptyEventUs)
{
    const double seconds = o.simulatedS;
    json entry = { { "name", c.name }, { "scenario", c.scenario } };
    Scenario s;
    try
    {
        json user = c.scenario;
        user["simulation"]["progress_interval_s"] = 0;
        s = ResolveScenario(user, c.name);
    }
    catch (const ScenarioError& e)
    {
        // e.g. a transport this build does not have yet: said, never silently dropped.
        entry["skipped"] = e.what();
        std::cerr << fmt::format("[bench] {}: skipped: {}\n", c.name, e.what());
        return entry;
    }
    std::cerr << fmt::format("[bench] {}: {} s x {}\n", c.name, seconds, o.repeats);
    json r = RepeatedMeasurement([&] { return MeasureScenario(s, seconds); }, o.repeats);
    entry.update(r);
    if (anchorPerHop > 0 && r.contains("wall_us_per_packet_hop"))
    {
        entry["per_hop_vs_anchor"] = r["wall_us_per_packet_hop"].get<double>() / anchorPerHop;
    }
    if (!r.contains("error"))
    {
        // The flow engine on the same scenario, over ten times the simulated time (it is that
        // much faster), set against the packet level per simulated second.
        Scenario flow = s;
        flow.engine = "flow";
        json f
            = RepeatedMeasurement([&] { return MeasureScenario(flow, 10 * seconds); }, o.repeats);
        const double packetPerS = r["wall_per_simulated_s"].get<double>();
        const double flowPerS = f.value("wall_per_simulated_s", 0.0);
        if (flowPerS > 0)
        {
            f["faster_than_real_time"] = 1 / flowPerS;
            f["speedup_vs_packet"] = packetPerS / flowPerS;
        }
        if (!f.contains("error") && f["simulated_s"].get<double>() > 0 && emptyEventUs > 0)
        {
            // Its events at ns-3's own cost of an empty one: how fast the run could be at best
            // with this many events, whatever their handlers cost.
            const double perS = f["events"].get<double>() / f["simulated_s"].get<double>();
            f["events_per_simulated_s"] = perS;
            f["event_floor_faster_than_real_time"] = 1e6 / (perS * emptyEventUs);
        }
        if (!o.quick && !f.contains("error"))
        {
            // Memory over a long run: ten times longer again should hold about as much. Its
            // speed too: the run's fixed costs (building the network, the random streams'
            // set-up) weigh a tenth as much there.
            json longer = MeasureInChild([&] { return MeasureScenario(flow, 100 * seconds); });
            if (!longer.contains("error"))
            {
                f["long_run_simulated_s"] = longer["simulated_s"];
                f["long_run_wall_s"] = longer["wall_s"];
                f["long_run_peak_rss_mb"] = longer["peak_rss_mb"];
                const double wall = longer["wall_s"].get<double>();
                if (wall > 0)
                {
                    f["long_run_faster_than_real_time"]
                        = longer["simulated_s"].get<double>() / wall;
                }
            }
        }
        entry["flow_engine"] = f;
    }
    if (!o.quick && !r.contains("error"))
    {
        // Linearity: twice the simulated time should cost about twice the wall time.
        json twice = MeasureInChild([&] { return MeasureScenario(s, 2 * seconds); });
        if (!twice.contains("error"))
        {
            entry["double_time_wall_ratio"]
                = twice["wall_s"].get<double>() / r["wall_s_runs"][0].get<double>();
            entry["double_time_peak_rss_mb"] = twice["peak_rss_mb"];
        }
    }
    return entry;
}

std::string
TableRow(const std::string& name, const json& r)
{
    if (r.contains("skipped") || r.contains("error"))
    {
        std::string why = r.contains("skipped") ? r["skipped"].get<std::string>()
                                                : r["error"].get<std::string>();
        return fmt::format("{:<30} {}\n", name, why.substr(0, 90));
    }
    const json flow = r.value("flow_engine", json::object());
    auto flowColumn = [&](const char* key, const char* format) {
        return flow.contains(key) ? fmt::format(format, flow[key].get<double>()) : std::string("-");
    };
    // The flow engine's speed and peak memory over 10 and 100 times the packet level's
    // simulated time ("a/b"; the first alone without the long run).
    auto flowPair = [&](const char* key, const char* longKey, const char* suffix)
    {
        if (!flow.contains(key))
        {
            return std::string("-");
        }
        std::string text = fmt::format("{:.0f}{}", flow[key].get<double>(), suffix);
        if (flow.contains(longKey))
        {
            text += fmt::format("/{:.0f}{}", flow[longKey].get<double>(), suffix);
        }
        return text;
    };
    const std::string flowSpeed
        = flowPair("faster_than_real_time", "long_run_faster_than_real_time", "x");
    const std::string flowRss = flowPair("peak_rss_mb", "long_run_peak_rss_mb", "");
    return fmt::format(
        "{:<30} {:>9.3f} {:>9.2f} {:>10.1f} {:>12.0f} {:>11.3f} {:>9} {:>9.0f} {:>10} {:>11} "
        "{:>10} {:>12}\n",
        name, r["simulated_s"].get<double>(), r["wall_s"].get<double>(),
        r["wall_per_simulated_s"].get<double>(), r["events_per_wall_s"].get<double>(),
        r["wall_us_per_packet_hop"].get<double>(),
        r.contains("per_hop_vs_anchor")
            ? fmt::format("{:.2f}", r["per_hop_vs_anchor"].get<double>())
            : std::string("1"),
        r["peak_rss_mb"].get<double>(), flowSpeed,
        flowColumn("event_floor_faster_than_real_time", "{:.0f}x"),
        flowColumn("speedup_vs_packet", "{:.0f}x"), flowRss);
}

} // namespace

json
RunBench(const BenchOptions& o)
{
    json report;
    report["simulated_s"] = o.simulatedS;
    report["repeats"] = o.repeats;
    report["quick"] = o.quick;
    report["cores"] = std::thread::hardware_concurrency();
    report["date_utc"] = UtcNow();

    std::cerr << fmt::format("[bench] anchor: plain ns-3, 24 Gbps UDP over two 25 Gbps hops, "
                             "{} s x {}\n",
                             o.simulatedS, o.repeats);
    json anchor = RepeatedMeasurement([&] { return MeasureNs3Anchor(o.simulatedS); }, o.repeats);
    report["anchor"] = anchor;
    const double anchorPerHop = anchor.value("wall_us_per_packet_hop", 0.0);
    const json empty = EmptyEventCost(o);
    report["empty_event"] = empty;
    const double emptyEventUs = empty.value("wall_us_per_event", 0.0);

    json scenarios = json::array();
    for (const auto& c : CanonicalScenarios())
    {
        scenarios.push_back(BenchScenario(c, o, anchorPerHop, emptyEventUs));
    }
    report["scenarios"] = scenarios;
    return report;
}

std::string
FormatBenchTable(const json& report)
{
    std::string table
        = fmt::format("{:<30} {:>9} {:>9} {:>10} {:>12} {:>11} {:>9} {:>9} {:>10} {:>11} {:>10} "
                      "{:>12}\n",
                      "scenario", "sim s", "wall s", "wall/sim", "events/s", "us/pkt-hop",
                      "x anchor", "RSS MB", "flow: x RT", "flow: floor", "flow: x pkt", "flow: MB");
    table += TableRow("anchor (plain ns-3 UDP)", report["anchor"]);
    for (const auto& e : report["scenarios"])
    {
        table += TableRow(e["name"].get<std::string>(), e);
    }
    const json& empty = report.value("empty_event", json::object());
    if (empty.contains("wall_us_per_event"))
    {
        table += fmt::format(
            "ns-3's empty event: {:.3f} us (flow: floor = its events at that cost)\n",
            empty["wall_us_per_event"].get<double>());
    }
    return table;
}

void
WriteBenchReport(const std::string& path, const json& report)
{
    std::string dir = path.substr(0, path.find_last_of('/'));
    if (dir != path && !dir.empty())
    {
        std::filesystem::create_directories(dir);
    }
    WriteFileAtomically(path, report.dump(2) + "\n");
}

} // namespace flumen
