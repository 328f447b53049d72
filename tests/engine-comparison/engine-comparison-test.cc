// CompareEngines (engine-comparison/engine-comparison.h) on hand-made run summaries: the per-run
// differences, the median flow completion time's among them, and the per-series table.
#include "engine-comparison.h"
#include "run-summary.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

// A finished run's summary with these figures (fctP50 0: no flow completed, as beside iperf).
RunSummary
Summary(const std::string& crossType, double meanS, double crossGbps, double fctP50,
        bool finished = true)
{
    RunSummary s;
    s.iterationTimeS.mean = meanS;
    s.iterationTimeS.p99 = 1.1 * meanS;
    s.jobFinished = finished;
    s.crossTraffic.type = crossType;
    s.crossTraffic.achievedGbps = crossGbps;
    if (fctP50 > 0)
    {
        FlowsSummary f;
        f.started = f.completed = 100;
        f.fctS.p50 = fctP50;
        s.crossTraffic.flows = f;
    }
    s.simulatedTimeS = 1;
    s.wallTimeS = 1;
    return s;
}

void
WriteRun(const fs::path& points, const std::string& id, const RunSummary& s)
{
    fs::create_directories(points / id);
    std::ofstream(points / id / "summary.json") << ToJson(s).dump();
}

PoolPoint
Planned(const std::string& id, const std::string& series, const std::string& model,
        const std::string& transport)
{
    return { id,
             { { "job", { { "model", model }, { "transport", transport } } } },
             { { "series", series }, { "packet_run", id + "-packet" } } };
}

} // namespace

TEST(EngineComparison, ReportsTheMedianFlowCompletionTimesDifferencePerRunAndPerSeries)
{
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    // Two web-search runs of one series (FCT halved and +20 %), one run beside iperf of another
    // series (no flows: no FCT difference), one censored run (left out of every figure), and a
    // run of the same series and model over the other transport (a group of its own).
    struct Run
    {
        std::string id, series, model, transport;
        RunSummary packetRun, flowRun;
    };
    const std::vector<Run> runs{
        { "ws-a", "websearch-tcp-configB", "resnet50", "tcp", Summary("websearch", 0.2, 10, 0.040),
          Summary("websearch", 0.25, 10.2, 0.020) },
        { "ws-b", "websearch-tcp-configB", "resnet50", "tcp", Summary("websearch", 0.4, 20, 0.010),
          Summary("websearch", 0.38, 19.8, 0.012) },
        { "ip-a", "iperf-rdma-configA", "vgg16", "rdma", Summary("iperf", 0.5, 15, 0),
          Summary("iperf", 0.51, 15, 0) },
        { "ws-c", "websearch-tcp-configB", "resnet50", "tcp", Summary("websearch", 0.2, 25, 0.05),
          Summary("websearch", 9, 25, 0.5, false) },
        { "ws-d", "websearch-tcp-configB", "resnet50", "rdma", Summary("websearch", 0.2, 8, 0.001),
          Summary("websearch", 0.2, 8, 0.000125) },
    };
    std::vector<PoolPoint> planned;
    for (auto r : runs)
    {
        r.flowRun.engine = "flow";
        WriteRun(flow, r.id, r.flowRun);
        WriteRun(packet, r.id + "-packet", r.packetRun);
        planned.push_back(Planned(r.id, r.series, r.model, r.transport));
    }

    const EngineComparison c = CompareEngines(planned, flow, packet, dir.Path() + "/out");

    EXPECT_EQ(c.runs, 5u);
    EXPECT_EQ(c.compared, 4u);
    // |FCT differences| of the three web-search runs: 50, 20 and 87.5 %; their median 50 %.
    EXPECT_NEAR(c.medianAbsFctDiffPct, 50.0, 1e-9);
    // |mean differences|: 25, 5, 2 and 0 %.
    EXPECT_NEAR(c.medianAbsMeanDiffPct, 3.5, 1e-9);
    auto rows = test::ReadCsvRows(dir.Path() + "/out/engines.csv");
    ASSERT_EQ(rows.size(), 5u);
    std::map<std::string, std::map<std::string, std::string>> byRun;
    for (const auto& row : rows)
    {
        byRun[row.at("run")] = row;
    }
    EXPECT_EQ(byRun["ws-a"]["series"], "websearch-tcp-configB");
    EXPECT_EQ(byRun["ws-a"]["model"], "resnet50");
    EXPECT_EQ(byRun["ws-a"]["transport"], "tcp");
    // Completion times of about 100 us keep their digits (0.000125 s).
    EXPECT_EQ(byRun["ws-d"]["flow_fct_p50_s"], "0.000125000");
    EXPECT_NEAR(std::stod(byRun["ws-d"]["fct_p50_diff_pct"]), -87.5, 1e-9);
    EXPECT_NEAR(std::stod(byRun["ws-a"]["fct_p50_diff_pct"]), -50.0, 1e-9);
    EXPECT_NEAR(std::stod(byRun["ws-b"]["fct_p50_diff_pct"]), 20.0, 1e-9);
    EXPECT_NEAR(std::stod(byRun["ws-a"]["mean_diff_pct"]), 25.0, 1e-9);
    EXPECT_EQ(byRun["ip-a"]["fct_p50_diff_pct"], "");
    EXPECT_EQ(byRun["ip-a"]["status"], "compared");
    EXPECT_EQ(byRun["ws-c"]["status"], "censored");
    EXPECT_EQ(byRun["ws-c"]["fct_p50_diff_pct"], "");

    const std::string md = test::ReadFile(dir.Path() + "/out/engines.md");
    // The series' row: 2 runs, |mean diff| median 15 %, one beyond 10 %, signed range -5 to
    // +25 %, cross traffic |diff| median 1.5 %, FCT difference median -15 %.
    EXPECT_NE(md.find("| websearch-tcp-configB | resnet50 | tcp | 2 | 15.0 | 24.0 | 1 | -5.0 to "
                      "+25.0 | 1.5 | -15 |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| websearch-tcp-configB | resnet50 | rdma | 1 | 0.0 | 0.0 | 0 | +0.0 to "
                      "+0.0 | 0.0 | -88 |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| iperf-rdma-configA | vgg16 | rdma | 1 | 2.0 | 2.0 | 0 | +2.0 to +2.0 | "
                      "0.0 |  |"),
              std::string::npos)
        << md;
    // Signed FCT differences -50, +20 and -87.5 %: median -50, 10th percentile -80 (linear
    // between -87.5 and -50), 90th +6.
    EXPECT_NE(md.find("median flow completion time: median |diff| 50 %, median diff -50 % "
                      "(10th-90th percentile -80 to +6 %) over 3 runs with flows in both"),
              std::string::npos)
        << md;
    EXPECT_EQ(md.find("went to the packet level"), std::string::npos)
        << "every flow run is the flow engine's";
    // No run says it is out of the domain: all 4 compared are in it (|diffs| 25, 5, 2, 0 %).
    EXPECT_NE(md.find("in the flow engine's domain (what engine auto keeps): 4 of the 4 runs, mean "
                      "iteration time |flow - packet| median 3.5 %"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("(no run says it is out of it)"), std::string::npos) << md;
    EXPECT_EQ(byRun["ws-a"]["flow_out_of_domain"], "0");
}

TEST(EngineComparison, SaysHowCloseTheRunsThatTheEngineKeepsInItsDomainAre)
{
    // Four runs: two in the engine's domain (1 and 2 % apart), two that say they are out of it
    // (30 and 40 % apart), the runs engine auto would send to the packet level.
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    std::vector<PoolPoint> planned;
    const std::vector<std::pair<double, bool>> runs{
        { 1.01, false }, { 1.02, false }, { 1.30, true }, { 0.60, true }
    };
    for (size_t i = 0; i < runs.size(); ++i)
    {
        const std::string id = "r" + std::to_string(i);
        RunSummary f = Summary("websearch", runs[i].first, 10, 0);
        f.engine = "flow";
        f.engineDomain = runs[i].second ? "the flow engine's bottleneck was 99 % busy" : "";
        WriteRun(flow, id, f);
        WriteRun(packet, id + "-packet", Summary("websearch", 1.0, 10, 0));
        planned.push_back(Planned(id, "s", "resnet50", "rdma"));
    }
    const EngineComparison c = CompareEngines(planned, flow, packet, dir.Path() + "/out");
    EXPECT_EQ(c.compared, 4u);
    EXPECT_EQ(c.inDomain, 2u);
    // |differences| 1 and 2 %: the 95th percentile 1.95 % (linear between them); over all four
    // runs it is the out-of-domain ones' (38.5 %).
    EXPECT_NEAR(c.inDomainP95AbsMeanDiffPct, 1.95, 1e-9);
    EXPECT_NEAR(c.p95AbsMeanDiffPct, 38.5, 1e-9);
    const std::string md = test::ReadFile(dir.Path() + "/out/engines.md");
    EXPECT_NE(
        md.find("in the flow engine's domain (what engine auto keeps): 2 of the 4 runs, mean "
                "iteration time |flow - packet| median 1.5 %, p95 2.0 %; the other 2 say they "
                "are out of it (engine_domain)"),
        std::string::npos)
        << md;
    EXPECT_NE(md.find("| r3 | 1.0000 | 0.6000 | -40.0 | +0.0 | out |"), std::string::npos) << md;
    EXPECT_NE(md.find("| r0 | 1.0000 | 1.0100 | +1.0 | +0.0 | in |"), std::string::npos) << md;
    std::map<std::string, std::string> outOfDomain;
    for (const auto& row : test::ReadCsvRows(dir.Path() + "/out/engines.csv"))
    {
        outOfDomain[row.at("run")] = row.at("flow_out_of_domain");
    }
    EXPECT_EQ(outOfDomain, (std::map<std::string, std::string>{
                               { "r0", "0" }, { "r1", "0" }, { "r2", "1" }, { "r3", "1" } }));
}

TEST(EngineComparison, ARunWhosePacketRunIsMissingIsNotPairedWithAnother)
{
    // A sweep's ids are bare hashes and both engines' runs share one folder: with the packet
    // run not finished, the flow run is the folder's only run and must not be set beside
    // itself.
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/points";
    WriteRun(flow, "a1b2c3d4", Summary("iperf", 0.5, 15, 0));
    const std::vector<PoolPoint> planned{
        { "a1b2c3d4", nlohmann::json::object(), { { "packet_run", "0f0f0f0f" } } }
    };
    const EngineComparison c
        = CompareEngines(planned, flow, flow, dir.Path() + "/out", { PacketRunMatch::ExactId, "" });
    EXPECT_EQ(c.compared, 0u);
    const auto rows = test::ReadCsvRows(dir.Path() + "/out/engines.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("status"), "no packet run");
    EXPECT_EQ(rows[0].at("packet_run"), "0f0f0f0f");
}

TEST(EngineComparison, SetsTheFlowEngineBesideThePacketLevelsOwnSpreadBetweenSeeds)
{
    // Point a: the packet level's seeds 20 % apart (1.0 and 1.2 s), the flow engine's mean over
    // them the same (1.1 s). Point b: the packet level's seeds alike (2.0 s), the flow engine's
    // 15 % above them on the mean (2.4 and 2.2 s). Point c has one seed: not counted. Labelled
    // as a sweep labels them (the seed among the assignments, and the point at any seed).
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    struct Run
    {
        std::string point;
        int seed;
        double packetMean;
        double flowMean;
    };
    const std::vector<Run> runs{ { "a", 1, 1.0, 1.1 },
                                 { "a", 2, 1.2, 1.1 },
                                 { "b", 1, 2.0, 2.4 },
                                 { "b", 2, 2.0, 2.2 },
                                 { "c", 1, 1.0, 1.5 } };
    std::vector<PoolPoint> planned;
    for (const Run& r : runs)
    {
        const std::string id = r.point + "-s" + std::to_string(r.seed);
        WriteRun(flow, id, Summary("websearch", r.flowMean, 10, 0));
        WriteRun(packet, id + "-packet", Summary("websearch", r.packetMean, 10, 0));
        PoolPoint p = Planned(id, "s", "resnet50", "tcp");
        p.about["point"] = "load=" + r.point + " seed=" + std::to_string(r.seed);
        p.about["point_at_any_seed"] = "load=" + r.point;
        planned.push_back(p);
    }
    const EngineComparison c = CompareEngines(planned, flow, packet, dir.Path() + "/out");
    EXPECT_EQ(c.compared, 5u);
    EXPECT_EQ(c.pointsOverSeeds, 2u);
    // Spreads 20 and 0 %, differences over seeds 0 and 15 %: 95th percentiles between them.
    EXPECT_NEAR(c.packetSeedSpreadP95Pct, 19.0, 1e-9);
    EXPECT_NEAR(c.overSeedsP95AbsMeanDiffPct, 14.25, 1e-9);
    const std::string md = test::ReadFile(dir.Path() + "/out/engines.md");
    EXPECT_NE(md.find("over the 2 points compared at two or more seeds: the packet level's own "
                      "spread between a point's seeds (its largest mean over its smallest - 1) "
                      "median 10.0 %, p95 19.0 %; flow against packet on the mean over each "
                      "point's seeds, |diff| median 7.5 %, p95 14.2 % (1 of the points beyond "
                      "10 %)"),
              std::string::npos)
        << md;
}

TEST(EngineComparison, CountsTheRunsBeyondEachTargetBesideItsPercentiles)
{
    // Five runs: mean iteration times 0, 1, 12, 2 and 30 % apart (two beyond 10 %), the cross
    // traffic's rates 0, 4, 1, 10 and 2 % apart (two beyond 3 %), and one run beside no cross
    // traffic (no rate to compare).
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    const std::vector<std::pair<double, double>> flowMeanAndCross{
        { 1.00, 10.0 }, { 1.01, 10.4 }, { 1.12, 10.1 }, { 1.02, 11.0 }, { 1.30, 10.2 }
    };
    std::vector<PoolPoint> planned;
    for (size_t i = 0; i <= flowMeanAndCross.size(); ++i)
    {
        const std::string id = "r" + std::to_string(i);
        const bool idle = i == flowMeanAndCross.size();
        RunSummary f
            = idle ? Summary("none", 1.0, 0, 0)
                   : Summary("websearch", flowMeanAndCross[i].first, flowMeanAndCross[i].second, 0);
        f.engine = "flow";
        WriteRun(flow, id, f);
        WriteRun(packet, id + "-packet",
                 Summary(idle ? "none" : "websearch", 1.0, idle ? 0 : 10, 0));
        planned.push_back(Planned(id, "s", "resnet50", "rdma"));
    }
    const EngineComparison c = CompareEngines(planned, flow, packet, dir.Path() + "/out");
    EXPECT_EQ(c.compared, 6u);
    EXPECT_EQ(c.runsMeanBeyondTenPct, 2u);
    EXPECT_EQ(c.crossCompared, 5u);
    EXPECT_EQ(c.runsCrossBeyondThreePct, 2u);
    // |cross differences| sorted 0, 1, 2, 4, 10 %: the 95th percentile 4 + 0.8 x 6 = 8.8 %.
    EXPECT_NEAR(c.medianAbsCrossDiffPct, 2.0, 1e-9);
    EXPECT_NEAR(c.p95AbsCrossDiffPct, 8.8, 1e-9);
    const std::string md = test::ReadFile(dir.Path() + "/out/engines.md");
    EXPECT_NE(md.find("(target 10 %: missed); 2 of the 6 runs beyond 10 %"), std::string::npos)
        << md;
    EXPECT_NE(md.find("achieved cross traffic: median 2.0 % (target 3 %: met at the median), p95 "
                      "8.8 %, 2 of the 5 runs with cross traffic beyond 3 %"),
              std::string::npos)
        << md;
    // The run beside no cross traffic alone: no rate to compare, and the line says so.
    const EngineComparison idle
        = CompareEngines({ planned.back() }, flow, packet, dir.Path() + "/idle");
    EXPECT_EQ(idle.crossCompared, 0u);
    EXPECT_NE(test::ReadFile(dir.Path() + "/idle/engines.md")
                  .find("achieved cross traffic: no run with cross traffic to compare"),
              std::string::npos);
}
