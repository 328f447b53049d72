// The validation report's plots: per series, testbed and simulated iteration times against
// the cross traffic (censored points as lower bounds), and per CDF the testbed's and the
// simulated distributions; drawn by gnuplot from data files and a script kept beside them.
#ifndef FLUMEN_VALIDATION_PLOTS_H
#define FLUMEN_VALIDATION_PLOTS_H

#include "validation-report.h"

#include <filesystem>
#include <string>
#include <vector>

namespace flumen
{

/**
 * Draws the plots into `staging` (a new folder, later moved to dir/plots by the caller);
 * returns the PNG names, or none and why in `problem` (e.g. no gnuplot: the data and script
 * are still there). Throws when the files cannot be written; `staging` is then removed.
 */
std::vector<std::string> DrawValidationPlots(const std::filesystem::path& staging,
                                             const std::vector<ValidatedPoint>& points,
                                             const std::vector<ValidatedCdf>& cdfs,
                                             std::string& problem);

} // namespace flumen

#endif
