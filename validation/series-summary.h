// The figures of a validation, per series and model: the median errors against the targets,
// the congestion points and curve fits of testbed and simulation, and the text helpers the
// report's tables, markdown and plots share (internal to validation/).
#ifndef FLUMEN_SERIES_SUMMARY_H
#define FLUMEN_SERIES_SUMMARY_H

#include "validation-report.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace flumen
{

// Targets of the validation (see the README): median absolute errors in percent.
constexpr double kMeanTarget = 10;
constexpr double kCongestedTarget = 15;
constexpr double kP99Target = 25;
constexpr double kCongestionPointTargetGbps = 1;
constexpr double kAchievedTarget = 5;

/** The summary of one series and model. */
struct SeriesSummary
{
    std::string series;
    std::string model;
    std::string transport;
    std::string configuration;
    std::string traffic;
    size_t validationPoints = 0; //!< testbed points with cross traffic, simulated
    size_t congestedPoints = 0;
    size_t missing = 0; //!< testbed points not (fully) simulated
    //! Validation points whose runs hit the simulated-time budget: only a lower bound on the
    //! simulated mean, so left out of the medians; "over": that bound exceeds the testbed.
    size_t censored = 0;
    size_t censoredOver = 0;
    double medianMean = kUnknown;
    double meanMean = kUnknown;
    double medianCongested = kUnknown;
    double medianP99 = kUnknown;
    double meanP99 = kUnknown;
    double medianExposed = kUnknown;
    double medianHidden = kUnknown;
    double medianAchieved = kUnknown;
    CongestionPoint testbedKnee;
    CongestionPoint simKnee;
    ExpFit testbedFit;
    ExpFit simFit;
    double idleMeasuredS = kUnknown;
    double idleSimulatedS = kUnknown;

    bool MeanOk() const { return medianMean <= kMeanTarget; }
    bool CongestedOk() const { return congestedPoints == 0 || medianCongested <= kCongestedTarget; }
    bool BeatsBaselines() const { return medianMean < std::min(medianExposed, medianHidden); }
    bool P99Ok() const { return medianP99 <= kP99Target; }
    bool KneeOk() const
    {
        return testbedKnee.found && simKnee.found
               && std::abs(testbedKnee.x - simKnee.x) <= kCongestionPointTargetGbps;
    }
    bool AchievedOk() const { return medianAchieved <= kAchievedTarget; }

    // A series with nothing simulated (not run yet, or failed) and nothing censored is not
    // judged against the targets, rather than missing every one of them.
    bool Judged() const { return validationPoints > 0 || censored > 0; }

    // The headline's verdict on the targets.
    std::string Verdict() const
    {
        if (!Judged())
        {
            return "none judged: no simulated points";
        }
        std::string missed;
        auto check = [&missed](bool ok, const char* target)
        {
            if (!ok)
            {
                missed += (missed.empty() ? "" : ", ") + std::string(target);
            }
        };
        check(MeanOk(), "mean");
        check(CongestedOk(), "congested");
        check(BeatsBaselines(), "baselines");
        check(P99Ok(), "p99");
        check(KneeOk(), "congestion point");
        check(AchievedOk(), "achieved rate");
        std::string verdict = missed.empty() ? "all" : "missed: " + missed;
        return censored ? verdict + " (censored points not counted)" : verdict;
    }
};

/** Whether a point's runs were simulated to the end (all its seeds, or some). */
inline bool
IsSimulated(const ValidatedPoint& p)
{
    return p.status == "done" || p.status == "partial";
}

/** Whether the validation's medians count a point: measured by the testbed, with cross traffic,
 * not used by the calibration. */
inline bool
IsValidationPoint(const ValidatedPoint& p)
{
    return p.testbed && !p.idle && !p.calibration;
}

/** One summary per series and model, in the order the points first name them. */
std::vector<SeriesSummary> SummariseSeries(const std::vector<ValidatedPoint>& points);

/** A number for a table: "" when unknown, "inf"/"-inf", else `digits` decimals. */
std::string NumberText(double v, int digits = 6);
/** A congestion point as "(x, t)", or "none". */
std::string KneeText(const CongestionPoint& c);
/** "12" or "3 warm-up": how many iterations a censored point's indicative mean is over. */
std::string CompletedIterations(const ValidatedPoint& p);
/** An exponential fit's parameters as markdown cells. */
std::string FitText(const ExpFit& f);

} // namespace flumen

#endif
