// The pictures of a run or a sweep folder, each drawn onto a Canvas as its data (.dat files)
// and its part of the gnuplot script, or left out with why: the bottleneck port over time,
// each ring hop over one iteration, the iteration-time CDF per job, one band per job, and a
// sweep's swept key against the iteration time. Part of `flumen plot` (run-plots.cc); not a
// public API.
#ifndef FLUMEN_RUN_DRAWINGS_H
#define FLUMEN_RUN_DRAWINGS_H

#include "atomic-file.h"
#include "run-tables.h"

#include <filesystem>
#include <string>
#include <vector>

namespace flumen::detail
{

// What the pictures of one folder are made of, as they are made.
struct Canvas
{
    std::filesystem::path dir; //!< the staging folder
    std::string script;        //!< plots.gp
    std::vector<std::string> drawn;
    std::vector<std::string> skipped;

    void Data(const std::string& name, const std::string& text)
    {
        WriteFileAtomically((dir / name).string(), text);
    }
};

/** The bottleneck port over time (link.csv), with the first job's iteration boundaries. */
void DrawBottleneck(Canvas& c, const Table& link, const std::vector<Iteration>& iterations,
                    const std::string& port);
/** Each ring hop's injection rate over the median measured iteration (ring.csv). */
void DrawRingHops(Canvas& c, const Table& ring, const std::vector<Iteration>& iterations);
/** The iteration-time CDF of each job. */
void DrawIterationCdf(Canvas& c, const std::vector<Iteration>& iterations);
/** Several jobs: one band per job over time, its compute and its wait for communication. */
void DrawJobBands(Canvas& c, const std::vector<Iteration>& iterations, const Table* comm);
/** A sweep (results.csv): its first swept key against the mean and p99 iteration time. */
void DrawSweep(Canvas& c, const Table& results);

} // namespace flumen::detail

#endif
