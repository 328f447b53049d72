// CompareEnginesWithTestbed (engine-comparison/engine-testbed-comparison.h) on a hand-made plan: both
// engines' errors against the testbed over the points both simulated, the packet level's runs
// found through each flow run's packet run.
#include "engine-testbed-comparison.h"
#include "run-summary.h"
#include "test-support.h"
#include "validation-collate.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

// A run of two measured iterations of `meanS` (censored: cut, its mean at least `meanS`; a
// flow run out of the engine's domain: `domain` says why).
void
WriteRun(const fs::path& points, const std::string& id, double meanS, bool censored = false,
         const std::string& domain = "")
{
    RunSummary s;
    s.engineDomain = domain;
    s.iterationTimeS.mean = meanS;
    s.jobFinished = !censored;
    if (censored)
    {
        s.unfinished = UnfinishedJob{};
        s.unfinished->lowerBoundS = meanS;
    }
    s.crossTraffic.type = "iperf";
    s.crossTraffic.achievedGbps = 10;
    s.windowStartS = 0;
    s.windowEndS = 2 * meanS;
    s.workers = 1;
    fs::create_directories(points / id);
    std::ofstream(points / id / "summary.json") << ToJson(s).dump();
    std::ofstream csv(points / id / "iterations.csv");
    csv << "iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup\n";
    for (int i = 0; i < 2; ++i)
    {
        csv << i << ",0," << i * meanS << "," << (i + 1) * meanS << "," << meanS << ",0,0,0,0,0\n";
    }
}

PlannedPoint
Point(const std::string& flowRun, double testbedMeanS, bool idle)
{
    PlannedPoint pp;
    ValidatedPoint& v = pp.point;
    v.series = "iperf-rdma-configB";
    v.model = "resnet50";
    v.transport = "rdma";
    v.configuration = "B";
    v.traffic = "iperf";
    v.idle = idle;
    v.calibration = idle;
    v.measuredGbps = idle ? 0 : 10;
    v.testbedMeanS = testbedMeanS;
    v.testbedP99S = testbedMeanS;
    v.seedsPlanned = 1;
    pp.runIds = { flowRun };
    return pp;
}

// One point at one seed in both engines, its flow run naming its packet run.
struct PairedRun
{
    std::string id;
    double testbed, packetMean, flowMean;
    bool idle = false, packetCensored = false;
    std::string flowDomain; //!< engine_domain: why the flow run left the engine's domain
};

// Both engines' points folders and the plan that pairs their runs.
class EngineTestbedComparison : public ::testing::Test
{
  protected:
    void AddPairedRuns(const std::vector<PairedRun>& runs)
    {
        for (const auto& r : runs)
        {
            WriteRun(flow, "flow-" + r.id, r.flowMean, false, r.flowDomain);
            WriteRun(packet, "packet-" + r.id, r.packetMean, r.packetCensored);
            plan.runs.push_back({ "flow-" + r.id,
                                  nlohmann::json::object(),
                                  { { "packet_run", "packet-" + r.id } } });
            plan.points.push_back(Point("flow-" + r.id, r.testbed, r.idle));
        }
    }

    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    ValidationPlan plan;
};

} // namespace

TEST_F(EngineTestbedComparison, SetsBothEnginesErrorsSideBySideOverThePointsBothSimulated)
{
    // Testbed 1.0 and 2.0 s: the packet level +10 % and +0 %, the flow engine -10 % and +20 %;
    // a third point censored at packet level counts for neither.
    AddPairedRuns({ { "idle", 0.5, 0.5, 0.5, true, false, "" },
                    { "a", 1.0, 1.1, 0.9, false, false, "" },
                    { "b", 2.0, 2.0, 2.4, false, false, "" },
                    { "c", 3.0, 9.0, 3.0, false, true, "" } });
    // A second model: one point that both ran over two seeds (+20 and +30 % at packet level,
    // +10 % at flow level), one the packet level ran over one seed of two (left out).
    auto twoSeeds = [&](const std::string& id, double testbed, double packetMean, double flowMean,
                        bool packetSecondSeed)
    {
        PlannedPoint pp = Point("", testbed, false);
        pp.point.model = "densenet161";
        pp.point.seedsPlanned = 2;
        pp.runIds.clear();
        for (int seed = 1; seed <= 2; ++seed)
        {
            const std::string run = id + "-s" + std::to_string(seed);
            WriteRun(flow, "flow-" + run, flowMean);
            if (seed == 1 || packetSecondSeed)
            {
                WriteRun(packet, "packet-" + run, packetMean + (seed - 1) * 0.1 * testbed);
            }
            plan.runs.push_back(
                { "flow-" + run, nlohmann::json::object(), { { "packet_run", "packet-" + run } } });
            pp.runIds.push_back("flow-" + run);
        }
        plan.points.push_back(pp);
    };
    twoSeeds("d", 1.0, 1.2, 1.1, true);
    twoSeeds("e", 1.0, 1.0, 1.0, false);
    const std::vector<ValidatedPoint> flowPoints = CollateValidation(plan, flow).points;
    const auto lines = CompareEnginesWithTestbed(plan, flowPoints, packet, PacketRunMatch::ExactId,
                                                 dir.Path() + "/out");
    ASSERT_EQ(lines.size(), 4u);
    // 2 points (1 left out); mean |error| medians 5 % and 15 %; none congested; p99 the same as
    // the mean (two equal iterations); cross traffic 10 of 10 Gbps in both.
    // Every flow run in the engine's domain: auto's column is the flow engine's.
    EXPECT_EQ(lines[2],
              "| iperf-rdma-configB | resnet50 | 2 (1) | 5.0 | 15.0 | 15.0 | 0 |  |  |  | "
              "5.0 | 15.0 | 0.0 | 0.0 |");
    // The second model: its seeds pooled (packet 1.2 and 1.3 s: +25 %), the point run over
    // other seeds left out.
    EXPECT_EQ(lines[3].substr(0, lines[3].find(" | 0 |")),
              "| iperf-rdma-configB | densenet161 | 1 (1) | 25.0 | 10.0 | 10.0");
    const std::string md = test::ReadFile(dir.Path() + "/out/engines-testbed.md");
    EXPECT_NE(md.find(lines[2]), std::string::npos) << md;
    const auto rows = test::ReadCsvRows(dir.Path() + "/out/engines-testbed.csv");
    ASSERT_EQ(rows.size(), 5u) << "the validation points, idle references left out";
    EXPECT_EQ(rows[0].at("packet_error_pct"), "10.00");
    EXPECT_EQ(rows[0].at("flow_error_pct"), "-10.00");
    EXPECT_EQ(rows[0].at("compared"), "1");
    EXPECT_EQ(rows[2].at("packet_status"), "censored");
    EXPECT_EQ(rows[2].at("packet_error_pct"), "");
    EXPECT_EQ(rows[2].at("compared"), "0");
    EXPECT_EQ(rows[4].at("packet_status"), "partial");
    EXPECT_EQ(rows[4].at("flow_status"), "done");
    EXPECT_EQ(rows[4].at("compared"), "0");
    // Points that are not the plan's are refused, not set beside the wrong ones.
    std::vector<ValidatedPoint> shifted(flowPoints.begin() + 1, flowPoints.end());
    shifted.push_back(flowPoints.front());
    EXPECT_THROW(CompareEnginesWithTestbed(plan, shifted, packet, PacketRunMatch::ExactId,
                                           dir.Path() + "/out2"),
                 std::invalid_argument);
    EXPECT_FALSE(fs::exists(dir.Path() + "/out2"));
}

// engine auto's column: the flow engine's point where its runs stayed in its domain, the packet
// level's where one left it.
TEST_F(EngineTestbedComparison, AutoTakesThePacketPointWhereAFlowRunLeftTheDomain)
{
    // Testbed 1.0 and 2.0 s: the packet level +10 % and +0 %; the flow engine -3 % in its
    // domain and +20 % out of it. auto: -3 % and +0 %.
    AddPairedRuns({ { "a", 1.0, 1.1, 0.97, false, false, "" },
                    { "b", 2.0, 2.0, 2.4, false, false, "the bottleneck was 99 % busy" } });
    const std::vector<ValidatedPoint> flowPoints = CollateValidation(plan, flow).points;
    EXPECT_EQ(flowPoints[0].outOfDomainSeeds, 0);
    EXPECT_EQ(flowPoints[1].outOfDomainSeeds, 1);
    const auto lines = CompareEnginesWithTestbed(plan, flowPoints, packet, PacketRunMatch::ExactId,
                                                 dir.Path() + "/out");
    ASSERT_EQ(lines.size(), 3u);
    // Median |error|: packet (10, 0) 5 %, flow (3, 20) 11.5 %, auto (3, 0) 1.5 %.
    EXPECT_EQ(lines[2].substr(0, lines[2].find(" | 0 |")),
              "| iperf-rdma-configB | resnet50 | 2 | 5.0 | 11.5 | 1.5");
    const auto rows = test::ReadCsvRows(dir.Path() + "/out/engines-testbed.csv");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].at("flow_out_of_domain_seeds"), "0");
    EXPECT_EQ(rows[1].at("flow_out_of_domain_seeds"), "1");
}
