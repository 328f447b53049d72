// RunStore: finished run folders compacted into one runs file per series, read back in either
// form, resumable (the pool counts a compacted run finished), one sorted line per run.
#include "point-pool.h"
#include "run-store.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace flumen;
using nlohmann::json;

namespace
{

// A finished run's folder as the pool leaves it.
void
WriteRun(const test::TempDir& dir, const std::string& id, double mean)
{
    fs::create_directories(dir.Path() + "/" + id);
    dir.Write(id + "/scenario.json", json{ { "name", id }, { "seed", 1 } }.dump(2));
    dir.Write(id + "/summary.json",
              json{ { "iteration_time_s", { { "mean", mean } } }, { "name", id } }.dump(2));
    dir.Write(id + "/iterations.csv", "iteration,worker\n0," + id + "\n");
    dir.Write(id + "/link.csv", "bulky"); // not kept
}

} // namespace

TEST(RunStore, CompactedRunsReadAsTheirFoldersDidAndStillCountAsFinished)
{
    test::TempDir dir;
    WriteRun(dir, "series-a-2G-s1-bbbb", 0.25);
    WriteRun(dir, "series-a-1G-s1-aaaa", 0.125);
    WriteRun(dir, "series-b-1G-s1-cccc", 0.5);
    const std::string before
        = ReadRunFile(dir.Path(), "series-a-1G-s1-aaaa", "summary.json").value();
    EXPECT_EQ(
        CompactRuns(dir.Path(), { { "series-a", { "series-a-2G-s1-bbbb", "series-a-1G-s1-aaaa" } },
                                  { "series-b", { "series-b-1G-s1-cccc", "not-run" } } }),
        3u);
    EXPECT_FALSE(fs::exists(dir.Path() + "/series-a-1G-s1-aaaa"));
    // One line per run, sorted by id, whatever order they came in.
    const auto lines = test::Lines(test::ReadFile(dir.Path() + "/series-a.runs.jsonl"));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(json::parse(lines[0])["id"], "series-a-1G-s1-aaaa");
    EXPECT_EQ(json::parse(lines[1])["id"], "series-a-2G-s1-bbbb");
    // Read back: the same summary and rows; the bulky files are gone.
    EXPECT_EQ(json::parse(ReadRunFile(dir.Path(), "series-a-1G-s1-aaaa", "summary.json").value()),
              json::parse(before));
    EXPECT_EQ(ReadRunFile(dir.Path(), "series-b-1G-s1-cccc", "iterations.csv").value(),
              "iteration,worker\n0,series-b-1G-s1-cccc\n");
    EXPECT_EQ(json::parse(
                  ReadRunFile(dir.Path(), "series-b-1G-s1-cccc", "scenario.json").value())["name"],
              "series-b-1G-s1-cccc");
    EXPECT_FALSE(ReadRunFile(dir.Path(), "not-run", "summary.json").has_value());
    // The pool skips them; the ids list both forms.
    EXPECT_TRUE(PointFinished(dir.Path(), "series-a-2G-s1-bbbb"));
    EXPECT_FALSE(PointFinished(dir.Path(), "not-run"));
    WriteRun(dir, "series-a-3G-s1-dddd", 1.0);
    EXPECT_EQ(StoredRunIds(dir.Path()),
              (std::vector<std::string>{ "series-a-1G-s1-aaaa", "series-a-2G-s1-bbbb",
                                         "series-a-3G-s1-dddd", "series-b-1G-s1-cccc" }));
    // A run done again (its folder back) replaces its line; the others stay as they were.
    WriteRun(dir, "series-a-1G-s1-aaaa", 0.75);
    EXPECT_EQ(CompactRuns(dir.Path(), { { "series-a",
                                          { "series-a-1G-s1-aaaa", "series-a-2G-s1-bbbb",
                                            "series-a-3G-s1-dddd" } } }),
              2u);
    const auto again = test::Lines(test::ReadFile(dir.Path() + "/series-a.runs.jsonl"));
    ASSERT_EQ(again.size(), 3u);
    EXPECT_EQ(again[1], lines[1]); // unchanged, to the byte: a diff shows only what moved
    EXPECT_EQ(json::parse(ReadRunFile(dir.Path(), "series-a-1G-s1-aaaa", "summary.json")
                              .value())["iteration_time_s"]["mean"],
              0.75);
}

TEST(RunStore, ALineThatIsNotARunIsNamedWithItsFileAndLine)
{
    test::TempDir dir;
    dir.Write("series.runs.jsonl", "{\"id\": \"x\", \"summary\": {}, \"iterations_csv\": \"\"}\n"
                                   "not json\n");
    try
    {
        PointFinished(dir.Path(), "y");
        FAIL() << "a broken runs file was read";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("series.runs.jsonl:2:"), std::string::npos)
            << e.what();
    }
}

TEST(RunStore, UnpackWritesAStoredRunsFilesAndRefusesOneThatIsNotThere)
{
    test::TempDir dir;
    WriteRun(dir, "series-a-1G-s1-aaaa", 0.125);
    const std::string scenario
        = ReadRunFile(dir.Path(), "series-a-1G-s1-aaaa", "scenario.json").value();
    CompactRuns(dir.Path(), { { "series-a", { "series-a-1G-s1-aaaa" } } });
    auto r = test::RunValidate("--unpack " + dir.Path() + " series-a-1G-s1-aaaa --out " + dir.Path()
                               + "/unpacked");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(json::parse(test::ReadFile(dir.Path() + "/unpacked/scenario.json")),
              json::parse(scenario));
    EXPECT_EQ(test::ReadFile(dir.Path() + "/unpacked/iterations.csv"),
              "iteration,worker\n0,series-a-1G-s1-aaaa\n");
    EXPECT_EQ(json::parse(test::ReadFile(dir.Path()
                                         + "/unpacked/summary.json"))["iteration_time_s"]["mean"],
              0.125);
    auto missing = test::RunValidate("--unpack " + dir.Path() + " series-a-9G-s1-zzzz --out "
                                     + dir.Path() + "/none");
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_NE(missing.output.find("no finished run series-a-9G-s1-zzzz"), std::string::npos)
        << missing.output;
    EXPECT_FALSE(fs::exists(dir.Path() + "/none"));
    EXPECT_EQ(test::RunValidate("--unpack " + dir.Path()).exitCode, 2);
}

TEST(RunStore, ABrokenSummaryIsNamedAndItsFolderKept)
{
    test::TempDir dir;
    WriteRun(dir, "series-a-1G-s1-aaaa", 0.125);
    dir.Write("series-a-1G-s1-aaaa/summary.json", "{\"iteration_time_s\": ");
    try
    {
        CompactRuns(dir.Path(), { { "series-a", { "series-a-1G-s1-aaaa" } } });
        FAIL() << "a broken summary was compacted";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("series-a-1G-s1-aaaa/summary.json: expected a JSON "
                                             "object"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(fs::exists(dir.Path() + "/series-a-1G-s1-aaaa/summary.json"));
    EXPECT_FALSE(fs::exists(dir.Path() + "/series-a.runs.jsonl"));
}
