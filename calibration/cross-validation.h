// `flumen validate --cross-validate` (leave one series out) and `--fit-on` (a named split):
// testbed parameters are fitted (testbed-fit.h) on some series and the others are predicted
// with them, so that no point is judged by parameters fitted on it. The out-of-sample points
// make the main report; the in-sample ones (every series at the parameters fitted on all of
// them, or the --fit-on series at theirs) a second report, labelled as such; folds.md and
// folds.csv give each fold's fitted values and their spread across folds.
#ifndef FLUMEN_CROSS_VALIDATION_H
#define FLUMEN_CROSS_VALIDATION_H

#include "split-fit.h"
#include "testbed-fit.h"
#include "validation-collate.h"

#include <set>
#include <string>
#include <vector>

namespace flumen
{

struct CrossValidationOptions
{
    std::vector<FitParameter> parameters;
    FitWeights weights;
    SearchOptions search;
    /** Empty: leave one series out; else fit on these series and predict the others. */
    std::set<std::string> fitOn;
    /** What a fold leaves out: a "series", or a "configuration" (all its series at once). */
    std::string foldBy = "series";
    /**
     * --fit-split: fit each model's compute/communication split (split-fit.h) over this range
     * of backward shares instead of `parameters`; each fold's profiles are written as a
     * calibration file (DIR/folds/<fold>.calibration.json) and predict the fold's series.
     */
    bool split = false;
    SearchDimension splitRange;
    /** The engine of the fits and of the in-sample runs (empty: the validation's own). */
    std::string fitEngine;
    /** --fit-transport: the fits use only the series of this transport ("": every series). */
    std::string fitTransport;
};

struct Fold
{
    std::vector<std::string> predicted;
    std::string name; //!< the series (or configuration) left out, or "in sample"
    TestbedFit fit;
    SplitFit split;              //!< --fit-split: each model's
    std::string calibrationFile; //!< --fit-split: the fold's profiles, as written
};

struct CrossValidation
{
    std::vector<Fold> folds;
    Fold inSample; //!< fitted on every series (leave-one-out) or on --fit-on's
    CollatedValidation outOfSample;
    CollatedValidation inSamplePoints; //!< CDFs and ring bandwidths included (in sample)
    ValidationPlan outOfSamplePlan;    //!< the folds' plans joined (for the report's account)
    ValidationPlan inSamplePlan;
    double coreSecondsNow = 0; //!< the runs' own wall times, this invocation
};

/** A split of the series: fitted on, and predicted. */
struct SeriesSplit
{
    std::vector<std::string> fitOn;
    std::vector<std::string> predicted;
    std::string name; //!< of the fold: its predicted series, or their configuration
};

/**
 * The splits (one per series left out, or the --fit-on split), every plan checked. Throws
 * std::invalid_argument (or ScenarioError) on bad input; runs nothing.
 */
std::vector<SeriesSplit> SplitSeries(const ValidationOptions& options,
                                     const CrossValidationOptions& cv);

/**
 * Runs every split's fit and prediction, and the in-sample fit, all in options.out/points.
 * Throws std::runtime_error when the point pool cannot run.
 */
CrossValidation RunCrossValidation(const ValidationOptions& options,
                                   const CrossValidationOptions& cv,
                                   const std::vector<SeriesSplit>& splits);

/** Writes folds.md and folds.csv into dir: each fold's values and losses, and their spread. */
void WriteFoldsReport(const std::string& dir, const CrossValidation& result,
                      const CrossValidationOptions& cv);

/** A fold's fitted values in a line: each model's share and compute time and the fold's
 * calibration file (--fit-split), or the fitted testbed values. */
std::string DescribeFold(const Fold& fold, const CrossValidationOptions& cv);

/**
 * Writes the cross-validation's reports into options.out: report.md (out of sample, the
 * headline: points, CDFs and ring bandwidths as the folds predicted them), in-sample/report.md,
 * and folds.md and folds.csv. `command` is the command line the reports quote.
 */
void WriteCrossValidationReports(const ValidationOptions& options, const CrossValidationOptions& cv,
                                 const CrossValidation& result, const std::string& command);

} // namespace flumen

#endif
