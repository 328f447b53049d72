// How the schema declares a key: a plain key, a choice among strings, a key that sets an
// ns-3 attribute of flumen's module (its default is the attribute's) or one of ns-3's own.
// Used by the key table (scenario-keys.cc, topology-keys.cc, transport-keys.cc) only.
#ifndef FLUMEN_KEY_BUILDERS_H
#define FLUMEN_KEY_BUILDERS_H

#include "key-attributes.h"
#include "scenario-keys.h"
#include "scenario.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace flumen::key_builders
{

using nlohmann::json;
using Store = std::function<void(Scenario&, const json&)>;

template <typename T>
inline Store
Into(T Scenario::*field)
{
    return [field](Scenario& s, const json& v) { s.*field = v.get<T>(); };
}

inline KeySpec
Key(std::string path, KeyType type, json def, std::string help, double min = -1e300,
    double max = 1e300, Store store = nullptr, Unit unit = Unit::None)
{
    KeySpec k;
    k.path = std::move(path);
    k.type = type;
    k.defaultValue = std::move(def);
    k.help = std::move(help);
    k.min = min;
    k.max = max;
    k.store = std::move(store);
    k.unit = unit;
    return k;
}

inline KeySpec
Choice(std::string path, std::string def, std::vector<std::string> choices, std::string help,
       Store store)
{
    KeySpec k = Key(std::move(path), KeyType::String, def, std::move(help));
    k.choices = std::move(choices);
    k.store = std::move(store);
    return k;
}

// A key that sets an ns-3 attribute of flumen's module: its default is the attribute's.
inline KeySpec
Attr(std::string path, KeyType type, std::string attribute, Unit unit, std::string help, double min,
     double max, Store store = nullptr)
{
    json def = AttributeDefault(attribute, type, unit);
    KeySpec k = Key(std::move(path), type, def, std::move(help), min, max, std::move(store), unit);
    k.attribute = std::move(attribute);
    return k;
}

// A key that sets one of ns-3's own attributes, with a default flumen chooses (Linux's, where
// ns-3's differs).
inline KeySpec
Ns3Attr(std::string path, KeyType type, json def, std::string attribute, Unit unit,
        std::string help, double min, double max, Store store = nullptr)
{
    AttributeDefault(attribute, type, unit); // the attribute exists and has a supported type
    KeySpec k = Key(std::move(path), type, std::move(def), std::move(help), min, max,
                    std::move(store), unit);
    k.attribute = std::move(attribute);
    return k;
}

} // namespace flumen::key_builders

#endif
