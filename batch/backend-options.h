// Where the point pool runs: the command-line options that choose it, shared by `flumen
// sweep`, `flumen calibrate` and `flumen validate` (--backend local|slurm, --partition,
// --time, --cpus-per-task, --throttle, --sbatch-arg), so that each option means and checks
// the same in all three.
#ifndef FLUMEN_BACKEND_OPTIONS_H
#define FLUMEN_BACKEND_OPTIONS_H

#include "point-pool.h"
#include "slurm-backend.h"

#include <string>

namespace flumen
{

struct BackendOptions
{
    PoolBackend backend = PoolBackend::Local;
    SlurmOptions slurm;
    bool slurmOptionGiven = false; //!< any SLURM option: refused without --backend slurm
};

/**
 * "N" as a whole number in lo..hi; throws std::invalid_argument naming the option ("--jobs:
 * expected a whole number, got 'x'", "--jobs: expected 1..1024, got 0").
 */
unsigned long ParseWholeNumber(const std::string& option, const std::string& value,
                               unsigned long lo, unsigned long hi);

/**
 * Parses the backend option at argv[i] ("--time T" or "--time=T"), moving i past its value.
 * False (nothing consumed) when argv[i] is no backend option. Throws std::invalid_argument
 * naming the option and what was expected.
 */
bool ParseBackendOption(int argc, char** argv, int& i, BackendOptions& options);

/**
 * Refuses SLURM options without --backend slurm (std::invalid_argument); `others` names the
 * command's own SLURM-only options for the message (sweep: "--dry-run").
 */
void CheckBackendOptions(const BackendOptions& options, const std::string& others = "");

/** The usage lines of the backend options, indented as the commands' usage texts are. */
extern const char* kBackendUsage;

} // namespace flumen

#endif
