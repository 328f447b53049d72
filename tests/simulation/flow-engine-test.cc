// The flow-level engine end to end: the same scenario files and outputs as the packet level,
// the engine named in summary.json with the keys it ignores, the same compute draws for the
// same seed, and the same result bit for bit on a second run.
#include "flow-network.h"
#include "scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace flumen;

namespace
{

const std::string kQuickstart = FLUMEN_SOURCE_DIR "/scenarios/quickstart.json";

// The columns of iterations.csv that come from the compute model alone.
std::vector<std::string>
ComputeColumns(const std::string& csv)
{
    std::vector<std::string> out;
    for (const auto& line : test::Lines(csv))
    {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');)
        {
            cells.push_back(c);
        }
        out.push_back(cells.at(5) + "," + cells.at(6) + ","
                      + cells.at(8)); // forward, backward, step
    }
    return out;
}

// The mean of iterations.csv's duration_s over the measured (not warm-up) rows.
double
MeanMeasuredDuration(const std::string& csv)
{
    double sum = 0;
    int n = 0;
    for (const auto& line : test::Lines(csv))
    {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        for (std::string c; std::getline(ss, c, ',');)
        {
            cells.push_back(c);
        }
        if (cells.size() >= 10 && cells[9] == "0")
        {
            sum += std::stod(cells[4]);
            ++n;
        }
    }
    return n ? sum / n : 0.0;
}

} // namespace

TEST(FlowEngine, RunsTheQuickstartWithTheSameOutputsAndComputeDraws)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/flow";
    // The packet golden's iterations (the shipped quickstart runs 22).
    const std::string asGolden
        = " --set simulation.engine=flow --set job.iterations=2 --set job.warmup_iterations=1";
    auto r = test::RunFlumen(kQuickstart + asGolden + " --quiet --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    for (const char* f : { "iterations.csv", "summary.json", "link.csv" })
    {
        EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
    }
    json s = json::parse(test::ReadFile(out + "/summary.json"));
    EXPECT_EQ(s["engine"], "flow");
    EXPECT_NE(s["engine_ignores"].dump().find("topology.switch_queue"), std::string::npos);
    EXPECT_EQ(s["scenario"]["simulation"]["engine"], "flow");
    // The job model is shared: the same seed draws the same compute times as the packet
    // level's golden reference.
    EXPECT_EQ(ComputeColumns(test::ReadFile(out + "/iterations.csv")),
              ComputeColumns(
                  test::ReadFile(FLUMEN_SOURCE_DIR "/tests/golden/quickstart.iterations.csv")));
    // Paced iperf beside a TCP ring at a FIFO: the packet level's mean iteration time (its
    // golden run) within 5 %, and the iperf's pace kept, as at packet level.
    const double packet = MeanMeasuredDuration(
        test::ReadFile(FLUMEN_SOURCE_DIR "/tests/golden/quickstart.iterations.csv"));
    const double flow = s["iteration_time_s"]["mean"];
    std::cout << "[measure] quickstart mean iteration: packet " << packet << " s, flow " << flow
              << " s; cross traffic at flow level " << s["cross_traffic"]["achieved_gbps"]
              << " Gbps\n";
    EXPECT_NEAR(flow, packet, 0.05 * packet);
    EXPECT_NEAR(s["cross_traffic"]["achieved_gbps"].get<double>(),
                s["cross_traffic"]["offered_gbps"].get<double>(), 0.1);
    // Bit for bit again.
    auto again
        = test::RunFlumen(kQuickstart + asGolden + " --quiet --out " + dir.Path() + "/again");
    ASSERT_EQ(again.exitCode, 0) << again.output;
    EXPECT_EQ(test::ReadFile(out + "/iterations.csv"),
              test::ReadFile(dir.Path() + "/again/iterations.csv"));
    EXPECT_EQ(test::ReadFile(out + "/link.csv"), test::ReadFile(dir.Path() + "/again/link.csv"));
}

TEST(FlowEngine, WebSearchFlowsGetCompletionTimesAndTheOfferedLoad)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("ws.json", R"({
      "seed": 4, "topology": {"configuration": "B"},
      "job": {"model": "resnet50", "iterations": 6, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 10},
      "simulation": {"engine": "flow"}})");
    auto r = test::RunFlumen(scenario + " --quiet --out " + dir.Path() + "/out");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json s = json::parse(test::ReadFile(dir.Path() + "/out/summary.json"));
    const double achieved = s["cross_traffic"]["achieved_gbps"];
    std::cout << "[measure] flow engine, web-search at 10 Gbps beside ResNet-50: achieved "
              << achieved << " Gbps, wall " << s["wall_time_s"] << " s for "
              << s["simulated_time_s"] << " s simulated\n";
    EXPECT_NEAR(achieved, 10.0, 1.0); // stratified sizes: the offered load, within a second's noise
    auto flows = test::Lines(test::ReadFile(dir.Path() + "/out/flows.csv"));
    ASSERT_GT(flows.size(), 100u);
    size_t finished = 0;
    for (size_t i = 1; i < flows.size(); ++i)
    {
        finished += flows[i].find(",-1") == std::string::npos;
    }
    EXPECT_GT(finished, flows.size() * 9 / 10);
}

TEST(FlowEngine, WholeRingStepsGiveTheSlicedStepsIterationTimesAtFewerEvents)
{
    // The evidence for simulation.flow_whole_steps (the ring without NCCL's flow control, whose
    // steps are whole chunks): between flow events the rates are constant, so the slices
    // change when a step ends by no more than rounding. (Not with
    // standing queues, whose rates change in time: RoCE keeps its slices there.)
    test::TempDir dir;
    const std::string scenario = dir.Write("vgg.json", R"({
      "topology": {"configuration": "A", "switch_queue": {"discipline": "fifo"}},
      "job": {"model": "vgg16", "transport": "rdma", "iterations": 4, "warmup_iterations": 1,
              "nccl": {"flow_control": false}},
      "cross_traffic": {"type": "iperf", "load_gbps": 15},
      "simulation": {"engine": "flow", "flow_queues": false}})");
    json runs[2];
    for (int whole = 0; whole < 2; ++whole)
    {
        const std::string out = dir.Path() + "/w" + std::to_string(whole);
        auto r = test::RunFlumen(scenario + " --quiet --set simulation.flow_whole_steps="
                                 + (whole ? "true" : "false") + " --out " + out);
        ASSERT_EQ(r.exitCode, 0) << r.output;
        runs[whole] = json::parse(test::ReadFile(out + "/summary.json"));
    }
    const double sliced = runs[0]["iteration_time_s"]["mean"];
    const double whole = runs[1]["iteration_time_s"]["mean"];
    const double events = double(runs[0]["events"]) / double(runs[1]["events"]);
    std::cout << "[measure] VGG-16 beside 15 Gbps iperf, flow engine: mean " << sliced
              << " s sliced, " << whole << " s whole steps; " << events << "x the events sliced\n";
    EXPECT_NEAR(whole, sliced, 1e-6 * sliced);
    EXPECT_GT(events, 5.0);
}

TEST(FlowEngine, ManyWorkersOnOneTorAtAHundredGbps)
{
    // Beyond the testbed: 32 hosts at 100 Gbps, the job on all but S2 (configuration B),
    // web-search into S0. The packet level runs the same scenario file (not here: too slow).
    test::TempDir dir;
    const std::string scenario = dir.Write("big.json", R"({
      "topology": {"configuration": "B", "hosts": 32, "link_rate_gbps": 100},
      "job": {"model": "resnet50", "transport": "rdma", "iterations": 3, "warmup_iterations": 1},
      "cross_traffic": {"type": "websearch", "load_gbps": 60},
      "simulation": {"engine": "flow"}})");
    auto r = test::RunFlumen(scenario + " --quiet --out " + dir.Path() + "/out");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json s = json::parse(test::ReadFile(dir.Path() + "/out/summary.json"));
    EXPECT_EQ(s["workers"], 31);
    EXPECT_EQ(s["ports"].size(), 64u);
    // The ring's bytes per worker follow the ring's formula for 31 workers: the job finished
    // its iterations, each at least as long as its compute.
    EXPECT_GE(s["iteration_time_s"]["min"].get<double>(), s["model"]["compute_s"].get<double>());
    std::cout << "[measure] 31 workers at 100 Gbps beside 60 Gbps web-search: mean iteration "
              << s["iteration_time_s"]["mean"] << " s, " << s["wall_time_s"] << " s wall for "
              << s["simulated_time_s"] << " s simulated\n";
}

TEST(FlowEngine, BothEnginesRunMoreHostsThanTheTestbed)
{
    // Six hosts in configuration B: five workers, both engines, a small model beside iperf.
    test::TempDir dir;
    const std::string scenario = dir.Write("six.json", R"({
      "topology": {"configuration": "B", "hosts": 6},
      "job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
      "models": {"m": {"parameters": 2000000, "compute_s": 0.004}},
      "cross_traffic": {"type": "iperf", "load_gbps": 10}})");
    double mean[2];
    for (int flow = 0; flow < 2; ++flow)
    {
        const std::string out = dir.Path() + "/out" + std::to_string(flow);
        auto r = test::RunFlumen(scenario + " --quiet --set simulation.engine="
                                 + (flow ? "flow" : "packet") + " --out " + out);
        ASSERT_EQ(r.exitCode, 0) << r.output;
        json s = json::parse(test::ReadFile(out + "/summary.json"));
        EXPECT_EQ(s["workers"], 5);
        mean[flow] = s["iteration_time_s"]["mean"];
    }
    std::cout << "[measure] six hosts, five workers: mean iteration packet " << mean[0]
              << " s, flow " << mean[1] << " s\n";
    EXPECT_NEAR(mean[1], mean[0], 0.1 * mean[0]);
}

namespace
{

/**
 * A small ring beside iperf into S0 (configuration B, a FIFO ToR port) in one engine: 2 MB of
 * gradients, so that its packet runs stay seconds long (minutes under the sanitizers).
 */
std::string
RingBesideIperf(const test::TempDir& dir, const std::string& engine)
{
    return dir.Write(engine + ".json", R"({
      "topology": {"configuration": "B"},
      "job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
      "models": {"m": {"parameters": 500000, "compute_s": 0.004}},
      "cross_traffic": {"type": "iperf"},
      "simulation": {"engine": ")" + engine + "\"}}");
}

/** The run of that scenario at this load into dir/out<i>: its summary and printed text. */
std::pair<json, std::string>
RunBesideIperf(const test::TempDir& dir, const std::string& scenario, const std::string& load,
               int i)
{
    const std::string out = dir.Path() + "/out" + std::to_string(i);
    auto r = test::RunFlumen(scenario + " --set cross_traffic.load_gbps=" + load + " --out " + out);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return { json::parse(test::ReadFile(out + "/summary.json")), r.output };
}

} // namespace

TEST(FlowEngine, AutoKeepsTheFlowRunInItsDomainAndRerunsAtPacketLevelOutOfIt)
{
    // At 5 Gbps the port is far from busy and the flow run stands; at 23 Gbps it is saturated
    // and the run is the packet level's.
    test::TempDir dir;
    const std::string scenario = RingBesideIperf(dir, "auto");
    json runs[2];
    const char* loads[2] = { "5", "23" };
    for (int i = 0; i < 2; ++i)
    {
        runs[i] = RunBesideIperf(dir, scenario, loads[i], i).first;
        std::cout << "[measure] auto at " << loads[i] << " Gbps: " << runs[i]["engine_auto"]
                  << "\n";
    }
    EXPECT_EQ(runs[0]["engine"], "flow");
    EXPECT_EQ(runs[1]["engine"], "packet");
    EXPECT_NE(runs[1]["engine_auto"].get<std::string>().find("re-run at packet level"),
              std::string::npos);
    EXPECT_EQ(runs[1]["scenario"]["simulation"]["engine"], "auto");
    // The packet run is the packet level's own: the same as asking for it.
    auto p = test::RunFlumen(scenario
                             + " --quiet --set cross_traffic.load_gbps=23 --set "
                               "simulation.engine=packet --out "
                             + dir.Path() + "/packet");
    ASSERT_EQ(p.exitCode, 0) << p.output;
    EXPECT_EQ(test::ReadFile(dir.Path() + "/packet/iterations.csv"),
              test::ReadFile(dir.Path() + "/out1/iterations.csv"));
}

TEST(FlowEngine, AFlowRunOutOfItsDomainSaysWhyAndKeepsItsResult)
{
    // The same ring and iperf as above at flow level: at 5 Gbps nothing to say; at 23 Gbps the
    // saturated FIFO port is named in summary.json (engine_domain) and the text summary, and
    // the run is still the flow engine's.
    test::TempDir dir;
    const std::string scenario = RingBesideIperf(dir, "flow");
    json runs[2];
    std::string text[2];
    const char* loads[2] = { "5", "23" };
    for (int i = 0; i < 2; ++i)
    {
        std::tie(runs[i], text[i]) = RunBesideIperf(dir, scenario, loads[i], i);
    }
    std::cout << "[measure] flow at 23 Gbps: " << runs[1]["engine_domain"] << "\n";
    EXPECT_FALSE(runs[0].contains("engine_domain"));
    EXPECT_EQ(text[0].find("out of domain"), std::string::npos);
    EXPECT_EQ(runs[1]["engine"], "flow");
    ASSERT_TRUE(runs[1].contains("engine_domain"));
    const std::string why = runs[1]["engine_domain"];
    EXPECT_NE(why.find("ToR port towards S0, FIFO"), std::string::npos) << why;
    EXPECT_NE(why.find("simulation.auto_max_utilization"), std::string::npos) << why;
    EXPECT_NE(text[1].find("out of domain    " + why), std::string::npos) << text[1];
}
