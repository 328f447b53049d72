// Builds a simulation from a resolved Scenario (topology, job, cross traffic, monitors),
// runs it, and returns the per-iteration rows and the summary.
#ifndef FLUMEN_SCENARIO_RUNNER_H
#define FLUMEN_SCENARIO_RUNNER_H

#include "run-outputs.h"
#include "scenario.h"

#include "ns3/star-topology-helper.h"
#include "ns3/training-job-helper.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <ostream>
#include <stdexcept>
#include <vector>

namespace flumen
{

/** The simulation ran but could not produce a result (e.g. the time limit was hit). */
class RunError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/** What a run built, handed to RunOptions::beforeRun so callers can attach their traces. */
struct SimulationHandles
{
    const ns3::StarTopology* topology = nullptr;
    const ns3::TrainingJob* job = nullptr; //!< nullptr when job.enabled is false
};

struct RunOptions
{
    std::ostream* progress = nullptr; //!< progress lines go here (nullptr: none)
    /** Called once everything is installed, just before the simulation starts. */
    std::function<void(const SimulationHandles&)> beforeRun;
    /**
     * Above 0: run exactly this much simulated time and report what finished, even if the job
     * did not (benchmarks); 0: run until the job finishes (an error past max_time_s).
     */
    double fixedDurationS = 0;
};

struct RunOutput
{
    std::vector<FlowRow> flows;     //!< websearch, burst, replay: every flow started
    std::vector<LinkRow> link;      //!< the bottleneck's time series (empty if disabled)
    std::vector<IterationRow> rows; //!< sorted by iteration, then worker
    nlohmann::json summary;
};

/**
 * The flows a websearch, burst or replay scenario offers in its first `durationS` seconds
 * (start times from the start of the cross traffic), drawn exactly as RunScenario draws
 * them for the same scenario and seed.
 */
std::vector<LoadFileFlow> DrawCrossTrafficFlows(const Scenario& scenario, double durationS);

/** The output files of a run besides summary.json and iterations.csv (name, content). */
std::vector<std::pair<std::string, std::string>> ExtraOutputFiles(const RunOutput& out);

RunOutput RunScenario(const Scenario& scenario, const RunOptions& options = {});

/** A few lines for people: iteration times, cross traffic, bottleneck, speed. */
std::string FormatHumanSummary(const nlohmann::json& summary);

} // namespace flumen

#endif
