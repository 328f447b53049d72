#include "sweep-status.h"

#include "atomic-file.h"
#include "point-pool.h"
#include "run-store.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<PointState>
ClassifySweepPoints(const Sweep& sweep, const fs::path& points, const SlurmQueue& queue,
                    const std::map<size_t, std::string>& accounting)
{
    std::vector<PointState> states;
    for (size_t i = 0; i < sweep.points.size(); ++i)
    {
        const std::string& id = sweep.points[i].id;
        auto q = queue.tasks.find(i);
        auto acct = accounting.find(i);
        if (PointFinished(points, id))
            states.push_back({ "done", "" });
        else if (q != queue.tasks.end())
        {
            bool runs
                = q->second == "RUNNING" || q->second == "COMPLETING" || q->second == "CONFIGURING";
            states.push_back({ runs ? "running" : "queued", runs ? "" : q->second });
        }
        else if (std::string error = PointFailure(points, id); !error.empty())
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
WriteSweepResults(const Sweep& sweep, const fs::path& out, const std::vector<PointState>& st)
{
    const fs::path points = out / "points";
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < sweep.points.size(); ++i)
    {
        const auto& p = sweep.points[i];
        if (st[i].status == "done")
        {
            // From the point's folder, or from the runs file a --compact sweep keeps it in.
            const fs::path file = points / p.id / "summary.json";
            const std::optional<std::string> text = ReadRunFile(points, p.id, "summary.json");
            if (!text)
            {
                throw std::runtime_error(file.string() + ": a finished point's summary is gone");
            }
            RunSummary s = ParseRunSummary(*text, file.string());
            rows.push_back(ResultRow(sweep, p, &s, "done", ""));
        }
        else
        {
            rows.push_back(ResultRow(sweep, p, nullptr, st[i].status, st[i].error));
        }
    }
    WriteFileAtomically((out / "results.csv").string(), FormatCsv(ResultColumns(sweep), rows));
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

bool
AllDone(const std::vector<PointState>& st)
{
    return CountStatus(st, "done") == st.size();
}

void
WriteSweepResultsAndSay(const Sweep& sweep, const fs::path& out, const std::vector<PointState>& st)
{
    WriteSweepResults(sweep, out, st);
    std::cout << "wrote " << (out / "results.csv").string() << "\n";
}

// The array's job name derives from it, so submission and status must spell it the same way.
fs::path
AbsoluteOut(const std::string& out)
{
    return fs::absolute(out).lexically_normal();
}

// The queue is asked only about a sweep submitted to SLURM before: an unconfigured squeue can
// take a minute to fail.
SlurmQueue
QueueIfSubmitted(const fs::path& out, const std::string& jobName)
{
    if (fs::is_directory(out / "slurm"))
        return QuerySlurmQueue(jobName);
    SlurmQueue none;
    none.why = "this sweep was not submitted to SLURM";
    return none;
}

int
ReportSweepStatus(const Sweep& sweep, const std::string& outDir, bool collect)
{
    const fs::path out = AbsoluteOut(outDir);
    const std::string jobName = SlurmJobName(out.string(), SweepId(sweep));
    SlurmQueue queue = QueueIfSubmitted(out, jobName);
    auto accounting
        = queue.available ? QuerySlurmAccounting(jobName) : std::map<size_t, std::string>{};
    auto states = ClassifySweepPoints(sweep, out / "points", queue, accounting);
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
        WriteSweepResultsAndSay(sweep, out, states);
    return AllDone(states) ? 0 : 1;
}

} // namespace flumen
