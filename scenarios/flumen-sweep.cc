// flumen-sweep: `./flumen sweep SWEEP.json --out DIR [--jobs N]`. Runs every point of a sweep
// as its own flumen-run process, N at a time. A point's outputs appear atomically as
// DIR/points/<id>/ (run in a temporary folder, then renamed), so re-running the same command
// skips what is finished and cleans what a crash or kill -9 left half done. A failed point is
// recorded in DIR/points/<id>.failed.json and retried by the next run; it never stops the
// others. DIR/results.csv has one row per point. Exit: 0 all done, 1 some failed, 2 bad input.
#include "atomic-file.h"
#include "scenario.h"
#include "sweep.h"

#include <fmt/format.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

const char* kUsage = "usage: flumen sweep SWEEP.json --out DIR [--jobs N]\n"
                     "SWEEP.json: {\"base\": {scenario} | \"base_file\": \"file.json\",\n"
                     "             \"grid\": {\"key\": [values, ...], ...}, \"seeds\": [1, 2]}\n";

std::string
ReadText(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The last few lines of a log, for the failure record.
std::string
Tail(const std::string& text, size_t lines)
{
    size_t pos = text.size();
    for (size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n)
    {
        pos = text.rfind('\n', pos - 1);
    }
    return pos == std::string::npos ? text : text.substr(pos + 1);
}

std::string
Duration(double s)
{
    if (s < 90)
        return fmt::format("{:.0f}s", s);
    if (s < 5400)
        return fmt::format("{:.0f}m{:02.0f}s", std::floor(s / 60), std::fmod(s, 60));
    return fmt::format("{:.0f}h{:02.0f}m", std::floor(s / 3600), std::fmod(s / 60, 60));
}

struct Running
{
    size_t index;
    fs::path tmp;
};

} // namespace

int
main(int argc, char** argv)
{
    std::string file;
    std::string out;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if ((a == "--out" || a == "--jobs") && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                out = v;
            else
            {
                try
                {
                    jobs = static_cast<unsigned>(std::stoul(v));
                }
                catch (const std::exception&)
                {
                    jobs = 0;
                }
                if (jobs < 1 || jobs > 1024)
                {
                    std::cerr << "flumen sweep: --jobs: expected 1..1024, got '" << v << "'\n";
                    return 2;
                }
            }
        }
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        else if (!a.empty() && a[0] != '-' && file.empty())
            file = a;
        else
        {
            std::cerr << "flumen sweep: unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    if (file.empty() || out.empty())
    {
        std::cerr << "flumen sweep: need SWEEP.json and --out DIR\n" << kUsage;
        return 2;
    }

    flumen::Sweep sweep;
    try
    {
        sweep = flumen::LoadSweep(file);
    }
    catch (const flumen::ScenarioError& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 2;
    }
    const fs::path points = fs::path(out) / "points";
    std::error_code ec;
    fs::create_directories(points, ec);
    if (ec)
    {
        std::cerr << "flumen sweep: " << points.string() << ": cannot create: " << ec.message()
                  << "\n";
        return 2;
    }
    // What an interrupted run left half done goes; finished points stay.
    for (const auto& e : fs::directory_iterator(points))
    {
        if (e.path().filename().string().find(".tmp.") != std::string::npos)
        {
            fs::remove_all(e.path(), ec);
        }
    }
    const fs::path runBinary = fs::read_symlink("/proc/self/exe").parent_path() / "flumen-run";

    auto finished
        = [&](const flumen::SweepPoint& p) { return fs::exists(points / p.id / "summary.json"); };
    std::vector<size_t> pending;
    for (size_t i = 0; i < sweep.points.size(); ++i)
    {
        if (!finished(sweep.points[i]))
        {
            pending.push_back(i);
            fs::remove(points / (sweep.points[i].id + ".failed.json"), ec);
        }
    }
    const size_t skipped = sweep.points.size() - pending.size();
    std::cerr << fmt::format("[sweep] {} points, {} already done, {} to run, {} at a time\n",
                             sweep.points.size(), skipped, pending.size(), jobs);

    auto start = std::chrono::steady_clock::now();
    std::map<pid_t, Running> running;
    size_t next = 0;
    size_t done = 0;
    size_t failed = 0;
    double wallSum = 0;
    while (next < pending.size() || !running.empty())
    {
        while (next < pending.size() && running.size() < jobs)
        {
            size_t i = pending[next++];
            const auto& p = sweep.points[i];
            fs::path tmp = points / fmt::format("{}.tmp.{}", p.id, getpid());
            fs::create_directories(tmp, ec);
            // A stable path, so that messages name the same file on every run; it stays beside
            // a failed point's record for reproduction, and moves into a finished point.
            std::string scen = (points / (p.id + ".scenario.json")).string();
            flumen::WriteFileAtomically(scen, p.scenario.dump(2) + "\n");
            std::string outDir = tmp.string();
            std::string log = (tmp / "log.txt").string();
            std::vector<std::string> args
                = { runBinary.string(), scen, "--out", outDir, "--quiet" };
            std::vector<char*> cargs;
            for (auto& a : args)
                cargs.push_back(a.data());
            cargs.push_back(nullptr);
            posix_spawn_file_actions_t fa;
            posix_spawn_file_actions_init(&fa);
            posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                             0644);
            posix_spawn_file_actions_adddup2(&fa, 1, 2);
            pid_t pid = 0;
            int rc = posix_spawn(&pid, runBinary.c_str(), &fa, nullptr, cargs.data(), environ);
            posix_spawn_file_actions_destroy(&fa);
            if (rc != 0)
            {
                std::cerr << "flumen sweep: cannot start " << runBinary.string() << "\n";
                return 1;
            }
            running[pid] = { i, tmp };
        }
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
        {
            break;
        }
        auto it = running.find(pid);
        if (it == running.end())
        {
            continue;
        }
        Running r = it->second;
        running.erase(it);
        const auto& p = sweep.points[r.index];
        bool ok
            = WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(r.tmp / "summary.json");
        const fs::path scen = points / (p.id + ".scenario.json");
        if (ok)
        {
            fs::copy_file(scen, r.tmp / "scenario.json", fs::copy_options::overwrite_existing, ec);
            fs::rename(r.tmp, points / p.id, ec); // atomic: the point appears whole
            if (ec)
            {
                fs::remove_all(r.tmp, ec); // another run finished it meanwhile
            }
            fs::remove(scen, ec);
            try
            {
                wallSum += json::parse(ReadText(points / p.id / "summary.json"))["wall_time_s"]
                               .get<double>();
            }
            catch (const std::exception&)
            {
            }
            ++done;
        }
        else
        {
            std::string why = WIFEXITED(status)
                                  ? fmt::format("exit code {}", WEXITSTATUS(status))
                                  : fmt::format("killed by signal {}", WTERMSIG(status));
            json record = { { "point", p.id },
                            { "assignments", json(p.assignments) },
                            { "seed", p.seed },
                            { "error", why },
                            { "log", Tail(ReadText(r.tmp / "log.txt"), 5) } };
            flumen::WriteFileAtomically((points / (p.id + ".failed.json")).string(),
                                        record.dump(2) + "\n");
            fs::remove_all(r.tmp, ec);
            ++failed;
        }
        double elapsed
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        size_t finishedNow = done + failed;
        size_t left = pending.size() - finishedNow;
        double eta = finishedNow ? elapsed / finishedNow * left : 0;
        std::cerr << fmt::format("[sweep] {}/{} done ({} skipped), {} failed, {} running, "
                                 "elapsed {}, ETA {}\n",
                                 skipped + done, sweep.points.size(), skipped, failed,
                                 running.size(), Duration(elapsed), Duration(eta));
    }

    // results.csv from every point's state on disk, finished before or now.
    std::vector<std::vector<std::string>> rows;
    size_t doneTotal = 0;
    for (const auto& p : sweep.points)
    {
        if (finished(p))
        {
            json s = json::parse(ReadText(points / p.id / "summary.json"));
            rows.push_back(flumen::ResultRow(p, sweep.keys, &s, "done", ""));
            ++doneTotal;
        }
        else
        {
            std::string error = "not run";
            fs::path f = points / (p.id + ".failed.json");
            if (fs::exists(f))
            {
                json rec = json::parse(ReadText(f));
                error = rec["error"].get<std::string>() + ": " + rec["log"].get<std::string>();
            }
            rows.push_back(flumen::ResultRow(p, sweep.keys, nullptr, "failed", error));
        }
    }
    flumen::WriteFileAtomically((fs::path(out) / "results.csv").string(),
                                flumen::FormatCsv(flumen::ResultColumns(sweep.keys), rows));
    std::cout << fmt::format("sweep: {} of {} points done ({} this run, {} skipped), {} failed; "
                             "{:.0f} s of simulation wall time this run; wrote {}\n",
                             doneTotal, sweep.points.size(), done, skipped, failed, wallSum,
                             (fs::path(out) / "results.csv").string());
    return doneTotal == sweep.points.size() ? 0 : 1;
}
