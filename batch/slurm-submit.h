// Submitting a sweep to SLURM (`flumen sweep ... --backend slurm`): one job-array task per
// unfinished point (slurm-backend.h), each running that point through the point pool
// (`--task I`, sweep-run.h); or, with --dry-run, only the script.
#ifndef FLUMEN_SLURM_SUBMIT_H
#define FLUMEN_SLURM_SUBMIT_H

#include "sweep-run.h"
#include "sweep.h"

namespace flumen
{

/**
 * Writes OUT/slurm/array-N.sbatch for the points neither done nor queued, and submits it
 * (not with --dry-run). Exit code: 0 submitted (or nothing to submit), 2 when it cannot be
 * (no queue answers, a path sbatch cannot take, more points than MaxArraySize). Throws
 * std::runtime_error when sbatch refuses the script (which is then removed).
 */
int SubmitSweepToSlurm(const SweepOptions& options, const Sweep& sweep);

} // namespace flumen

#endif
