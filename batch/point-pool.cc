#include "point-pool.h"

#include "atomic-file.h"
#include "child-process.h"
#include "run-store.h"
#include "slurm-pool.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

struct Running
{
    size_t index;
    fs::path tmp;
};

} // namespace

std::string
FormatDuration(double seconds)
{
    // Rounded once, in whole units of the finest field shown, so that 3599.7 s reads 60m00s,
    // not 59m60s.
    double s = std::max(0.0, seconds);
    if (s < 89.5)
    {
        return fmt::format("{}s", std::lround(s));
    }
    if (s < 5399.5)
    {
        long whole = std::lround(s);
        return fmt::format("{}m{:02}s", whole / 60, whole % 60);
    }
    long minutes = std::lround(s / 60);
    return fmt::format("{}h{:02}m", minutes / 60, minutes % 60);
}

bool
PointFinished(const fs::path& dir, const std::string& id)
{
    return fs::exists(dir / id / "summary.json") || InRunsFile(dir, id);
}

std::string
PointFailure(const fs::path& dir, const std::string& id)
{
    fs::path f = dir / (id + ".failed.json");
    if (!fs::exists(f))
    {
        return "";
    }
    try
    {
        json rec = json::parse(ReadTextFile(f));
        std::string log = rec.value("log", "");
        return rec.value("error", "failed") + (log.empty() ? "" : ": " + log);
    }
    catch (const std::exception&)
    {
        return "failed (unreadable record " + f.string() + ")";
    }
}

std::string
LastLines(const std::string& text, size_t lines)
{
    size_t pos = text.size();
    for (size_t n = 0; n <= lines && pos != std::string::npos && pos > 0; ++n)
    {
        pos = text.rfind('\n', pos - 1);
    }
    return pos == std::string::npos || pos >= text.size() ? text : text.substr(pos + 1);
}

void
WritePointFailure(const fs::path& dir, const PoolPoint& p, const std::string& error,
                  const std::string& log)
{
    json record = { { "point", p.id }, { "about", p.about }, { "error", error }, { "log", log } };
    WriteFileAtomically((dir / (p.id + ".failed.json")).string(), record.dump(2) + "\n");
}

fs::path
RunBinaryBesideSelf()
{
    return fs::read_symlink("/proc/self/exe").parent_path() / "flumen-run";
}

PoolResult
RunPointPool(const std::vector<PoolPoint>& points, const fs::path& dir, const PoolOptions& options)
{
    if (options.backend == PoolBackend::Slurm)
    {
        return RunPointPoolOnSlurm(points, dir, options);
    }
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
    {
        throw std::runtime_error(dir.string() + ": cannot create: " + ec.message());
    }
    // What an interrupted run of these points left half done goes; finished points stay. Only
    // these points' leftovers: other processes (SLURM array tasks) may be running others now.
    std::set<std::string> ids;
    for (const auto& p : points)
    {
        ids.insert(p.id);
    }
    for (const auto& e : fs::directory_iterator(dir))
    {
        // <id>.tmp.<tag> (a run's folder) or <id>.scenario.json.tmp.<tag> (a file being written)
        const std::string name = e.path().filename().string();
        const std::string owner
            = name.substr(0, std::min(name.find(".tmp."), name.find(".scenario.json")));
        if (name.find(".tmp.") != std::string::npos && ids.count(owner))
        {
            fs::remove_all(e.path(), ec);
        }
    }
    const fs::path runBinary = RunBinaryBesideSelf();

    PoolResult result;
    result.total = points.size();
    std::vector<size_t> pending;
    for (size_t i = 0; i < points.size(); ++i)
    {
        if (!PointFinished(dir, points[i].id))
        {
            pending.push_back(i);
            fs::remove(dir / (points[i].id + ".failed.json"), ec);
        }
    }
    result.skipped = points.size() - pending.size();
    const std::string& label = options.label;
    std::cerr << fmt::format("[{}] {} points, {} already done, {} to run, {} at a time\n", label,
                             points.size(), result.skipped, pending.size(), options.jobs);

    auto start = std::chrono::steady_clock::now();
    std::map<pid_t, Running> running;
    size_t next = 0;
    bool report = false;
    auto lastReport = start;
    try
    {
        while (next < pending.size() || !running.empty())
        {
            while (next < pending.size() && running.size() < options.jobs)
            {
                size_t i = pending[next++];
                const auto& p = points[i];
                fs::path tmp = dir / fmt::format("{}.tmp.{}", p.id, ProcessTag());
                fs::create_directories(tmp, ec);
                // A stable path, so that messages name the same file on every run; it stays beside
                // a failed point's record for reproduction, and moves into a finished point.
                std::string scen = (dir / (p.id + ".scenario.json")).string();
                WriteFileAtomically(scen, p.scenario.dump(2) + "\n");
                std::string log = (tmp / "log.txt").string();
                std::vector<std::string> args
                    = { runBinary.string(), scen, "--out", tmp.string(), "--quiet" };
                args.insert(args.end(), options.extraArgs.begin(), options.extraArgs.end());
                SpawnOptions spawn;
                spawn.outputFile = log;
                running[StartProgram(args, spawn)] = { i, tmp };
            }
            const auto now = std::chrono::steady_clock::now();
            if (report // after the refill, so that "running" counts what runs now
                && std::chrono::duration<double>(now - lastReport).count()
                       >= options.progressIntervalS)
            {
                report = false;
                lastReport = now;
                double elapsed
                    = std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                          .count();
                size_t finishedNow = result.done + result.failed;
                size_t left = pending.size() - finishedNow;
                double eta = finishedNow ? elapsed / finishedNow * left : 0;
                std::cerr << fmt::format("[{}] {}/{} done ({} skipped), {} failed, {} running, "
                                         "elapsed {}, ETA {}\n",
                                         label, result.skipped + result.done, points.size(),
                                         result.skipped, result.failed, running.size(),
                                         FormatDuration(elapsed), FormatDuration(eta));
            }
            // A signal we handle (SIGTERM of a SLURM task) does not end the wait: the child tells.
            std::optional<EndedChild> ended = WaitForAnyChild();
            if (!ended)
            {
                break;
            }
            auto it = running.find(ended->pid);
            if (it == running.end())
            {
                continue;
            }
            Running r = it->second;
            running.erase(it);
            const auto& p = points[r.index];
            bool ok = ended->exit.Succeeded() && fs::exists(r.tmp / "summary.json");
            const fs::path scen = dir / (p.id + ".scenario.json");
            if (ok)
            {
                fs::copy_file(scen, r.tmp / "scenario.json", fs::copy_options::overwrite_existing,
                              ec);
                fs::rename(r.tmp, dir / p.id, ec); // atomic: the point appears whole
                if (ec)
                {
                    fs::remove_all(r.tmp, ec); // another run finished it meanwhile
                }
                fs::remove(scen, ec);
                try
                {
                    result.wallSeconds
                        += json::parse(ReadTextFile(dir / p.id / "summary.json"))["wall_time_s"]
                               .get<double>();
                }
                catch (const std::exception&)
                {
                }
                ++result.done;
            }
            else
            {
                WritePointFailure(dir, p, ended->exit.Describe(),
                                  LastLines(ReadTextFile(r.tmp / "log.txt"), 5));
                fs::remove_all(r.tmp, ec);
                ++result.failed;
            }
            report = true;
            if (report && running.empty() && next >= pending.size())
            {
                std::cerr << fmt::format("[{}] {}/{} done ({} skipped), {} failed\n", label,
                                         result.skipped + result.done, points.size(),
                                         result.skipped, result.failed);
            }
        }
    }
    catch (...)
    {
        // A failure of the pool itself (a full disk for a record, say): the runs under way are
        // stopped and every folder this process made for a run is removed, so that nothing
        // half done stays behind.
        for (const auto& [pid, r] : running)
        {
            ::kill(pid, SIGTERM);
            int status = 0;
            ::waitpid(pid, &status, 0);
        }
        RemoveStaleTemporaries(dir.string(), ProcessTag());
        throw;
    }
    return result;
}

} // namespace flumen
