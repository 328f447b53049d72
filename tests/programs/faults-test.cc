// Faults while the commands write their results: a full disk and a kill -9 leave either no
// result or a whole one, never a partial or mixed one, and the next command starts clean.
#include "run-outputs.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

// A short run with a large link.csv (1 us bins): writing it takes long enough to be hit.
const char* kBigOutput = R"({
  "name": "big-output",
  "seed": 3,
  "job": {"model": "small", "iterations": 3, "warmup_iterations": 1},
  "models": {"small": {"parameters": 2000000, "compute_s": 0.004}},
  "cross_traffic": {"type": "iperf", "load_gbps": 10, "streams": 2},
  "outputs": {"link_bin_us": 1},
  "simulation": {"progress_interval_s": 0}
})";

std::vector<std::string>
Entries(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
    {
        names.push_back(e.path().filename().string());
    }
    return names;
}

// Starts `argv` (its output to /dev/null), lets it run `seconds`, then kills it with SIGKILL.
void
KillAfter(const std::vector<std::string>& argv, double seconds)
{
    pid_t pid = ::fork();
    if (pid == 0)
    {
        int devnull = ::open("/dev/null", O_WRONLY);
        ::dup2(devnull, 1);
        ::dup2(devnull, 2);
        std::vector<char*> args;
        for (const auto& a : argv)
        {
            args.push_back(const_cast<char*>(a.c_str()));
        }
        args.push_back(nullptr);
        ::execv(args[0], args.data());
        ::_exit(127);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
}

} // namespace

TEST(Faults, RunOnAFullDiskFailsAndLeavesNothing)
{
    test::TempDir dir;
    const std::string disk = dir.Path() + "/disk";
    if (std::string why = test::MountSmallDisk(disk, "256k"); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    std::string scenario = dir.Write("big.json", kBigOutput);
    auto r = test::RunFlumen(scenario + " --quiet --out " + disk + "/out");
    const auto left = Entries(disk);
    test::RunCommand("umount " + disk);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_TRUE(left.empty()) << "left on the full disk: " << left.front();
}

TEST(Faults, RunKilledWhileWritingLeavesNoResultOrAWholeOne)
{
    test::TempDir dir;
    std::string scenario = dir.Write("big.json", kBigOutput);
    // The reference: an undisturbed run, and how long it takes.
    const auto start = std::chrono::steady_clock::now();
    auto ref = test::RunFlumen(scenario + " --quiet --out " + dir.Path() + "/ref");
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(ref.exitCode, 0) << ref.output;
    const std::string refIterations = test::ReadFile(dir.Path() + "/ref/iterations.csv");
    const std::string refLink = test::ReadFile(dir.Path() + "/ref/link.csv");
    int whole = 0;
    int none = 0;
    // Kills spread over the last third of the run, where it simulates its end and writes.
    for (int k = 0; k < 12; ++k)
    {
        const std::string out = dir.Path() + "/out" + std::to_string(k);
        KillAfter({ FLUMEN_RUN_BINARY, scenario, "--quiet", "--out", out },
                  wall * (0.67 + 0.04 * k));
        if (fs::exists(out + "/summary.json"))
        {
            // A marker means every file of the set is in place and whole.
            EXPECT_EQ(test::ReadFile(out + "/iterations.csv"), refIterations) << out;
            EXPECT_EQ(test::ReadFile(out + "/link.csv"), refLink) << out;
            ++whole;
        }
        else
        {
            // No result: the folder appears only whole, so it is absent (a killed writer's
            // temporary may stay beside it, named as one).
            EXPECT_FALSE(fs::exists(out)) << out;
            ++none;
        }
    }
    std::cout << "[measure] kill -9 over the last third of a " << wall << " s run: " << whole
              << " whole results, " << none << " none\n";
}

namespace
{

// Every entry under `dir`, recursively, relative to it.
std::vector<std::string>
Tree(const std::string& dir)
{
    std::vector<std::string> names;
    for (const auto& e : fs::recursive_directory_iterator(dir))
    {
        names.push_back(fs::relative(e.path(), dir).string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

size_t
CountContaining(const std::vector<std::string>& names, const std::string& what)
{
    return std::count_if(names.begin(), names.end(),
                         [&](const std::string& n) { return n.find(what) != std::string::npos; });
}

// Fills what is left of a small disk.
void
FillDisk(const std::string& disk)
{
    test::RunCommand("dd if=/dev/zero of=" + disk + "/filler bs=4k 2>/dev/null");
}

const char* kSmallSweep = R"({
  "base": {"job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
           "models": {"m": {"parameters": 500000, "compute_s": 0.002}},
           "cross_traffic": {"type": "iperf", "load_gbps": 10},
           "simulation": {"progress_interval_s": 0}},
  "grid": {"job.tcp.sockets_per_peer": [1, 2]}, "seeds": [1, 2]})";

} // namespace

TEST(Faults, SweepOnAFullDiskStopsCleanlyAndResumesOnceThereIsRoom)
{
    test::TempDir dir;
    const std::string disk = dir.Path() + "/disk";
    if (std::string why = test::MountSmallDisk(disk, "16k"); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    const std::string sweep = dir.Write("sweep.json", kSmallSweep);
    const std::string out = disk + "/out";
    auto full = test::RunSweep(sweep + " --out " + out + " --jobs 2");
    const auto left = Tree(disk);
    // Room again, the same files in place: the same command finishes the sweep.
    test::RunCommand("mount -o remount,size=8m " + disk);
    auto resumed = test::RunSweep(sweep + " --out " + out + " --jobs 2");
    const auto after = Tree(disk);
    test::RunCommand("umount " + disk);

    EXPECT_EQ(full.exitCode, 1) << full.output;
    EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
    // Nothing half written: no temporaries, no results.csv, no point folder without its summary.
    EXPECT_EQ(CountContaining(left, ".tmp."), 0u) << ::testing::PrintToString(left);
    EXPECT_EQ(CountContaining(left, "results.csv"), 0u) << ::testing::PrintToString(left);
    EXPECT_EQ(CountContaining(left, "/iterations.csv"), CountContaining(left, "/summary.json"));
    EXPECT_EQ(resumed.exitCode, 0) << resumed.output;
    EXPECT_EQ(CountContaining(after, "/summary.json"), 4u) << ::testing::PrintToString(after);
    EXPECT_EQ(CountContaining(after, ".tmp."), 0u) << ::testing::PrintToString(after);
    std::cout << "[measure] sweep on a 16 kB disk: exit " << full.exitCode << ", "
              << CountContaining(left, "/summary.json") << " of 4 points whole; resumed: exit "
              << resumed.exitCode << "\n";
}

TEST(Faults, ValidateOnAFullDiskKeepsThePreviousReportWhole)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string disk = dir.Path() + "/disk";
    if (std::string why = test::MountSmallDisk(disk, "512k"); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    const std::string out = disk + "/v";
    const std::string manifest = test::kManifests + "iperf-rdma-configA.json --quick --report-only";
    auto first = test::RunValidate(manifest + " --out " + out);
    std::map<std::string, std::string> before;
    for (const char* f : { "report.md", "points.csv", "series.csv", "cdfs.csv" })
    {
        before[f] = test::ReadFile(out + "/" + f);
    }
    FillDisk(disk);
    // Another report (other iteration counts) that does not fit.
    auto full = test::RunValidate(manifest + " --iterations 8 --out " + out);
    const auto left = Tree(disk);
    std::map<std::string, std::string> kept;
    for (const auto& [f, text] : before)
    {
        kept[f] = test::ReadFile(out + "/" + f);
    }
    test::RunCommand("rm -f " + disk + "/filler");
    auto again = test::RunValidate(manifest + " --iterations 8 --out " + out);
    const std::string points = test::ReadFile(out + "/points.csv");
    test::RunCommand("umount " + disk);

    EXPECT_EQ(first.exitCode, 1) << first.output; // report only: not every point simulated
    ASSERT_FALSE(before["report.md"].empty()) << first.output;
    EXPECT_EQ(full.exitCode, 1) << full.output;
    EXPECT_NE(full.output.find("No space left on device"), std::string::npos) << full.output;
    EXPECT_EQ(kept, before); // the previous report and tables, whole and unchanged
    EXPECT_EQ(CountContaining(left, ".tmp."), 0u) << ::testing::PrintToString(left);
    EXPECT_EQ(again.exitCode, 1) << again.output;
    EXPECT_NE(points, before["points.csv"]); // with room, the new report is written
}

TEST(Faults, ValidateKilledWhileWritingLeavesAWholeReportOrNoneAndRecovers)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string manifest = test::kManifests + "iperf-rdma-configA.json";
    auto start = std::chrono::steady_clock::now();
    auto ref = test::RunValidate(manifest + " --quick --report-only --out " + dir.Path() + "/ref");
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string refPoints = test::ReadFile(dir.Path() + "/ref/points.csv");
    const std::string refSeries = test::ReadFile(dir.Path() + "/ref/series.csv");
    ASSERT_FALSE(refPoints.empty()) << ref.output;
    int whole = 0;
    int none = 0;
    for (int k = 0; k < 16; ++k)
    {
        const std::string out = dir.Path() + "/out" + std::to_string(k);
        KillAfter({ FLUMEN_VALIDATE_BINARY, manifest, "--quick", "--report-only", "--out", out },
                  wall * k / 12.0);
        if (fs::exists(out + "/report.md"))
        {
            EXPECT_EQ(test::ReadFile(out + "/points.csv"), refPoints) << out;
            EXPECT_EQ(test::ReadFile(out + "/series.csv"), refSeries) << out;
            ++whole;
        }
        else
        {
            ++none;
        }
        // The next validate in the folder finishes and leaves no temporary behind.
        auto next = test::RunValidate(manifest + " --quick --report-only --out " + out);
        EXPECT_EQ(next.exitCode, 1) << next.output;
        EXPECT_EQ(test::ReadFile(out + "/points.csv"), refPoints) << out;
        const auto tree = Tree(out);
        EXPECT_EQ(CountContaining(tree, ".tmp."), 0u) << ::testing::PrintToString(tree);
    }
    std::cout << "[measure] kill -9 over a " << wall << " s validate report: " << whole
              << " whole reports, " << none << " none\n";
}

TEST(Faults, CalibrateKilledLeavesThePreviousFileOrTheNewOne)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    // A short calibrate: configuration A's idle ResNet-50 run, simulated for two iterations.
    nlohmann::json m
        = nlohmann::json::parse(test::ReadFile(test::kManifests + "iperf-rdma-configA.json"));
    m["folder"] = fs::absolute(fs::path(test::kManifests) / m["folder"].get<std::string>())
                      .lexically_normal()
                      .string();
    nlohmann::json models = nlohmann::json::array();
    for (const auto& e : m["models"])
    {
        if (e["model"] == "resnet50")
        {
            models.push_back(e);
        }
    }
    m["models"] = models;
    const std::string manifest = dir.Write("r50.json", m.dump(2));
    const std::string out = dir.Path() + "/cal.json";
    const std::vector<std::string> args
        = { FLUMEN_CALIBRATE_BINARY, manifest, "--check", "--iterations", "2", "--out", out };
    auto start = std::chrono::steady_clock::now();
    auto ref = test::RunCalibrate(manifest + " --check --iterations 2 --out " + out);
    const double wall
        = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(ref.exitCode, 0) << ref.output;
    const std::string reference = test::ReadFile(out);
    const std::string old = "{\"old\": true}\n";
    int replaced = 0;
    const int kills = 6;
    for (int k = 0; k < kills; ++k)
    {
        // An older file in place each time: a kill leaves it or the new one, whole.
        dir.Write("cal.json", old);
        // Around the end of the run, where it writes (the same wall time, give or take).
        KillAfter(args, wall * (0.85 + 0.05 * k));
        const std::string now = test::ReadFile(out);
        EXPECT_TRUE(now == reference || now == old) << now.substr(0, 200);
        replaced += now == reference;
    }
    std::cout << "[measure] kill -9 near the end of a " << wall << " s calibrate: " << replaced
              << " of " << kills << " left the new file, the rest the previous one\n";
}
