// Sweeps end to end: points in parallel, failures recorded, results.csv, resume after a
// kill -9 without redoing or corrupting anything, and bad sweep files rejected up front.
#include "point-pool.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

const char* kSweep = R"({
  "base": {"job": {"model": "small", "iterations": 3, "warmup_iterations": 1},
           "models": {"small": {"parameters": 500000, "compute_s": 0.002}},
           "cross_traffic": {"type": "iperf"},
           "simulation": {"progress_interval_s": 0}},
  "grid": {"cross_traffic.load_gbps": [5, 15], "simulation.max_time_s": [1, 0.004]},
  "seeds": [1, 2]
})";

using test::Lines;

test::CommandResult
Sweep(const std::string& args)
{
    return test::RunSweep(args);
}

size_t
Count(const std::vector<std::string>& lines, const std::string& what)
{
    size_t n = 0;
    for (const auto& l : lines)
    {
        n += l.find(what) != std::string::npos;
    }
    return n;
}

} // namespace

TEST(Sweep, RunsEveryPointRecordsFailuresAndResumes)
{
    test::TempDir dir;
    std::string sweep = dir.Write("sweep.json", kSweep);
    std::string out = dir.Path() + "/out";
    auto first = Sweep(sweep + " --out " + out + " --jobs 2");
    EXPECT_EQ(first.exitCode, 1) << first.output; // some points fail by design
    auto rows = Lines(test::ReadFile(out + "/results.csv"));
    ASSERT_EQ(rows.size(), 1u + 8u) << first.output;
    EXPECT_EQ(Count(rows, ",done,"), 4u);
    EXPECT_EQ(Count(rows, ",failed,"), 4u);
    EXPECT_EQ(Count(rows, "simulation.max_time_s = 0.004"), 4u); // the error says why
    // Finished points are whole folders; nothing temporary is left.
    size_t folders = 0;
    fs::file_time_type stamp;
    std::string donePoint;
    for (const auto& e : fs::directory_iterator(out + "/points"))
    {
        EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
        if (e.is_directory())
        {
            ++folders;
            EXPECT_TRUE(fs::exists(e.path() / "summary.json")) << e.path();
            EXPECT_TRUE(fs::exists(e.path() / "iterations.csv")) << e.path();
            EXPECT_TRUE(fs::exists(e.path() / "scenario.json")) << e.path();
            donePoint = e.path().string();
            stamp = fs::last_write_time(e.path() / "summary.json");
        }
    }
    EXPECT_EQ(folders, 4u);

    // The same command again: finished points are skipped, failed ones retried.
    auto second = Sweep(sweep + " --out " + out + " --jobs 2");
    EXPECT_NE(second.output.find("8 points, 4 already done, 4 to run"), std::string::npos)
        << second.output;
    EXPECT_EQ(fs::last_write_time(donePoint + "/summary.json"), stamp);
    EXPECT_EQ(Lines(test::ReadFile(out + "/results.csv")), rows);
}

TEST(Sweep, KillNineThenResumeCompletesWithoutRedoing)
{
    test::TempDir dir;
    // Six points of about half a second each, one at a time.
    std::string sweep = dir.Write("sweep.json", R"({
      "base": {"job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
               "models": {"m": {"parameters": 3000000, "compute_s": 0.003}},
               "cross_traffic": {"type": "iperf", "load_gbps": 10},
               "simulation": {"progress_interval_s": 0}},
      "grid": {"job.tcp.sockets_per_peer": [1, 2, 3]}, "seeds": [1, 2]})");
    std::string out = dir.Path() + "/out";
    pid_t pid = fork();
    if (pid == 0)
    {
        setpgid(0, 0); // its own group, so that the kill reaches its children too
        int devnull = ::open("/dev/null", O_WRONLY);
        dup2(devnull, 1);
        dup2(devnull, 2);
        execl(FLUMEN_SWEEP_BINARY, FLUMEN_SWEEP_BINARY, sweep.c_str(), "--out", out.c_str(),
              "--jobs", "1", (char*)nullptr);
        _exit(127);
    }
    // Kill once at least one point is done and before all are (up to 2 minutes: a loaded
    // machine running other tests beside this one can be slow).
    size_t doneBefore = 0;
    for (int i = 0; i < 2400; ++i)
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        doneBefore = 0;
        if (fs::exists(out + "/points"))
        {
            for (const auto& e : fs::directory_iterator(out + "/points"))
            {
                doneBefore += e.is_directory() && fs::exists(e.path() / "summary.json")
                              && e.path().filename().string().find(".tmp.") == std::string::npos;
            }
        }
        if (doneBefore >= 1)
        {
            break;
        }
    }
    ::kill(-pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_GE(doneBefore, 1u);
    ASSERT_LT(doneBefore, 6u);
    EXPECT_FALSE(fs::exists(out + "/results.csv")); // it never got that far

    auto resumed = Sweep(sweep + " --out " + out + " --jobs 2");
    EXPECT_EQ(resumed.exitCode, 0) << resumed.output;
    // It skipped what was done before the kill (at least what we saw), and finished the rest.
    size_t skipped = 0;
    std::sscanf(resumed.output.c_str(), "[sweep] 6 points, %zu already done", &skipped);
    EXPECT_GE(skipped, doneBefore) << resumed.output;
    auto rows = Lines(test::ReadFile(out + "/results.csv"));
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(Count(rows, ",done,"), 6u);
    for (const auto& e : fs::directory_iterator(out + "/points"))
    {
        EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
    }
}

TEST(Sweep, BadSweepFilesAreRejectedBeforeAnythingRuns)
{
    test::TempDir dir;
    auto run = [&](const std::string& text)
    {
        std::string f = dir.Write("bad.json", text);
        return Sweep(f + " --out " + dir.Path() + "/out");
    };
    auto unknown = run(R"({"grid": {"cross_traffic.lod_gbps": [1]}})");
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_NE(unknown.output.find("cross_traffic.lod_gbps"), std::string::npos) << unknown.output;
    auto range = run(R"({"base": {"cross_traffic": {"type": "iperf"}},
                         "grid": {"cross_traffic.load_gbps": [10, 30]}})");
    EXPECT_EQ(range.exitCode, 2);
    EXPECT_NE(range.output.find("cross_traffic.load_gbps=30"), std::string::npos) << range.output;
    EXPECT_NE(range.output.find("at most the link rate"), std::string::npos) << range.output;
    auto seeds = run(R"({"seeds": [0]})");
    EXPECT_EQ(seeds.exitCode, 2);
    EXPECT_NE(seeds.output.find("seeds"), std::string::npos);
    auto extra = run(R"({"grid": {}, "colour": 1})");
    EXPECT_EQ(extra.exitCode, 2);
    EXPECT_FALSE(fs::exists(dir.Path() + "/out/results.csv"));
}

TEST(Sweep, SweptFilePathsAreRelativeToTheSweepFile)
{
    test::TempDir dir;
    std::filesystem::create_directories(dir.Path() + "/loads");
    dir.Write("loads/a.txt", "2\n0 100000 0\n100 200000 0\n");
    dir.Write("loads/b.txt", "1\n0 300000 0\n");
    std::string sweep = dir.Write("sweep.json", R"({
      "base": {"job": {"enabled": false}, "cross_traffic": {"type": "replay"},
               "simulation": {"duration_s": 0.001, "progress_interval_s": 0}},
      "grid": {"cross_traffic.file": ["loads/a.txt", "loads/b.txt"]}})");
    // Run from elsewhere: paths must not depend on the working directory.
    auto r = Sweep(sweep + " --out " + dir.Path() + "/out --jobs 1");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    auto rows = Lines(test::ReadFile(dir.Path() + "/out/results.csv"));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(Count(rows, ",done,"), 2u);
}

TEST(Sweep, ModelLayersFilesAreRelativeToTheSweepFile)
{
    test::TempDir dir;
    std::filesystem::create_directories(dir.Path() + "/models");
    dir.Write("models/a.csv", "layer,parameters\nin,100000\nout,200000\n");
    dir.Write("models/b.csv", "layer,parameters\nin,3000000\n");
    std::string sweep = dir.Write("sweep.json", R"({
      "base": {"job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
               "models": {"m": {"layers_file": "models/a.csv", "compute_s": 0.002}},
               "simulation": {"engine": "flow", "progress_interval_s": 0}},
      "grid": {"models.m.layers_file": ["models/a.csv", "models/b.csv"]}})");
    auto r = Sweep(sweep + " --out " + dir.Path() + "/out --jobs 1");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    auto rows = Lines(test::ReadFile(dir.Path() + "/out/results.csv"));
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(Count(rows, ",done,"), 2u);
    // A changed input file makes its point new; the other point is kept.
    dir.Write("models/b.csv", "layer,parameters\nin,2000000\nout,1000000\n");
    r = Sweep(sweep + " --out " + dir.Path() + "/out --jobs 1");
    EXPECT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("(1 this run, 1 skipped)"), std::string::npos) << r.output;
}

TEST(Sweep, ProgressDurationsCarryOverInsteadOfShowingSixty)
{
    EXPECT_EQ(FormatDuration(42.4), "42s");
    EXPECT_EQ(FormatDuration(89.6), "1m30s");
    EXPECT_EQ(FormatDuration(754.6), "12m35s");
    EXPECT_EQ(FormatDuration(3599.7), "60m00s"); // was "59m60s"
    EXPECT_EQ(FormatDuration(5399.6), "1h30m");
    EXPECT_EQ(FormatDuration(7199.9), "2h00m"); // was "1h60m"
    EXPECT_EQ(FormatDuration(11220), "3h07m");
    EXPECT_EQ(FormatDuration(-3), "0s");
}
