// The scenario keys: each declared once, in one table, with its type, unit, default, range,
// meaning and how it is applied. A key either sets an ns-3 attribute (its default then comes
// from that attribute's TypeId unless flumen chooses another on purpose, as for ns-3's own TCP
// attributes) or is stored into a Scenario field that one builder reads. Resolution
// (scenario.cc) and application (ApplyAttributeKeys) loop over this table.
#ifndef FLUMEN_SCENARIO_KEYS_H
#define FLUMEN_SCENARIO_KEYS_H

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace flumen
{

struct Scenario;

enum class KeyType
{
    Integer,
    Number,
    String,
    Boolean
};

/** A key's unit: how its value converts to the ns-3 attribute it sets, and its label. */
enum class Unit
{
    None,
    Bytes,
    Microseconds,
    Milliseconds,
    Seconds,
    Mbps,
    Gbps
};

struct KeySpec
{
    std::string path; //!< dotted, e.g. "cross_traffic.load_gbps"
    KeyType type;
    nlohmann::json defaultValue;
    std::string help;
    double min = -1e300; //!< numbers: inclusive bounds
    double max = 1e300;
    std::vector<std::string> choices; //!< strings: allowed values (empty = any)
    Unit unit = Unit::None;
    /** The ns-3 attribute the key sets with Config::SetDefault ("" = none). */
    std::string attribute;
    /** Stores the (checked) value into the Scenario (null when only the attribute reads it). */
    std::function<void(Scenario&, const nlohmann::json&)> store;
};

/** Every scenario key, in documentation order. */
const std::vector<KeySpec>& ScenarioKeys();
/** Fields of a user-defined model under models.<name>. */
const std::vector<KeySpec>& ModelKeys();
/** The key with this path, or nullptr. */
const KeySpec* FindKey(const std::vector<KeySpec>& keys, const std::string& path);

/** "an integer", "a number", ... for messages. */
const char* TypeName(KeyType type);
/** "us", "Gbps", ... ("" for Unit::None). */
const char* UnitName(Unit unit);

/**
 * Sets, with Config::SetDefault, every attribute-backed key to its value in `resolved` (a
 * resolved scenario's JSON). Called once per run, after Config::Reset.
 */
void ApplyAttributeKeys(const nlohmann::json& resolved);

/** The table of keys as text (for `flumen keys`). */
std::string DescribeKeys();

} // namespace flumen

#endif
