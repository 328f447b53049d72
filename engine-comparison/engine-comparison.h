// The flow-level engine set beside the packet level, run by run: the same planned points (the
// same scenario and seed), the flow engine's runs in one points folder and the packet level's
// in another. Per run and in aggregate: the difference in mean and p99 iteration time, in the
// achieved cross-traffic rate and in the median flow completion time, and the speed-up.
#ifndef FLUMEN_ENGINE_COMPARISON_H
#define FLUMEN_ENGINE_COMPARISON_H

#include "point-pool.h"

#include <filesystem>
#include <string>
#include <vector>

namespace flumen
{

struct EngineComparison
{
    size_t runs = 0;     //!< flow runs planned
    size_t compared = 0; //!< with a finished, uncensored run in both engines
    double medianAbsMeanDiffPct = 0;
    double p95AbsMeanDiffPct = 0;
    size_t runsMeanBeyondTenPct = 0; //!< compared runs whose mean is more than 10 % apart
    double medianAbsP99DiffPct = 0;
    size_t crossCompared = 0;         //!< compared runs with cross traffic
    double medianAbsCrossDiffPct = 0; //!< over runs with cross traffic
    double p95AbsCrossDiffPct = 0;
    size_t runsCrossBeyondThreePct = 0; //!< runs whose cross traffic's rate is more than 3 % apart
    double medianAbsFctDiffPct = 0;     //!< cross traffic's median FCT, runs with flows in both
    /** Compared runs that the flow engine keeps in its domain (no `engine_domain`: what engine
     * auto keeps at flow level), and their mean iteration time's 95th percentile |diff| (NaN
     * when there are none). */
    size_t inDomain = 0;
    double inDomainP95AbsMeanDiffPct = 0;
    /** Points compared at two or more seeds; over them, the 95th percentile of the packet
     * level's own spread between a point's seeds (largest mean over smallest - 1, %) and of the
     * flow engine's |difference| on the mean over a point's seeds (%). */
    size_t pointsOverSeeds = 0;
    double packetSeedSpreadP95Pct = 0;
    double overSeedsP95AbsMeanDiffPct = 0;
    double medianSpeedup = 0;             //!< packet wall time over flow wall time
    double slowestFlowRealTimeFactor = 0; //!< simulated over wall seconds, the slowest flow run
    std::vector<std::string> lines;       //!< the headline, for the terminal
};

/** How a flow run finds its packet run. */
enum class PacketRunMatch
{
    ExactId, //!< the run its `about.packet_run` names, or none
    /** Or else the one run of the same point and seed: a validation run's id is
     * "<point>-s<seed>-<hash>", and a packet validation with another time budget or iteration
     * count has another hash. */
    SamePointAndSeed,
};

/** What the caller's runs are, for the comparison. */
struct ComparedRuns
{
    PacketRunMatch match = PacketRunMatch::ExactId;
    std::string note; //!< a sentence on them for engines.md's preamble (empty: none)
};

/** The packet level's run of a flow run in `packetPoints` (its id; the named one when none is
 * found). */
std::string PacketRunOf(const PoolPoint& flowRun, const std::filesystem::path& packetPoints,
                        PacketRunMatch match);

/**
 * Pairs each flow run of `runs` (its `about.packet_run` names the packet run; `about.point`
 * says what it is, `about.point_at_any_seed` the same without its seed where the label holds
 * one: a point's runs at other seeds are set side by side too) found finished in
 * `flowPoints` with the packet run in `packetPoints`; writes DIR/engines.csv and
 * DIR/engines.md (as one set). Throws std::runtime_error when the files cannot be written.
 */
EngineComparison CompareEngines(const std::vector<PoolPoint>& runs,
                                const std::filesystem::path& flowPoints,
                                const std::filesystem::path& packetPoints, const std::string& dir,
                                const ComparedRuns& what = {});

} // namespace flumen

#endif
