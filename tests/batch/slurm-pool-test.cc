// The point pool's blocking SLURM mode (`calibrate --fit` and `validate` with --backend slurm):
// the pool file and the choice of tasks, the backend options that sweep, calibrate and validate
// share, one array task (`flumen-sweep --pool FILE --task I`), the whole mode against stand-in
// sbatch/squeue/scontrol/sacct scripts (no cluster needed), and on a real one-node cluster a
// twin-experiment `calibrate --fit` whose values through SLURM equal the local backend's, and
// which, killed, cancelled and resumed, runs no finished point again. Where the cluster cannot
// start, that test is skipped with the reason.
#include "child-process.h"
#include "slurm-cluster.h"
#include "slurm-pool.h"
#include "test-support.h"
#include "twin-series.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <regex>
#include <sys/wait.h>
#include <thread>

namespace fs = std::filesystem;
using namespace flumen;
using nlohmann::json;

namespace
{

// Options that send a program's output into `log`.
SpawnOptions
LoggedTo(const std::string& log)
{
    SpawnOptions o;
    o.outputFile = log;
    return o;
}

// A flow-level point of a few milliseconds of wall time.
const char* kFlowPoint = R"({"job": {"model": "m", "iterations": 3, "warmup_iterations": 1},
  "models": {"m": {"parameters": 1000000, "compute_s": 0.003}},
  "cross_traffic": {"type": "iperf", "load_gbps": 2},
  "simulation": {"progress_interval_s": 0, "engine": "flow"}})";

// A validation plan that does not depend on the testbed's values (one seed, 8 iterations).
const std::string kFixedPlan = " --engine flow --seeds 1 --max-sim-s 1000 --budget-iterations 0";
const std::string kFit = " --engine flow --calibration " + test::kShippedCalibration
                         + " --fit job.tcp.host_ceiling_gbps=5:20";

// twin-a, measured by the flow engine at a host ceiling of 8.75 Gbps (a point of the fit's
// grid); its manifest's path.
std::string
MeasuredTwin(const test::TempDir& dir)
{
    const std::string truth
        = test::WriteCalibrationWith(dir, "truth.json", { { "job.tcp.host_ceiling_gbps", 8.75 } });
    std::string manifest = test::WriteTwinSeries(
        dir, "twin-a", { { 2, { 1, 1, 2 } }, { 6, { 1, 1, 6 } }, { 12, { 1, 1, 12 } } });
    auto r = test::RunValidate(manifest + " --out " + dir.Path() + "/measure --calibration " + truth
                               + kFixedPlan);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    test::WriteTwinSeries(dir, "twin-a",
                          test::SimulatedRows(dir.Path() + "/measure/points.csv", "twin-a"));
    return manifest;
}

size_t
CountOf(const std::string& text, const std::string& what)
{
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

TEST(SlurmPool, PoolFileJobNameTaskSelectionAndLostMessages)
{
    PoolFile pool;
    pool.dir = "/runs/points";
    pool.extraArgs = { "--calibration", "/c.json" };
    pool.points = { { "a-1", json::parse(kFlowPoint), { { "point", "a" } } },
                    { "b-2", json::parse(kFlowPoint), json::object() } };
    test::TempDir dir;
    const std::string text = PoolFileText(pool);
    const std::string path = dir.Write("pool.json", text);
    PoolFile back = ReadPoolFile(path);
    EXPECT_EQ(back.dir, pool.dir);
    EXPECT_EQ(back.extraArgs, pool.extraArgs);
    ASSERT_EQ(back.points.size(), 2u);
    EXPECT_EQ(back.points[1].id, "b-2");
    EXPECT_EQ(back.points[0].scenario, pool.points[0].scenario);
    EXPECT_EQ(back.points[0].about, pool.points[0].about);
    EXPECT_EQ(PoolFileText(back), text);

    // The job name: stable for the same folder and batch, another for either changed.
    const std::string name = PoolJobName(pool.dir, text);
    EXPECT_TRUE(std::regex_match(name, std::regex("flumen-[0-9a-f]{8}"))) << name;
    EXPECT_EQ(PoolJobName(pool.dir, text), name);
    EXPECT_NE(PoolJobName("/other/points", text), name);
    pool.extraArgs.clear();
    EXPECT_NE(PoolJobName(pool.dir, PoolFileText(pool)), name);

    // What is queued or running (from an earlier call) is not submitted again.
    EXPECT_EQ(TasksToSubmit({ 0, 2, 3, 5 }, { { 2, "PENDING" }, { 4, "RUNNING" } }),
              (std::vector<size_t>{ 0, 3, 5 }));
    EXPECT_TRUE(TasksToSubmit({ 1 }, { { 1, "RUNNING" } }).empty());

    EXPECT_EQ(LostTaskError(3, "flumen-0123abcd", "TIMEOUT"),
              "SLURM task 3 of flumen-0123abcd ended without a result (state TIMEOUT)");
    EXPECT_NE(LostTaskError(3, "flumen-0123abcd", "").find("unknown without accounting"),
              std::string::npos);

    // A bad pool file names itself and what is wrong.
    for (const std::string& bad : { std::string("{"), std::string("{\"points\": []}") })
    {
        try
        {
            ReadPoolFile(dir.Write("bad.json", bad));
            ADD_FAILURE() << bad << " was accepted";
        }
        catch (const std::runtime_error& e)
        {
            EXPECT_NE(std::string(e.what()).find(dir.Path() + "/bad.json: "), std::string::npos)
                << e.what();
        }
    }
    EXPECT_THROW(ReadPoolFile(dir.Path() + "/none.json"), std::runtime_error);
}

TEST(SlurmPool, BackendOptionsAreSharedBySweepCalibrateAndValidate)
{
    test::TempDir dir;
    const std::string manifest = test::WriteTwinSeries(dir, "twin-a", { { 2, { 1, 1, 2 } } });
    const std::string sweep = dir.Write("sweep.json", fmt::format(R"({{"base": {}, "grid": {{}},
        "seeds": [1]}})",
                                                                  kFlowPoint));
    const std::string out = dir.Path() + "/out";
    // Each command as far as its own options go, writing to `out`.
    const std::map<std::string, std::string> commands = {
        { "sweep", std::string(FLUMEN_SWEEP_BINARY) + " " + sweep + " --out " + out },
        { "calibrate",
          std::string(FLUMEN_CALIBRATE_BINARY) + " " + manifest + " --out " + out + kFit },
        { "validate", std::string(FLUMEN_VALIDATE_BINARY) + " " + manifest + " --out " + out },
    };
    struct Case
    {
        std::string args;
        std::string message;
    };
    const std::vector<Case> cases = {
        { "--backend pbs", "--backend: expected local or slurm, got 'pbs'" },
        { "--backend slurm --time 1h", "--time: expected a SLURM time limit" },
        { "--backend slurm --throttle 0", "--throttle: expected 1..1000000, got 0" },
        { "--backend slurm --cpus-per-task=-2",
          "--cpus-per-task: expected a whole number, got '-2'" },
        { "--backend slurm --sbatch-arg mem=2G", "--sbatch-arg: expected one sbatch option" },
        { "--backend slurm --partition ''", "--partition: expected a partition name" },
        { "--throttle 2", "need --backend slurm" },
        { "--backend", "--backend: expected a value" },
    };
    for (const auto& [name, command] : commands)
    {
        for (const Case& c : cases)
        {
            auto r = test::RunCommand(command + " " + c.args);
            EXPECT_EQ(r.exitCode, 2) << name << " " << c.args << "\n" << r.output;
            EXPECT_NE(r.output.find(c.message), std::string::npos) << name << " " << c.args << "\n"
                                                                   << r.output;
            EXPECT_FALSE(fs::exists(out)) << name << " " << c.args;
        }
    }
    // Where calibrate and validate cannot use SLURM: refused before anything is written.
    const std::string noSlurm = "PATH=" + dir.Path() + "/no-slurm-here ";
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             { "calibrate", " --backend slurm" }, { "validate", " --backend slurm" } })
    {
        auto r = test::RunCommand(noSlurm + commands.at(name) + args);
        EXPECT_EQ(r.exitCode, 2) << name << "\n" << r.output;
        EXPECT_NE(r.output.find("--backend slurm: squeue is not available"), std::string::npos)
            << r.output;
        EXPECT_FALSE(fs::exists(out)) << name;
    }
    auto r = test::RunCalibrate(manifest + " --out " + out + " --backend slurm");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--backend slurm goes with --fit"), std::string::npos) << r.output;
    r = test::RunValidate(manifest + " --out '" + dir.Path() + "/a b' --backend slurm");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("without spaces or quotes"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
}

TEST(SlurmPool, ATaskRunsOnePointOfItsPoolFileAsTheLocalPoolWould)
{
    test::TempDir dir;
    const std::string points = dir.Path() + "/points";
    PoolFile pool;
    pool.dir = points;
    json slow = json::parse(kFlowPoint);
    slow["job"]["iterations"] = 400; // packet level: about 100 s, cut short below
    slow["simulation"].erase("engine");
    pool.points = { { "quick", json::parse(kFlowPoint), json::object() },
                    { "slow", slow, json::object() } };
    const std::string file = dir.Write("pool.json", PoolFileText(pool));
    const std::string task = std::string(FLUMEN_SWEEP_BINARY) + " --pool " + file + " --task ";
    auto r = test::RunCommand(task + "0");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_TRUE(fs::exists(points + "/quick/summary.json"));
    EXPECT_TRUE(fs::exists(points + "/quick/scenario.json"));
    EXPECT_FALSE(fs::exists(points + "/slow"));
    for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
             { "2", "--task 2: the pool file " + file + " has 2 points" },
             { "x", "--task: expected a whole number, got 'x'" } })
    {
        r = test::RunCommand(task + args);
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
    }
    r = test::RunSweep("--pool " + dir.Path() + "/none.json --task 0");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    r = test::RunSweep("--pool " + file);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--pool FILE goes with --task I"), std::string::npos) << r.output;

    // SIGTERM (scancel, a time limit): the task stops its run, leaves nothing partial, and marks
    // the failure as cut short, which the waiting command counts as lost, not as a bad point.
    pid_t pid = StartProgram({ FLUMEN_SWEEP_BINARY, "--pool", file, "--task", "1" },
                             LoggedTo(dir.Path() + "/task1.log"));
    for (int i = 0; i < 200 && !fs::exists(points + "/slow.scenario.json"); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::this_thread::sleep_for(std::chrono::milliseconds(300)); // flumen-run under way
    ::kill(pid, SIGTERM);
    EndedChild ended = WaitForChild(pid);
    EXPECT_EQ(ended.exit.exitCode, 1) << ended.exit.Describe();
    json record = json::parse(test::ReadFile(points + "/slow.failed.json"));
    EXPECT_EQ(record.value("interrupted", false), true) << record.dump();
    EXPECT_EQ(record["error"], "killed by signal 15");
    for (const auto& e : fs::directory_iterator(points))
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

namespace
{

// sbatch, squeue, scontrol and sacct as scripts: sbatch runs every task of the array at once,
// one after another (or none, with STUB_LOSE set), so the queue is always empty.
std::string
StandInSlurm(const test::TempDir& dir)
{
    const std::string bin = dir.Path() + "/stand-in";
    fs::create_directories(bin);
    dir.Write("stand-in/sbatch", R"SH(#!/bin/bash
script="${@: -1}"
echo "$script" >> "$STUB_DIR/sbatch.calls"
job=$(wc -l < "$STUB_DIR/sbatch.calls")
if [ -z "${STUB_LOSE:-}" ]; then
    spec=$(sed -n 's/^#SBATCH --array=//p' "$script")
    logs=$(dirname "$(sed -n 's/^#SBATCH --output=//p' "$script")")
    IFS=, read -ra ranges <<< "${spec%%\%*}"
    for r in "${ranges[@]}"; do
        for ((i = ${r%-*}; i <= ${r#*-}; i++)); do
            SLURM_ARRAY_TASK_ID=$i bash "$script" > "$logs/${job}_$i.log" 2>&1
        done
    done
fi
echo "$job"
)SH");
    dir.Write("stand-in/squeue", "#!/bin/sh\nexit 0\n");
    dir.Write("stand-in/scontrol", "#!/bin/sh\necho 'MaxArraySize            = 3'\n");
    dir.Write("stand-in/sacct",
              "#!/bin/sh\n[ -n \"$STUB_SACCT\" ] || exit 1\necho \"$STUB_SACCT\"\n");
    for (const char* p : { "sbatch", "squeue", "scontrol", "sacct" })
        fs::permissions(bin + "/" + p, fs::perms::owner_all);
    return "STUB_DIR=" + dir.Path() + " PATH=" + bin + ":$PATH ";
}

} // namespace

TEST(SlurmPool, BlockingModeAgainstStandInSlurmCommands)
{
    test::TempDir dir;
    const std::string manifest = MeasuredTwin(dir);
    const std::string env = StandInSlurm(dir);
    const std::string validate = std::string(FLUMEN_VALIDATE_BINARY) + " " + manifest + kFixedPlan;
    auto local = test::RunCommand(validate + " --out " + dir.Path() + "/local");
    ASSERT_EQ(local.exitCode, 0) << local.output;

    // 4 runs, MaxArraySize 3: two arrays, each waited for; the same points as locally.
    const std::string out = dir.Path() + "/slurm";
    auto r = test::RunCommand(env + validate + " --out " + out + " --backend slurm");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("4 points, 0 already done, 4 to run, as SLURM array tasks"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("(3 tasks: --array=0-2)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("(1 tasks: --array=0)"), std::string::npos) << r.output;
    EXPECT_EQ(test::ReadFile(out + "/points.csv"),
              test::ReadFile(dir.Path() + "/local/points.csv"));
    size_t arrays = 0;
    for (const auto& e : fs::directory_iterator(out + "/points/slurm"))
    {
        ++arrays;
        EXPECT_TRUE(fs::exists(e.path() / "pool.json")) << e.path();
        EXPECT_TRUE(fs::exists(e.path() / "array-1.sbatch")) << e.path();
        EXPECT_TRUE(fs::exists(e.path() / "logs")) << e.path();
    }
    EXPECT_EQ(arrays, 2u);
    EXPECT_EQ(test::Lines(test::ReadFile(dir.Path() + "/sbatch.calls")).size(), 2u);
    // Again: everything is done, SLURM is not asked.
    r = test::RunCommand(env + validate + " --out " + out + " --backend slurm");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("4 points, 4 already done, 0 to run"), std::string::npos) << r.output;
    EXPECT_EQ(test::Lines(test::ReadFile(dir.Path() + "/sbatch.calls")).size(), 2u);

    // Tasks that never ran: each point recorded as failed, with sacct's state where it has
    // one (task 0 of each array here), and the next run submits them again.
    const std::string lost = dir.Path() + "/lost";
    r = test::RunCommand(env + "STUB_LOSE=1 STUB_SACCT='9_0|TIMEOUT' " + validate + " --out " + lost
                         + " --backend slurm");
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("0/4 done (0 skipped), 4 failed (4 cut short by SLURM"),
              std::string::npos)
        << r.output;
    std::string records;
    for (const auto& e : fs::directory_iterator(lost + "/points"))
        if (e.path().string().find(".failed.json") != std::string::npos)
            records += json::parse(test::ReadFile(e.path().string()))["error"].get<std::string>()
                       + "\n";
    EXPECT_EQ(CountOf(records, "ended without a result (state TIMEOUT)"), 2u) << records;
    EXPECT_EQ(CountOf(records, "unknown without accounting"), 2u) << records;
    r = test::RunCommand(env + validate + " --out " + lost + " --backend slurm");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_EQ(test::ReadFile(lost + "/points.csv"),
              test::ReadFile(dir.Path() + "/local/points.csv"));
}

namespace
{

using Clock = std::chrono::steady_clock;

double
Since(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

// calibrate started in the background, its output into `log`.
pid_t
StartCalibrate(const std::string& args, const std::string& log)
{
    std::vector<std::string> argv = { FLUMEN_CALIBRATE_BINARY };
    std::stringstream ss(args);
    for (std::string w; ss >> w;)
        argv.push_back(w);
    return StartProgram(argv, LoggedTo(log));
}

// Waits until `log` holds `what` `count` times; false after `seconds`.
bool
WaitForLog(const std::string& log, const std::string& what, size_t count, double seconds)
{
    auto start = Clock::now();
    while (Since(start) < seconds)
    {
        if (CountOf(test::ReadFile(log), what) >= count)
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

// Waits until `log` matches `pattern`; false after `seconds`.
bool
WaitForMatch(const std::string& log, const std::regex& pattern, double seconds)
{
    auto start = Clock::now();
    while (Since(start) < seconds)
    {
        if (std::regex_search(test::ReadFile(log), pattern))
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
}

// Each finished run's summary.json and its time stamp.
std::map<std::string, fs::file_time_type>
FinishedRuns(const std::string& points)
{
    std::map<std::string, fs::file_time_type> out;
    for (const auto& e : fs::directory_iterator(points))
        if (fs::exists(e.path() / "summary.json"))
            out[e.path().string()] = fs::last_write_time(e.path() / "summary.json");
    return out;
}

} // namespace

TEST(SlurmCluster, CalibrateFitThroughSlurmEqualsLocalAndResumesAfterKillAndScancel)
{
    test::OneNodeCluster cluster;
    if (!cluster.Up())
    {
        GTEST_SKIP() << "a one-node SLURM cluster could not be started here: " << cluster.Why();
    }
    test::TempDir dir;
    const std::string manifest = MeasuredTwin(dir);
    const std::string fit = manifest + kFit;

    auto t0 = Clock::now();
    auto local = test::RunCalibrate(fit + " --out " + dir.Path() + "/local.json");
    const double localSeconds = Since(t0);
    ASSERT_EQ(local.exitCode, 0) << local.output;
    const json expected = json::parse(test::ReadFile(dir.Path() + "/local.json"));
    EXPECT_EQ(expected["testbed"]["values"]["job.tcp.host_ceiling_gbps"], 8.75); // the truth

    // 1. The whole fit through SLURM: every batch one job array, waited for.
    t0 = Clock::now();
    auto slurm = test::RunCalibrate(fit + " --out " + dir.Path() + "/slurm.json --backend slurm");
    const double slurmSeconds = Since(t0);
    ASSERT_EQ(slurm.exitCode, 0) << slurm.output;
    const json got = json::parse(test::ReadFile(dir.Path() + "/slurm.json"));
    // The fitted values, every candidate's loss and the terms: the same, bit for bit.
    EXPECT_EQ(got["testbed"], expected["testbed"]);
    const size_t batches = CountOf(slurm.output, "slurm: submitted job");
    EXPECT_GE(batches, 3u) << slurm.output;

    // 2. One task at a time; the command killed (kill -9) once the second batch is queued.
    const std::string cut = dir.Path() + "/cut.json";
    const std::string cutArgs = fit + " --out " + cut + " --backend slurm --throttle 1";
    pid_t pid = StartCalibrate(cutArgs, dir.Path() + "/run1.log");
    ASSERT_TRUE(WaitForLog(dir.Path() + "/run1.log", "slurm: submitted job", 2, 60))
        << test::ReadFile(dir.Path() + "/run1.log");
    ::kill(pid, SIGKILL);
    WaitForChild(pid);

    // The same command again waits for the tasks still queued instead of submitting them.
    t0 = Clock::now();
    pid = StartCalibrate(cutArgs, dir.Path() + "/run2.log");
    ASSERT_TRUE(WaitForLog(dir.Path() + "/run2.log", "from an earlier run", 1, 60))
        << test::ReadFile(dir.Path() + "/run2.log");
    std::smatch m;
    const std::string run2 = test::ReadFile(dir.Path() + "/run2.log");
    ASSERT_TRUE(std::regex_search(run2, m, std::regex("(flumen-[0-9a-f]{8}) queued or running")))
        << run2;
    // 3. ... and scancel, once a point of that array is done, cuts the rest short: the command
    // stops, naming what to do.
    ASSERT_TRUE(WaitForMatch(dir.Path() + "/run2.log",
                             std::regex("slurm: [1-9][0-9]* of [0-9]+ points done"), 60))
        << test::ReadFile(dir.Path() + "/run2.log");
    auto cancel = test::RunCommand("scancel --name=" + m[1].str());
    ASSERT_EQ(cancel.exitCode, 0) << cancel.output;
    EndedChild ended = WaitForChild(pid);
    const std::string stopped = test::ReadFile(dir.Path() + "/run2.log");
    EXPECT_EQ(ended.exit.exitCode, 1) << stopped;
    EXPECT_NE(stopped.find("cut short by SLURM"), std::string::npos) << stopped;
    EXPECT_NE(stopped.find("The same command, re-run, runs them again"), std::string::npos)
        << stopped;
    EXPECT_FALSE(fs::exists(cut)) << "a stopped fit wrote its result";
    const auto before = FinishedRuns(cut + ".runs/points");
    ASSERT_GE(before.size(), 3u) << stopped; // the first batch (2 runs) and more
    for (const auto& e : fs::directory_iterator(cut + ".runs/points"))
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();

    // 4. Resumed: finishes with the same values, and runs no finished point again.
    auto resumed = test::RunCalibrate(fit + " --out " + cut + " --backend slurm");
    const double resumeSeconds = Since(t0);
    ASSERT_EQ(resumed.exitCode, 0) << resumed.output;
    EXPECT_EQ(json::parse(test::ReadFile(cut))["testbed"], expected["testbed"]);
    EXPECT_NE(resumed.output.find(" already done, 0 to run, as SLURM array tasks"),
              std::string::npos)
        << resumed.output;
    const auto after = FinishedRuns(cut + ".runs/points");
    for (const auto& [path, stamp] : before)
    {
        ASSERT_TRUE(after.count(path)) << path;
        EXPECT_EQ(after.at(path), stamp) << path << " was run again";
    }
    EXPECT_EQ(after.size(), FinishedRuns(dir.Path() + "/slurm.json.runs/points").size());
    std::cout << fmt::format(
        "[measure] twin calibrate --fit (flow engine, {} batches, {} runs): local {:.1f} s; "
        "through SLURM (2-CPU node) {:.1f} s; killed, cancelled and resumed {:.1f} s from the "
        "second start ({} runs finished before the resume, none run again); fitted value "
        "{} equal\n",
        batches, after.size(), localSeconds, slurmSeconds, resumeSeconds, before.size(),
        got["testbed"]["values"].dump());
}
