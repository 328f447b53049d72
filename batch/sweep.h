// Sweeps: a base scenario, a grid (scenario key -> list of values) and seeds, expanded into
// points; each point has a stable id (a hash of its assignments), so that re-running a sweep
// finds the points it already finished whatever the order of the grid.
#ifndef FLUMEN_SWEEP_H
#define FLUMEN_SWEEP_H

#include "csv-format.h"
#include "run-summary.h"
#include "scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <utility>
#include <vector>

namespace flumen
{

struct SweepPoint
{
    std::string id; //!< stable, from the assignments
    std::vector<std::pair<std::string, nlohmann::json>> assignments; //!< grid keys, in grid order
    uint64_t seed = 1;
    nlohmann::json scenario; //!< the point's full scenario (the base with its assignments)
};

struct Sweep
{
    std::string source;            //!< the sweep file, for messages
    std::vector<std::string> keys; //!< the grid's keys, in file order
    std::vector<SweepPoint> points;
    /** Several jobs (`jobs`): their names in the first point, each with columns of its own. */
    std::vector<std::string> jobNames;
};

/**
 * Reads SWEEP.json: {"base": {scenario} or "base_file": "path", "grid": {key: [values]},
 * "seeds": [n, ...]}. Every point is resolved (all keys, types and ranges checked) before it
 * is returned; errors name the file, the point and the key. Relative paths inside the base
 * (cross_traffic.size_cdf, cross_traffic.file) are made absolute, relative to the base's file.
 * `extraGrid` adds keys to the grid (a command line option's, e.g. both engines); a sweep file
 * that sweeps one of them itself is refused.
 */
Sweep LoadSweep(const std::string& path,
                const nlohmann::json& extraGrid = nlohmann::json::object());

/** A stable 16-hex-digit name for a text (a point's identity across runs). */
std::string StableHash(const std::string& text);

/** The identity of the sweep's point list: a SLURM task refuses to run for another one. */
std::string SweepId(const Sweep& sweep);

/** The columns of results.csv: the grid's keys, the run's figures, each job's. */
std::vector<std::string> ResultColumns(const Sweep& sweep);
/** One row of results.csv from a finished point's summary (or its failure: nullptr). */
std::vector<std::string> ResultRow(const Sweep& sweep, const SweepPoint& point,
                                   const RunSummary* summary, const std::string& status,
                                   const std::string& error);

} // namespace flumen

#endif
