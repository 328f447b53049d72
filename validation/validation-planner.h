// Planning a validation's runs, series by series: every testbed point of a series (and an idle
// reference where it has none) as one run, its per-iteration CDFs and its published ring
// bandwidths, each run's scenario resolved and named by a hash of it (RunId). Part of
// PlanValidation (validation-plan.cc); not a public API.
#ifndef FLUMEN_VALIDATION_PLANNER_H
#define FLUMEN_VALIDATION_PLANNER_H

#include "series-manifest.h"
#include "validation-plan.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace flumen::detail
{

// A run's folder name: readable, and a hash of the whole scenario and the simulation model's
// version, so that a changed calibration, setting or model runs again instead of reusing a
// stale result. `version`: ModelVersion of the resolved scenario.
std::string RunId(const std::string& label, uint64_t seed, const nlohmann::json& scenario,
                  const std::string& version);

// The id the packet level's run of the same scenario has (what --compare-engines looks for).
std::string PacketRunId(const std::string& label, uint64_t seed, nlohmann::json scenario,
                        const std::string& version);

class ValidationPlanner
{
  public:
    ValidationPlanner(const ValidationOptions& o, const nlohmann::json* calibration);

    int Iterations() const { return m_iterations; }
    int Warmup() const { return m_warmup; }

    // The scenario of one run of series `s` (its configuration, cross traffic and testbed
    // settings, a CDF's own where `cdf` is one); resolved here so that a bad setting fails
    // before anything runs.
    std::string AddRun(const Series& s, const std::string& label, const std::string& model,
                       const std::string& transport, double loadGbps, uint64_t seed, int iterations,
                       int warmup, double maxSimS, const std::string& where, int linkBinUs = 0,
                       const SeriesCdf* cdf = nullptr);

    void AddSeries(const Series& s);

    ValidationPlan Take() { return std::move(m_plan); }

    // The fitted testbed values every run gets: the options', else the calibration file's.
    const nlohmann::json& TestbedValues() const;

  private:
    static constexpr double kNoIndex = -1;

    // A run's simulated-time budget: --max-sim-s, or --budget-iterations and a half (for the
    // start-up) at `paceS`, a testbed pace, where that is longer. With the model's fastest
    // pace, a point the simulation does not slow always finishes its 3 iterations (the fewest
    // a point gets): BERT-large over TCP idles at 1.44 s, beyond a 4 s budget's 3 iterations.
    double BudgetS(double paceS) const;

    // As many iterations as fit the budget at the testbed's pace (NaN: unknown), at least 3 and
    // at most --iterations.
    int IterationsWithin(double budgetS, double paceS) const;

    bool Wanted(const std::string& model, const std::string& manifest);

    // Quick: the idle run and the points nearest 8 and 18 Gbps measured.
    static std::vector<const SeriesPoint*> QuickSubset(const std::vector<const SeriesPoint*>& ps);

    // `paceS`: the testbed's mean iteration time at this point (or the nearest idle pace),
    // NaN if unknown. A run gets as many iterations as fit in its budget at that pace, at
    // least 3 and at most --iterations, so that slow points still finish (or are censored
    // with a useful bound) instead of running out of budget in their warm-up.
    void AddPoint(const Series& s, const SeriesPoint& sp, bool testbed, bool calibration,
                  double paceS, double budgetS);

    const ValidationOptions& m_options;
    const nlohmann::json* m_calibration;
    std::map<std::string, nlohmann::json> m_configurationCalibration; //!< --calibration-for
    int m_iterations = 8;
    int m_warmup = 2;
    ValidationPlan m_plan;
    std::set<std::string> m_ids;
};

} // namespace flumen::detail

#endif
