// The bench's canonical scenarios (issue "Speed as a measured feature"): what `flumen bench`
// times, each for a fixed simulated time.
#ifndef FLUMEN_CANONICAL_SCENARIOS_H
#define FLUMEN_CANONICAL_SCENARIOS_H

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace flumen
{

struct CanonicalScenario
{
    std::string name;
    nlohmann::json scenario; //!< as a user would write it (unresolved)
};

/** The canonical set, in the order the bench reports it. */
std::vector<CanonicalScenario> CanonicalScenarios();

} // namespace flumen

#endif
