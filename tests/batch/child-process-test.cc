// The one child-process runner (batch/child-process.h): programs started and waited for, their
// output in a file or captured, functions run in forked children with their answers, a child
// killed by a signal reported as such, and tasks run N at a time with their results in order.
#include "child-process.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <thread>
#include <unistd.h>

using namespace flumen;
using nlohmann::json;

namespace
{

double
NowS()
{
    // steady_clock is CLOCK_MONOTONIC: the same clock in every process of the machine.
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

TEST(ChildProcess, StartedProgramsReportTheirExitCodes)
{
    SpawnOptions path;
    path.searchPath = true;
    EndedChild t = WaitForChild(StartProgram({ "true" }, path));
    EXPECT_TRUE(t.exit.started);
    EXPECT_TRUE(t.exit.Succeeded());
    EXPECT_EQ(t.exit.Describe(), "exit code 0");
    EndedChild f = WaitForChild(StartProgram({ "false" }, path));
    EXPECT_FALSE(f.exit.Succeeded());
    EXPECT_EQ(f.exit.exitCode, 1);
    EXPECT_EQ(f.exit.signal, 0);

    // Without PATH search a bare name is not found; a missing program throws, naming it.
    EXPECT_THROW(StartProgram({ "true" }), std::runtime_error);
    try
    {
        StartProgram({ "/no/such/program" });
        FAIL() << "a missing program started";
    }
    catch (const std::runtime_error& e)
    {
        EXPECT_NE(std::string(e.what()).find("cannot start /no/such/program"), std::string::npos)
            << e.what();
    }
}

TEST(ChildProcess, OutputGoesToTheFileOrIsCaptured)
{
    test::TempDir dir;
    SpawnOptions options;
    options.searchPath = true;
    options.outputFile = dir.Path() + "/log.txt";
    pid_t pid = StartProgram({ "sh", "-c", "echo to-out; echo to-err >&2; exit 3" }, options);
    std::optional<EndedChild> ended = WaitForAnyChild();
    ASSERT_TRUE(ended.has_value());
    EXPECT_EQ(ended->pid, pid);
    EXPECT_EQ(ended->exit.exitCode, 3);
    EXPECT_EQ(ended->exit.Describe(), "exit code 3");
    EXPECT_EQ(test::ReadFile(options.outputFile), "to-out\nto-err\n");
    EXPECT_FALSE(WaitForAnyChild().has_value()); // no child left

    ProgramOutput r = RunProgram({ "sh", "-c", "printf 'a b'; echo oops >&2; exit 4" });
    EXPECT_TRUE(r.started);
    EXPECT_EQ(r.exitCode, 4);
    EXPECT_EQ(r.out, "a b");
    EXPECT_EQ(r.err, "oops\n");

    // More than a pipe holds on both streams: read together, nothing hangs.
    ProgramOutput big = RunProgram(
        { "sh", "-c", "head -c 300000 /dev/zero | tr '\\0' x; head -c 200000 /dev/zero >&2" });
    EXPECT_EQ(big.exitCode, 0);
    EXPECT_EQ(big.out.size(), 300000u);
    EXPECT_EQ(big.err.size(), 200000u);

    ProgramOutput missing = RunProgram({ "flumen-no-such-program" });
    EXPECT_FALSE(missing.started);
    EXPECT_NE(missing.err.find("flumen-no-such-program"), std::string::npos) << missing.err;
}

TEST(ChildProcess, AFunctionInAChildSendsBackItsValue)
{
    const pid_t parent = getpid();
    ChildResult r = RunInChild([parent] { return getpid() != parent ? "in a child" : "here"; });
    EXPECT_TRUE(r.exit.Succeeded());
    EXPECT_EQ(r.text, "in a child");
    EXPECT_GT(r.peakRssMb, 0.0);

    // An answer larger than a pipe holds comes back whole.
    ChildResult big = RunInChild([] { return std::string(1 << 20, 'y'); });
    EXPECT_EQ(big.text.size(), size_t(1) << 20);

    // What a task throws comes back with exit code 1; JSON tasks answer {"error": ...}.
    ChildResult thrown = RunInChild([]() -> std::string { throw std::runtime_error("no luck"); });
    EXPECT_EQ(thrown.exit.exitCode, 1);
    EXPECT_EQ(thrown.text, "no luck");
    json value = JsonAnswer(RunInChild(JsonTask([] { return json{ { "mean_s", 1.5 } }; })), "died");
    EXPECT_EQ(value["mean_s"].get<double>(), 1.5);
    json error = JsonAnswer(
        RunInChild(JsonTask([]() -> json { throw std::runtime_error("bad point"); })), "died");
    EXPECT_EQ(error["error"], "bad point");
}

TEST(ChildProcess, AChildKilledByASignalIsReportedAsSuch)
{
    ChildResult r = RunInChild(
        []
        {
            std::raise(SIGKILL);
            return std::string("never");
        });
    EXPECT_TRUE(r.exit.started);
    EXPECT_FALSE(r.exit.Succeeded());
    EXPECT_EQ(r.exit.signal, SIGKILL);
    EXPECT_EQ(r.exit.Describe(), "killed by signal 9");
    EXPECT_EQ(r.text, "");
    EXPECT_EQ(JsonAnswer(r, "the process died")["error"], "the process died");

    SpawnOptions path;
    path.searchPath = true;
    EndedChild killed = WaitForChild(StartProgram({ "sh", "-c", "kill -TERM $$" }, path));
    EXPECT_EQ(killed.exit.signal, SIGTERM);
    EXPECT_EQ(killed.exit.exitCode, -1);
}

TEST(ChildProcess, TasksRunNAtATimeAndTheirResultsComeBackInOrder)
{
    // Task 0 is slow: the others take its slot's neighbour in turn, and finish first.
    const std::vector<int> sleepMs = { 600, 50, 50, 50, 50 };
    std::vector<ChildTask> tasks;
    for (size_t i = 0; i < sleepMs.size(); ++i)
    {
        tasks.push_back(
            [i, ms = sleepMs[i]]
            {
                double start = NowS();
                std::this_thread::sleep_for(std::chrono::milliseconds(ms));
                return json{ { "task", i }, { "start", start }, { "end", NowS() } }.dump();
            });
    }
    tasks.push_back([]() -> std::string { throw std::runtime_error("task 5 fails"); });
    std::vector<ChildResult> results = RunInChildren(tasks, 2);
    ASSERT_EQ(results.size(), tasks.size());
    std::vector<std::pair<double, double>> spans;
    for (size_t i = 0; i < sleepMs.size(); ++i)
    {
        ASSERT_TRUE(results[i].exit.Succeeded()) << i << ": " << results[i].exit.Describe();
        json j = json::parse(results[i].text);
        EXPECT_EQ(j["task"].get<size_t>(), i);
        spans.push_back({ j["start"].get<double>(), j["end"].get<double>() });
    }
    EXPECT_EQ(results[5].exit.exitCode, 1);
    EXPECT_EQ(results[5].text, "task 5 fails");
    // Never more than two at once.
    for (const auto& [start, end] : spans)
    {
        int running = 0;
        for (const auto& [s, e] : spans)
        {
            running += s <= start && start < e ? 1 : 0;
        }
        EXPECT_LE(running, 2);
    }
    // The slow task held one slot only: the short ones ran beside it, in the other.
    EXPECT_LT(spans[2].first, spans[0].second);
    EXPECT_LT(spans[4].first, spans[0].second);
}
