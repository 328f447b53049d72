// Running a sweep's points: all of them here, N at a time (the local backend), or one as a
// SLURM array task (`--task I`); either way through the point pool, so that each point's
// outputs appear atomically as OUT/points/<id>/ and a failure is recorded, never fatal.
#ifndef FLUMEN_SWEEP_RUN_H
#define FLUMEN_SWEEP_RUN_H

#include "backend-options.h"
#include "point-pool.h"
#include "slurm-backend.h"
#include "sweep.h"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace flumen
{

/** The options of `flumen sweep` (see its usage text). */
struct SweepOptions
{
    std::string file;
    std::string out;
    std::string calibration;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    BackendOptions run; //!< --backend and the SLURM options
    bool dryRun = false;
    bool status = false;
    bool collect = false;
    std::optional<size_t> task; //!< internal: run point I (a SLURM array task)
    std::string sweepId;        //!< internal: the sweep identity the task was submitted for
    std::string poolFile;       //!< internal: with --task, a point of this pool file (slurm-pool.h)
    /** Every point in both engines, engines.md beside results.csv. */
    bool compareEngines = false;
    /** After the local run (or --collect): the finished points into one runs file. */
    bool compact = false;
};

/** The sweep's points as the point pool runs them. */
std::vector<PoolPoint> PoolPoints(const Sweep& sweep);

/** The pool's options for this sweep: `jobs` at a time, --calibration passed on. */
PoolOptions SweepPoolOptions(const SweepOptions& options, const std::string& label, unsigned jobs);

/** Runs every unfinished point, writes results.csv; 0 when all are done, else 1. */
int RunSweepLocally(const SweepOptions& options, const Sweep& sweep);

/**
 * Runs point *options.task as a SLURM array task (refusing a sweep whose points changed since
 * submission: exit 2); the last task to finish writes results.csv. 0 when the point is done.
 */
int RunSweepTask(const SweepOptions& options, const Sweep& sweep);

/**
 * Moves the sweep's finished point folders into DIR/points/<sweep file's stem>.runs.jsonl (their
 * scenario, summary and iterations; the bulky files go), under the folder's lock; how many moved.
 */
size_t CompactSweep(const SweepOptions& options, const Sweep& sweep);

/**
 * What the options ask for: a SLURM array task (--task), the status (--status, --collect), a
 * SLURM submission (--backend slurm) or the local run; its exit code.
 */
int RunSweep(const SweepOptions& options, const Sweep& sweep);

} // namespace flumen

#endif
