// The bench as a whole: the anchor, then every canonical scenario, measured and set against
// the anchor; the report as JSON and as a table for people.
#ifndef FLUMEN_BENCH_REPORT_H
#define FLUMEN_BENCH_REPORT_H

#include <nlohmann/json.hpp>

#include <string>

namespace flumen
{

struct BenchOptions
{
    double simulatedS = 1.0; //!< per measurement
    int repeats = 3;
    bool quick = false; //!< also: no linearity run (twice the simulated time)
};

/**
 * Measures the anchor and every canonical scenario (progress on stderr); the report: the
 * options, the machine's cores, the date, "anchor" and "scenarios" (each with its ratio to the
 * anchor per packet hop; a scenario this build cannot resolve is listed as skipped).
 */
nlohmann::json RunBench(const BenchOptions& options);

/** The report's figures as a table, one line per measurement. */
std::string FormatBenchTable(const nlohmann::json& report);

/** Writes the report as JSON (atomically), creating its folder. */
void WriteBenchReport(const std::string& path, const nlohmann::json& report);

} // namespace flumen

#endif
