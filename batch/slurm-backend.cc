#include "slurm-backend.h"

#include "child-process.h"
#include "sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace flumen
{

namespace
{

// "123_4|RUNNING" style lines: (job, task, rest); false for anything else (headers, "N/A"
// tasks of plain jobs, pending ranges such as "123_[5-9%1]").
bool
SplitTaskLine(const std::string& line, size_t& job, size_t& task, std::string& rest)
{
    static const std::regex re(R"(^\s*(\d+)[_|](\d+)\|([^|]*)\s*$)");
    std::smatch m;
    if (!std::regex_match(line, m, re))
    {
        return false;
    }
    job = std::stoul(m[1]);
    task = std::stoul(m[2]);
    rest = m[3];
    return true;
}

std::map<size_t, std::string>
NewestPerTask(const std::string& text, bool firstWordOnly)
{
    std::map<size_t, std::pair<size_t, std::string>> newest; // task -> (job, state)
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line))
    {
        size_t job = 0;
        size_t task = 0;
        std::string state;
        if (!SplitTaskLine(line, job, task, state))
        {
            continue;
        }
        if (firstWordOnly)
        {
            state = state.substr(0, state.find(' ')); // "CANCELLED by 0" -> "CANCELLED"
        }
        auto it = newest.find(task);
        if (it == newest.end() || it->second.first <= job)
        {
            newest[task] = { job, state };
        }
    }
    std::map<size_t, std::string> out;
    for (const auto& [task, js] : newest)
    {
        out[task] = js.second;
    }
    return out;
}

} // namespace

std::string
ArraySpec(std::vector<size_t> indices, unsigned throttle)
{
    std::sort(indices.begin(), indices.end());
    std::string spec;
    for (size_t i = 0; i < indices.size();)
    {
        size_t j = i;
        while (j + 1 < indices.size() && indices[j + 1] == indices[j] + 1)
        {
            ++j;
        }
        spec += spec.empty() ? "" : ",";
        spec += j == i ? fmt::format("{}", indices[i])
                       : fmt::format("{}-{}", indices[i], indices[j]);
        i = j + 1;
    }
    if (throttle > 0)
    {
        spec += fmt::format("%{}", throttle);
    }
    return spec;
}

bool
ValidSlurmTime(const std::string& time)
{
    static const std::regex re(R"(^(\d+|\d+:\d{1,2}|\d+:\d{1,2}:\d{1,2}|\d+-\d+|\d+-\d+:\d{1,2}|)"
                               R"(\d+-\d+:\d{1,2}:\d{1,2})$)");
    return std::regex_match(time, re);
}

std::string
ShellQuote(const std::string& word)
{
    static const std::regex safe(R"(^[A-Za-z0-9_./,:=+@%-]+$)");
    if (std::regex_match(word, safe))
    {
        return word;
    }
    std::string q = "'";
    for (char c : word)
    {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

std::string
FormatSlurmScript(const SlurmArrayScript& s)
{
    std::string text = "#!/bin/bash\n";
    text += !s.about.empty()
                ? s.about
                : "# A flumen sweep as a SLURM job array, written by `flumen sweep --backend "
                  "slurm`.\n"
                  "# One task per unfinished point; the task index is the point's index in "
                  "the sweep.\n"
                  "# Edit for your site as needed, but keep the job name: `flumen sweep "
                  "--status` finds\n"
                  "# the tasks by it. A task that is killed leaves no partial point; "
                  "re-running the sweep\n"
                  "# command submits what is unfinished.\n";
    auto line = [&](const std::string& option) { text += "#SBATCH " + option + "\n"; };
    line("--job-name=" + s.jobName);
    line("--array=" + s.arraySpec);
    line("--output=" + s.logDir + "/%A_%a.log");
    line("--open-mode=append"); // a requeued task appends to its log
    line("--requeue");          // preempted tasks run again
    line("--ntasks=1");
    line(fmt::format("--cpus-per-task={}", s.options.cpusPerTask));
    if (!s.options.partition.empty())
    {
        line("--partition=" + s.options.partition);
    }
    if (!s.options.time.empty())
    {
        line("--time=" + s.options.time);
    }
    for (const auto& a : s.options.sbatchArgs)
    {
        line(a);
    }
    text += "set -eu\nexec";
    for (const auto& w : s.taskCommand)
    {
        text += " " + ShellQuote(w);
    }
    text += " \"$SLURM_ARRAY_TASK_ID\"\n";
    return text;
}

std::string
SlurmJobName(const std::string& absoluteOutDir, const std::string& sweepId)
{
    return "flumen-" + StableHash(absoluteOutDir + "\n" + sweepId).substr(0, 8);
}

std::map<size_t, std::string>
ParseQueueLines(const std::string& text)
{
    return NewestPerTask(text, false);
}

SlurmQueue
QuerySlurmQueue(const std::string& jobName)
{
    SlurmQueue q;
    ProgramOutput r
        = RunProgram({ "squeue", "--me", "-h", "-r", "--name=" + jobName, "-o", "%F|%K|%T" });
    if (!r.started || r.exitCode != 0)
    {
        // squeue's last line is its verdict ("fatal: ..."); the lines before are detail.
        std::string err = r.err.substr(0, r.err.find_last_not_of("\n") + 1);
        err = err.substr(err.rfind('\n') == std::string::npos ? 0 : err.rfind('\n') + 1);
        q.why = r.started ? fmt::format("squeue failed (exit {}): {}", r.exitCode, err)
                          : "squeue is not available (" + r.err + ")";
        return q;
    }
    q.available = true;
    q.tasks = ParseQueueLines(r.out);
    return q;
}

std::map<size_t, std::string>
QuerySlurmAccounting(const std::string& jobName)
{
    ProgramOutput r = RunProgram({ "sacct", "-n", "-P", "-X", "-S", "now-30days",
                                   "--name=" + jobName, "-o", "JobID,State" });
    if (!r.started || r.exitCode != 0)
    {
        return {};
    }
    return NewestPerTask(r.out, true);
}

size_t
SlurmMaxArraySize()
{
    ProgramOutput r = RunProgram({ "scontrol", "show", "config" });
    std::smatch m;
    static const std::regex re(R"(MaxArraySize\s*=\s*(\d+))");
    if (r.exitCode == 0 && std::regex_search(r.out, m, re))
    {
        return std::stoul(m[1]);
    }
    return 0;
}

std::string
SubmitSlurmScript(const std::string& scriptPath)
{
    ProgramOutput r = RunProgram({ "sbatch", "--parsable", scriptPath });
    if (!r.started)
    {
        throw std::runtime_error("sbatch is not available (" + r.err
                                 + "): run on a SLURM submit host, or use --dry-run and submit "
                                   "the script yourself");
    }
    std::string id = r.out.substr(0, r.out.find_first_of(";\n")); // "id" or "id;cluster"
    if (r.exitCode != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    {
        throw std::runtime_error(
            fmt::format("sbatch {} failed (exit {}): {}{}", scriptPath, r.exitCode, r.err, r.out));
    }
    return id;
}

} // namespace flumen
