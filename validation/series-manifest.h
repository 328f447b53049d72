// Series manifests: a small JSON file describes one testbed series (its files, their formats
// and units, and the experiment), so that a new series in a supported format needs no code.
// Loading one joins each model's iteration summaries with its measured cross traffic on
// `index`, as the testbed data's README prescribes (docs/testbed-data.md).
#ifndef FLUMEN_SERIES_MANIFEST_H
#define FLUMEN_SERIES_MANIFEST_H

#include "testbed-readers.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace flumen
{

/** One measured point: one model at one cross-traffic setting. */
struct SeriesPoint
{
    std::string model;
    double index = 0;
    double requestedGbps = kUnknown; //!< where the index is the requested load
    double measuredGbps = kUnknown;  //!< from the cross-traffic file; 0 for the idle run
    double measuredStdevGbps = kUnknown;
    double meanS = 0;
    double stdevS = 0;
    double p99S = 0;
    double samples = kUnknown;
    bool idle = false;  //!< the run without cross traffic (calibration may use only these)
    std::string source; //!< "FILE:LINE" of the iteration row
};

/**
 * A published measurement of the ring's own bandwidth at one load (the thesis's Table 3.11:
 * tcpdump's per-packet injection rates, averaged over a few iterations, from a node in the
 * ring only and from the node that also receives the cross traffic).
 */
struct SeriesRingBandwidth
{
    std::string model;
    double requestedGbps = 0;
    double dlOnlyGbps = 0;   //!< a DL-only node's outbound ring flow (thesis flow 1)
    double dlSharedGbps = 0; //!< the shared node's ring flow (thesis flow 2)
    std::string source;      //!< where the figures are published
};

/** One per-iteration CDF run of a series. */
struct SeriesCdf
{
    std::string model;
    double requestedGbps = kUnknown;
    std::string transport;
    std::vector<CdfPoint> points;
    std::string file;
    /** What this CDF's run sets beyond its model's scenario (cdfs[i].scenario). */
    nlohmann::json scenario = nlohmann::json::object();
};

struct Series
{
    std::string name;
    std::string description;
    std::string configuration; //!< "A" or "B"
    std::string transport;     //!< "rdma" or "tcp"
    int workers = 0;
    std::string crossTraffic; //!< "iperf", "websearch", "burst"
    std::vector<SeriesPoint> points;
    std::vector<SeriesCdf> cdfs;
    std::vector<SeriesRingBandwidth> ringBandwidth;
    std::string manifest; //!< the manifest's path
    /**
     * The testbed's settings where they differ from flumen's defaults: a partial scenario
     * (e.g. the switch's queue discipline) merged into every simulated run of the series.
     */
    nlohmann::json scenario = nlohmann::json::object();
    /**
     * Per model, what its runs set beyond `scenario` (a manifest's models[i].scenario): a
     * testbed value that only some models' runs identify, fitted on the others.
     */
    std::map<std::string, nlohmann::json> modelScenario;
};

/** The partial scenario of `model`'s runs in `series`: its scenario, then the model's own. */
nlohmann::json ScenarioOf(const Series& series, const std::string& model);

/** The partial scenario of a CDF's run in `series`: its model's, then the CDF's own. */
nlohmann::json ScenarioOf(const Series& series, const SeriesCdf& cdf);

/** Reads a manifest and every file it names; errors name the manifest, key, file or line. */
Series LoadSeries(const std::string& manifestPath);

/** Highest cross-traffic load of a near-idle reference point. */
constexpr double kNearIdleGbps = 2.5;

/**
 * The near-idle references of a TCP series without idle runs: per model, its lowest-load
 * point if that load is at most kNearIdleGbps. `flumen calibrate` fits the hosts' TCP ceiling
 * to them, so `validate` reports them as calibration points. Empty for other series.
 */
std::vector<const SeriesPoint*> NearIdleTcpReferences(const Series& series);

/** A point's cross-traffic load: requested where recorded (> 0), else measured (NaN if neither). */
double PointLoadGbps(const SeriesPoint& point);

} // namespace flumen

#endif
