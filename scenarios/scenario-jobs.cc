#include "scenario-jobs.h"

#include "scenario-checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>

namespace flumen::detail
{

using nlohmann::json;

namespace
{

const char* kJobPrefix = "job.";

// The per-job keys, without "job.", for messages.
std::string
PerJobKeyList()
{
    std::string out;
    for (const auto& spec : ScenarioKeys())
    {
        if (IsPerJobKey(spec.path))
        {
            out += (out.empty() ? "" : ", ") + spec.path.substr(4);
        }
    }
    return out;
}

// Every leaf of an entry, as "job.<path>", with its value.
void
Leaves(const json& node, const std::string& prefix, std::vector<std::pair<std::string, json>>& out)
{
    for (auto it = node.begin(); it != node.end(); ++it)
    {
        const std::string path = prefix + "." + it.key();
        if (it.value().is_object() && !FindKey(ScenarioKeys(), path))
        {
            Leaves(it.value(), path, out);
        }
        else
        {
            out.emplace_back(path, it.value());
        }
    }
}

std::string
EntryKey(size_t index, const std::string& jobKey)
{
    return fmt::format("jobs[{}].{}", index, jobKey.substr(4));
}

} // namespace

bool
IsPerJobKey(const std::string& key)
{
    const KeySpec* spec = FindKey(ScenarioKeys(), key);
    return spec && key.rfind(kJobPrefix, 0) == 0 && spec->attribute.empty() && key != "job.enabled";
}

bool
ParseJobsKey(const std::string& key, size_t& index, std::string& jobKey)
{
    if (key.rfind("jobs.", 0) != 0)
    {
        return false;
    }
    const size_t dot = key.find('.', 5);
    const std::string number = key.substr(5, dot == std::string::npos ? dot : dot - 5);
    const bool digits
        = !number.empty() && number.size() <= 4
          && std::all_of(number.begin(), number.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    jobKey = dot == std::string::npos ? "" : kJobPrefix + key.substr(dot + 1);
    if (!digits || !IsPerJobKey(jobKey))
    {
        throw ScenarioError(fmt::format("key '{}': expected jobs.<index>.<key>, the key one of {}",
                                        key, PerJobKeyList()));
    }
    index = std::stoul(number);
    return true;
}

void
CheckJobEntries(const std::string& source, const json& user)
{
    const json& jobs = user.at("jobs");
    if (!jobs.is_array() || jobs.empty())
    {
        Fail(source, "jobs",
             fmt::format("expected a non-empty array of jobs, each an object of {}; got {}",
                         PerJobKeyList(), Short(jobs)));
    }
    if (user.contains("job") && user.at("job").is_object() && user.at("job").contains("enabled")
        && user.at("job").at("enabled") == false)
    {
        Fail(source, "job.enabled", "expected true with `jobs` (every job in the list runs)");
    }
    for (size_t i = 0; i < jobs.size(); ++i)
    {
        const std::string where = fmt::format("jobs[{}]", i);
        if (!jobs[i].is_object())
        {
            Fail(source, where,
                 fmt::format("expected an object of {}; got {}", PerJobKeyList(), Short(jobs[i])));
        }
        std::vector<std::pair<std::string, json>> leaves;
        Leaves(jobs[i], "job", leaves);
        for (const auto& [key, value] : leaves)
        {
            if (!IsPerJobKey(key))
            {
                const bool shared = FindKey(ScenarioKeys(), key) != nullptr;
                Fail(source, EntryKey(i, key),
                     shared ? fmt::format("the same for every job (an ns-3 attribute): set it "
                                          "as {} instead",
                                          key)
                            : fmt::format("unknown key (a job's keys: {})", PerJobKeyList()));
            }
            CheckValue(source, EntryKey(i, key), *FindKey(ScenarioKeys(), key), value);
        }
    }
}

json
JobView(const json& user, size_t index)
{
    json view = user;
    view.erase("jobs");
    if (!view.contains("job"))
    {
        view["job"] = json::object();
    }
    view["job"].merge_patch(user.at("jobs").at(index));
    return view;
}

Scenario
NameJobErrors(size_t index, const std::function<Scenario()>& resolve)
{
    try
    {
        return resolve();
    }
    catch (const ScenarioError& e)
    {
        std::string what = e.what();
        const std::string key = "key 'job.";
        if (auto at = what.find(key); at != std::string::npos)
        {
            what.replace(at, key.size(), fmt::format("key 'jobs[{}].", index));
        }
        throw ScenarioError(what);
    }
}

void
CheckJobsTogether(const Scenario& s)
{
    std::map<std::string, size_t> names;
    std::map<uint32_t, size_t> hostJob;
    bool rdma = false;
    for (size_t i = 0; i < s.jobs.size(); ++i)
    {
        const Scenario& job = s.jobs[i];
        rdma = rdma || job.transport == "rdma";
        if (auto [it, fresh] = names.emplace(job.jobName, i); !fresh)
        {
            Fail(s.source, fmt::format("jobs[{}].name", i),
                 fmt::format("expected a name of its own: \"{}\" is also jobs[{}]'s", job.jobName,
                             it->second));
        }
        for (uint32_t h : job.jobHosts)
        {
            if (auto [it, fresh] = hostJob.emplace(h, i); !fresh)
            {
                Fail(s.source, fmt::format("jobs[{}].hosts", i),
                     fmt::format("S{} is also a host of jobs[{}] (\"{}\"): expected each host in "
                                 "one job{}",
                                 h, it->second, s.jobs[it->second].jobName,
                                 job.jobHostsText.empty() ? " (hosts empty: the configuration's)"
                                                          : ""));
            }
        }
    }
    if (s.pfcEnabled && !rdma)
    {
        Fail(s.source, "topology.pfc.enabled",
             "PFC protects the RoCE class: expected a job with transport \"rdma\"");
    }
}

} // namespace flumen::detail
