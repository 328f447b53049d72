// A run's own pictures (`flumen plot RUN_DIR`, `flumen run --plot`), drawn by gnuplot from the
// files the run wrote: the bottleneck port over time with the iteration boundaries (link.csv),
// each ring hop's rate over one iteration, the thesis's Figures 3-10 and 3-11 on simulated
// traffic (ring.csv), the iteration-time CDF per job and, with several jobs, one band per job
// of its compute and its wait for communication (iterations.csv). For a sweep folder
// (results.csv): the swept key against the mean and p99 iteration time. Each picture's data
// (.dat) and the script that drew them (plots.gp: `gnuplot plots.gp` in the folder redraws)
// are written beside the PNGs, into DIR/plots, replaced as a whole.
#ifndef FLUMEN_RUN_PLOTS_H
#define FLUMEN_RUN_PLOTS_H

#include <string>
#include <vector>

namespace flumen
{

struct PlotResult
{
    std::string folder;             //!< where they went
    std::vector<std::string> drawn; //!< PNG file names
    /** Pictures left out, each with why (no ring.csv, one job only, ...). */
    std::vector<std::string> skipped;
    /** Why no PNG was drawn ("" when gnuplot drew them): the data and script are there. */
    std::string problem;
};

/**
 * Draws the pictures of a run folder (summary.json, iterations.csv, and link.csv or ring.csv
 * where the run wrote them) or of a sweep folder (results.csv) into `out` (default:
 * DIR/plots). Throws std::invalid_argument naming the file and what was expected when the
 * folder holds neither, or a file cannot be read; std::runtime_error when it cannot write.
 */
PlotResult PlotRunFolder(const std::string& dir, const std::string& out = "");

} // namespace flumen

#endif
