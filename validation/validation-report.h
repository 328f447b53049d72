// The validation report: what `flumen validate` writes once the points are simulated.
// points.csv (one row per testbed point), series.csv (one row per series and model, with the
// targets), cdfs.csv (Kolmogorov-Smirnov distances), report.md and its PNG plots (gnuplot).
#ifndef FLUMEN_VALIDATION_REPORT_H
#define FLUMEN_VALIDATION_REPORT_H

#include "curve-analysis.h"
#include "run-summary.h"
#include "series-manifest.h"
#include "testbed-readers.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace flumen
{

/** One testbed point beside its simulation. */
struct ValidatedPoint
{
    std::string series;
    std::string model;
    std::string transport;
    std::string configuration;
    std::string traffic;
    double index = kUnknown;
    double requestedGbps = kUnknown; //!< where the testbed recorded the request
    double offeredGbps = 0;          //!< the load the simulation offered
    double measuredGbps = kUnknown;  //!< testbed: measured cross traffic (0 when idle)
    double testbedMeanS = kUnknown;  //!< NaN for a simulated-only idle reference
    double testbedP99S = kUnknown;
    double simMeanS = kUnknown;
    double simP99S = kUnknown;
    double simAchievedGbps = kUnknown;
    //! Censored point (a run hit the simulated-time budget): the mean is at least this.
    double simMeanLowerBoundS = kUnknown;
    //! Censored point: the mean of the iterations its runs completed before the cut (the
    //! measured ones; the warm-up ones where none was measured). Indicative only: the
    //! iterations still running at the cut were slower, and no median uses it.
    double censoredCompletedMeanS = kUnknown;
    int censoredCompletedIterations = 0;  //!< over all workers and seeds
    bool censoredCompletedWarmup = false; //!< they were warm-up iterations
    double censoredCutS = kUnknown;       //!< simulated time at which its runs were cut
    double exposedS = kUnknown;           //!< closed-form baselines
    double hiddenS = kUnknown;
    /** The share of the shared port's wire the testbed's measured traffic needs (wire-share.h). */
    double testbedWireShare = kUnknown;
    bool idle = false;        //!< no cross traffic
    bool testbed = true;      //!< false: an idle reference the testbed did not measure
    bool calibration = false; //!< a run the calibration used (validation excludes it)
    bool congested = false;   //!< testbed mean at least 1.2 x the idle reference
    int iterations = 0;       //!< per run, warm-up included
    int warmup = 0;
    int seeds = 0; //!< simulated seeds finished
    int seedsPlanned = 0;
    /** Flow-level runs: the finished seeds whose run says it left the engine's domain
     * (summary.json's engine_domain: engine auto would have run it at packet level). */
    int outOfDomainSeeds = 0;
    std::string status; //!< done, partial, censored, failed: ..., not run
    std::string source; //!< the testbed row, FILE:LINE
};

/** One per-iteration CDF beside the simulated iterations of the same setting. */
struct ValidatedCdf
{
    std::string model;
    std::string transport;
    std::string configuration;
    double requestedGbps = 0;
    std::string file;
    std::vector<CdfPoint> measured;
    std::vector<double> simulated; //!< iteration times, warm-up excluded
    int simulatedIterations = 0;   //!< per worker (the workers' iterations are synchronous)
    double ks = kUnknown;
    /**
     * The two-sample Kolmogorov-Smirnov distance above which the two samples differ at the 5 %
     * level: 1.358 sqrt((n + m) / (n m)), n simulated iterations, m measured ones (the CDF's
     * rows).
     */
    double ksCritical = kUnknown;
    std::string status;
};

/** A published ring-bandwidth measurement beside the simulated ring hops of its setting. */
struct ValidatedRing
{
    std::string series;
    SeriesRingBandwidth published;
    std::vector<RingHopSummary> hops; //!< simulated (empty: not run, or not kept by the engine)
    double simMeanS = kUnknown;
    std::string status;
};

struct ValidationMeta
{
    std::string command;
    std::string calibration; //!< where the compute times came from
    bool quick = false;
    int iterations = 0;
    int warmup = 0;
    double coreSecondsNow = 0; //!< the wall times of the runs made by this invocation, added up
    double maxSimS = 0;        //!< simulated-time budget per run (0: none)
    int budgetIterations = 0;  //!< ...or this many and a half at the testbed's pace, if longer
    size_t runsDone = 0;       //!< simulation runs finished (now or earlier)
    size_t runsPlanned = 0;
    double coreSeconds = 0; //!< the finished runs' wall times added up (one core each)
    double linkGbps = 25;
    /** Per series, the manifest's "scenario" settings (declared testbed facts, not fitted). */
    std::vector<std::pair<std::string, std::string>> testbedSettings;
    /** validate --set: key=value set in every run, over the manifests' and fitted values. */
    std::vector<std::string> commandSettings;
    /**
     * Testbed parameters fitted to loaded points, if any: which, where from, and whether the
     * points below are judged in or out of sample (a paragraph of the report; "" = none).
     */
    std::string fitNote;
};

/** A file name from a label: letters, digits, '-' and '.' kept, anything else '_'. */
std::string FileSafeName(const std::string& label);

/** Signed percentage error of a against b (NaN when either is missing). */
double PercentError(double simulated, double measured);

/** One line per series and model with the headline figures, for the console. */
std::vector<std::string> HeadlineLines(const std::vector<ValidatedPoint>& points);

/**
 * Writes points.csv, series.csv, cdfs.csv, ring-bandwidth.csv (with rings), report.md and
 * plots/ into dir (atomically each).
 */
void WriteValidationReport(const std::string& dir, const std::vector<ValidatedPoint>& points,
                           const std::vector<ValidatedCdf>& cdfs, const ValidationMeta& meta,
                           const std::vector<ValidatedRing>& rings = {});

} // namespace flumen

#endif
