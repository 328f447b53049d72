// The key table in words: type and unit names for messages, and the table as text for
// `flumen keys`.
#include "scenario-keys.h"

#include "scenario-jobs.h"

#include <fmt/format.h>

namespace flumen
{

const char*
TypeName(KeyType t)
{
    switch (t)
    {
    case KeyType::Integer:
        return "an integer";
    case KeyType::Number:
        return "a number";
    case KeyType::String:
        return "a string";
    case KeyType::Boolean:
        return "true or false";
    }
    return "?";
}

const char*
UnitName(Unit unit)
{
    switch (unit)
    {
    case Unit::Bytes:
        return "bytes";
    case Unit::Microseconds:
        return "us";
    case Unit::Milliseconds:
        return "ms";
    case Unit::Seconds:
        return "s";
    case Unit::Mbps:
        return "Mbps";
    case Unit::Gbps:
        return "Gbps";
    default:
        return "";
    }
}

std::string
DescribeKeys()
{
    auto line = [](const KeySpec& k, const std::string& path)
    {
        std::string range;
        for (const auto& c : k.choices)
        {
            range += (range.empty() ? "" : "|") + c;
        }
        if (range.empty() && (k.type == KeyType::Integer || k.type == KeyType::Number))
        {
            range = fmt::format("{:.12g}..{:.12g}", k.min, k.max);
        }
        std::string unit = UnitName(k.unit);
        std::string def = k.defaultValue.is_null() ? "(required)" : k.defaultValue.dump();
        return fmt::format("{:<36} {:<8} {:<6} default {:<10} {}{}{}\n", path,
                           k.type == KeyType::Integer  ? "integer"
                           : k.type == KeyType::Number ? "number"
                           : k.type == KeyType::String ? "string"
                                                       : "boolean",
                           unit, def, k.help, range.empty() ? "" : " [" + range + "]",
                           k.attribute.empty() ? "" : " (sets " + k.attribute + ")");
    };
    std::string out;
    for (const auto& k : ScenarioKeys())
    {
        out += line(k, k.path);
    }
    for (const auto& k : ModelKeys())
    {
        out += line(k, "models.<name>." + k.path);
    }
    // `jobs`: each entry takes the job keys that may differ between jobs, over `job`.
    for (const auto& k : ScenarioKeys())
    {
        if (detail::IsPerJobKey(k.path))
        {
            out += line(k, "jobs[<i>]." + k.path.substr(4));
        }
    }
    return out;
}

} // namespace flumen
