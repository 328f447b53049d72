// The SLURM backend of `flumen sweep`: one job-array task per unfinished point. The array task
// index is the point's index in the sweep (stable across re-submissions of the same sweep
// file); each task runs `flumen-sweep SWEEP --out DIR --task I`, which runs that one point
// through the same point pool as the local backend. The output folder is the only state; the
// queue (squeue, sacct where accounting is on) is asked for what is running or queued, by the
// array's job name, which is derived from the output folder and the sweep's points.
#ifndef FLUMEN_SLURM_BACKEND_H
#define FLUMEN_SLURM_BACKEND_H

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace flumen
{

struct SlurmOptions
{
    std::string partition;               //!< --partition (site default when empty)
    std::string time;                    //!< --time limit per task (site default when empty)
    unsigned cpusPerTask = 1;            //!< a point is one single-threaded flumen-run
    unsigned throttle = 0;               //!< at most this many tasks at once (0: no limit)
    std::vector<std::string> sbatchArgs; //!< further #SBATCH lines, as given
};

/** "0-2,5,7-9%2": the indices (any order, no duplicates) as an --array value. */
std::string ArraySpec(std::vector<size_t> indices, unsigned throttle);

/** True for the time formats sbatch accepts: M, M:S, H:M:S, D-H, D-H:M, D-H:M:S. */
bool ValidSlurmTime(const std::string& time);

/** A word for a POSIX shell: single-quoted when it holds anything but safe characters. */
std::string ShellQuote(const std::string& word);

struct SlurmArrayScript
{
    std::string jobName;
    std::string arraySpec;
    std::string logDir;                   //!< absolute; one log per task: %A_%a.log
    std::vector<std::string> taskCommand; //!< argv; "$SLURM_ARRAY_TASK_ID" is appended
    SlurmOptions options;
    std::string about; //!< the comment lines at the top ("": a sweep's)
};

/** The job-array script's text. */
std::string FormatSlurmScript(const SlurmArrayScript& script);

/** The array's job name for this output folder and sweep identity ("flumen-" + 8 hex). */
std::string SlurmJobName(const std::string& absoluteOutDir, const std::string& sweepId);

struct SlurmQueue
{
    bool available = false;              //!< squeue answered
    std::string why;                     //!< when not: what went wrong
    std::map<size_t, std::string> tasks; //!< array task index -> state (PENDING, RUNNING, ...)
};

/** Parses `squeue -h -r -o "%F|%K|%T"` lines (array job id, task index, state); for a task listed
 * twice the newer job wins. */
std::map<size_t, std::string> ParseQueueLines(const std::string& text);

/** This user's queued and running tasks of the array job(s) with this name. */
SlurmQueue QuerySlurmQueue(const std::string& jobName);

/**
 * Final states of finished tasks from accounting (sacct), for tasks that left no result and no
 * failure record (killed by a time limit, cancelled, node failure). Empty when accounting is
 * off or sacct is missing: that is "where available".
 */
std::map<size_t, std::string> QuerySlurmAccounting(const std::string& jobName);

/** The cluster's MaxArraySize (task indices must be below it); 0 when it cannot be read. */
size_t SlurmMaxArraySize();

/** Submits the script with sbatch; returns the job id. Throws std::runtime_error with sbatch's
 * message when the submission fails. */
std::string SubmitSlurmScript(const std::string& scriptPath);

} // namespace flumen

#endif
