#include "run-outputs.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>

using namespace flumen;

TEST(RunOutputs, IterationsCsvRoundTrips)
{
    std::vector<IterationRow> rows(2);
    rows[0] = { 0, 0, 0.0, 0.160123456, 0.05, 0.1, 0.0, 0.010123456, true, "a" };
    rows[1] = { 1, 2, 0.160123456, 0.32, 0.04, 0.08, 0.03, 0.009876544, false, "b-2" };
    std::string csv = FormatIterationsCsv(rows);
    EXPECT_EQ(
        csv.substr(0, csv.find('\n')),
        "iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup,job");
    auto back = ParseIterationsCsv(csv, "x.csv");
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[1].worker, 2u);
    EXPECT_NEAR(back[0].endS, 0.160123456, 1e-12);
    EXPECT_NEAR(back[1].forwardS, 0.04, 1e-9);
    EXPECT_NEAR(back[1].backwardS, 0.08, 1e-9);
    EXPECT_NEAR(back[1].waitS, 0.03, 1e-9);
    EXPECT_NEAR(back[1].stepS, 0.009876544, 1e-9);
    EXPECT_EQ(back, rows);
    EXPECT_TRUE(back[0].warmup);
    EXPECT_FALSE(back[1].warmup);
    EXPECT_EQ(back[1].job, "b-2");
}

// Runs written before the job column are still read (cached validation runs).
TEST(RunOutputs, IterationsCsvWithoutTheJobColumnIsRead)
{
    const std::string old
        = "iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup\n"
          "3,1,0.1,0.2,0.1,0.03,0.05,0.01,0.01,0\n";
    auto rows = ParseIterationsCsv(old, "old.csv");
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].iteration, 3u);
    EXPECT_EQ(rows[0].worker, 1u);
    EXPECT_EQ(rows[0].job, "");
    EXPECT_THROW(ParseIterationsCsv(old + "3,1,0.1,0.2,0.1,0.03,0.05,0.01,0.01,0,extra\n", "x"),
                 std::runtime_error);
}

TEST(RunOutputs, GarbledCsvNamesTheLine)
{
    std::string bad
        = "iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup\n"
          "0,0,0.1,0.2,0.1,0.03,0.05,0.01,0.01,0\n"
          "0,1,zero,0.2,0.1,0.03,0.05,0.01,0.01,0\n";
    try
    {
        ParseIterationsCsv(bad, "runs/a.csv");
        FAIL() << "expected an error";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("runs/a.csv:3"), std::string::npos) << e.what();
    }
}

TEST(RunOutputs, WritesBothFilesAndNoTemporaries)
{
    test::TempDir dir;
    std::string out = dir.Path() + "/nested/run";
    IterationRow row;
    row.endS = 1.0;
    row.forwardS = 0.5;
    WriteRunOutputs(out, { row }, nlohmann::json{ { "iterations", 1 } });
    EXPECT_TRUE(std::filesystem::exists(out + "/iterations.csv"));
    EXPECT_EQ(nlohmann::json::parse(test::ReadFile(out + "/summary.json"))["iterations"], 1);
    for (const auto& e : std::filesystem::directory_iterator(out))
    {
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    }
}

TEST(RunOutputs, TcpCsvLeavesWhatNeverHappenedEmpty)
{
    TcpFlowRow hystart;
    hystart.id = 3;
    hystart.startS = 0.25;
    hystart.sizeBytes = 2000000;
    hystart.slowStartEndS = 0.2500625;
    hystart.slowStartEndCwndBytes = 24616;
    hystart.maxCwndBytes = 60000;
    hystart.slowStartEndCause = "hystart";
    hystart.minSrttS = 1e-6;
    hystart.maxSrttS = 0.017;
    TcpFlowRow lost = hystart;
    lost.id = 4;
    lost.slowStartEndCause = "loss";
    lost.recoveries = 2;
    lost.timeouts = 1;
    TcpFlowRow small; // never left slow start, no round-trip sample
    small.id = 5;
    small.startS = 1;
    small.sizeBytes = 1460;
    small.maxCwndBytes = 14480;
    EXPECT_EQ(FormatTcpCsv({ hystart, lost, small }),
              "flow_id,start_s,size_bytes,slow_start_end_s,slow_start_end_cwnd_bytes,"
              "slow_start_end_cause,max_cwnd_bytes,min_srtt_s,max_srtt_s,recoveries,timeouts\n"
              "3,0.250000000,2000000,0.250062500,24616,hystart,60000,0.000001000,0.017000000,0,0\n"
              "4,0.250000000,2000000,0.250062500,24616,loss,60000,0.000001000,0.017000000,2,1\n"
              "5,1.000000000,1460,,,,14480,,,0,0\n");
}

// link.csv's rows take shortcuts (a repeated row's fields formatted once, decimals written from
// integers away from rounding ties): the text must be what formatting every field with fmt gives.
TEST(RunOutputs, LinkCsvRowsAreEveryFieldFormattedInFull)
{
    std::vector<LinkRow> rows;
    auto add = [&rows](double startS, uint64_t job, double queue)
    {
        LinkRow r;
        r.startS = startS;
        r.widthS = 100e-6;
        r.jobBytes = job;
        r.crossBytes = 1234;
        r.queueMeanBytes = queue;
        r.queueMaxBytes = 77;
        rows.push_back(r);
    };
    for (uint64_t b = 0; b < 3000; ++b)
    {
        add(static_cast<double>(b) * 100e-6, b / 7, b % 11 == 0 ? 0.5 : 1e6);
    }
    for (uint64_t b : { 9999999ull, 123456789ull, 10000000000ull })
    {
        add(static_cast<double>(b) * 100e-6, 5, 0); // up to 1e6 s
    }
    // Not on a whole microsecond: ties (2^-7 s), a hair beside one, negative zero.
    for (double t : { 0.0078125, 0.0000015, 1.0000004999, 2.5e-7, 0.1 + 1e-10, -0.0, 12.3456785 })
    {
        add(t, 1, 2.25);
    }
    add(3.0, 1, 2.25); // a repeat after those
    // Other widths and values: rates and queues on and off ties, and beyond the shortcut's range.
    uint64_t state = 12345;
    auto next = [&state]
    {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return state >> 11;
    };
    for (int i = 0; i < 20000; ++i)
    {
        LinkRow r;
        r.widthS = std::vector<double>{ 100e-6, 50e-6, 37e-6, 1e-3, 0.1 }[next() % 5];
        r.startS = static_cast<double>(next() % 100000) * r.widthS;
        r.jobBytes = next() % 400000;
        r.crossBytes = i % 3 == 0 ? 5 * (next() % 10) : next() % 4000000000ull;
        r.queueMeanBytes = std::vector<double>{ static_cast<double>(next() % 1000) + 0.5,
                                                static_cast<double>(next()) / 1024,
                                                static_cast<double>(next() % 100000) * 0.1,
                                                1e13 + 0.5, 0.49999999 }[next() % 5];
        rows.push_back(r);
    }
    std::string expected;
    for (const auto& r : rows)
    {
        double toGbps = 8.0 / r.widthS / 1e9;
        expected
            += fmt::format("{:.6f},{},{},{:.4f},{:.4f},{:.0f},{},{},{}\n", r.startS, r.jobBytes,
                           r.crossBytes, r.jobBytes * toGbps, r.crossBytes * toGbps,
                           r.queueMeanBytes, r.queueMaxBytes, r.drops, r.ecnMarks);
    }
    std::string out;
    AppendLinkCsvRows(out, rows);
    ASSERT_EQ(out, expected);
    EXPECT_NE(out.find("\n0.007812,1,"), std::string::npos) << "a tie rounds to even";
    EXPECT_NE(out.find("\n-0.000000,"), std::string::npos);
}
