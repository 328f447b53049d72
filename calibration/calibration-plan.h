// What `flumen calibrate` simulates: the testbed's runs without cross traffic (they calibrate
// each model's compute profile) and, since the TCP series has no idle run, each model's
// near-idle TCP point (it calibrates the hosts' TCP ceiling); each simulated at given
// parameters, many at once in child processes (a simulation owns ns-3's global simulator).
#ifndef FLUMEN_CALIBRATION_PLAN_H
#define FLUMEN_CALIBRATION_PLAN_H

#include "series-manifest.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace flumen
{

/** A testbed point the calibration simulates. */
struct IdlePoint
{
    std::string series;
    std::string configuration;
    std::string transport;
    int workers = 0;
    std::string model;
    double measuredMeanS = 0;
    double measuredP99S = 0;
    std::string source;
    nlohmann::json testbedSettings = nlohmann::json::object(); //!< the manifest's "scenario" (the
                                                               //!< testbed's non-default settings)
    double loadGbps = 0;      //!< 0 for an idle run; a near-idle TCP reference's load
    std::string crossTraffic; //!< the series' cross-traffic type
    double spread = 0;        //!< (p99 - mean) / mean of the measured run
    double simulatedS = 0;    //!< at the model's fitted parameters
};

struct CalibrationPoints
{
    std::vector<IdlePoint> idle;          //!< runs without cross traffic, built-in models only
    std::vector<IdlePoint> tcpReferences; //!< near-idle TCP points of series with no idle run
};

/**
 * The points of the manifests; a note on stderr for each model that is not built in and each
 * manifest with nothing to calibrate from. Throws on a manifest that cannot be read.
 * `settings` (KEY=VALUE, a command's --set) go over each series' declared settings, so that
 * the runs solved on share what the runs they calibrate are set to.
 */
CalibrationPoints LoadCalibrationPoints(const std::vector<std::string>& manifests,
                                        const std::vector<std::string>& settings = {});

/**
 * The per-phase jitter CV that gives an iteration spread like the measured one: p99 - mean
 * read as a normal tail (2.326 sigma) of the sum of independently jittered forward and
 * backward phases.
 */
double JitterCvFor(double spread, double backwardShare);

/** One simulation of a point at given profile parameters. */
struct IdleRun
{
    const IdlePoint* point = nullptr;
    double computeS = 0;
    double backwardShare = 0;
    double jitterCv = 0;
    double hostCeilingGbps = 0; //!< 0: the scenario's default
};

/**
 * Simulates the runs in child processes, `jobs` at a time, `iterations` each (one warm-up);
 * their mean iteration times, in order. Throws std::runtime_error with the first failure.
 */
std::vector<double> SimulateIdleRuns(const std::vector<IdleRun>& runs, uint32_t iterations,
                                     unsigned jobs);

} // namespace flumen

#endif
