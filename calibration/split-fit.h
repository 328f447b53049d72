// Each model's compute/communication split, fitted to loaded testbed points (`flumen validate
// --cross-validate --fit-split`). The runs without cross traffic fix only the sum of compute and
// exposed communication; how it splits (job.backward_share: how much of the compute the ring
// can hide behind) shows only where the network slows the ring. So the share is searched per
// model on the loaded points of the series fitted on, and for every candidate share the
// compute time (and its jitter) is solved on the model's idle runs, so that the idle total
// stays the testbed's by construction. The split is a property of the model and its GPUs, the
// same in configurations A and B: fitted on one, it is judged on the other.
#ifndef FLUMEN_SPLIT_FIT_H
#define FLUMEN_SPLIT_FIT_H

#include "testbed-fit.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace flumen
{

struct SplitFitRequest
{
    /** Manifests, the series fitted on, the fit's engine, budgets; calibrationFile: the profiles
     * the search starts from, and every model it does not fit. */
    ValidationOptions base;
    SearchDimension share{ 0.05, 0.95 };
    FitWeights weights;
    SearchOptions search;
    std::filesystem::path pointsDir;
    std::string label = "split";
    uint32_t idleIterations = 8; //!< per idle run (one warm-up)
};

/** One model's fitted split, and its idle runs at it. */
struct ModelSplit
{
    std::string model;
    TestbedFit fit;
    double backwardShare = 0;
    double computeS = 0;
    double jitterCv = 0;
    std::vector<std::pair<std::string, double>> idleErrors; //!< series, error % at the fit
};

struct SplitFit
{
    std::vector<ModelSplit> models;
    std::vector<std::string> series; //!< fitted on
    double coreSeconds = 0;
};

/** Parses `--fit-split lo:hi`: the range of backward shares searched, within (0, 0.98]. */
SearchDimension ParseSplitRange(const std::string& text);

/**
 * Fits every model with loaded points in the series and idle runs in the manifests; the other
 * models keep the base profiles. Progress on stderr. Throws on bad input before any run.
 */
SplitFit FitSplits(const SplitFitRequest& request);

/** The base calibration with each fitted model's profile and its fit record ("split_fit"). */
nlohmann::json SplitCalibration(const nlohmann::json& base, const SplitFit& fit,
                                const SplitFitRequest& request);

} // namespace flumen

#endif
