// The runs of a validation plan read back into points: per testbed point, its seeds' iterations
// pooled (a run cut by its simulated-time budget makes the point censored, with a lower bound
// on its mean), the closed-form baselines beside it, and each CDF's Kolmogorov-Smirnov distance.
#ifndef FLUMEN_VALIDATION_COLLATE_H
#define FLUMEN_VALIDATION_COLLATE_H

#include "validation-plan.h"
#include "validation-report.h"

#include <filesystem>
#include <string>
#include <vector>

namespace flumen
{

struct CollatedValidation
{
    std::vector<ValidatedPoint> points;
    std::vector<ValidatedCdf> cdfs;
    std::vector<ValidatedRing> rings;
    size_t incomplete = 0;  //!< points not fully simulated and CDFs not simulated
    size_t runsRead = 0;    //!< finished runs (now or earlier), each once
    double coreSeconds = 0; //!< their own wall times added up
};

/** Reads what the plan's runs left in pointsDir (finished runs, failure records). */
CollatedValidation CollateValidation(const ValidationPlan& plan,
                                     const std::filesystem::path& pointsDir);

/** The report's account of the invocation: its command and settings, the runs it read. */
ValidationMeta MetaOf(const ValidationOptions& options, const ValidationPlan& plan,
                      const CollatedValidation& collated, const std::string& command,
                      double coreSecondsNow);

} // namespace flumen

#endif
