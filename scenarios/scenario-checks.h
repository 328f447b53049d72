// Checking a user's scenario against the key table: a value against its key's type, range
// and choices, the whole tree against the known keys, text as UTF-8, and paths relative to
// the scenario file. Shared by the scenario's resolution and its models'; not a public API.
#ifndef FLUMEN_SCENARIO_CHECKS_H
#define FLUMEN_SCENARIO_CHECKS_H

#include "scenario-keys.h"
#include "scenario.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace flumen::detail
{

/** A JSON value shortened for a message. */
std::string Short(const nlohmann::json& v);
/** Throws the ScenarioError "SOURCE: key 'KEY': WHAT". */
[[noreturn]] void Fail(const std::string& source, const std::string& key, const std::string& what);
/** Fails unless `v` has the key's type, lies in its range and is one of its choices. */
void CheckValue(const std::string& source, const std::string& key, const KeySpec& spec,
                const nlohmann::json& v);
/** The dotted path of the first key or string that is not UTF-8, or "" if none. */
std::string NotUtf8(const nlohmann::json& node, const std::string& prefix);
/** Every leaf of the user's object must be a known key of the right type and range. */
void CheckTree(const std::string& source, const nlohmann::json& node, const std::string& prefix,
               const std::vector<KeySpec>& keys);
/** A path from the scenario, relative to the scenario file's folder unless absolute. */
std::string ScenarioRelative(const std::string& source, const std::string& path);

} // namespace flumen::detail

#endif
