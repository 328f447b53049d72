// Several jobs in one run: each with its own rows, window and summary; a job whose hosts
// share no link with another's runs exactly as it does alone, in both engines.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace flumen;
using nlohmann::json;

namespace
{

// Job "a" on S0,S1 beside iperf into S0 (configuration B on 6 hosts), and `others` after it.
json
Jobs(const std::string& engine, const std::string& transport, const json& others)
{
    json jobs = json::array({ { { "name", "a" }, { "hosts", "S0,S1" } } });
    for (const auto& j : others)
    {
        jobs.push_back(j);
    }
    return { { "topology", { { "hosts", 6 } } },
             { "job",
               { { "model", "small" },
                 { "iterations", 4 },
                 { "warmup_iterations", 1 },
                 { "transport", transport } } },
             { "jobs", jobs },
             { "models", { { "small", { { "parameters", 3000000 }, { "compute_s", 0.004 } } } } },
             { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 15 } } },
             { "simulation", { { "engine", engine }, { "progress_interval_s", 0 } } } };
}

std::vector<IterationRow>
RowsOf(const RunOutput& out, const std::string& job)
{
    std::vector<IterationRow> rows;
    for (const auto& r : out.rows)
    {
        if (r.job == job)
        {
            rows.push_back(r);
        }
    }
    return rows;
}

} // namespace

// Each run in a process of its own, as `flumen run` runs: ns-3 numbers the random streams it
// assigns itself (the ECN ramp's marking draws) on from those of earlier runs in the process.
RunSummary
RunAlone(const json& user, const std::string& dir, std::vector<IterationRow>& rows)
{
    std::ofstream(dir + "/scenario.json") << user.dump();
    const test::CommandResult r
        = test::RunFlumen(dir + "/scenario.json --out " + dir + "/out --quiet");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    rows = ParseIterationsCsv(test::ReadFile(dir + "/out/iterations.csv"), dir);
    return ReadRunSummary(dir + "/out/summary.json");
}

TEST(MultiJob, ASecondJobOnOtherLinksLeavesTheFirstBitForBit)
{
    const json second = json::array({ { { "name", "b" },
                                        { "hosts", "S3,S4,S5" },
                                        { "start_s", 0.003 },
                                        { "collective", "nccl_tree" } } });
    test::TempDir dir;
    for (const std::string engine : { "packet", "flow" })
    {
        for (const std::string transport : { "tcp", "rdma" })
        {
            const std::string where = dir.Path() + "/" + engine + "-" + transport;
            std::filesystem::create_directories(where + "/alone");
            std::filesystem::create_directories(where + "/both");
            std::vector<IterationRow> aloneRows, bothRows;
            RunSummary alone
                = RunAlone(Jobs(engine, transport, json::array()), where + "/alone", aloneRows);
            RunSummary both = RunAlone(Jobs(engine, transport, second), where + "/both", bothRows);
            RunOutput out;
            out.rows = bothRows;
            const auto rows = RowsOf(out, "a");
            ASSERT_EQ(rows.size(), 8u) << engine << " " << transport;
            EXPECT_EQ(RowsOf(out, "b").size(), 12u);
            ASSERT_EQ(both.jobs.size(), 2u);
            if (engine == "flow" && transport == "rdma")
            {
                // Behind the standing queues (an RDMA job beside iperf on the marking ToR)
                // the engine steps the queues at every recomputation, the other job's too,
                // and DCQCN reads them: the first job moves, by rounding (2.7e-5 here).
                EXPECT_NEAR(both.jobs[0].iterationTimeS.mean, alone.iterationTimeS.mean,
                            1e-3 * alone.iterationTimeS.mean);
                EXPECT_NEAR(both.jobs[0].dlGoodputGbps, alone.dlGoodputGbps,
                            1e-3 * alone.dlGoodputGbps);
                continue;
            }
            EXPECT_EQ(FormatIterationsCsv(rows), FormatIterationsCsv(aloneRows))
                << engine << " " << transport;
            EXPECT_EQ(both.jobs[0].iterationTimeS.mean, alone.iterationTimeS.mean);
            // The first job's bytes over its own window: the same goodput.
            EXPECT_EQ(both.jobs[0].dlGoodputGbps, alone.dlGoodputGbps);
        }
    }
}

TEST(MultiJob, EachJobHasItsRowsWindowAndSummary)
{
    const json second = json::array(
        { { { "name", "late" }, { "hosts", "S3,S4" }, { "start_s", 0.05 }, { "iterations", 3 } } });
    RunOutput out = RunScenario(test::Resolve(Jobs("flow", "tcp", second)));
    const RunSummary& s = out.summary;
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[1].name, "late");
    EXPECT_EQ(s.jobs[1].hosts, (std::vector<std::string>{ "S3", "S4" }));
    EXPECT_EQ(s.jobs[1].workers, 2u);
    EXPECT_EQ(s.jobs[1].iterations, 2u);
    EXPECT_EQ(RowsOf(out, "late").size(), 6u);
    double first = 1e9;
    for (const auto& r : RowsOf(out, "late"))
    {
        first = std::min(first, r.startS);
    }
    EXPECT_DOUBLE_EQ(first, 0.05);
    EXPECT_GE(s.jobs[1].windowStartS, 0.05);
    EXPECT_GT(s.jobs[1].windowEndS, s.jobs[1].windowStartS);
    // A job's window ends with it: the first one finished before the run did.
    EXPECT_LT(s.jobs[0].windowEndS, s.simulatedTimeS);
    EXPECT_EQ(s.jobs[0].jobFinished, std::optional<bool>(true));
    // The run's job figures are the first job's.
    EXPECT_EQ(s.iterationTimeS.mean, s.jobs[0].iterationTimeS.mean);
    EXPECT_EQ(s.workers, 2u);
    // summary.json carries every job and reads back.
    RunSummary back = RunSummaryFromJson(ToJson(s), "summary.json");
    ASSERT_EQ(back.jobs.size(), 2u);
    EXPECT_EQ(back.jobs[1].name, "late");
    EXPECT_EQ(back.jobs[1].hosts, s.jobs[1].hosts);
    EXPECT_EQ(back.jobs[1].iterationTimeS.mean, s.jobs[1].iterationTimeS.mean);
    EXPECT_EQ(back.jobs[1].windowStartS, s.jobs[1].windowStartS);
    EXPECT_EQ(ToJson(back), ToJson(s));
    EXPECT_NE(FormatHumanSummary(s).find("job late: small over tcp (ring), 2 workers on S3,S4"),
              std::string::npos)
        << FormatHumanSummary(s);
}
