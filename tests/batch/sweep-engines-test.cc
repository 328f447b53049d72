// `flumen sweep --compare-engines`: every point of the grid in both engines, each flow-level
// run set beside the packet-level run of the same assignments and seed (engines.csv and
// engines.md), locally and through the SLURM backend's tasks and --collect.
#include "test-support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <regex>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

// Two loads of iperf beside a small TCP job: a second or two per point in either engine.
const char* kTwoLoads = R"({
  "base": {"job": {"model": "small", "iterations": 3, "warmup_iterations": 1},
           "models": {"small": {"parameters": 500000, "compute_s": 0.002}},
           "cross_traffic": {"type": "iperf"},
           "simulation": {"progress_interval_s": 0}},
  "grid": {"cross_traffic.load_gbps": [5, 15]},
  "seeds": [1]
})";

} // namespace

TEST(SweepEngines, EveryPointRunsInBothEnginesAndEnginesMdSetsThemSideBySide)
{
    test::TempDir dir;
    const std::string sweep = dir.Write("loads.json", kTwoLoads);
    const std::string out = dir.Path() + "/out";
    auto r = test::RunSweep(sweep + " --out " + out + " --jobs 2 --compare-engines");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("engines: 2 of 2 runs compared"), std::string::npos) << r.output;

    // results.csv: each load once per engine.
    std::map<std::string, std::string> engineOfPoint;
    for (const auto& row : test::ReadCsvRows(out + "/results.csv"))
    {
        EXPECT_EQ(row.at("status"), "done");
        engineOfPoint[row.at("point")] = row.at("simulation.engine");
    }
    ASSERT_EQ(engineOfPoint.size(), 4u);
    // engines.csv: each flow point beside the packet point of its load.
    const auto rows = test::ReadCsvRows(out + "/engines.csv");
    ASSERT_EQ(rows.size(), 2u);
    std::map<std::string, std::map<std::string, std::string>> byPoint;
    for (const auto& row : rows)
    {
        byPoint[row.at("point")] = row;
        EXPECT_EQ(engineOfPoint.at(row.at("run")), "flow");
        EXPECT_EQ(engineOfPoint.at(row.at("packet_run")), "packet");
        EXPECT_EQ(row.at("status"), "compared");
        EXPECT_EQ(row.at("series"), "loads");
        EXPECT_EQ(row.at("model"), "small");
        EXPECT_EQ(row.at("transport"), "tcp"); // the default, resolved
        // Unsaturated loads: the engines agree within a few per cent.
        EXPECT_LT(std::abs(std::stod(row.at("mean_diff_pct"))), 10.0) << row.at("point");
    }
    ASSERT_EQ(byPoint.count("cross_traffic.load_gbps=5 seed=1"), 1u);
    ASSERT_EQ(byPoint.count("cross_traffic.load_gbps=15 seed=1"), 1u);
    EXPECT_NEAR(std::stod(byPoint["cross_traffic.load_gbps=15 seed=1"].at("flow_cross_gbps")), 15,
                0.5);
    const std::string md = test::ReadFile(out + "/engines.md");
    EXPECT_NE(md.find("| loads | small | tcp | 2 |"), std::string::npos) << md;

    // The folder's points are those of both engines: a command without the option (which
    // would find none of them) is refused, and results.csv stays as it was.
    const std::string results = test::ReadFile(out + "/results.csv");
    auto without = test::RunSweep(sweep + " --out " + out + " --collect");
    EXPECT_EQ(without.exitCode, 2) << without.output;
    EXPECT_NE(without.output.find("add --compare-engines"), std::string::npos) << without.output;
    EXPECT_EQ(test::ReadFile(out + "/results.csv"), results);

    // A sweep file that sweeps the engine itself is refused before anything runs.
    const std::string twice
        = dir.Write("twice.json", R"({"base": {"cross_traffic": {"type": "iperf", "load_gbps": 5}},
                         "grid": {"simulation.engine": ["flow"]}})");
    auto refused = test::RunSweep(twice + " --out " + dir.Path() + "/twice --compare-engines");
    EXPECT_EQ(refused.exitCode, 2) << refused.output;
    EXPECT_NE(refused.output.find("twice.json: key 'grid.simulation.engine'"), std::string::npos)
        << refused.output;
    EXPECT_FALSE(fs::exists(dir.Path() + "/twice"));
}

// --compact: the finished points' folders become one runs file, read back the same by
// results.csv, the engine comparison and a resumed sweep (which runs nothing again).
TEST(SweepEngines, CompactKeepsResultsAndComparisonAndResumesWithoutRunning)
{
    test::TempDir dir;
    const std::string sweep = dir.Write("loads.json", kTwoLoads);
    const std::string out = dir.Path() + "/out";
    auto r = test::RunSweep(sweep + " --out " + out + " --jobs 2 --compare-engines");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string results = test::ReadFile(out + "/results.csv");
    const std::string engines = test::ReadFile(out + "/engines.csv");

    auto compact
        = test::RunSweep(sweep + " --out " + out + " --jobs 2 --compare-engines --compact");
    ASSERT_EQ(compact.exitCode, 0) << compact.output;
    EXPECT_NE(compact.output.find("4 already done, 0 to run"), std::string::npos) << compact.output;
    EXPECT_NE(compact.output.find("compacted 4 point folders"), std::string::npos)
        << compact.output;
    size_t folders = 0;
    for (const auto& e : fs::directory_iterator(out + "/points"))
    {
        folders += e.is_directory();
    }
    EXPECT_EQ(folders, 0u);
    EXPECT_EQ(test::Lines(test::ReadFile(out + "/points/loads.runs.jsonl")).size(), 4u);
    EXPECT_EQ(test::ReadFile(out + "/results.csv"), results);
    // The comparison from the runs file: the same rows but the runs' wall times.
    auto withoutWall = [](const std::string& path)
    {
        std::vector<std::map<std::string, std::string>> rows;
        for (auto row : test::ReadCsvRows(path))
        {
            for (auto it = row.begin(); it != row.end();)
            {
                it = it->first.find("wall") != std::string::npos ? row.erase(it) : std::next(it);
            }
            rows.push_back(row);
        }
        return rows;
    };
    EXPECT_EQ(withoutWall(out + "/engines.csv"), withoutWall(dir.Write("before.csv", engines)));

    // Again: nothing runs, nothing moves, and --collect reads the runs file too.
    auto again = test::RunSweep(sweep + " --out " + out + " --compare-engines --compact");
    ASSERT_EQ(again.exitCode, 0) << again.output;
    EXPECT_NE(again.output.find("compacted 0 point folders"), std::string::npos) << again.output;
    auto collect = test::RunSweep(sweep + " --out " + out + " --compare-engines --collect");
    ASSERT_EQ(collect.exitCode, 0) << collect.output;
    EXPECT_EQ(test::ReadFile(out + "/results.csv"), results);

    // Where no runs end here, it is refused up front.
    auto refused
        = test::RunSweep(sweep + " --out " + out + " --compare-engines --compact --status");
    EXPECT_EQ(refused.exitCode, 2) << refused.output;
    EXPECT_NE(refused.output.find("--compact goes with"), std::string::npos) << refused.output;
}

TEST(SweepEngines, SlurmTasksRunThePointsAsSubmittedAndCollectCompares)
{
    test::TempDir dir;
    const std::string sweep = dir.Write("loads.json", kTwoLoads);
    const std::string out = dir.Path() + "/out";
    auto dry
        = test::RunSweep(sweep + " --out " + out + " --backend slurm --dry-run --compare-engines");
    ASSERT_EQ(dry.exitCode, 0) << dry.output;
    const std::string script = test::ReadFile(out + "/slurm/array-1.sbatch");
    EXPECT_TRUE(std::regex_search(script, std::regex("--compare-engines --task ")));
    // Every task as SLURM would run it: without the option a task would load other points and
    // refuse (the sweep's identity differs).
    for (int task = 0; task < 4; ++task)
    {
        auto t = test::RunCommand("SLURM_ARRAY_TASK_ID=" + std::to_string(task) + " bash " + out
                                  + "/slurm/array-1.sbatch");
        ASSERT_EQ(t.exitCode, 0) << "task " << task << ": " << t.output;
    }
    EXPECT_FALSE(fs::exists(out + "/engines.csv")) << "tasks run points; --collect compares";
    auto collected = test::RunSweep(sweep + " --out " + out + " --collect --compare-engines");
    EXPECT_EQ(collected.exitCode, 0) << collected.output;
    EXPECT_NE(collected.output.find("engines: 2 of 2 runs compared"), std::string::npos)
        << collected.output;
    EXPECT_EQ(test::ReadCsvRows(out + "/engines.csv").size(), 2u);
}
