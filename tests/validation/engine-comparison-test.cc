// CompareEngines (validation/engine-comparison.h) on hand-made run summaries: the per-run
// differences, the median flow completion time's among them, and the per-series table.
#include "csv-format.h"
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
Summary(double meanS, double crossGbps, double fctP50, bool finished = true)
{
    RunSummary s;
    s.iterationTimeS.mean = meanS;
    s.iterationTimeS.p99 = 1.1 * meanS;
    s.jobFinished = finished;
    s.crossTraffic.type = crossGbps > 0 ? "websearch" : "none";
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
Planned(const std::string& id, const std::string& series, const std::string& model)
{
    return { id,
             { { "job", { { "model", model } } } },
             { { "series", series }, { "packet_run", id + "-packet" } } };
}

// engines.csv as rows of cells by column name.
std::vector<std::map<std::string, std::string>>
ReadEnginesCsv(const std::string& file)
{
    std::istringstream in(test::ReadFile(file));
    std::string line;
    std::getline(in, line);
    const std::vector<std::string> header = SplitCsvFields(line);
    std::vector<std::map<std::string, std::string>> rows;
    while (std::getline(in, line))
    {
        const std::vector<std::string> cells = SplitCsvFields(line);
        EXPECT_EQ(cells.size(), header.size()) << line;
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
        {
            row[header[i]] = cells[i];
        }
        rows.push_back(row);
    }
    return rows;
}

} // namespace

TEST(EngineComparison, ReportsTheMedianFlowCompletionTimesDifferencePerRunAndPerSeries)
{
    test::TempDir dir;
    const fs::path flow = dir.Path() + "/flow";
    const fs::path packet = dir.Path() + "/packet";
    // Two web-search runs of one series (FCT halved and +20 %), one run beside iperf of another
    // series (no flows: no FCT difference), one censored run (left out of every figure).
    struct Run
    {
        std::string id, series, model;
        RunSummary packetRun, flowRun;
    };
    const std::vector<Run> runs{
        { "ws-a", "websearch-tcp-configB", "resnet50", Summary(0.2, 10, 0.040),
          Summary(0.25, 10.2, 0.020) },
        { "ws-b", "websearch-tcp-configB", "resnet50", Summary(0.4, 20, 0.010),
          Summary(0.38, 19.8, 0.012) },
        { "ip-a", "iperf-rdma-configA", "vgg16", Summary(0.5, 15, 0), Summary(0.51, 15, 0) },
        { "ws-c", "websearch-tcp-configB", "resnet50", Summary(0.2, 25, 0.05),
          Summary(9, 25, 0.5, false) },
    };
    std::vector<PoolPoint> planned;
    for (auto r : runs)
    {
        r.flowRun.engine = "flow";
        WriteRun(flow, r.id, r.flowRun);
        WriteRun(packet, r.id + "-packet", r.packetRun);
        planned.push_back(Planned(r.id, r.series, r.model));
    }

    const EngineComparison c = CompareEngines(planned, flow, packet, dir.Path() + "/out");

    EXPECT_EQ(c.runs, 4u);
    EXPECT_EQ(c.compared, 3u);
    // |FCT differences| of the two web-search runs: 50 % and 20 %; their median 35 %.
    EXPECT_NEAR(c.medianAbsFctDiffPct, 35.0, 1e-9);
    // |mean differences|: 25, 5 and 2 %.
    EXPECT_NEAR(c.medianAbsMeanDiffPct, 5.0, 1e-9);
    auto rows = ReadEnginesCsv(dir.Path() + "/out/engines.csv");
    ASSERT_EQ(rows.size(), 4u);
    std::map<std::string, std::map<std::string, std::string>> byRun;
    for (const auto& row : rows)
    {
        byRun[row.at("run")] = row;
    }
    EXPECT_EQ(byRun["ws-a"]["series"], "websearch-tcp-configB");
    EXPECT_EQ(byRun["ws-a"]["model"], "resnet50");
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
    EXPECT_NE(md.find("| websearch-tcp-configB resnet50 | 2 | 15.0 | 24.0 | 1 | -5.0 to +25.0 | "
                      "1.5 | -15 |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("| iperf-rdma-configA vgg16 | 1 | 2.0 | 2.0 | 0 | +2.0 to +2.0 | 0.0 |  |"),
              std::string::npos)
        << md;
    EXPECT_NE(md.find("median flow completion time: median |diff| 35 %, median diff -15 %"),
              std::string::npos)
        << md;
    EXPECT_EQ(md.find("engine auto"), std::string::npos) << "every flow run is the flow engine's";
}
