#include "slurm-submit.h"

#include "atomic-file.h"
#include "slurm-backend.h"
#include "sweep-status.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

namespace flumen
{

namespace fs = std::filesystem;

int
SubmitSweepToSlurm(const SweepOptions& o, const Sweep& sweep)
{
    const fs::path out = AbsoluteOut(o.out);
    if (out.string().find_first_of(" \t\n'\"") != std::string::npos)
    {
        std::cerr << "flumen sweep: --out " << out
                  << ": the SLURM backend needs a folder path without spaces or quotes "
                     "(it goes into #SBATCH lines)\n";
        return 2;
    }
    const std::string id = SweepId(sweep);
    const std::string jobName = SlurmJobName(out.string(), id);
    // A submission needs a queue that answers; a dry run asks only about a sweep submitted
    // before (what is queued is not submitted again).
    SlurmQueue queue = o.dryRun ? QueueIfSubmitted(out, jobName) : QuerySlurmQueue(jobName);
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
    auto states = ClassifySweepPoints(sweep, points, queue, {});
    std::vector<size_t> todo;
    for (size_t i = 0; i < states.size(); ++i)
        if (states[i].status == "pending" || states[i].status == "failed")
            todo.push_back(i);
    if (todo.empty())
    {
        std::cout << "sweep: nothing to submit; " << StatusLine(states) << "\n";
        if (AllDone(states))
            WriteSweepResultsAndSay(sweep, out, states);
        return 0;
    }
    size_t maxArray = o.dryRun ? 0 : SlurmMaxArraySize();
    if (maxArray > 0 && todo.back() >= maxArray)
    {
        std::cerr << fmt::format("flumen sweep: the sweep has {} points but this cluster's "
                                 "MaxArraySize is {} (task indices 0..{}): ask for a larger "
                                 "MaxArraySize in slurm.conf, or split the grid into sweeps of "
                                 "at most {} points\n",
                                 sweep.points.size(), maxArray, maxArray - 1, maxArray);
        return 2;
    }

    SlurmArrayScript script;
    script.jobName = jobName;
    script.arraySpec = ArraySpec(todo, o.run.slurm.throttle);
    script.logDir = (slurmDir / "logs").string();
    script.options = o.run.slurm;
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
    if (o.compareEngines)
    {
        script.taskCommand.push_back("--compare-engines"); // the same points as submitted
    }
    script.taskCommand.push_back("--task");
    size_t n = 1;
    while (fs::exists(slurmDir / fmt::format("array-{}.sbatch", n)))
        ++n;
    const fs::path scriptPath = slurmDir / fmt::format("array-{}.sbatch", n);
    WriteFileAtomically(scriptPath.string(), FormatSlurmScript(script));
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
        job = SubmitSlurmScript(scriptPath.string());
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

} // namespace flumen
