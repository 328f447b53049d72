#include "scale-bench.h"

#include "bench-measurement.h"
#include "run-scenario.h"
#include "scenario.h"

#include "ns3/rdma-nic.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <iostream>
#include <thread>
#include <utility>

namespace flumen
{

using nlohmann::json;

namespace
{

constexpr double kHostGbps = 100;
constexpr double kUplinkGbps = 400;
constexpr uint32_t kMaxHostsPerLeaf = 32;
constexpr double kWebSearchGbps = 50;           // from S0 to S1 (configuration A), half a host link
constexpr uint64_t kProbeParameters = 25000000; // one 100 MB fp32 tensor, ResNet-50's size

json
Topology(uint32_t workers, double oversubscription)
{
    const ScaleFabric f = ScaleFabricFor(workers, oversubscription);
    return { { "configuration", "A" },
             { "hosts", workers },
             { "leaves", f.leaves },
             { "spines", f.spines },
             { "link_rate_gbps", kHostGbps },
             { "uplink_rate_gbps", f.uplinkGbps },
             // The testbed's tail-drop FIFO, as the canonical bench scenarios.
             { "switch_queue", { { "discipline", "fifo" } } } };
}

json
Simulation(const std::string& collective, const std::string& ring)
{
    // A run stopped by the budget is reported, not failed (how far the job got).
    json s = { { "engine", "flow" },
               { "on_max_time", "report" },
               { "max_time_s", 1000 },
               { "progress_interval_s", 0 } };
    // (Asked, not auto's choice: auto would take the whole ring at these sizes.)
    s["flow_ring"] = ring;
    if (ring == "whole" && collective != "ring")
    {
        // The whole ring keeps the standing queues (NCCL's window on every hop); the whole
        // trees run only where none forms: max-min sharing at the ports.
        s["flow_queues"] = false;
    }
    return s;
}

// A name's ring part: "ring" (slices) or "ring-whole".
std::string
RingName(const std::string& collective, const std::string& ring)
{
    return ring == "whole" ? collective + "-whole" : collective;
}

// One point in this process: the run's figures, or how far it got within the budget.
json
MeasurePoint(const ScalePoint& p, double budgetS)
{
    const Scenario s = ResolveScenario(p.scenario, p.name);
    RunOptions options;
    options.wallBudgetS = budgetS;
    const auto t0 = std::chrono::steady_clock::now();
    const RunOutput out = RunScenario(s, options);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const RunSummary& sm = out.summary;
    json r = { { "simulated_s", sm.simulatedTimeS },
               { "wall_s", wall },
               { "events", sm.events },
               { "finished", sm.jobFinished.value_or(false) },
               { "iterations_done", sm.unfinished ? sm.unfinished->iterationsCompleted
                                                  : sm.iterations + sm.warmupIterations } };
    if (sm.model)
    {
        r["no_contention_iteration_s"] = sm.model->idleEstimateS;
        r["collective_at_line_rate_s"] = sm.model->idleEstimateS - sm.model->computeS;
    }
    if (sm.jobFinished.value_or(false))
    {
        r["iteration_time_s"] = sm.iterationTimeS.mean;
        if (sm.phasesS)
        {
            r["wait_s"] = sm.phasesS->wait;
        }
    }
    r["cross_achieved_gbps"] = sm.crossTraffic.achievedGbps;
    return r;
}

// The alpha-beta figures of a probe point: one ring all-reduce of the probe tensor.
void
AddAlphaBeta(json& entry, const ScalePoint& p)
{
    const Scenario s = ResolveScenario(p.scenario, p.name);
    const uint32_t n = p.workers;
    // The ring runs over S0..S(n-1) in order: a hop within a leaf crosses 2 links, one between
    // leaves (as many as there are leaves, the wrap-around included) 4; alpha is their mean.
    const double alpha = s.linkDelayUs * 1e-6 * (2.0 * (n - s.leaves) + 4.0 * s.leaves) / n;
    // Payload at line rate: RoCE's headers on the wire.
    const double payloadGbps = s.linkRateGbps * s.rdmaMtuBytes
                               / static_cast<double>(ns3::RdmaNic::WireBytes(s.rdmaMtuBytes));
    const uint64_t bytes = kProbeParameters * 4;
    const double formula = RingAlphaBetaS(bytes, n, alpha, payloadGbps);
    const double bandwidthTerm = RingAlphaBetaS(bytes, n, 0, payloadGbps);
    entry["alpha_s"] = alpha;
    entry["payload_gbps"] = payloadGbps;
    entry["alpha_beta_s"] = formula;
    entry["bandwidth_term_s"] = bandwidthTerm;
    if (entry.contains("wait_s"))
    {
        const double measured = entry["wait_s"].get<double>();
        entry["allreduce_vs_alpha_beta"] = measured / formula;
        entry["allreduce_vs_bandwidth_term"] = measured / bandwidthTerm;
    }
}

std::string
Fmt(const json& v, const char* spec)
{
    return v.is_number() ? fmt::format(fmt::runtime(spec), v.get<double>()) : "-";
}

} // namespace

ScaleFabric
ScaleFabricFor(uint32_t workers, double oversubscription)
{
    ScaleFabric f;
    const uint32_t perLeaf = std::max(1u, std::min(kMaxHostsPerLeaf, workers / 2));
    f.leaves = (workers + perLeaf - 1) / perLeaf;
    // As many 400 Gbps uplinks as the ratio asks, at least one (then slower, to keep the ratio).
    const double upGbps = perLeaf * kHostGbps / oversubscription;
    f.spines = std::max(1u, static_cast<uint32_t>(std::floor(upGbps / kUplinkGbps)));
    f.uplinkGbps = upGbps / f.spines;
    return f;
}

std::vector<ScalePoint>
ScalePoints(const std::vector<uint32_t>& workers)
{
    std::vector<ScalePoint> points;
    for (uint32_t n : workers)
    {
        for (double ratio : { 1.0, 4.0 })
        {
            for (const auto& [collective, ring] :
                 { std::pair{ "ring", "slices" }, std::pair{ "ring", "whole" },
                   std::pair{ "nccl_tree", "slices" }, std::pair{ "nccl_tree", "whole" } })
            {
                ScalePoint p;
                p.kind = "loaded";
                p.workers = n;
                p.oversubscription = ratio;
                p.collective = collective;
                p.ring = ring;
                p.name
                    = fmt::format("{}w-{:g}to1-{}-websearch", n, ratio, RingName(collective, ring));
                p.scenario = { { "name", p.name },
                               { "topology", Topology(n, ratio) },
                               { "job",
                                 { { "model", "resnet50" },
                                   { "transport", "rdma" },
                                   { "collective", collective },
                                   { "iterations", 1 },
                                   { "warmup_iterations", 0 } } },
                               { "cross_traffic",
                                 { { "type", "websearch" }, { "load_gbps", kWebSearchGbps } } },
                               { "simulation", Simulation(collective, ring) } };
                points.push_back(p);
            }
        }
        // One all-reduce of one tensor, no cross traffic, no compute to speak of: the wait
        // phase of the measured iteration is the all-reduce (Horovod's cycle at its floor).
        for (const char* ring : { "slices", "whole" })
        {
            ScalePoint p;
            p.kind = "alpha-beta";
            p.workers = n;
            p.collective = "ring";
            p.ring = ring;
            p.name = fmt::format("{}w-1to1-{}-alpha-beta", n, RingName("ring", ring));
            p.scenario = { { "name", p.name },
                           { "topology", Topology(n, 1.0) },
                           { "models",
                             { { "allreduce-probe",
                                 { { "parameters", kProbeParameters },
                                   { "compute_s", 0.001 },
                                   { "compute_jitter_cv", 0 } } } } },
                           { "job",
                             { { "model", "allreduce-probe" },
                               { "transport", "rdma" },
                               { "iterations", 2 },
                               { "warmup_iterations", 1 },
                               { "horovod", { { "cycle_time_ms", 0.001 } } } } },
                           { "cross_traffic", { { "type", "none" } } },
                           { "simulation", Simulation("ring", ring) } };
            points.push_back(p);
        }
    }
    return points;
}

double
RingAlphaBetaS(uint64_t bytes, uint32_t ranks, double alphaS, double payloadGbps)
{
    if (ranks < 2 || bytes == 0)
    {
        return 0;
    }
    const double steps = 2.0 * (ranks - 1);
    return steps * alphaS + steps / ranks * bytes * 8 / (payloadGbps * 1e9);
}

json
RunScaleBench(const ScaleBenchOptions& o)
{
    json report = { { "budget_s", o.budgetS },
                    { "workers", o.workers },
                    { "cores", std::thread::hardware_concurrency() } };
    char date[32];
    std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    report["date_utc"] = date;
    json points = json::array();
    for (const ScalePoint& p : ScalePoints(o.workers))
    {
        std::cerr << fmt::format("[bench --scale] {}: budget {} s\n", p.name, o.budgetS);
        json entry = { { "name", p.name },
                       { "kind", p.kind },
                       { "workers", p.workers },
                       { "oversubscription", p.oversubscription },
                       { "collective", p.collective },
                       { "ring", p.ring },
                       { "scenario", p.scenario } };
        entry.update(MeasureInChild([&] { return MeasurePoint(p, o.budgetS); }));
        if (!entry.contains("error"))
        {
            const double wall = entry["wall_s"].get<double>();
            const double sim = entry["simulated_s"].get<double>();
            entry["wall_per_simulated_s"] = sim > 0 ? wall / sim : 0.0;
            if (entry["finished"].get<bool>())
            {
                entry["wall_per_iteration_s"] = wall / entry["iterations_done"].get<double>();
            }
            if (p.kind == "alpha-beta")
            {
                AddAlphaBeta(entry, p);
            }
        }
        points.push_back(entry);
    }
    report["points"] = points;
    return report;
}

std::string
FormatScaleTable(const json& report)
{
    std::string out = fmt::format("{:<34} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7}\n",
                                  "point", "finished", "sim s", "wall s", "wall/iter", "M events",
                                  "RSS MB", "iter s", "vs a-b", "vs bw");
    for (const json& p : report["points"])
    {
        if (p.contains("error"))
        {
            out += fmt::format("{:<34} error: {}\n", p["name"].get<std::string>(),
                               p["error"].get<std::string>());
            continue;
        }
        out += fmt::format("{:<34} {:>8} {:>8} {:>8} {:>9} {:>9} {:>7} {:>8} {:>7} {:>7}\n",
                           p["name"].get<std::string>(), p["finished"].get<bool>() ? "yes" : "no",
                           Fmt(p["simulated_s"], "{:.4f}"), Fmt(p["wall_s"], "{:.1f}"),
                           Fmt(p.value("wall_per_iteration_s", json()), "{:.1f}"),
                           Fmt(json(p["events"].get<double>() / 1e6), "{:.2f}"),
                           Fmt(p["peak_rss_mb"], "{:.0f}"),
                           Fmt(p.value("iteration_time_s", json()), "{:.4f}"),
                           Fmt(p.value("allreduce_vs_alpha_beta", json()), "{:.4f}"),
                           Fmt(p.value("allreduce_vs_bandwidth_term", json()), "{:.4f}"));
    }
    return out;
}

} // namespace flumen
