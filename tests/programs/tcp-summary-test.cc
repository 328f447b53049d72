// flumen tcp-summary as a user meets it: on a run's folder it reads tcp.csv, names the run and
// its engine, and counts every flow that started in the window asked for.
#include "run-outputs.h"
#include "test-support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

// RoCE beside web-search behind a FIFO switch: the flow engine's window flows (tcp.csv).
const char* kWindows = R"({
  "name": "windows",
  "seed": 3,
  "job": {"model": "small", "transport": "rdma", "iterations": 4, "warmup_iterations": 1},
  "models": {"small": {"parameters": 20000000, "compute_s": 0.02}},
  "cross_traffic": {"type": "websearch", "load_gbps": 12},
  "topology": {"configuration": "B", "switch_queue": {"discipline": "fifo"}},
  "outputs": {"tcp_csv": true},
  "simulation": {"engine": "flow", "progress_interval_s": 0}
})";

// The number in the "flows" column of the table's row that starts with `size` (the first run).
long
FlowsOnRow(const std::string& table, const std::string& size)
{
    for (const std::string& line : test::Lines(table))
    {
        if (line.rfind(size, 0) == 0)
        {
            // size, run label (may hold spaces: up to its closing parenthesis), then flows.
            const size_t after = line.find(')');
            return after == std::string::npos ? -1 : std::stol(line.substr(after + 1));
        }
    }
    return -1;
}

} // namespace

TEST(TcpSummary, CountsEveryFlowOfARunsTcpCsvByItsStart)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/run";
    const test::CommandResult run
        = test::RunFlumen(dir.Write("windows.json", kWindows) + " --out " + out);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const std::vector<TcpFlowRow> rows
        = ParseTcpCsv(test::ReadFile(out + "/tcp.csv"), out + "/tcp.csv");
    ASSERT_GT(rows.size(), 20u) << "too few flows to tell anything";
    const double from = rows[rows.size() / 2].startS;
    long later = 0;
    long laterSmall = 0;
    for (const TcpFlowRow& r : rows)
    {
        later += r.startS >= from ? 1 : 0;
        laterSmall += r.startS >= from && r.sizeBytes < 1000000 ? 1 : 0;
    }

    const test::CommandResult all = test::RunTcpSummary(out + " " + out + "/tcp.csv");
    ASSERT_EQ(all.exitCode, 0) << all.output;
    EXPECT_NE(all.output.find("run (flow)"), std::string::npos) << all.output;
    EXPECT_EQ(FlowsOnRow(all.output, "all"), static_cast<long>(rows.size())) << all.output;
    // Both arguments are the same run: every class has a row per argument.
    EXPECT_EQ(test::Lines(all.output).size(), 2u + 2 * 5) << all.output;

    const test::CommandResult part
        = test::RunTcpSummary(fmt::format("{} --from-s {:.9f} --sizes-mb 1", out, from));
    ASSERT_EQ(part.exitCode, 0) << part.output;
    EXPECT_EQ(FlowsOnRow(part.output, "all"), later) << part.output;
    EXPECT_LT(later, static_cast<long>(rows.size()));
    EXPECT_EQ(FlowsOnRow(part.output, "< 1 MB"), laterSmall) << part.output;
    EXPECT_GT(laterSmall, 0);

    // A tcp.csv given from inside its folder, or the folder with a trailing slash: named alike.
    for (const std::string& args : { "cd " + out + " && " FLUMEN_TCP_SUMMARY_BINARY " tcp.csv",
                                     std::string(FLUMEN_TCP_SUMMARY_BINARY " ") + out + "/" })
    {
        const test::CommandResult r = test::RunCommand(args);
        EXPECT_EQ(r.exitCode, 0) << args << "\n" << r.output;
        EXPECT_NE(r.output.find("run (flow)"), std::string::npos) << args << "\n" << r.output;
    }
    // The same run twice under one name: the second is named as given.
    const test::CommandResult twice = test::RunTcpSummary(out + " " + out);
    EXPECT_NE(twice.output.find(out + " "), std::string::npos) << twice.output;
}
