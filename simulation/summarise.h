// A finished run turned into its outputs: the iteration rows, the flows, the bottleneck's
// time series and the typed summary.
#ifndef FLUMEN_SUMMARISE_H
#define FLUMEN_SUMMARISE_H

#include "flow-tally.h"
#include "measurement.h"
#include "run-scenario.h"

#include <optional>

namespace flumen
{

/** What RunScenario hands over once the simulator stopped. */
struct FinishedRun
{
    const Scenario& scenario;
    Network& network; //!< non-const: its time series is handed over (TakeLinkSeries)
    const Measurement& measurement;
    const std::optional<CrossTraffic>& cross;
    bool fixedDuration = false; //!< RunOptions::fixedDurationS was set
    double simulatedS = 0;
    /** The flows handed over while the run went (StreamedOutputs); nullptr: none were. */
    const FlowTally* streamedFlows = nullptr;
};

RunOutput Summarise(const FinishedRun& run);

} // namespace flumen

#endif
