// The flow engine's whole ring (simulation.flow_ring "whole") against its slices on the same
// scenario and seed: a ring of many workers on a fabric beside web-search (RoCE, without and
// with standing queues), on a congested ToR behind a standing queue, and the TCP quickstart; the
// whole trees of every tree collective likewise; the rules that keep them away from standing
// queues (all but a ring under NCCL's flow control); and what flow_ring auto chooses.
#include "scenario.h"
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
    std::cout << "[measure] " << what << ": mean " << a << " s slices, " << b << " s whole ("
              << (b / a - 1) * 100 << " %); exposed all-reduce "
              << double(slices["phases_s"]["wait"]) * 1e3 << " / "
              << double(whole["phases_s"]["wait"]) * 1e3 << " ms; " << events
              << "x the events with slices\n";
    EXPECT_NEAR(b / a, 1.0, tolerance) << what;
    EXPECT_GT(events, fewer) << what;
    // The same bytes: the goodput moves only as the time does.
    EXPECT_NEAR(double(whole["dl_goodput_gbps"]) * b, double(slices["dl_goodput_gbps"]) * a,
                tolerance * double(slices["dl_goodput_gbps"]) * a)
        << what;
    EXPECT_NEAR(double(whole["cross_traffic"]["achieved_gbps"]),
                double(slices["cross_traffic"]["achieved_gbps"]),
                0.05 * double(slices["cross_traffic"]["achieved_gbps"]))
        << what;
}

} // namespace

// 32 RoCE workers on 2 leaves and 2 spines beside 50 Gbps of web-search, with or without the
// FIFO's standing queues.
static std::string
FabricScenario(test::TempDir& dir, bool queues)
{
    json j = json::parse(R"({
      "seed": 3,
      "topology": {"configuration": "A", "hosts": 32, "leaves": 2, "spines": 2,
                   "link_rate_gbps": 100, "uplink_rate_gbps": 400,
                   "switch_queue": {"discipline": "fifo"}},
      "job": {"model": "resnet50", "transport": "rdma", "iterations": 3, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 50},
      "simulation": {"engine": "flow"},
      "outputs": {"link_bin_us": 0}})");
    j["simulation"]["flow_queues"] = queues;
    return dir.Write(queues ? "queued.json" : "fabric.json", j.dump());
}

TEST(FlowWholeRing, ManyWorkersOnAFabricBesideWebSearchAsTheSlicesAtFarFewerEvents)
{
    test::TempDir dir;
    const auto [slices, whole] = SlicesAndWhole(dir, FabricScenario(dir, false));
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

// Behind standing queues (RoCE at a FIFO switch) only a ring of queue pairs under NCCL's flow
// control runs whole (its window on every hop); a tree, a ring without flow control, or a
// marking switch (DCQCN per queue pair) keeps the slices.
TEST(FlowWholeRing, BehindStandingQueuesOnlyARingUnderNcclsFlowControl)
{
    const json queued = { { "job", { { "transport", "rdma" } } },
                          { "topology", { { "switch_queue", { { "discipline", "fifo" } } } } },
                          { "simulation", { { "engine", "flow" }, { "flow_ring", "whole" } } } };
    EXPECT_EQ(test::ScenarioErrorOf(queued), "");
    const std::string refused = "key 'simulation.flow_ring': \"whole\" runs the collective's hops";
    for (const json& change :
         { json{ { "job", { { "collective", "nccl_tree" } } } },
           json{ { "job", { { "nccl", { { "flow_control", false } } } } } },
           json{ { "topology", { { "switch_queue", { { "discipline", "ecn" } } } } },
                 { "job", { { "rdma", { { "cnp_interval_us", 50 } } } } } } })
    {
        json j = queued;
        j.merge_patch(change);
        EXPECT_NE(test::ScenarioErrorOf(j).find(refused), std::string::npos)
            << change.dump() << ": " << test::ScenarioErrorOf(j);
        json unqueued = j;
        unqueued["simulation"]["flow_queues"] = false;
        EXPECT_EQ(test::ScenarioErrorOf(unqueued), "") << change.dump();
        json packet = j;
        packet["simulation"]["engine"] = "packet"; // (the packet level has no whole ring)
        EXPECT_EQ(test::ScenarioErrorOf(packet), "") << change.dump();
    }
}

// 32 workers on one 25 Gbps ToR, web-search into S0 at 18 Gbps behind the testbed's deep FIFO
// (a standing queue where the ring's window binds), and 32 on a leaf-spine beside 50 Gbps of
// web-search: the whole ring as the slices.
TEST(FlowWholeRing, BehindStandingQueuesAsTheSlicesAtFarFewerEvents)
{
    test::TempDir dir;
    const std::string tor = dir.Write("tor.json", R"({
      "topology": {"configuration": "B", "hosts": 32,
                   "switch_queue": {"discipline": "fifo", "buffer_bytes": 296875000}},
      "job": {"model": "resnet50", "transport": "rdma", "iterations": 4, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 18},
      "simulation": {"engine": "flow"},
      "outputs": {"link_bin_us": 0}})");
    test::TempDir torRuns;
    const auto [slices, whole] = SlicesAndWhole(torRuns, tor);
    ExpectSameIterationsAtFewerEvents("32 workers on a ToR beside 18 Gbps of web-search, queued",
                                      slices, whole, 0.015, 5);
    test::TempDir fabricRuns;
    const auto [fabricSlices, fabricWhole] = SlicesAndWhole(fabricRuns, FabricScenario(dir, true));
    ExpectSameIterationsAtFewerEvents("32 workers, leaf-spine, web-search 50 Gbps, queued",
                                      fabricSlices, fabricWhole, 0.01, 20);
}

// auto (the default): the whole ring where it may run and the ring has flow_ring_whole_from
// ranks or more; slices otherwise. Only the runs it chose the whole ring for are keyed apart
// from before (they ran by slices then).
TEST(FlowWholeRing, AutoChoosesItForLargeRingsWhereItMayRun)
{
    auto ring = [](uint32_t hosts, json extra = json::object())
    {
        json j = { { "topology", { { "configuration", "A" }, { "hosts", hosts } } },
                   { "simulation", { { "engine", "flow" } } } };
        j.merge_patch(extra);
        return j;
    };
    const Scenario big = test::Resolve(ring(40));
    ASSERT_GE(big.jobHosts.size(), 32u);
    EXPECT_EQ(big.flowRing, "whole");
    const uint32_t n = static_cast<uint32_t>(big.jobHosts.size());
    // One rank short of the threshold, and the threshold lowered to it.
    const json from = { { "simulation", { { "flow_ring_whole_from", n + 1 } } } };
    EXPECT_EQ(test::Resolve(ring(40, from)).flowRing, "slices");
    EXPECT_EQ(
        test::Resolve(ring(40, { { "simulation", { { "flow_ring_whole_from", n } } } })).flowRing,
        "whole");
    // Standing queues (RoCE at a FIFO switch): whole for a ring under NCCL's flow control,
    // slices without it. MLTCP: slices. A tree collective: its trees whole
    // (flow-whole-tree-test), but not behind standing queues.
    const json queued = { { "job", { { "transport", "rdma" } } },
                          { "topology", { { "switch_queue", { { "discipline", "fifo" } } } } } };
    EXPECT_EQ(test::Resolve(ring(40, queued)).flowRing, "whole");
    json noFlowControl = queued;
    noFlowControl["job"]["nccl"]["flow_control"] = false;
    EXPECT_EQ(test::Resolve(ring(40, noFlowControl)).flowRing, "slices");
    json queuedTree = queued;
    queuedTree["job"]["collective"] = "nccl_tree";
    EXPECT_EQ(test::Resolve(ring(40, queuedTree)).flowRing, "slices");
    EXPECT_EQ(test::Resolve(ring(40, { { "job", { { "mltcp", true } } } })).flowRing, "slices");
    EXPECT_EQ(test::Resolve(ring(40, { { "job", { { "collective", "nccl_tree" } } } })).flowRing,
              "whole");
    // As asked, whatever the size; the packet level keeps "auto" (it has no such choice).
    EXPECT_EQ(test::Resolve(ring(40, { { "simulation", { { "flow_ring", "slices" } } } })).flowRing,
              "slices");
    EXPECT_EQ(test::Resolve(ring(40, { { "simulation", { { "engine", "packet" } } } })).flowRing,
              "auto");
    // Keys: auto's whole ring apart from the explicit one; auto's slices as the explicit ones.
    const std::string whole
        = ModelVersion(test::Resolve(ring(40, { { "simulation", { { "flow_ring", "whole" } } } })));
    EXPECT_NE(ModelVersion(big), whole);
    EXPECT_EQ(
        ModelVersion(test::Resolve(ring(40, from))),
        ModelVersion(test::Resolve(ring(40, { { "simulation", { { "flow_ring", "slices" } } } }))));
}

TEST(FlowWholeRing, TheSummarySaysWhichRingRan)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("fabric.json", R"({
      "topology": {"configuration": "A", "hosts": 40, "leaves": 2, "spines": 2,
                   "link_rate_gbps": 100, "uplink_rate_gbps": 400},
      "job": {"model": "resnet50", "iterations": 2, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 20},
      "simulation": {"engine": "flow"},
      "outputs": {"link_bin_us": 0}})");
    json runs[2];
    for (int i = 0; i < 2; ++i)
    {
        const std::string out = dir.Path() + "/run" + std::to_string(i);
        auto r = test::RunFlumen(scenario + " --quiet --out " + out
                                 + (i ? " --set simulation.flow_ring_whole_from=1000" : ""));
        ASSERT_EQ(r.exitCode, 0) << r.output;
        runs[i] = json::parse(test::ReadFile(out + "/summary.json"));
    }
    EXPECT_EQ(runs[0]["jobs"][0]["flow_ring"], "whole");
    EXPECT_EQ(runs[1]["jobs"][0]["flow_ring"], "slices");
    ExpectSameIterationsAtFewerEvents("auto's choice at 39 ranks beside web-search", runs[1],
                                      runs[0], 0.01, 20);
}

// 16 workers on a leaf-spine without cross traffic, a one-tensor model whose all-reduce is
// exposed (so that the collective's time is what the iteration measures).
TEST(FlowWholeRing, EveryTreeCollectiveWholeAsItsSlicesAtFewerEvents)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("fabric.json", R"({
      "topology": {"configuration": "A", "hosts": 16, "leaves": 2, "spines": 2,
                   "link_rate_gbps": 100, "uplink_rate_gbps": 400},
      "job": {"model": "one", "iterations": 3, "warmup_iterations": 1,
              "horovod": {"cycle_time_ms": 0.1}, "ps_servers": 2},
      "models": {"one": {"parameters": 20000000, "compute_s": 0.002}},
      "simulation": {"engine": "flow"},
      "outputs": {"link_bin_us": 0}})");
    for (const std::string c :
         { "nccl_tree", "star", "binary_tree_star", "clique", "parameter_server" })
    {
        test::TempDir runs;
        const auto [slices, whole] = SlicesAndWhole(runs, scenario, "--set job.collective=" + c);
        ExpectSameIterationsAtFewerEvents(c + ", 16 workers on a leaf-spine", slices, whole, 0.02,
                                          2);
    }
}

// NCCL's tree of 32 RoCE workers beside web-search, its all-reduce exposed.
TEST(FlowWholeRing, NcclTreeWholeOnAFabricBesideWebSearchAsItsSlices)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("fabric.json", R"({
      "seed": 3,
      "topology": {"configuration": "A", "hosts": 32, "leaves": 2, "spines": 2,
                   "link_rate_gbps": 100, "uplink_rate_gbps": 400,
                   "switch_queue": {"discipline": "fifo"}},
      "job": {"model": "one", "transport": "rdma", "iterations": 4, "warmup_iterations": 1,
              "horovod": {"cycle_time_ms": 0.1}},
      "models": {"one": {"parameters": 20000000, "compute_s": 0.002}},
      "cross_traffic": {"type": "websearch", "load_gbps": 50},
      "simulation": {"engine": "flow", "flow_queues": false},
      "outputs": {"link_bin_us": 0}})");
    const auto [slices, whole] = SlicesAndWhole(dir, scenario, "--set job.collective=nccl_tree");
    ExpectSameIterationsAtFewerEvents("nccl_tree, 32 workers, leaf-spine, web-search 50 Gbps",
                                      slices, whole, 0.03, 5);
    EXPECT_EQ(whole["jobs"][0]["flow_ring"], "whole");
}
