// Synthetic testbed series for twin experiments: a series "measured" by the simulator itself
// at known testbed values, so that a fit must find them (cross-validation, calibrate --fit,
// and the same through SLURM).
#ifndef FLUMEN_TEST_TWIN_SERIES_H
#define FLUMEN_TEST_TWIN_SERIES_H

#include "test-support.h"

#include <array>
#include <map>
#include <string>

namespace flumen::test
{

/** Per requested load (Gbps): mean and p99 iteration time (s), measured cross traffic (Gbps). */
using SeriesRows = std::map<int, std::array<double, 3>>;

/** What a twin series ran: by default ResNet-50's web-search TCP series in configuration B. */
struct TwinSetup
{
    std::string configuration = "B";
    std::string transport = "tcp";
    std::string crossTraffic = "websearch";
    int workers = 3;
    /** The manifest's testbed settings ("scenario"), merged into every run. */
    nlohmann::json scenario = nlohmann::json::object();
};

/**
 * Writes DIR/NAME.json, a manifest of a series of ResNet-50 with these rows (DIR/NAME/iter.csv
 * and bw.csv; a row at load 0 is its idle run); returns the manifest's path.
 */
std::string WriteTwinSeries(const TempDir& dir, const std::string& name, const SeriesRows& rows,
                            const TwinSetup& setup = {});

/** The simulated rows of a series in a validation's points.csv. */
SeriesRows SimulatedRows(const std::string& pointsCsv, const std::string& series);

/** The shipped calibration with these testbed values ({"key": value, ...}), as DIR/NAME. */
std::string WriteCalibrationWith(const TempDir& dir, const std::string& name,
                                 const nlohmann::json& values);

/** The shipped calibration file. */
inline const std::string kShippedCalibration = FLUMEN_SOURCE_DIR "/validation/calibration.json";

} // namespace flumen::test

#endif
