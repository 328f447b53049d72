// `flumen sweep --compare-engines`: every point of a sweep run in both engines (the command
// line adds simulation.engine to the grid), each flow-level point set beside the packet-level
// point of the same assignments and seed, and the differences reported as for the validation
// (engine-comparison.h).
#ifndef FLUMEN_SWEEP_ENGINE_COMPARISON_H
#define FLUMEN_SWEEP_ENGINE_COMPARISON_H

#include "engine-comparison.h"
#include "sweep.h"

#include <nlohmann/json.hpp>

#include <string>

namespace flumen
{

/** The grid key --compare-engines adds: the packet level (the reference) and the flow level. */
nlohmann::json BothEnginesGrid();

/** The file that marks a sweep folder as swept in both engines. */
inline const char* const kBothEnginesMarker = ".compare-engines";

/**
 * With --compare-engines, marks OUT (creating it); without, refuses a marked folder
 * (std::invalid_argument): its points are those of both engines, and a command without the
 * option would see none of them finished and start over or report them pending.
 */
void MarkOrCheckBothEngines(const std::string& out, bool compareEngines);

/**
 * Pairs the sweep's flow-level points with its packet-level ones (those of a sweep loaded with
 * BothEnginesGrid()) and writes OUT/engines.csv and OUT/engines.md; the series column holds the
 * sweep file's name. Points not finished in either engine are listed, not compared.
 */
EngineComparison CompareSweepEngines(const Sweep& sweep, const std::string& out);

} // namespace flumen

#endif
