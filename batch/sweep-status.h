// Where a sweep stands, from its output folder and (where it was submitted to SLURM) the queue:
// each point done, running, queued, failed or pending; results.csv from what finished; the
// `flumen sweep --status | --collect` report.
#ifndef FLUMEN_SWEEP_STATUS_H
#define FLUMEN_SWEEP_STATUS_H

#include "slurm-backend.h"
#include "sweep.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace flumen
{

/** What a point is now. */
struct PointState
{
    std::string status; //!< done, running, queued, failed, pending
    std::string error;
};

/** Every point's state; `accounting`: sacct's final states of tasks (may be empty). */
std::vector<PointState> ClassifySweepPoints(const Sweep& sweep, const std::filesystem::path& points,
                                            const SlurmQueue& queue,
                                            const std::map<size_t, std::string>& accounting);

size_t CountStatus(const std::vector<PointState>& states, const std::string& status);
/** "N points: a done, b running, c queued, d failed, e pending". */
std::string StatusLine(const std::vector<PointState>& states);
bool AllDone(const std::vector<PointState>& states);

/** Writes OUT/results.csv, one row per point (a finished point's figures, or its state). */
void WriteSweepResults(const Sweep& sweep, const std::filesystem::path& out,
                       const std::vector<PointState>& states);
/** The same, and a line on stdout saying so. */
void WriteSweepResultsAndSay(const Sweep& sweep, const std::filesystem::path& out,
                             const std::vector<PointState>& states);

/** The output folder as the SLURM backend names it (absolute, normal). */
std::filesystem::path AbsoluteOut(const std::string& out);

/** The queue's answer, asked only about a sweep submitted to SLURM before (OUT/slurm). */
SlurmQueue QueueIfSubmitted(const std::filesystem::path& out, const std::string& jobName);

/**
 * `--status` (and `--collect`: results.csv from what finished, also written once all is
 * done): a status line, the running and failed tasks; exit code 0 when all is done, else 1.
 */
int ReportSweepStatus(const Sweep& sweep, const std::string& out, bool collect);

} // namespace flumen

#endif
