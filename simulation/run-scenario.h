// One scenario simulated: build (network, training job, cross traffic, monitors) -> run ->
// summarise. The network is built behind the Network interface (network.h); the rest is
// shared by every network model.
#ifndef FLUMEN_RUN_SCENARIO_H
#define FLUMEN_RUN_SCENARIO_H

#include "comm-phases.h"
#include "run-outputs.h"
#include "run-summary.h"
#include "scenario.h"

#include "ns3/star-topology-helper.h"
#include "ns3/training-job-helper.h"

#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
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
    const ns3::StarTopology* topology = nullptr; //!< nullptr for a non-packet network
    const ns3::TrainingJob* job = nullptr;       //!< the first job (nullptr: none)
    std::vector<const ns3::TrainingJob*> jobs;   //!< every job, in the scenario's order
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
    /**
     * Above 0: stop once the run has taken this many wall seconds (checked every 100 us of
     * simulated time), as simulation.max_time_s would stop it (benchmarks of runs too slow to
     * finish; with on_max_time report the summary says how far the job got).
     */
    double wallBudgetS = 0;
    /** Where the pcap files of outputs.pcap_hosts go (the caller moves them into place). */
    std::string pcapDir;
    /**
     * A folder where link.csv and flows.csv are written while the run goes, so that memory
     * stays flat however long the run (RunOutput::link and flows stay empty; the caller moves
     * the files into place); empty: they are kept in RunOutput.
     */
    std::string streamDir;
};

struct RunOutput
{
    std::vector<FlowRow> flows;          //!< websearch, burst, replay: every flow started
    std::vector<LinkRow> link;           //!< link.csv's port in bins (empty if disabled)
    std::vector<std::string> streamed;   //!< the files written into RunOptions::streamDir
    std::vector<RingHopSeries> ringHops; //!< each ring hop in bins (empty if not kept)
    std::vector<IterationRow> rows;      //!< sorted by iteration, then worker
    /** outputs.tcp_csv: each cross-traffic flow's socket (empty optional: not traced). */
    std::optional<std::vector<TcpFlowRow>> tcpFlows;
    std::vector<CommPhase> comm; //!< outputs.comm_csv: every job's rank-0 all-reduces
    RunSummary summary;
};

RunOutput RunScenario(const Scenario& scenario, const RunOptions& options = {});

/** The output files of a run besides summary.json and iterations.csv (name, content). */
std::vector<std::pair<std::string, std::string>> ExtraOutputFiles(const RunOutput& out);

} // namespace flumen

#endif
