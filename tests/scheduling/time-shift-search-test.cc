// CASSINI-style time shifts (scheduling/time-shift-search.h) on the shipped two-job example:
// the search finds an offset that interleaves the jobs and beats starting them together, and
// `flumen shift` writes its report or refuses bad input with exit 2.
#include "scenario.h"
#include "test-support.h"
#include "time-shift-search.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>

using nlohmann::json;
using namespace flumen;

namespace
{

const std::string kTwoJobs = FLUMEN_SOURCE_DIR "/examples/mltcp/two-jobs.json";

} // namespace

TEST(TimeShift, FindsAnOffsetThatInterleavesTheJobs)
{
    json scenario = LoadScenarioFile(kTwoJobs);
    ApplyOverride(scenario, "job.iterations=20");
    ShiftSearchOptions options;
    options.steps = 6;
    const ShiftSearchResult r = SearchTimeShifts(scenario, kTwoJobs, options);
    ASSERT_EQ(r.jobs.size(), 2u);
    // Two jobs: one job's offset at 6 points, the second pass finding nothing new.
    EXPECT_EQ(r.tried.size(), 6u);
    EXPECT_EQ(r.best.startS[0], 0.0);
    EXPECT_GT(r.best.startS[1], 0.0);
    EXPECT_LT(r.best.startS[1], r.periodS);
    const double gain = r.unshifted.objective / r.best.objective;
    std::cout << "[measure] best offset " << r.best.startS[1] << " s of a " << r.periodS
              << " s period: " << gain << "x; comm overlap " << r.unshifted.overlap[0] << " -> "
              << r.best.overlap[0] << "\n";
    EXPECT_GT(gain, 1.08);
    for (size_t j = 0; j < 2; ++j)
    {
        EXPECT_LT(r.best.overlap[j], 0.5 * r.unshifted.overlap[j]);
    }
    // Every run is in the csv; the report names the offsets and the gain.
    EXPECT_EQ(test::Lines(FormatShiftCsv(r)).size(), r.tried.size() + 1);
    EXPECT_NE(FormatShiftReport(r, "x").find(fmt::format("{:.4f}", r.best.startS[1])),
              std::string::npos);
    EXPECT_EQ(WithShifts(scenario, r.best.startS)["jobs"][1]["start_s"], r.best.startS[1]);
}

TEST(TimeShift, CommandWritesItsReportAndRefusesBadInput)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/shift";
    auto ok = test::RunShift(kTwoJobs + " --quiet --steps 3 --set job.iterations=8 --out " + out);
    ASSERT_EQ(ok.exitCode, 0) << ok.output;
    for (const char* f : { "shifts.csv", "report.md", "best.json" })
    {
        EXPECT_TRUE(std::filesystem::exists(out + "/" + f)) << f;
    }
    EXPECT_EQ(test::ReadCsvRows(out + "/shifts.csv").size(), 3u);
    // One job: nothing to shift against.
    const std::string one = dir.Write("one.json", R"({"job": {"model": "resnet50"},
        "simulation": {"engine": "flow"}})");
    auto single = test::RunShift(one + " --quiet --out " + dir.Path() + "/one");
    EXPECT_EQ(single.exitCode, 2) << single.output;
    EXPECT_NE(single.output.find("at least two jobs"), std::string::npos) << single.output;
    auto steps = test::RunShift(kTwoJobs + " --steps 0 --out " + dir.Path() + "/s");
    EXPECT_EQ(steps.exitCode, 2) << steps.output;
    EXPECT_NE(steps.output.find("--steps"), std::string::npos) << steps.output;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() + "/one"));
}
