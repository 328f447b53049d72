// Scenario files and command-line overrides: reading the JSON (syntax errors by line and
// column) and setting dotted keys, before the scenario is resolved.
#include "scenario.h"

#include "input-file.h"
#include "scenario-jobs.h"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <vector>

namespace flumen
{

using nlohmann::json;

void
SetAtPath(json& root, const std::string& path, const json& value)
{
    json* node = &root;
    std::stringstream ss(path);
    std::string part;
    std::vector<std::string> parts;
    while (std::getline(ss, part, '.'))
    {
        parts.push_back(part);
    }
    for (size_t i = 0; i + 1 < parts.size(); ++i)
    {
        if (!node->contains(parts[i]) || !(*node)[parts[i]].is_object())
        {
            (*node)[parts[i]] = json::object();
        }
        node = &(*node)[parts[i]];
    }
    (*node)[parts.back()] = value;
}

bool
HasPath(const json& root, const std::string& path)
{
    std::string pointer = "/" + path; // a.b.c -> /a/b/c (keys hold no '/' or '~')
    std::replace(pointer.begin(), pointer.end(), '.', '/');
    return root.contains(json::json_pointer(pointer));
}

std::vector<std::string>
SplitList(const std::string& text)
{
    std::vector<std::string> items;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
    {
        if (!item.empty())
        {
            items.push_back(item);
        }
    }
    return items;
}

bool
ParseSeconds(const std::string& text, double& out)
{
    try
    {
        size_t used = 0;
        out = std::stod(text, &used);
        return used == text.size() && out > 0 && out <= 1e6;
    }
    catch (const std::exception&)
    {
        return false;
    }
}

json
LoadScenarioFile(const std::string& path, const std::string& what)
{
    const InputFile file = ReadInputFile(path);
    if (!file.problem.empty())
    {
        throw ScenarioError(fmt::format("{}: cannot open the {}: {}", path, what, file.problem));
    }
    const std::string& text = file.text;
    json j;
    // The key being parsed, so that a value JSON cannot hold (a number beyond a double) is
    // named by its key: nlohmann's out_of_range error carries no position.
    std::vector<std::string> keys;
    auto track = [&keys](int, json::parse_event_t event, json& parsed)
    {
        if (event == json::parse_event_t::object_start || event == json::parse_event_t::array_start)
            keys.emplace_back();
        else if (event == json::parse_event_t::key && !keys.empty())
            keys.back() = parsed.get<std::string>();
        else if ((event == json::parse_event_t::object_end
                  || event == json::parse_event_t::array_end)
                 && !keys.empty())
            keys.pop_back();
        return true;
    };
    try
    {
        j = json::parse(text, track);
    }
    catch (const json::out_of_range& e)
    {
        std::string key;
        for (const auto& k : keys)
        {
            key += k.empty() ? "" : (key.empty() ? "" : ".") + k;
        }
        std::string what = e.what();
        auto pos = what.find("number overflow");
        throw ScenarioError(fmt::format("{}: key '{}': expected a number a double can hold, got {}",
                                        path, key,
                                        pos == std::string::npos ? what : what.substr(pos)));
    }
    catch (const json::parse_error& e)
    {
        // Turn the byte offset into a line and column.
        size_t line = 1;
        size_t col = 1;
        for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i)
        {
            if (text[i] == '\n')
            {
                ++line;
                col = 1;
            }
            else
            {
                ++col;
            }
        }
        std::string what = e.what();
        auto pos = what.find("syntax error");
        throw ScenarioError(fmt::format("{}:{}:{}: invalid JSON: {}", path, line, col,
                                        pos == std::string::npos ? what : what.substr(pos)));
    }
    if (!j.is_object())
    {
        throw ScenarioError(fmt::format("{}: expected a JSON object at the top level", path));
    }
    return j;
}

namespace
{

// jobs.<i>.<key>: the key of an entry of `jobs`, which must exist.
bool
SetJobsKey(json& scenario, const std::string& key, const json& value)
{
    size_t index = 0;
    std::string jobKey;
    if (!detail::ParseJobsKey(key, index, jobKey))
    {
        return false;
    }
    const size_t jobs = scenario.contains("jobs") && scenario.at("jobs").is_array()
                            ? scenario.at("jobs").size()
                            : 0;
    if (index >= jobs || !scenario.at("jobs").at(index).is_object())
    {
        throw ScenarioError(fmt::format("key '{}': the scenario has {} jobs (jobs[0..{}])", key,
                                        jobs, jobs == 0 ? 0 : jobs - 1));
    }
    SetAtPath(scenario["jobs"][index], jobKey.substr(4), value);
    return true;
}

// A key that can be set: a scenario key, models.<name>.<field>, or jobs.<i>.<key> (whose
// malformed forms throw, naming what is expected).
bool
KnownKey(const std::string& key)
{
    size_t index = 0;
    std::string jobKey;
    const bool isModelKey
        = key.rfind("models.", 0) == 0 && std::count(key.begin(), key.end(), '.') == 2;
    return FindKey(ScenarioKeys(), key) || isModelKey || detail::ParseJobsKey(key, index, jobKey);
}

} // namespace

void
SetKey(json& scenario, const std::string& key, const json& value)
{
    if (!KnownKey(key))
    {
        throw ScenarioError(fmt::format("key '{}': unknown key (see ./flumen keys)", key));
    }
    if (!SetJobsKey(scenario, key, value))
    {
        SetAtPath(scenario, key, value);
    }
}

void
ApplyOverride(json& scenario, const std::string& assignment)
{
    auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
    {
        throw ScenarioError(fmt::format(
            "--set '{}': expected key=value, e.g. cross_traffic.load_gbps=10", assignment));
    }
    std::string key = assignment.substr(0, eq);
    std::string text = assignment.substr(eq + 1);
    if (!KnownKey(key))
    {
        throw ScenarioError(fmt::format("--set: key '{}': unknown key (see ./flumen keys)", key));
    }
    json value;
    try
    {
        value = json::parse(text);
    }
    catch (const json::parse_error&)
    {
        value = text; // a bare word is a string: --set job.model=vgg16
    }
    catch (const json::out_of_range&)
    {
        throw ScenarioError(fmt::format(
            "--set: key '{}': expected a number a double can hold, got '{}'", key, text));
    }
    SetKey(scenario, key, value);
}

} // namespace flumen
