// The point pool on SLURM, blocking (`calibrate --fit`, `validate`, each with --backend slurm):
// a fit is a sequence of batches, each depending on the last, so unlike `sweep --backend
// slurm` the call submits the batch and waits for it. The batch's points go into a pool file
// (ids, full scenarios, flumen-run's extra arguments) under DIR/slurm/<job name>/, with one
// job-array task per unfinished point; a task runs `flumen-sweep --pool FILE --task I`, which
// runs point I through the ordinary local pool (one at a time), so that its outputs appear in
// DIR/<id>/ exactly as locally. The call polls squeue until none of the array's tasks is
// queued or running, then reads each point: done, failed (the task's record), or lost (no
// result: cancelled, time limit, node failure; recorded as failed, so the next call retries).
//
// The job name comes from DIR and the whole batch (every point, finished or not, so that a
// task index means the same point in every call): re-running an interrupted command waits for
// the tasks still queued from before instead of submitting them again.
#ifndef FLUMEN_SLURM_POOL_H
#define FLUMEN_SLURM_POOL_H

#include "point-pool.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace flumen
{

/** What a pool file holds: the batch's points, where they go, and flumen-run's extra args. */
struct PoolFile
{
    std::filesystem::path dir;
    std::vector<std::string> extraArgs;
    std::vector<PoolPoint> points; //!< task index = position
};

/** The pool file's text (JSON). */
std::string PoolFileText(const PoolFile& pool);
/** Reads a pool file; throws std::runtime_error naming the file and what is wrong. */
PoolFile ReadPoolFile(const std::filesystem::path& path);
/** The job name of a batch: "flumen-" and 8 hex digits, from DIR and the pool file's text. */
std::string PoolJobName(const std::filesystem::path& dir, const std::string& poolFileText);

/** The unfinished task indices that no task of the array holds (queued or running). */
std::vector<size_t> TasksToSubmit(const std::vector<size_t>& unfinished,
                                  const std::map<size_t, std::string>& queue);

/** The failure message of a point whose task ended without a result; `state` from sacct. */
std::string LostTaskError(size_t task, const std::string& jobName, const std::string& state);

/**
 * A SLURM array task: runs point `index` of the pool file through the local pool. Exit code:
 * 0 the point is done, 1 it failed or SLURM terminated the task (its failure record says so),
 * 2 a bad pool file or index.
 */
int RunPoolTask(const std::filesystem::path& poolFile, size_t index);

/**
 * For an array task: a SIGTERM from SLURM (cancel, time limit, preemption) is passed on to the
 * task's process group once, so that its flumen-run ends and the pool records the failure.
 */
void PassTerminationToTaskGroup();
/** True once the task received SIGTERM. */
bool TaskTerminated();

/** The blocking SLURM mode of RunPointPool (see there). */
PoolResult RunPointPoolOnSlurm(const std::vector<PoolPoint>& points,
                               const std::filesystem::path& dir, const PoolOptions& options);

/**
 * Throws std::runtime_error when SLURM cut runs of the batch short (result.lost), saying that
 * the same command, re-run, retries them: a batch whose results decide what runs next must
 * not go on without them.
 */
void StopIfCutShort(const PoolResult& result, const std::string& label);

/**
 * Why the blocking SLURM mode cannot run here ("" when squeue answers), with what to do: the
 * commands check it before any work.
 */
std::string SlurmUnavailableReason();

/** Throws std::invalid_argument when `dir` (absolute) cannot go into #SBATCH lines. */
void CheckSlurmFolder(const std::string& option, const std::filesystem::path& dir);

} // namespace flumen

#endif
