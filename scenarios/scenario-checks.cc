#include "scenario-checks.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>

namespace flumen::detail
{

using nlohmann::json;

namespace
{

std::string
Bound(double v)
{
    return fmt::format("{:g}", v);
}

// Is `prefix` an object level of some key (e.g. "topology" or "job.tcp")?
bool
IsSection(const std::vector<KeySpec>& keys, const std::string& prefix)
{
    for (const auto& k : keys)
    {
        if (k.path.rfind(prefix + ".", 0) == 0)
        {
            return true;
        }
    }
    return false;
}

std::string
KnownUnder(const std::vector<KeySpec>& keys, const std::string& prefix)
{
    std::set<std::string> names;
    for (const auto& k : keys)
    {
        if (prefix.empty() || k.path.rfind(prefix + ".", 0) == 0)
        {
            std::string rest = prefix.empty() ? k.path : k.path.substr(prefix.size() + 1);
            names.insert(rest.substr(0, rest.find('.')));
        }
    }
    if (prefix.empty())
    {
        names.insert("models");
        names.insert("jobs");
    }
    std::string out;
    for (const auto& n : names)
    {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out;
}

} // namespace

std::string
Short(const json& v)
{
    std::string s = v.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

[[noreturn]] void
Fail(const std::string& source, const std::string& key, const std::string& what)
{
    throw ScenarioError(fmt::format("{}: key '{}': {}", source, key, what));
}

void
CheckValue(const std::string& source, const std::string& key, const KeySpec& spec, const json& v)
{
    bool ok = false;
    switch (spec.type)
    {
    case KeyType::Integer:
        ok = v.is_number_integer();
        break;
    case KeyType::Number:
        ok = v.is_number();
        break;
    case KeyType::String:
        ok = v.is_string();
        break;
    case KeyType::Boolean:
        ok = v.is_boolean();
        break;
    }
    if (!ok)
    {
        Fail(source, key, fmt::format("expected {}, got {}", TypeName(spec.type), Short(v)));
    }
    if (v.is_number())
    {
        double x = v.get<double>();
        if (!std::isfinite(x) || x < spec.min || x > spec.max)
        {
            Fail(source, key,
                 fmt::format("expected {} between {} and {}, got {}", TypeName(spec.type),
                             Bound(spec.min), Bound(spec.max), Short(v)));
        }
    }
    if (v.is_string() && !spec.choices.empty())
    {
        std::string s = v.get<std::string>();
        bool found = false;
        for (const auto& c : spec.choices)
        {
            found = found || c == s;
        }
        if (!found)
        {
            std::string list;
            for (const auto& c : spec.choices)
            {
                list += (list.empty() ? "" : ", ") + c;
            }
            Fail(source, key, fmt::format("expected one of {}, got {}", list, Short(v)));
        }
    }
}

// The dotted path of the first key or string that is not UTF-8 (a --set value or a model name
// can be any bytes; JSON, every message and every output need UTF-8), or "" if none.
std::string
NotUtf8(const json& node, const std::string& prefix)
{
    auto valid = [](const std::string& text)
    {
        try
        {
            (void)json(text).dump();
            return true;
        }
        catch (const json::type_error&)
        {
            return false;
        }
    };
    if (node.is_string())
    {
        return valid(node.get_ref<const std::string&>()) ? "" : prefix;
    }
    if (node.is_object())
    {
        for (auto it = node.begin(); it != node.end(); ++it)
        {
            std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
            if (!valid(it.key()))
            {
                return path;
            }
            if (std::string bad = NotUtf8(it.value(), path); !bad.empty())
            {
                return bad;
            }
        }
    }
    if (node.is_array())
    {
        for (size_t i = 0; i < node.size(); ++i)
        {
            std::string bad = NotUtf8(node[i], fmt::format("{}[{}]", prefix, i));
            if (!bad.empty())
            {
                return bad;
            }
        }
    }
    return "";
}

// Walks the user's object; every leaf must be a known key of the right type and range.
void
CheckTree(const std::string& source, const json& node, const std::string& prefix,
          const std::vector<KeySpec>& keys)
{
    for (auto it = node.begin(); it != node.end(); ++it)
    {
        std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
        if (prefix.empty() && (it.key() == "models" || it.key() == "jobs"))
        {
            continue; // checked apart: the user's model names, the list of jobs
        }
        if (const KeySpec* spec = FindKey(keys, path))
        {
            CheckValue(source, path, *spec, it.value());
        }
        else if (IsSection(keys, path))
        {
            if (!it.value().is_object())
            {
                Fail(source, path,
                     fmt::format("expected an object with keys {}, got {}", KnownUnder(keys, path),
                                 Short(it.value())));
            }
            CheckTree(source, it.value(), path, keys);
        }
        else
        {
            Fail(source, path,
                 fmt::format("unknown key (known keys{}: {})",
                             prefix.empty() ? "" : " under '" + prefix + "'",
                             KnownUnder(keys, prefix)));
        }
    }
}

// A path from the scenario, relative to the scenario file's folder unless absolute.
std::string
ScenarioRelative(const std::string& source, const std::string& path)
{
    std::filesystem::path p(path);
    if (p.is_absolute())
    {
        return path;
    }
    return (std::filesystem::path(source).parent_path() / p).lexically_normal().string();
}

} // namespace flumen::detail
