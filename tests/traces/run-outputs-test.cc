#include "run-outputs.h"
#include "test-support.h"

#include <gtest/gtest.h>

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
    WriteRunOutputs(out, { { 0, 0, 0.0, 1.0, 0.5, false } }, nlohmann::json{ { "iterations", 1 } });
    EXPECT_TRUE(std::filesystem::exists(out + "/iterations.csv"));
    EXPECT_EQ(nlohmann::json::parse(test::ReadFile(out + "/summary.json"))["iterations"], 1);
    for (const auto& e : std::filesystem::directory_iterator(out))
    {
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
    }
}
