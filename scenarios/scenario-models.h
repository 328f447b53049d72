// The scenario's models: those defined under `models` (one gradient tensor, or the layers
// of a layers file), and the job's model resolved from them or the built-in profiles with the
// job's overrides (compute time, backward share, jitter, batch size). Part of resolving a
// scenario; not a public API.
#ifndef FLUMEN_SCENARIO_MODELS_H
#define FLUMEN_SCENARIO_MODELS_H

#include "scenario.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace flumen::detail
{

struct UserModels
{
    std::map<std::string, ModelSettings> models;
    nlohmann::json resolved; //!< every field of every model, defaults filled in
};

/** Checks and builds the models of the user's `models` object (none if absent). */
UserModels ParseUserModels(const std::string& source, const nlohmann::json& user);
/** Sets s.model from job.model (a user's or a built-in model) and the job's overrides. */
void ResolveModel(Scenario& s, const std::map<std::string, ModelSettings>& userModels);

} // namespace flumen::detail

#endif
