// Fitting testbed parameters to loaded testbed points (`flumen calibrate --fit`, and each fold
// of `flumen validate --cross-validate`): named scenario keys (the switch's buffer, a
// retransmission timeout, the hosts' TCP ceiling, ...) that the runs without cross traffic
// cannot identify, searched over declared ranges (fit-search.h) so that the simulated points
// of the chosen series match the testbed's. Every candidate is a validation plan of those
// series with the candidate's values over the manifests' declared settings; its runs go
// through the point pool (parallel, resumable: a run is named by a hash of its scenario, so a
// repeated candidate or an interrupted fit re-runs nothing). Compute profiles are not fitted
// here: they keep coming from the idle runs.
#ifndef FLUMEN_TESTBED_FIT_H
#define FLUMEN_TESTBED_FIT_H

#include "fit-search.h"
#include "validation-plan.h"
#include "validation-report.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace flumen
{

/** A scenario key to fit, over a closed range. */
struct FitParameter
{
    std::string key;
    SearchDimension range;
};

/**
 * Parses `--fit key=lo:hi`: a numeric scenario key that the validation does not set per point,
 * that is not a compute-profile key (those come from idle runs), that the engine models, with
 * lo < hi inside the key's declared range. Integer keys are searched on integers; a range
 * spanning a factor of 10 or more, in log scale. Throws std::invalid_argument naming the
 * option and what was expected.
 */
FitParameter ParseFitParameter(const std::string& text, const std::string& engine);

/** The objective's declared terms: weights of each squared-error term. */
struct FitWeights
{
    double mean = 1;  //!< mean iteration time
    double cross = 1; //!< achieved cross-traffic rate beside the job
    double p99 = 0;   //!< 99th percentile of the iteration time (noisy over few iterations)
};

/** A command-line number: finite, the whole text; throws std::invalid_argument naming `what`. */
double ParseNumber(const std::string& text, const std::string& what);

/** Parses `--objective mean=1,cross=1,p99=0.25` (terms not named keep their defaults). */
FitWeights ParseObjective(const std::string& text);

/**
 * The objective over the validation points (testbed points under load, calibration points
 * excluded): per term, the mean square of log(simulated / measured), so that 10 % too slow and
 * 10 % too fast weigh alike; the loss is their weighted sum. A censored point's mean counts as
 * its lower bound where that exceeds the testbed (the error is at least that) and is left out
 * otherwise. A counted point that did not run makes the loss infinite.
 */
struct FitTerms
{
    double meanRms = 0; //!< sqrt of each term: a typical relative error
    double crossRms = 0;
    double p99Rms = 0;
    int meanPoints = 0;
    int crossPoints = 0;
    int p99Points = 0;
    int missing = 0; //!< counted points without a simulated result
    double loss = 0;
};
FitTerms ObjectiveTerms(const std::vector<ValidatedPoint>& points, const FitWeights& weights);

/**
 * Values a candidate also sets that follow from its fitted ones (the compute time that keeps a
 * model's idle runs matched, for a backward share): one object of scenario key -> value per
 * candidate, a batch at a time so that their simulations can run together.
 */
using DerivedValues
    = std::function<std::vector<nlohmann::json>(const std::vector<nlohmann::json>&)>;

struct TestbedFitRequest
{
    /** The plan's options: manifests, series (those fitted on), engine, calibration, budgets. */
    ValidationOptions base;
    std::vector<FitParameter> parameters;
    DerivedValues derive; //!< empty: none
    /** A term a candidate (its fitted values) adds to its loss beyond the loaded points, e.g.
     * the idle runs its derived values could not hold (empty: none). */
    std::function<double(const nlohmann::json&)> extraLoss;
    FitWeights weights;
    SearchOptions search;
    std::filesystem::path pointsDir; //!< the point pool's folder
    std::string label = "fit";       //!< prefix of the progress lines
};

struct TestbedFit
{
    nlohmann::json values = nlohmann::json::object();  //!< key -> fitted value
    nlohmann::json derived = nlohmann::json::object(); //!< what the fitted values derive
    nlohmann::json start = nlohmann::json::object();   //!< key -> the value the search began at
    FitTerms startTerms;
    FitTerms bestTerms;
    SearchResult search;
    std::vector<std::string> series; //!< fitted on
    double coreSeconds = 0;          //!< the runs' own wall times, this invocation
};

/** Runs the search; progress on stderr. Throws on bad input (before any run). */
TestbedFit FitTestbed(const TestbedFitRequest& request);

/** The fit as recorded in a calibration file's "testbed" object. */
nlohmann::json TestbedFitJson(const TestbedFit& fit, const TestbedFitRequest& request);

/** "key=value, key=value" for messages and reports. */
std::string DescribeValues(const nlohmann::json& values);

} // namespace flumen

#endif
