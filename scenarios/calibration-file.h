// Calibration files written by `flumen calibrate`: each model's fitted compute profile and the
// hosts' TCP ceiling, applied to a scenario unless the scenario sets its own values.
#ifndef FLUMEN_CALIBRATION_FILE_H
#define FLUMEN_CALIBRATION_FILE_H

#include <nlohmann/json.hpp>

#include <string>

namespace flumen
{

/**
 * Applies a calibration file: for the scenario's model (job.model, default resnet50) sets
 * job.compute_s, job.compute_jitter_cv and job.backward_share, job.tcp.host_ceiling_gbps (on a
 * TCP job only) and the fitted testbed parameters (the file's "testbed": {"values": {key: value}}),
 * unless the scenario sets them. Returns whether the file had the model. Errors
 * (ScenarioError) name `calibrationSource`.
 */
bool ApplyCalibration(nlohmann::json& scenario, const nlohmann::json& calibration,
                      const std::string& calibrationSource);
/**
 * Reads a calibration file and checks its shape and every model's entry, so that a bad file
 * fails before anything runs. Throws ScenarioError naming the file and key.
 */
nlohmann::json LoadCalibration(const std::string& path);

} // namespace flumen

#endif
