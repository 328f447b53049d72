#include "slurm-pool.h"

#include "atomic-file.h"
#include "slurm-backend.h"
#include "sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <unistd.h>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

// squeue is asked every second, and after the first 10 s every tenth of the time waited so
// far, up to 10 s: the wait adds at most a tenth to a batch, and a batch of hours does not
// load the controller.
constexpr double kFirstPollS = 1;
constexpr double kLongestPollS = 10;
// squeue may miss an answer while the controller is busy; this many in a row end the wait.
constexpr int kUnansweredPolls = 30;

volatile std::sig_atomic_t g_terminating = 0;

void
OnTerminate(int)
{
    if (!g_terminating)
    {
        g_terminating = 1;
        ::kill(0, SIGTERM); // our own process group, handled here once
    }
}

// One job array's share of a batch: at most MaxArraySize points (task indices stay below it).
struct PoolArray
{
    PoolFile file;
    std::string jobName;
    fs::path folder;                      //!< DIR/slurm/<job name>/: pool file, scripts, logs
    std::vector<size_t> awaited;          //!< tasks unfinished at the start (submitted or queued)
    std::map<size_t, std::string> states; //!< tasks queued or running at the last poll
};

// The newest log of a task ("" when there is none): logs are <job>_<task>.log.
std::string
TaskLogTail(const fs::path& logs, size_t task)
{
    fs::path newest;
    std::error_code ec;
    const std::string suffix = fmt::format("_{}.log", task);
    for (const auto& e : fs::directory_iterator(logs, ec))
    {
        const std::string name = e.path().filename().string();
        if (name.size() > suffix.size()
            && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0
            && (newest.empty()
                || fs::last_write_time(e.path(), ec) > fs::last_write_time(newest, ec)))
        {
            newest = e.path();
        }
    }
    return newest.empty()
               ? std::string()
               : LastLines(ReadTextFile(newest.string()), 5) + "(" + newest.string() + ")";
}

bool
Interrupted(const fs::path& dir, const std::string& id)
{
    try
    {
        return json::parse(ReadTextFile((dir / (id + ".failed.json")).string()))
            .value("interrupted", false);
    }
    catch (const std::exception&)
    {
        return false;
    }
}

} // namespace

std::string
PoolFileText(const PoolFile& pool)
{
    json points = json::array();
    for (const auto& p : pool.points)
    {
        points.push_back({ { "id", p.id }, { "scenario", p.scenario }, { "about", p.about } });
    }
    return json{
        { "flumen_pool", 1 },
        { "dir", pool.dir.string() },
        { "extra_args", pool.extraArgs },
        { "points", points }
    }.dump(1)
           + "\n";
}

PoolFile
ReadPoolFile(const fs::path& path)
{
    PoolFile pool;
    try
    {
        if (!fs::exists(path))
        {
            throw std::runtime_error("no such file");
        }
        json j = json::parse(ReadTextFile(path.string()));
        if (j.value("flumen_pool", 0) != 1)
        {
            throw std::runtime_error("not a flumen pool file (flumen_pool: 1)");
        }
        pool.dir = j.at("dir").get<std::string>();
        pool.extraArgs = j.at("extra_args").get<std::vector<std::string>>();
        for (const auto& p : j.at("points"))
        {
            pool.points.push_back({ p.at("id").get<std::string>(), p.at("scenario"),
                                    p.value("about", json::object()) });
        }
    }
    catch (const std::exception& e)
    {
        throw std::runtime_error(path.string() + ": " + e.what());
    }
    return pool;
}

std::string
PoolJobName(const fs::path& dir, const std::string& poolFileText)
{
    return SlurmJobName(dir.string(), StableHash(poolFileText));
}

std::vector<size_t>
TasksToSubmit(const std::vector<size_t>& unfinished, const std::map<size_t, std::string>& queue)
{
    std::vector<size_t> todo;
    std::copy_if(unfinished.begin(), unfinished.end(), std::back_inserter(todo),
                 [&](size_t t) { return !queue.count(t); });
    return todo;
}

std::string
LostTaskError(size_t task, const std::string& jobName, const std::string& state)
{
    return fmt::format("SLURM task {} of {} ended without a result ({})", task, jobName,
                       state.empty() ? "its final state is unknown without accounting: "
                                       "cancelled, out of time, or its node failed"
                                     : "state " + state);
}

void
PassTerminationToTaskGroup()
{
    ::setpgid(0, 0);
    struct sigaction sa = {};
    sa.sa_handler = OnTerminate;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, nullptr);
}

bool
TaskTerminated()
{
    return g_terminating != 0;
}

int
RunPoolTask(const fs::path& poolFile, size_t index)
{
    PoolFile pool;
    try
    {
        pool = ReadPoolFile(poolFile);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: --pool " << e.what() << "\n";
        return 2;
    }
    if (index >= pool.points.size())
    {
        std::cerr << fmt::format("flumen sweep: --task {}: the pool file {} has {} points\n", index,
                                 poolFile.string(), pool.points.size());
        return 2;
    }
    PassTerminationToTaskGroup();
    const PoolPoint& point = pool.points[index];
    PoolOptions options;
    options.label = fmt::format("task {}", index);
    options.extraArgs = pool.extraArgs;
    RunPointPool({ point }, pool.dir, options);
    if (TaskTerminated())
    {
        // The record tells the waiting command that the point was cut short, not wrong.
        try
        {
            const fs::path f = pool.dir / (point.id + ".failed.json");
            json record = json::parse(ReadTextFile(f.string()));
            record["interrupted"] = true;
            WriteFileAtomically(f.string(), record.dump(2) + "\n");
        }
        catch (const std::exception&)
        {
        }
        std::cerr << fmt::format("flumen sweep: task {} (point {}) terminated (cancelled, time "
                                 "limit or preemption); nothing partial is left\n",
                                 index, point.id);
        return 1;
    }
    return PointFinished(pool.dir, point.id) ? 0 : 1;
}

void
StopIfCutShort(const PoolResult& result, const std::string& label)
{
    if (result.lost > 0)
    {
        throw std::runtime_error(
            fmt::format("{}: {} runs were cut short by SLURM (cancelled, out of time, or their "
                        "node failed); stopping here. The same command, re-run, runs them again "
                        "and keeps every finished run (give a longer --time if they ran out)",
                        label, result.lost));
    }
}

std::string
SlurmUnavailableReason()
{
    SlurmQueue q = QuerySlurmQueue("flumen-probe");
    return q.available ? "" : q.why + ": run on a SLURM submit host, or use --backend local";
}

void
CheckSlurmFolder(const std::string& option, const fs::path& dir)
{
    if (dir.string().find_first_of(" \t\n'\"") != std::string::npos)
    {
        throw std::invalid_argument(option + " " + dir.string()
                                    + ": the SLURM backend needs a folder path without spaces or "
                                      "quotes (it goes into #SBATCH lines)");
    }
}

namespace
{

// Writes the array's pool file and submits its tasks that are neither done nor queued.
void
SubmitArray(PoolArray& a, const PoolOptions& options)
{
    const std::string text = PoolFileText(a.file);
    fs::create_directories(a.folder / "logs");
    const fs::path poolPath = a.folder / "pool.json";
    if (ReadTextFile(poolPath.string()) != text)
    {
        WriteFileAtomically(poolPath.string(), text);
    }
    SlurmQueue queue = QuerySlurmQueue(a.jobName);
    if (!queue.available)
    {
        throw std::runtime_error(queue.why
                                 + ": run on a SLURM submit host, or use --backend local");
    }
    std::vector<size_t> todo = TasksToSubmit(a.awaited, queue.tasks);
    const size_t earlier = a.awaited.size() - todo.size();
    if (todo.empty())
    {
        std::cerr << fmt::format("[{}] slurm: waiting for {} tasks of {} queued or running from "
                                 "an earlier run\n",
                                 options.label, earlier, a.jobName);
        return;
    }
    std::error_code ec;
    for (size_t t : todo)
    {
        fs::remove(a.file.dir / (a.file.points[t].id + ".failed.json"), ec); // retried now
    }
    SlurmArrayScript script;
    script.jobName = a.jobName;
    script.arraySpec = ArraySpec(todo, options.slurm.throttle);
    script.logDir = (a.folder / "logs").string();
    script.options = options.slurm;
    script.taskCommand
        = { (fs::read_symlink("/proc/self/exe").parent_path() / "flumen-sweep").string(), "--pool",
            poolPath.string(), "--task" };
    script.about = "# One batch of a flumen point pool (`calibrate --fit`, `validate` with "
                   "--backend slurm) as a job array:\n"
                   "# one task per unfinished point of pool.json. The command that wrote it "
                   "waits for the\n"
                   "# array (found by its job name) and, re-run, submits only what is neither "
                   "done nor queued.\n";
    size_t n = 1;
    while (fs::exists(a.folder / fmt::format("array-{}.sbatch", n)))
    {
        ++n;
    }
    const fs::path scriptPath = a.folder / fmt::format("array-{}.sbatch", n);
    WriteFileAtomically(scriptPath.string(), FormatSlurmScript(script));
    std::string job;
    try
    {
        job = SubmitSlurmScript(scriptPath.string());
    }
    catch (const std::exception&)
    {
        fs::remove(scriptPath, ec); // nothing was submitted: no script claims otherwise
        throw;
    }
    std::cerr << fmt::format("[{}] slurm: submitted job {} ({} tasks: --array={}{}); cancel it "
                             "with scancel --name={}\n",
                             options.label, job, todo.size(), script.arraySpec,
                             earlier ? fmt::format("; {} more queued or running from an earlier "
                                                   "run",
                                                   earlier)
                                     : std::string(),
                             a.jobName);
}

// Polls squeue until no task of the arrays is queued or running; progress lines on stderr.
void
WaitForArrays(std::vector<PoolArray>& arrays, const fs::path& dir, const std::string& label,
              size_t skipped, size_t total)
{
    const auto start = std::chrono::steady_clock::now();
    auto elapsed = [&]
    { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
    int unanswered = 0;
    bool lookedAgain = false;
    std::string lastCounts;
    for (double interval = kFirstPollS;;
         interval = std::clamp(elapsed() / 10, kFirstPollS, kLongestPollS))
    {
        std::this_thread::sleep_for(std::chrono::duration<double>(interval));
        std::string why;
        for (auto& a : arrays)
        {
            SlurmQueue q = QuerySlurmQueue(a.jobName);
            if (!q.available)
            {
                why = q.why;
                break;
            }
            a.states.clear();
            for (size_t t : a.awaited)
            {
                if (q.tasks.count(t))
                {
                    a.states[t] = q.tasks.at(t);
                }
            }
        }
        if (!why.empty())
        {
            if (++unanswered >= kUnansweredPolls)
            {
                throw std::runtime_error(why
                                         + "; the array tasks may still run: the same "
                                           "command, re-run, waits for them");
            }
            continue;
        }
        unanswered = 0;
        size_t done = 0, failed = 0, running = 0, queued = 0, unknown = 0;
        for (const auto& a : arrays)
        {
            for (size_t t : a.awaited)
            {
                const std::string& id = a.file.points[t].id;
                auto state = a.states.find(t);
                if (state != a.states.end())
                {
                    bool runs = state->second == "RUNNING" || state->second == "COMPLETING";
                    ++(runs ? running : queued);
                }
                else if (PointFinished(dir, id))
                {
                    ++done;
                }
                else if (fs::exists(dir / (id + ".failed.json")))
                {
                    ++failed;
                }
                else
                {
                    ++unknown;
                }
            }
        }
        const std::string counts
            = fmt::format("{} of {} points done ({} skipped), {} failed, {} running, {} queued",
                          skipped + done, total, skipped, failed, running, queued);
        if (counts != lastCounts)
        {
            lastCounts = counts;
            std::cerr << fmt::format("[{}] slurm: {}, elapsed {}\n", label, counts,
                                     FormatDuration(elapsed()));
        }
        if (running + queued > 0)
        {
            continue;
        }
        // A point without a result once its task has left the queue: look once more after a
        // moment (a shared file system may show the rename late), then call it lost.
        if (unknown > 0 && !lookedAgain)
        {
            lookedAgain = true;
            continue;
        }
        return;
    }
}

// Counts each awaited point as done or failed; a point without a result is recorded as failed
// (lost), with sacct's final state of its task where the cluster keeps accounting.
void
ReadResults(const std::vector<PoolArray>& arrays, const fs::path& dir, PoolResult& result)
{
    for (const auto& a : arrays)
    {
        std::map<size_t, std::string> accounting;
        bool asked = false;
        for (size_t t : a.awaited)
        {
            const PoolPoint& p = a.file.points[t];
            if (PointFinished(dir, p.id))
            {
                ++result.done;
                try
                {
                    result.wallSeconds
                        += json::parse(ReadTextFile((dir / p.id / "summary.json").string()))
                               .at("wall_time_s")
                               .get<double>();
                }
                catch (const std::exception&)
                {
                }
                continue;
            }
            ++result.failed;
            if (fs::exists(dir / (p.id + ".failed.json")))
            {
                result.lost += Interrupted(dir, p.id);
                continue;
            }
            if (!asked)
            {
                accounting = QuerySlurmAccounting(a.jobName);
                asked = true;
            }
            ++result.lost;
            auto state = accounting.find(t);
            WritePointFailure(
                dir, p, LostTaskError(t, a.jobName, state == accounting.end() ? "" : state->second),
                TaskLogTail(a.folder / "logs", t));
        }
    }
}

} // namespace

PoolResult
RunPointPoolOnSlurm(const std::vector<PoolPoint>& points, const fs::path& dirGiven,
                    const PoolOptions& options)
{
    const fs::path dir = fs::absolute(dirGiven).lexically_normal();
    try
    {
        CheckSlurmFolder("the runs' folder", dir);
    }
    catch (const std::invalid_argument& e)
    {
        throw std::runtime_error(e.what());
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
    {
        throw std::runtime_error(dir.string() + ": cannot create: " + ec.message());
    }
    PoolResult result;
    result.total = points.size();
    size_t unfinished = 0;
    for (const auto& p : points)
    {
        unfinished += !PointFinished(dir, p.id);
    }
    result.skipped = points.size() - unfinished;
    std::cerr << fmt::format("[{}] {} points, {} already done, {} to run, as SLURM array tasks\n",
                             options.label, points.size(), result.skipped, unfinished);
    if (unfinished == 0)
    {
        return result; // SLURM is not asked at all
    }

    // Arrays of at most MaxArraySize points, over the whole batch: a task index stays the same
    // point however much of the batch is finished.
    const size_t maxArray = SlurmMaxArraySize();
    const size_t chunk = maxArray > 0 ? maxArray : points.size();
    std::vector<PoolArray> arrays;
    for (size_t first = 0; first < points.size(); first += chunk)
    {
        PoolArray a;
        a.file.dir = dir;
        a.file.extraArgs = options.extraArgs;
        a.file.points.assign(points.begin() + first,
                             points.begin() + std::min(points.size(), first + chunk));
        for (size_t t = 0; t < a.file.points.size(); ++t)
        {
            if (!PointFinished(dir, a.file.points[t].id))
            {
                a.awaited.push_back(t);
            }
        }
        if (!a.awaited.empty())
        {
            a.jobName = PoolJobName(dir, PoolFileText(a.file));
            a.folder = dir / "slurm" / a.jobName;
            arrays.push_back(std::move(a));
        }
    }
    for (auto& a : arrays)
    {
        SubmitArray(a, options);
    }
    WaitForArrays(arrays, dir, options.label, result.skipped, points.size());
    ReadResults(arrays, dir, result);
    std::cerr << fmt::format(
        "[{}] slurm: {}/{} done ({} skipped), {} failed{}\n", options.label,
        result.skipped + result.done, points.size(), result.skipped, result.failed,
        result.lost ? fmt::format(" ({} cut short by SLURM: the same command, re-run, runs them "
                                  "again)",
                                  result.lost)
                    : std::string());
    return result;
}

} // namespace flumen
