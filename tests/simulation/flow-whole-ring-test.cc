// The flow engine's whole ring (simulation.flow_ring "whole") against its slices on the same
// scenario and seed, where it applies (no standing queues): a ring of many workers on a fabric
// beside web-search (RoCE, simulation.flow_queues false), and the TCP quickstart; and the rule
// that keeps it away from standing queues.
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <iostream>

using nlohmann::json;
using namespace flumen;

namespace
{

// Runs `scenario` with each simulation.flow_ring; returns their summaries (slices, whole).
std::pair<json, json>
SlicesAndWhole(test::TempDir& dir, const std::string& scenario, const std::string& sets = "")
{
    json runs[2];
    const char* modes[2] = { "slices", "whole" };
    for (int i = 0; i < 2; ++i)
    {
        const std::string out = dir.Path() + "/" + modes[i];
        auto r = test::RunFlumen(scenario + " --quiet " + sets
                                 + " --set simulation.flow_ring=" + modes[i] + " --out " + out);
        EXPECT_EQ(r.exitCode, 0) << r.output;
        runs[i] = json::parse(test::ReadFile(out + "/summary.json"));
    }
    return { runs[0], runs[1] };
}

void
ExpectSameIterationsAtFewerEvents(const std::string& what, const json& slices, const json& whole,
                                  double tolerance, double fewer)
{
    const double a = slices["iteration_time_s"]["mean"];
    const double b = whole["iteration_time_s"]["mean"];
    const double events = double(slices["events"]) / double(whole["events"]);
    std::cout << "[measure] " << what << ": mean " << a << " s slices, " << b << " s whole ring ("
              << (b / a - 1) * 100 << " %); " << events << "x the events with slices\n";
    EXPECT_NEAR(b / a, 1.0, tolerance) << what;
    EXPECT_GT(events, fewer) << what;
    EXPECT_NEAR(double(whole["cross_traffic"]["achieved_gbps"]),
                double(slices["cross_traffic"]["achieved_gbps"]),
                0.05 * double(slices["cross_traffic"]["achieved_gbps"]))
        << what;
}

} // namespace

TEST(FlowWholeRing, ManyWorkersOnAFabricBesideWebSearchAsTheSlicesAtFarFewerEvents)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("fabric.json", R"({
      "seed": 3,
      "topology": {"configuration": "A", "hosts": 32, "leaves": 2, "spines": 2,
                   "link_rate_gbps": 100, "uplink_rate_gbps": 400,
                   "switch_queue": {"discipline": "fifo"}},
      "job": {"model": "resnet50", "transport": "rdma", "iterations": 3, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 50},
      "simulation": {"engine": "flow", "flow_queues": false},
      "outputs": {"link_bin_us": 0}})");
    const auto [slices, whole] = SlicesAndWhole(dir, scenario);
    ExpectSameIterationsAtFewerEvents("32 workers, leaf-spine, web-search 50 Gbps", slices, whole,
                                      0.01, 20);
}

TEST(FlowWholeRing, TheTcpQuickstartAsTheSlices)
{
    test::TempDir dir;
    const auto [slices, whole] = SlicesAndWhole(dir, FLUMEN_SOURCE_DIR "/scenarios/quickstart.json",
                                                "--set simulation.engine=flow");
    ExpectSameIterationsAtFewerEvents("the quickstart (TCP, iperf 17 Gbps)", slices, whole, 0.01,
                                      5);
}

TEST(FlowWholeRing, IsRefusedWhereStandingQueuesForm)
{
    const json queued = { { "job", { { "transport", "rdma" } } },
                          { "topology", { { "switch_queue", { { "discipline", "fifo" } } } } },
                          { "simulation", { { "engine", "flow" }, { "flow_ring", "whole" } } } };
    EXPECT_NE(test::ScenarioErrorOf(queued).find(
                  "key 'simulation.flow_ring': \"whole\" runs the ring's hops in step"),
              std::string::npos)
        << test::ScenarioErrorOf(queued);
    json unqueued = queued;
    unqueued["simulation"]["flow_queues"] = false;
    EXPECT_EQ(test::ScenarioErrorOf(unqueued), "");
    json packet = queued;
    packet["simulation"]["engine"] = "packet"; // (the packet level has no whole ring to refuse)
    EXPECT_EQ(test::ScenarioErrorOf(packet), "");
}
