// The fits behind `flumen calibrate`, each by simulation (calibration-plan.h).
//
// Parameters per model: the compute time (forward + backward + step) and, where the model was
// measured with two or more worker counts, the backward share (backward / (forward +
// backward)), which decides how much of the ring all-reduce hides behind the backward pass:
// the ring's volume grows with the workers as 2 (N-1)/N, so idle runs with different worker
// counts tell how much of it is exposed. With one worker count only the compute time is
// fitted and the share stays the profile's.
//
// Fit: Levenberg-Marquardt (Eigen) on the relative errors of the simulated idle means of the
// model's points, from the profile's parameters or, where the worker counts disagree there,
// from a second start derived from the start run (communication hidden behind the smallest
// backward share that covers it; the better start goes on). The Jacobian comes from finite
// differences once, then Broyden updates, so each step costs one simulation per point (all
// models and points run in parallel child processes). It stops when every point is within 0.3 %,
// when a step gains less than 0.1 % of RMS error or becomes negligible, or after 8 steps, and
// reports every point simulated at the final parameters. The jitter CV comes from the same runs:
// the gap between mean and p99, read as a normal distribution of the iteration, divided by the
// spread factor of independently jittered forward and backward phases (sqrt((1-s)^2 + s^2) for
// backward share s).
//
// The hosts' TCP ceiling is fitted afterwards, to the near-idle TCP points, with the models'
// profiles as fitted (tcp-ceiling-fit.cc).
#ifndef FLUMEN_CALIBRATION_FIT_H
#define FLUMEN_CALIBRATION_FIT_H

#include "calibration-plan.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace flumen
{

// When a fit stops, shared by both.
constexpr double kTolerance = 0.003; //!< relative error at which a point counts as matched
constexpr int kMaxSteps = 8;
constexpr double kMinGain = 0.001; //!< least RMS improvement of a step worth another

/**
 * Fits the profile of every model with idle points (checkOnly: simulates the built-in profiles
 * and fits nothing) and sets models[model] to compute_s, backward_share, compute_jitter_cv,
 * fitted, fit and points; progress on stderr. Throws when a simulation fails.
 */
void FitModelProfiles(std::vector<IdlePoint>& points, nlohmann::json& models, uint32_t iterations,
                      unsigned jobs, bool checkOnly);

/**
 * The host-side ceiling of NCCL's socket path (job.tcp.host_ceiling_gbps) fitted to the
 * near-idle TCP references, with the profiles in `models` (the built-in ones for a model not
 * there): the calibration file's transports.tcp. Throws when a simulation fails.
 */
nlohmann::json FitHostCeiling(std::vector<IdlePoint>& refs, const nlohmann::json& models,
                              uint32_t iterations, unsigned jobs);

/**
 * Writes the calibration file (atomically) that run, sweep and validate read; `engine`, the
 * simulation.engine its runs used, is recorded in it; `testbed`, the testbed parameters fitted
 * to loaded points (TestbedFitJson; null or empty: none).
 */
void WriteCalibrationFile(const std::string& path, uint32_t iterations,
                          const std::vector<std::string>& manifests, const nlohmann::json& models,
                          const nlohmann::json& transports, const std::string& engine,
                          const nlohmann::json& testbed = nlohmann::json());

/** What the file holds, a line per model and transport, for the console. */
std::string DescribeCalibration(const nlohmann::json& models, const nlohmann::json& transports);

} // namespace flumen

#endif
