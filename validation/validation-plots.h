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
 * Writes the plots into dir/plots (replacing what was there); returns the PNG names, or none
 * and why in `problem` (e.g. no gnuplot: the data and script are still there).
 */
std::vector<std::string> WriteValidationPlots(const std::filesystem::path& dir,
                                              const std::vector<ValidatedPoint>& points,
                                              const std::vector<ValidatedCdf>& cdfs,
                                              std::string& problem);

} // namespace flumen

#endif
