// Both engines against the testbed, side by side: `validate --engine flow --compare-engines`
// reads the packet level's runs of the same points back into points, as its own validation
// did, and sets each series' errors beside the flow engine's over the points both simulated.
#ifndef FLUMEN_ENGINE_TESTBED_COMPARISON_H
#define FLUMEN_ENGINE_TESTBED_COMPARISON_H

#include "engine-comparison.h"
#include "validation-plan.h"
#include "validation-report.h"

#include <filesystem>
#include <string>
#include <vector>

namespace flumen
{

/**
 * Collates the packet runs of `plan`'s points (each run's packet run in `packetPoints`, found
 * as CompareEngines finds it) and writes DIR/engines-testbed.md (per series and model, the
 * median |error| of each engine against the testbed: the mean iteration time, over the
 * congested points, the p99 and the achieved cross-traffic rate) and DIR/engines-testbed.csv
 * (per point). A point counts where both engines simulated it to the end over the same seeds.
 * Returns the markdown table's lines for the terminal. Throws std::invalid_argument when `flow`
 * are not the plan's points, std::runtime_error when the files cannot be written.
 */
std::vector<std::string> CompareEnginesWithTestbed(const ValidationPlan& plan,
                                                   const std::vector<ValidatedPoint>& flow,
                                                   const std::filesystem::path& packetPoints,
                                                   PacketRunMatch match, const std::string& dir);

} // namespace flumen

#endif
