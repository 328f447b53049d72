// Scenario keys that set ns-3 attributes: the attribute's own default in the key's unit, and
// the key's value set as the attribute's default (Config::SetDefault) for a run.
#ifndef FLUMEN_KEY_ATTRIBUTES_H
#define FLUMEN_KEY_ATTRIBUTES_H

#include "scenario-keys.h"

#include "ns3/type-id.h"

#include <nlohmann/json.hpp>

#include <string>

namespace flumen
{

/** An ns-3 attribute ("ns3::Type::Name"): its current and original default; throws
 * std::logic_error when there is none. */
ns3::TypeId::AttributeInformation AttributeInfo(const std::string& attribute);

/**
 * The default that `attribute` ("ns3::Type::Name") declares in its TypeId, converted to a
 * key of this type and unit. Throws std::logic_error when there is no such attribute or its
 * type is not one a key can hold (Time, DataRate, Uinteger, Double, Boolean).
 */
nlohmann::json AttributeDefault(const std::string& attribute, KeyType type, Unit unit);

} // namespace flumen

#endif
