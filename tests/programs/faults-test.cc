// Faults while a run writes its results: a full disk and a kill -9 leave either no result or a
// whole one, never a partial or mixed one (summary.json marks a complete set).
#include "run-outputs.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
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
        pid_t pid = ::fork();
        if (pid == 0)
        {
            ::execl(FLUMEN_RUN_BINARY, FLUMEN_RUN_BINARY, scenario.c_str(), "--quiet", "--out",
                    out.c_str(), static_cast<char*>(nullptr));
            ::_exit(127);
        }
        std::this_thread::sleep_for(std::chrono::duration<double>(wall * (0.67 + 0.04 * k)));
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (fs::exists(out + "/summary.json"))
        {
            // A marker means every file of the set is in place and whole.
            EXPECT_EQ(test::ReadFile(out + "/iterations.csv"), refIterations) << out;
            EXPECT_EQ(test::ReadFile(out + "/link.csv"), refLink) << out;
            ++whole;
        }
        else
        {
            // No result: at most temporaries, never a file under a result's name.
            for (const auto& name : fs::exists(out) ? Entries(out) : std::vector<std::string>{})
            {
                EXPECT_NE(name.find(".tmp."), std::string::npos) << out << "/" << name;
            }
            ++none;
        }
    }
    std::cout << "[measure] kill -9 over the last third of a " << wall << " s run: " << whole
              << " whole results, " << none << " none\n";
}
