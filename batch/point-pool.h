// The point pool behind `flumen sweep` and `flumen validate`: runs scenarios as flumen-run
// processes, N at a time. A point's outputs appear atomically as DIR/<id>/ (run in a temporary
// folder, then renamed), so re-running skips what is finished and cleans what a crash or
// kill -9 left half done. A failed point is recorded in DIR/<id>.failed.json and retried by
// the next run; it never stops the others. With the SLURM backend the same points run as one
// job array per batch, and the call blocks until the array is through (slurm-pool.h).
#ifndef FLUMEN_POINT_POOL_H
#define FLUMEN_POINT_POOL_H

#include "slurm-backend.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace flumen
{

struct PoolPoint
{
    std::string id;          //!< folder name, stable across runs
    nlohmann::json scenario; //!< the full scenario to run
    nlohmann::json about;    //!< copied into the failure record (what the point is)
};

struct PoolResult
{
    size_t total = 0;
    size_t skipped = 0; //!< finished by an earlier run
    size_t done = 0;    //!< finished by this run
    size_t failed = 0;
    /** Of the failed: SLURM tasks that ended without running their point to its end (cancelled,
     * time limit, preemption, node failure): a fault of the run, not of the point. */
    size_t lost = 0;
    double wallSeconds = 0; //!< wall times of the points run now, added up (one core each)
};

enum class PoolBackend
{
    Local, //!< child processes here, `jobs` at a time
    Slurm, //!< one SLURM array task per unfinished point; the call waits for the array
};

struct PoolOptions
{
    unsigned jobs = 1;
    std::string label = "sweep";        //!< prefix of the progress lines
    std::vector<std::string> extraArgs; //!< passed to every flumen-run (e.g. --calibration F)
    double progressIntervalS = 0;       //!< wall seconds between progress lines (0: each point)
    PoolBackend backend = PoolBackend::Local;
    SlurmOptions slurm; //!< with PoolBackend::Slurm
};

/** A wall time for progress lines: "42s", "12m05s", "3h07m". */
std::string FormatDuration(double seconds);
/** True when the point's folder holds a finished run, or DIR's runs files do (run-store.h). */
bool PointFinished(const std::filesystem::path& dir, const std::string& id);
/** The failure record of a point ("" when none): its error and the tail of its log. */
std::string PointFailure(const std::filesystem::path& dir, const std::string& id);
/** Records a point's failure in DIR/<id>.failed.json: its error and the end of its log. */
void WritePointFailure(const std::filesystem::path& dir, const PoolPoint& point,
                       const std::string& error, const std::string& log);
/** The last `lines` lines of a text. */
std::string LastLines(const std::string& text, size_t lines);
/** The path of flumen-run beside the running program. */
std::filesystem::path RunBinaryBesideSelf();

/**
 * Runs every unfinished point, here or (PoolBackend::Slurm) as a SLURM job array whose end it
 * waits for; progress lines on stderr. Throws std::runtime_error when DIR cannot be created,
 * flumen-run cannot be started, or SLURM does not answer.
 */
PoolResult RunPointPool(const std::vector<PoolPoint>& points, const std::filesystem::path& dir,
                        const PoolOptions& options);

} // namespace flumen

#endif
