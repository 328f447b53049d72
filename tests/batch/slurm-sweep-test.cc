// The SLURM backend of `flumen sweep`: the job-array script and the point-to-task mapping
// (unit, no SLURM needed), and a real one-node SLURM cluster started from Debian's slurm-wlm and
// munge (integration: completion through sbatch, equality with the local backend, scancel and
// resume). Where the daemons cannot start, the integration test is skipped with the reason.
#include "slurm-backend.h"
#include "slurm-cluster.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

// Six points of a couple of seconds each (TCP job beside 2 Gbps of iperf).
const char* kSixPoints = R"({
  "base": {"job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
           "models": {"m": {"parameters": 1000000, "compute_s": 0.003}},
           "cross_traffic": {"type": "iperf", "load_gbps": 2},
           "simulation": {"progress_interval_s": 0}},
  "grid": {"job.tcp.sockets_per_peer": [1, 2, 3]}, "seeds": [1, 2]})";

using test::Lines;

test::CommandResult
Sweep(const std::string& args)
{
    return test::RunSweep(args);
}

// The value of "#SBATCH --name=value" in a script ("" when absent).
std::string
Directive(const std::string& script, const std::string& name)
{
    for (const auto& l : Lines(script))
    {
        std::string prefix = "#SBATCH --" + name + "=";
        if (l.rfind(prefix, 0) == 0)
            return l.substr(prefix.size());
    }
    return "";
}

// results.csv as rows of cells, without the columns that differ between any two runs.
std::vector<std::vector<std::string>>
ComparableRows(const std::string& csv)
{
    std::vector<std::vector<std::string>> rows;
    int skip = -1;
    for (const auto& l : Lines(csv))
    {
        std::vector<std::string> cells;
        std::stringstream ss(l);
        std::string c;
        while (std::getline(ss, c, ','))
            cells.push_back(c);
        if (rows.empty())
        {
            auto it = std::find(cells.begin(), cells.end(), "wall_time_s");
            skip = it == cells.end() ? -1 : static_cast<int>(it - cells.begin());
        }
        if (skip >= 0 && skip < static_cast<int>(cells.size()))
            cells.erase(cells.begin() + skip);
        rows.push_back(cells);
    }
    return rows;
}

// Point ids in results.csv order (= task index order).
std::vector<std::string>
PointIds(const std::string& csv)
{
    std::vector<std::string> ids;
    auto rows = ComparableRows(csv);
    for (size_t i = 1; i < rows.size(); ++i)
        ids.push_back(rows[i].at(0));
    return ids;
}

} // namespace

TEST(SlurmBackend, ArraySpecCompressesRangesAndThrottles)
{
    EXPECT_EQ(ArraySpec({ 0, 1, 2, 3, 4, 5 }, 0), "0-5");
    EXPECT_EQ(ArraySpec({ 9, 7, 8, 5, 0, 1, 2 }, 2), "0-2,5,7-9%2");
    EXPECT_EQ(ArraySpec({ 4 }, 1), "4%1");
    EXPECT_EQ(ArraySpec({ 1, 3, 5 }, 0), "1,3,5");
}

TEST(SlurmBackend, TimeLimitsQuotingAndQueueParsing)
{
    for (const char* ok : { "30", "10:00", "01:30:00", "2-00", "2-12:00", "1-00:00:00" })
        EXPECT_TRUE(ValidSlurmTime(ok)) << ok;
    for (const char* bad : { "", "1h", "01:30:00:00", "-5", "1-", "ab:cd" })
        EXPECT_FALSE(ValidSlurmTime(bad)) << bad;
    EXPECT_EQ(ShellQuote("/a/b-c_d.json"), "/a/b-c_d.json");
    EXPECT_EQ(ShellQuote("/my dir/it's"), "'/my dir/it'\\''s'");
    // squeue -r -o "%F|%K|%T" lines; a requeued task's newer job wins; non-array jobs and
    // unsplit ranges are ignored. sacct's "123_4|CANCELLED by 0" style is understood too.
    auto q = ParseQueueLines("15|1|PENDING\n15|0|RUNNING\n12|0|PENDING\n99|N/A|RUNNING\n"
                             "15_[3-5%1]|PENDING\n16_4|CANCELLED by 0\n");
    ASSERT_EQ(q.size(), 3u);
    EXPECT_EQ(q[0], "RUNNING");
    EXPECT_EQ(q[1], "PENDING");
    EXPECT_EQ(q[4], "CANCELLED by 0");
}

TEST(SlurmBackend, DryRunScriptForASmallGridAndStableTaskMapping)
{
    test::TempDir dir;
    std::string sweep = dir.Write("sweep.json", kSixPoints);
    std::string out = dir.Path() + "/out";
    auto dry = Sweep(sweep + " --out " + out
                     + " --backend slurm --dry-run --partition short --time 00:20:00"
                       " --cpus-per-task 2 --throttle 3 --sbatch-arg --mem=2G"
                       " --sbatch-arg=--account=netlab");
    ASSERT_EQ(dry.exitCode, 0) << dry.output;
    const std::string first = out + "/slurm/array-1.sbatch";
    ASSERT_TRUE(fs::exists(first)) << dry.output;
    std::string script = test::ReadFile(first);
    EXPECT_EQ(script.rfind("#!/bin/bash\n", 0), 0u);
    EXPECT_EQ(Directive(script, "array"), "0-5%3");
    EXPECT_EQ(Directive(script, "output"), out + "/slurm/logs/%A_%a.log");
    EXPECT_EQ(Directive(script, "partition"), "short");
    EXPECT_EQ(Directive(script, "time"), "00:20:00");
    EXPECT_EQ(Directive(script, "cpus-per-task"), "2");
    EXPECT_EQ(Directive(script, "mem"), "2G");
    EXPECT_EQ(Directive(script, "account"), "netlab");
    EXPECT_NE(script.find("#SBATCH --requeue\n"), std::string::npos);
    const std::string jobName = Directive(script, "job-name");
    EXPECT_TRUE(std::regex_match(jobName, std::regex("flumen-[0-9a-f]{8}"))) << jobName;
    EXPECT_TRUE(fs::is_directory(out + "/slurm/logs")); // SLURM does not create it
    // The per-task command: this very program, the sweep, the folder, the task index.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(script, m,
                                  std::regex("\nexec (\\S+) (\\S+) --out (\\S+) --sweep-id "
                                             "([0-9a-f]{16}) --task \"\\$SLURM_ARRAY_TASK_ID\"\n")))
        << script;
    EXPECT_EQ(fs::canonical(m[1].str()), fs::canonical(FLUMEN_SWEEP_BINARY));
    EXPECT_EQ(m[2].str(), sweep);
    EXPECT_EQ(m[3].str(), out);
    EXPECT_NE(fs::status(first).permissions() & fs::perms::owner_exec, fs::perms::none);

    // Task 2 as SLURM would run it: the script itself (bash ignores the #SBATCH lines).
    auto task = test::RunCommand("SLURM_ARRAY_TASK_ID=2 bash " + first);
    ASSERT_EQ(task.exitCode, 0) << task.output;
    auto collected = Sweep(sweep + " --out " + out + " --collect");
    EXPECT_EQ(collected.exitCode, 1) << collected.output; // not all done
    EXPECT_NE(collected.output.find("6 points: 1 done, 0 running, 0 queued, 0 failed, 5 pending"),
              std::string::npos)
        << collected.output;
    std::string csv1 = test::ReadFile(out + "/results.csv");
    auto rows = ComparableRows(csv1);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[3].at(1), "done"); // row 3 = task index 2
    for (size_t r : { 1, 2, 4, 5, 6 })
        EXPECT_EQ(rows[r].at(1), "pending") << r;

    // Re-submission: only the unfinished points, same job name, same point for each index.
    auto again = Sweep(sweep + " --out " + out + " --backend slurm --dry-run --throttle 3");
    ASSERT_EQ(again.exitCode, 0) << again.output;
    std::string second = test::ReadFile(out + "/slurm/array-2.sbatch");
    EXPECT_EQ(Directive(second, "array"), "0-1,3-5%3");
    EXPECT_EQ(Directive(second, "job-name"), jobName);
    auto task4 = test::RunCommand("SLURM_ARRAY_TASK_ID=4 bash " + out + "/slurm/array-2.sbatch");
    ASSERT_EQ(task4.exitCode, 0) << task4.output;
    Sweep(sweep + " --out " + out + " --collect");
    std::string csv2 = test::ReadFile(out + "/results.csv");
    EXPECT_EQ(PointIds(csv2), PointIds(csv1));
    EXPECT_EQ(ComparableRows(csv2)[3], rows[3]); // task 2's point untouched
    EXPECT_EQ(ComparableRows(csv2)[5].at(1), "done");

    // A task of a sweep whose points changed since submission refuses to run another point.
    dir.Write(
        "sweep.json",
        std::string(kSixPoints).replace(std::string(kSixPoints).find("[1, 2]}"), 7, "[1, 2, 3]}"));
    auto stale = test::RunCommand("SLURM_ARRAY_TASK_ID=0 bash " + first);
    EXPECT_EQ(stale.exitCode, 2) << stale.output;
    EXPECT_NE(stale.output.find("changed since this task was submitted"), std::string::npos)
        << stale.output;
}

TEST(SlurmBackend, BadOptionsAreRejected)
{
    test::TempDir dir;
    std::string sweep = dir.Write("sweep.json", kSixPoints);
    std::string out = dir.Path() + "/out";
    struct Case
    {
        std::string args;
        std::string message;
    };
    for (const Case& c : std::vector<Case>{
             { "--backend pbs", "--backend: expected local or slurm" },
             { "--backend slurm --dry-run --time 1h", "--time: expected a SLURM time limit" },
             { "--backend slurm --dry-run --throttle 0", "--throttle: expected 1.." },
             { "--backend slurm --dry-run --sbatch-arg mem=2G", "--sbatch-arg: expected one" },
             { "--throttle 2", "need --backend slurm" },
             { "--task 6", "--task 6: the sweep has 6 points (0..5)" },
             { "--status --collect", "exclude each other" } })
    {
        auto r = Sweep(sweep + " --out " + out + " " + c.args);
        EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.output;
        EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    }
    // Without SLURM (no squeue in PATH) a submission says what
    // to do instead, and writes no script.
    auto r = test::RunCommand("PATH=" + dir.Path() + "/no-slurm-here "
                              + std::string(FLUMEN_SWEEP_BINARY) + " " + sweep + " --out " + out
                              + " --backend slurm");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--dry-run"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out + "/slurm/array-1.sbatch"));
}

namespace
{

using test::OneNodeCluster;
using Clock = std::chrono::steady_clock;

double
Since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// Polls `--status` until `until` holds for its output or the time runs out.
std::string
WaitForStatus(const std::string& sweep, const std::string& out,
              const std::function<bool(const std::string&)>& until, double seconds)
{
    auto start = Clock::now();
    std::string last;
    while (Since(start) < seconds)
    {
        last = Sweep(sweep + " --out " + out + " --status").output;
        if (until(last))
            return last;
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return "timed out; last status: " + last;
}

size_t
DoneCount(const std::string& status)
{
    size_t total = 0;
    size_t done = 0;
    std::sscanf(status.c_str(), "sweep: %zu points: %zu done", &total, &done);
    return done;
}

} // namespace

TEST(SlurmCluster, SweepThroughSbatchEqualsLocalAndResumesAfterScancel)
{
    OneNodeCluster cluster;
    if (!cluster.Up())
    {
        GTEST_SKIP() << "a one-node SLURM cluster could not be started here: " << cluster.Why();
    }
    test::TempDir dir;
    std::string sweep = dir.Write("sweep.json", kSixPoints);

    // The local backend, as the reference (2 at a time, like the 2-CPU node below).
    auto t0 = Clock::now();
    auto local = Sweep(sweep + " --out " + dir.Path() + "/local --jobs 2");
    double localSeconds = Since(t0);
    ASSERT_EQ(local.exitCode, 0) << local.output;

    // 1. The whole grid through sbatch; the last task assembles results.csv.
    const std::string full = dir.Path() + "/slurm-full";
    t0 = Clock::now();
    auto submit = Sweep(sweep + " --out " + full + " --backend slurm");
    double submitSeconds = Since(t0);
    ASSERT_EQ(submit.exitCode, 0) << submit.output;
    EXPECT_NE(submit.output.find("6 tasks: --array=0-5"), std::string::npos) << submit.output;
    auto status = WaitForStatus(
        sweep, full, [](const std::string& s) { return DoneCount(s) == 6; }, 300);
    double slurmSeconds = Since(t0);
    ASSERT_EQ(DoneCount(status), 6u) << status;
    for (int i = 0; i < 20 && !fs::exists(full + "/results.csv"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_TRUE(fs::exists(full + "/results.csv"));
    // Everything but the wall time of each point is the same, bit for bit.
    EXPECT_EQ(ComparableRows(test::ReadFile(full + "/results.csv")),
              ComparableRows(test::ReadFile(dir.Path() + "/local/results.csv")));
    size_t logs = 0;
    for (const auto& e : fs::directory_iterator(full + "/slurm/logs"))
        logs += e.path().extension() == ".log";
    EXPECT_EQ(logs, 6u);
    std::cout << fmt::format("[measure] 6-point grid: local --jobs 2 {:.1f} s, through SLURM "
                             "(2-CPU node) {:.1f} s from submission to all done; sbatch "
                             "submission {:.2f} s; overhead {:.2f} s per point\n",
                             localSeconds, slurmSeconds, submitSeconds,
                             (slurmSeconds - localSeconds) / 6);

    // 2. One task at a time; scancel once two points are done.
    const std::string cut = dir.Path() + "/slurm-cut";
    auto first = Sweep(sweep + " --out " + cut + " --backend slurm --throttle 1");
    ASSERT_EQ(first.exitCode, 0) << first.output;
    std::string jobName = Directive(test::ReadFile(cut + "/slurm/array-1.sbatch"), "job-name");
    status = WaitForStatus(
        sweep, cut, [](const std::string& s) { return DoneCount(s) >= 2; }, 300);
    ASSERT_GE(DoneCount(status), 2u) << status;
    auto cancel = test::RunCommand("scancel --name=" + jobName);
    ASSERT_EQ(cancel.exitCode, 0) << cancel.output;
    status = WaitForStatus(
        sweep, cut,
        [](const std::string& s) { return s.find(" 0 running, 0 queued") != std::string::npos; },
        120);
    ASSERT_NE(status.find(" 0 running, 0 queued"), std::string::npos) << status;
    size_t doneAtCancel = DoneCount(status);
    ASSERT_GE(doneAtCancel, 2u);
    ASSERT_LT(doneAtCancel, 6u) << "the cancel came too late to test anything";
    std::map<std::string, fs::file_time_type> stamps;
    for (const auto& e : fs::directory_iterator(cut + "/points"))
    {
        // The cancelled task left nothing partial: no temporary folder, no half point.
        EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
        if (e.is_directory())
        {
            ASSERT_TRUE(fs::exists(e.path() / "summary.json")) << e.path();
            stamps[e.path().string()] = fs::last_write_time(e.path() / "summary.json");
        }
    }
    EXPECT_EQ(stamps.size(), doneAtCancel);
    EXPECT_FALSE(fs::exists(cut + "/results.csv"));

    // Re-running the same command submits only the unfinished points, and completes.
    auto resume = Sweep(sweep + " --out " + cut + " --backend slurm --throttle 1");
    ASSERT_EQ(resume.exitCode, 0) << resume.output;
    EXPECT_NE(resume.output.find(fmt::format("submitted job")), std::string::npos);
    EXPECT_NE(resume.output.find(fmt::format("({} tasks:", 6 - doneAtCancel)), std::string::npos)
        << resume.output;
    status = WaitForStatus(
        sweep, cut, [](const std::string& s) { return DoneCount(s) == 6; }, 300);
    ASSERT_EQ(DoneCount(status), 6u) << status;
    for (const auto& [path, stamp] : stamps)
        EXPECT_EQ(fs::last_write_time(path + "/summary.json"), stamp) << path << " was redone";
    for (int i = 0; i < 20 && !fs::exists(cut + "/results.csv"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(ComparableRows(test::ReadFile(cut + "/results.csv")),
              ComparableRows(test::ReadFile(dir.Path() + "/local/results.csv")));
    // A third submission has nothing to do.
    auto nothing = Sweep(sweep + " --out " + cut + " --backend slurm");
    EXPECT_EQ(nothing.exitCode, 0);
    EXPECT_NE(nothing.output.find("nothing to submit"), std::string::npos) << nothing.output;
}
