// flumen-sweep: `./flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE]
// [--backend local|slurm ...] [--status] [--collect]`. The local backend runs every point as its
// own flumen-run process, N at a time, through the point pool (point-pool.h); the SLURM backend
// submits one job-array task per unfinished point (slurm-backend.h), and each task runs its
// point through the same pool (`--task I`). Either way each point's outputs appear atomically
// as DIR/points/<id>/, re-running skips what is finished, and a failed point is recorded in
// DIR/points/<id>.failed.json and retried by the next run. DIR/results.csv has one row per
// point. Exit: 0 all done (or submitted), 1 some failed or unfinished, 2 bad input.
#include "point-pool.h"
#include "calibration-file.h"
#include "scenario.h"
#include "slurm-backend.h"
#include "sweep.h"

#include "atomic-file.h"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>
#include <unistd.h>
#include <utility>

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

const char* kUsage
    = "usage: flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE]\n"
      "       flumen sweep SWEEP.json --out DIR --backend slurm [--partition P] [--time T]\n"
      "             [--cpus-per-task N] [--throttle N] [--sbatch-arg ARG]... [--dry-run]\n"
      "       flumen sweep SWEEP.json --out DIR --status     (done/running/queued/failed/pending)\n"
      "       flumen sweep SWEEP.json --out DIR --collect    (results.csv from what finished)\n"
      "SWEEP.json: {\"base\": {scenario} | \"base_file\": \"file.json\",\n"
      "             \"grid\": {\"key\": [values, ...], ...}, \"seeds\": [1, 2]}\n";

struct Options
{
    std::string file;
    std::string out;
    std::string calibration;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    std::string backend = "local";
    flumen::SlurmOptions slurm;
    bool slurmOptionGiven = false;
    bool dryRun = false;
    bool status = false;
    bool collect = false;
    std::optional<size_t> task; //!< internal: run point I (a SLURM array task)
    std::string sweepId;        //!< internal: the sweep identity the task was submitted for
};

struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

unsigned long
WholeNumber(const std::string& option, const std::string& v, unsigned long lo, unsigned long hi)
{
    unsigned long n = 0;
    try
    {
        size_t used = 0;
        n = std::stoul(v, &used);
        if (used != v.size())
            throw std::invalid_argument(v);
    }
    catch (const std::exception&)
    {
        throw UsageError(fmt::format("{}: expected a whole number, got '{}'", option, v));
    }
    if (n < lo || n > hi)
    {
        throw UsageError(fmt::format("{}: expected {}..{}, got {}", option, lo, hi, n));
    }
    return n;
}

Options
ParseOptions(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        // --option=value works as well as --option value.
        std::optional<std::string> inlineValue;
        if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos)
        {
            inlineValue = a.substr(a.find('=') + 1);
            a = a.substr(0, a.find('='));
        }
        auto value = [&]() -> std::string
        {
            if (inlineValue)
                return *std::exchange(inlineValue, std::nullopt);
            if (i + 1 >= argc)
                throw UsageError(a + ": expected a value");
            return argv[++i];
        };
        if (a == "--out")
            o.out = value();
        else if (a == "--calibration")
            o.calibration = value();
        else if (a == "--jobs")
            o.jobs = WholeNumber(a, value(), 1, 1024);
        else if (a == "--backend")
        {
            o.backend = value();
            if (o.backend != "local" && o.backend != "slurm")
                throw UsageError("--backend: expected local or slurm, got '" + o.backend + "'");
        }
        else if (a == "--partition")
        {
            o.slurm.partition = value();
            o.slurmOptionGiven = true;
            if (o.slurm.partition.empty()
                || o.slurm.partition.find_first_of(" \t\n'\"") != std::string::npos)
                throw UsageError("--partition: expected a partition name, got '" + o.slurm.partition
                                 + "'");
        }
        else if (a == "--time")
        {
            o.slurm.time = value();
            o.slurmOptionGiven = true;
            if (!flumen::ValidSlurmTime(o.slurm.time))
                throw UsageError("--time: expected a SLURM time limit (HH:MM:SS, D-HH:MM:SS or "
                                 "minutes), got '"
                                 + o.slurm.time + "'");
        }
        else if (a == "--cpus-per-task")
        {
            o.slurm.cpusPerTask = WholeNumber(a, value(), 1, 4096);
            o.slurmOptionGiven = true;
        }
        else if (a == "--throttle")
        {
            o.slurm.throttle = WholeNumber(a, value(), 1, 1000000);
            o.slurmOptionGiven = true;
        }
        else if (a == "--sbatch-arg")
        {
            std::string v = value();
            o.slurmOptionGiven = true;
            if (v.size() < 2 || v[0] != '-' || v.find('\n') != std::string::npos)
                throw UsageError("--sbatch-arg: expected one sbatch option such as --mem=4G, got '"
                                 + v + "'");
            o.slurm.sbatchArgs.push_back(v);
        }
        else if (a == "--dry-run")
        {
            o.dryRun = true;
            o.slurmOptionGiven = true;
        }
        else if (a == "--status")
            o.status = true;
        else if (a == "--collect")
            o.collect = true;
        else if (a == "--task")
            o.task = WholeNumber(a, value(), 0, ~0ul);
        else if (a == "--sweep-id")
            o.sweepId = value();
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            std::exit(0);
        }
        else if (!a.empty() && a[0] != '-' && o.file.empty())
            o.file = a;
        else
            throw UsageError("unexpected argument '" + std::string(argv[i]) + "'");
        if (inlineValue)
            throw UsageError(a + ": takes no value");
    }
    if (o.file.empty() || o.out.empty())
        throw UsageError("need SWEEP.json and --out DIR");
    if (o.slurmOptionGiven && o.backend != "slurm")
        throw UsageError("--partition, --time, --cpus-per-task, --throttle, --sbatch-arg and "
                         "--dry-run need --backend slurm");
    if (o.status + o.collect + o.task.has_value() > 1)
        throw UsageError("--status, --collect and --task exclude each other");
    return o;
}

// What a point is now, from the output folder and (where available) the queue.
struct PointState
{
    std::string status; // done, running, queued, failed, pending
    std::string error;
};

std::vector<PointState>
Classify(const flumen::Sweep& sweep, const fs::path& points, const flumen::SlurmQueue& queue,
         const std::map<size_t, std::string>& accounting)
{
    std::vector<PointState> states;
    for (size_t i = 0; i < sweep.points.size(); ++i)
    {
        const std::string& id = sweep.points[i].id;
        auto q = queue.tasks.find(i);
        auto acct = accounting.find(i);
        if (flumen::PointFinished(points, id))
            states.push_back({ "done", "" });
        else if (q != queue.tasks.end())
        {
            bool runs
                = q->second == "RUNNING" || q->second == "COMPLETING" || q->second == "CONFIGURING";
            states.push_back({ runs ? "running" : "queued", runs ? "" : q->second });
        }
        else if (std::string error = flumen::PointFailure(points, id); !error.empty())
            states.push_back({ "failed", error });
        else if (acct != accounting.end() && acct->second != "COMPLETED"
                 && acct->second != "RUNNING" && acct->second != "PENDING"
                 && acct->second != "REQUEUED")
            states.push_back({ "failed", "SLURM: " + acct->second + " (per sacct)" });
        else
            states.push_back({ "pending", "not run" });
    }
    return states;
}

void
WriteResults(const flumen::Sweep& sweep, const fs::path& out, const std::vector<PointState>& st)
{
    const fs::path points = out / "points";
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < sweep.points.size(); ++i)
    {
        const auto& p = sweep.points[i];
        if (st[i].status == "done")
        {
            json s = json::parse(flumen::ReadTextFile(points / p.id / "summary.json"));
            rows.push_back(flumen::ResultRow(p, sweep.keys, &s, "done", ""));
        }
        else
        {
            rows.push_back(flumen::ResultRow(p, sweep.keys, nullptr, st[i].status, st[i].error));
        }
    }
    flumen::WriteFileAtomically((out / "results.csv").string(),
                                flumen::FormatCsv(flumen::ResultColumns(sweep.keys), rows));
}

size_t
CountStatus(const std::vector<PointState>& st, const std::string& status)
{
    return std::count_if(st.begin(), st.end(),
                         [&](const PointState& s) { return s.status == status; });
}

std::string
StatusLine(const std::vector<PointState>& st)
{
    return fmt::format("{} points: {} done, {} running, {} queued, {} failed, {} pending",
                       st.size(), CountStatus(st, "done"), CountStatus(st, "running"),
                       CountStatus(st, "queued"), CountStatus(st, "failed"),
                       CountStatus(st, "pending"));
}

// The identity of the sweep's point list: a task refuses to run for another one.
std::string
SweepId(const flumen::Sweep& sweep)
{
    std::string ids;
    for (const auto& p : sweep.points)
        ids += p.id + "\n";
    return flumen::StableHash(ids);
}

std::vector<flumen::PoolPoint>
PoolPoints(const flumen::Sweep& sweep)
{
    std::vector<flumen::PoolPoint> pool;
    for (const auto& p : sweep.points)
    {
        pool.push_back(
            { p.id, p.scenario, { { "assignments", json(p.assignments) }, { "seed", p.seed } } });
    }
    return pool;
}

flumen::PoolOptions
MakePoolOptions(const Options& o, const std::string& label, unsigned jobs)
{
    flumen::PoolOptions options;
    options.jobs = jobs;
    options.label = label;
    if (!o.calibration.empty())
        options.extraArgs = { "--calibration", o.calibration };
    return options;
}

bool
AllDone(const std::vector<PointState>& st)
{
    return CountStatus(st, "done") == st.size();
}

// results.csv, and a line saying so.
void
WriteResultsAndSay(const flumen::Sweep& sweep, const fs::path& out,
                   const std::vector<PointState>& st)
{
    WriteResults(sweep, out, st);
    std::cout << "wrote " << (out / "results.csv").string() << "\n";
}

// The output folder as the SLURM backend names it (the array's job name derives from it, so
// submission and status must spell it the same way).
fs::path
AbsoluteOut(const Options& o)
{
    return fs::absolute(o.out).lexically_normal();
}

// The queue is asked only about a sweep submitted to SLURM before: an unconfigured squeue can
// take a minute to fail.
flumen::SlurmQueue
QueueIfSubmitted(const fs::path& out, const std::string& jobName)
{
    if (fs::is_directory(out / "slurm"))
        return flumen::QuerySlurmQueue(jobName);
    flumen::SlurmQueue none;
    none.why = "this sweep was not submitted to SLURM";
    return none;
}

int
RunLocal(const Options& o, const flumen::Sweep& sweep)
{
    const fs::path points = fs::path(o.out) / "points";
    flumen::PoolResult run
        = flumen::RunPointPool(PoolPoints(sweep), points, MakePoolOptions(o, "sweep", o.jobs));
    auto states = Classify(sweep, points, {}, {});
    WriteResults(sweep, o.out, states);
    std::cout << fmt::format("sweep: {} of {} points done ({} this run, {} skipped), {} failed; "
                             "{:.0f} s of simulation wall time this run (added over its points); "
                             "wrote {}\n",
                             CountStatus(states, "done"), sweep.points.size(), run.done,
                             run.skipped, run.failed, run.wallSeconds,
                             (fs::path(o.out) / "results.csv").string());
    return AllDone(states) ? 0 : 1;
}

// SLURM sends SIGTERM to every process of a cancelled, timed-out or preempted task. The task
// stays alive to record its point's failure when flumen-run dies, and passes the signal on in
// case the site signals only the batch process.
volatile std::sig_atomic_t g_terminating = 0;

void
OnTerminate(int)
{
    if (!g_terminating)
    {
        g_terminating = 1;
        ::kill(0, SIGTERM); // our own process group (set up in RunTask), handled here once
    }
}

int
RunTask(const Options& o, const flumen::Sweep& sweep)
{
    size_t index = *o.task;
    if (index >= sweep.points.size())
    {
        std::cerr << fmt::format("flumen sweep: --task {}: the sweep has {} points (0..{})\n",
                                 index, sweep.points.size(), sweep.points.size() - 1);
        return 2;
    }
    if (!o.sweepId.empty() && o.sweepId != SweepId(sweep))
    {
        std::cerr << fmt::format("flumen sweep: {}: the sweep's points changed since this task was "
                                 "submitted (sweep id {} now, {} then); task {} does not run. "
                                 "Re-run `flumen sweep ... --backend slurm` to submit the "
                                 "current points\n",
                                 o.file, SweepId(sweep), o.sweepId, index);
        return 2;
    }
    ::setpgid(0, 0);
    struct sigaction sa = {};
    sa.sa_handler = OnTerminate;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, nullptr);

    const fs::path points = fs::path(o.out) / "points";
    std::vector<flumen::PoolPoint> one = { PoolPoints(sweep)[index] };
    flumen::RunPointPool(one, points, MakePoolOptions(o, fmt::format("task {}", index), 1));
    if (g_terminating)
    {
        std::cerr << fmt::format("flumen sweep: task {} (point {}) terminated (cancelled, time "
                                 "limit or preemption); nothing partial is left\n",
                                 index, sweep.points[index].id);
        return 1;
    }
    bool done = flumen::PointFinished(points, sweep.points[index].id);
    auto states = Classify(sweep, points, {}, {});
    if (done && AllDone(states))
    {
        // The last task to finish assembles results.csv (two racing tasks write the same).
        WriteResults(sweep, o.out, states);
        std::cerr << fmt::format("flumen sweep: all {} points done; wrote {}\n",
                                 sweep.points.size(), (fs::path(o.out) / "results.csv").string());
    }
    return done ? 0 : 1;
}

int
ReportStatus(const Options& o, const flumen::Sweep& sweep, bool collect)
{
    const fs::path out = AbsoluteOut(o);
    const std::string jobName = flumen::SlurmJobName(out.string(), SweepId(sweep));
    flumen::SlurmQueue queue = QueueIfSubmitted(out, jobName);
    auto accounting
        = queue.available ? flumen::QuerySlurmAccounting(jobName) : std::map<size_t, std::string>{};
    auto states = Classify(sweep, out / "points", queue, accounting);
    std::cout << "sweep: " << StatusLine(states) << "\n";
    if (!queue.available)
        std::cout << "  (no SLURM queue to ask: " << queue.why
                  << "; queued and running tasks show as pending)\n";
    for (size_t i = 0; i < states.size(); ++i)
    {
        if (states[i].status == "running" || states[i].status == "failed")
            std::cout << fmt::format("  task {} (point {}): {}{}{}\n", i, sweep.points[i].id,
                                     states[i].status, states[i].error.empty() ? "" : ": ",
                                     states[i].error.substr(0, states[i].error.find('\n')));
    }
    if (collect || AllDone(states))
        WriteResultsAndSay(sweep, out, states);
    return AllDone(states) ? 0 : 1;
}

int
SubmitSlurm(const Options& o, const flumen::Sweep& sweep)
{
    const fs::path out = AbsoluteOut(o);
    if (out.string().find_first_of(" \t\n'\"") != std::string::npos)
    {
        std::cerr << "flumen sweep: --out " << out
                  << ": the SLURM backend needs a folder path without spaces or quotes "
                     "(it goes into #SBATCH lines)\n";
        return 2;
    }
    const std::string id = SweepId(sweep);
    const std::string jobName = flumen::SlurmJobName(out.string(), id);
    // A submission needs a queue that answers; a dry run asks only about a sweep submitted
    // before (what is queued is not submitted again).
    flumen::SlurmQueue queue
        = o.dryRun ? QueueIfSubmitted(out, jobName) : flumen::QuerySlurmQueue(jobName);
    if (!queue.available && !o.dryRun)
    {
        std::cerr << "flumen sweep: " << queue.why
                  << ": run on a SLURM submit host, or use --dry-run and submit the script "
                     "yourself\n";
        return 2;
    }
    const fs::path points = out / "points";
    const fs::path slurmDir = out / "slurm";
    fs::create_directories(points);
    fs::create_directories(slurmDir / "logs");
    auto states = Classify(sweep, points, queue, {});
    std::vector<size_t> todo;
    for (size_t i = 0; i < states.size(); ++i)
        if (states[i].status == "pending" || states[i].status == "failed")
            todo.push_back(i);
    if (todo.empty())
    {
        std::cout << "sweep: nothing to submit; " << StatusLine(states) << "\n";
        if (AllDone(states))
            WriteResultsAndSay(sweep, out, states);
        return 0;
    }
    size_t maxArray = o.dryRun ? 0 : flumen::SlurmMaxArraySize();
    if (maxArray > 0 && todo.back() >= maxArray)
    {
        std::cerr << fmt::format("flumen sweep: the sweep has {} points but this cluster's "
                                 "MaxArraySize is {} (task indices 0..{}): ask for a larger "
                                 "MaxArraySize in slurm.conf, or split the grid into sweeps of "
                                 "at most {} points\n",
                                 sweep.points.size(), maxArray, maxArray - 1, maxArray);
        return 2;
    }

    flumen::SlurmArrayScript script;
    script.jobName = jobName;
    script.arraySpec = flumen::ArraySpec(todo, o.slurm.throttle);
    script.logDir = (slurmDir / "logs").string();
    script.options = o.slurm;
    script.taskCommand = { fs::read_symlink("/proc/self/exe").string(),
                           fs::absolute(o.file).lexically_normal().string(),
                           "--out",
                           out.string(),
                           "--sweep-id",
                           id };
    if (!o.calibration.empty())
    {
        script.taskCommand.push_back("--calibration");
        script.taskCommand.push_back(o.calibration);
    }
    script.taskCommand.push_back("--task");
    size_t n = 1;
    while (fs::exists(slurmDir / fmt::format("array-{}.sbatch", n)))
        ++n;
    const fs::path scriptPath = slurmDir / fmt::format("array-{}.sbatch", n);
    flumen::WriteFileAtomically(scriptPath.string(), flumen::FormatSlurmScript(script));
    fs::permissions(scriptPath, fs::perms::owner_exec | fs::perms::group_exec,
                    fs::perm_options::add);
    if (o.dryRun)
    {
        std::cout << fmt::format("sweep: wrote {} ({} tasks: --array={}; {}); submit it with: "
                                 "sbatch {}\n",
                                 scriptPath.string(), todo.size(), script.arraySpec,
                                 StatusLine(states), scriptPath.string());
        return 0;
    }
    std::string job;
    try
    {
        job = flumen::SubmitSlurmScript(scriptPath.string());
    }
    catch (const std::exception&)
    {
        fs::remove(scriptPath); // nothing was submitted: no script claims otherwise
        throw;
    }
    std::cout << fmt::format("sweep: submitted job {} ({} tasks: --array={}; script {}); {}\n"
                             "follow it with: flumen sweep {} --out {} --status\n",
                             job, todo.size(), script.arraySpec, scriptPath.string(),
                             StatusLine(states), o.file, o.out);
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    Options o;
    try
    {
        o = ParseOptions(argc, argv);
    }
    catch (const UsageError& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n" << kUsage;
        return 2;
    }

    flumen::Sweep sweep;
    try
    {
        sweep = flumen::LoadSweep(o.file);
        if (!o.calibration.empty())
        {
            // Checked once here, so that a bad file fails the sweep, not every point.
            flumen::LoadCalibration(o.calibration);
            o.calibration = fs::absolute(o.calibration).string();
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 2;
    }
    try
    {
        if (o.task)
            return RunTask(o, sweep);
        if (o.status || o.collect)
            return ReportStatus(o, sweep, o.collect);
        if (o.backend == "slurm")
            return SubmitSlurm(o, sweep);
        return RunLocal(o, sweep);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 1;
    }
}
