#include "sweep.h"

#include "atomic-file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

namespace flumen
{

using nlohmann::json;

namespace
{

[[noreturn]] void
Fail(const std::string& source, const std::string& what)
{
    throw ScenarioError(fmt::format("{}: {}", source, what));
}

// Calls `f(holder, key)` for every key of a scenario that names an input file: the
// cross-traffic's CDF and load file, each user model's layers file.
template <typename F>
void
ForEachFileKey(json& scenario, F f)
{
    auto visit = [&](json& holder, const char* key)
    {
        if (holder.is_object() && holder.contains(key) && holder[key].is_string()
            && !holder[key].get<std::string>().empty())
        {
            f(holder, key);
        }
    };
    if (scenario.contains("cross_traffic"))
    {
        visit(scenario["cross_traffic"], "size_cdf");
        visit(scenario["cross_traffic"], "file");
    }
    if (scenario.contains("models") && scenario["models"].is_object())
    {
        for (auto& model : scenario["models"])
        {
            visit(model, "layers_file");
        }
    }
}

// Paths in the base are relative to its file; points run from their own folders.
void
AbsolutisePaths(json& scenario, const std::filesystem::path& baseDir)
{
    ForEachFileKey(scenario,
                   [&](json& holder, const char* key)
                   {
                       std::string p = holder[key].get<std::string>();
                       if (std::filesystem::path(p).is_relative())
                       {
                           holder[key]
                               = std::filesystem::absolute(baseDir / p).lexically_normal().string();
                       }
                   });
}

// The contents of a point's input files, hashed: a point is redone when a file it reads
// changes, not only when its scenario does.
std::string
InputFilesIdentity(json scenario)
{
    std::string identity;
    ForEachFileKey(scenario,
                   [&](json& holder, const char* key)
                   {
                       const std::string path = holder[key].get<std::string>();
                       identity += " " + path + "=" + StableHash(ReadTextFile(path));
                   });
    return identity;
}

std::string
Cell(const json& v)
{
    return v.is_string() ? v.get<std::string>() : v.dump();
}

} // namespace

Sweep
LoadSweep(const std::string& path, const json& extraGrid)
{
    json s = LoadScenarioFile(path, "sweep file"); // same syntax errors, with line and column
    Sweep sweep;
    sweep.source = path;
    for (auto it = s.begin(); it != s.end(); ++it)
    {
        if (it.key() != "base" && it.key() != "base_file" && it.key() != "grid"
            && it.key() != "seeds")
        {
            Fail(path, fmt::format("key '{}': unknown key (known: base, base_file, grid, seeds)",
                                   it.key()));
        }
    }
    const std::filesystem::path dir = std::filesystem::path(path).parent_path();
    json base = json::object();
    std::filesystem::path baseDir = dir;
    if (s.contains("base") && s.contains("base_file"))
    {
        Fail(path, "key 'base_file': expected either base or base_file, not both");
    }
    if (s.contains("base"))
    {
        if (!s["base"].is_object())
        {
            Fail(path, "key 'base': expected a scenario object");
        }
        base = s["base"];
    }
    else if (s.contains("base_file"))
    {
        if (!s["base_file"].is_string() || s["base_file"].get<std::string>().empty())
        {
            Fail(path, "key 'base_file': expected the path of a scenario file");
        }
        std::filesystem::path bf = dir / s["base_file"].get<std::string>();
        base = LoadScenarioFile(bf.string());
        baseDir = bf.parent_path();
    }
    AbsolutisePaths(base, baseDir);

    json grid = s.value("grid", json::object());
    if (!grid.is_object())
    {
        Fail(path, "key 'grid': expected an object of scenario key -> list of values");
    }
    for (auto it = extraGrid.begin(); it != extraGrid.end(); ++it)
    {
        if (grid.contains(it.key()))
        {
            Fail(path, fmt::format("key 'grid.{}': the command line sweeps this key itself; "
                                   "remove it from the grid",
                                   it.key()));
        }
        grid[it.key()] = it.value();
    }
    std::vector<std::vector<json>> values;
    for (auto it = grid.begin(); it != grid.end(); ++it)
    {
        if (!it.value().is_array() || it.value().empty())
        {
            Fail(path, fmt::format("key 'grid.{}': expected a non-empty list of values", it.key()));
        }
        json probe = base;
        try
        {
            SetKey(probe, it.key(), it.value()[0]);
        }
        catch (const ScenarioError& e)
        {
            Fail(path, fmt::format("grid: {}", e.what()));
        }
        sweep.keys.push_back(it.key());
        values.push_back(it.value().get<std::vector<json>>());
    }
    std::vector<uint64_t> seeds;
    // Without "seeds", the base's seed (checked here: json::value would throw type_error on a
    // string and convert a double beyond an int, undefined behaviour).
    json seedList = json::array({ 1 });
    if (s.contains("seeds"))
    {
        seedList = s["seeds"];
    }
    else if (base.contains("seed"))
    {
        if (!base["seed"].is_number_integer())
        {
            Fail(path, fmt::format("key 'base.seed': expected a whole number from 1, got {}",
                                   base["seed"].dump()));
        }
        seedList = json::array({ base["seed"] });
    }
    if (!seedList.is_array() || seedList.empty())
    {
        Fail(path, "key 'seeds': expected a non-empty list of whole numbers");
    }
    for (const auto& v : seedList)
    {
        if (!v.is_number_integer() || v.get<int64_t>() < 1)
        {
            Fail(path, fmt::format("key 'seeds': expected whole numbers from 1, got {}", v.dump()));
        }
        seeds.push_back(v.get<uint64_t>());
    }

    // The cartesian product, last key fastest, then seeds.
    size_t combinations = 1;
    for (const auto& v : values)
    {
        combinations *= v.size();
    }
    for (size_t n = 0; n < combinations; ++n)
    {
        std::vector<size_t> at(values.size());
        size_t rest = n;
        for (size_t k = values.size(); k-- > 0;)
        {
            at[k] = rest % values[k].size();
            rest /= values[k].size();
        }
        for (uint64_t seed : seeds)
        {
            SweepPoint p;
            p.seed = seed;
            p.scenario = base;
            std::string identity;
            for (size_t k = 0; k < values.size(); ++k)
            {
                p.assignments.emplace_back(sweep.keys[k], values[k][at[k]]);
                SetKey(p.scenario, sweep.keys[k], values[k][at[k]]);
                identity += sweep.keys[k] + "=" + values[k][at[k]].dump() + " ";
            }
            identity += "seed=" + std::to_string(seed);
            p.scenario["seed"] = seed;
            // Swept file paths are relative to the sweep file; points run from DIR/points.
            AbsolutisePaths(p.scenario, dir);
            // Resolved now: a bad value fails the sweep before any point runs.
            Scenario resolved
                = ResolveScenario(p.scenario, fmt::format("{} (point {})", path, identity));
            // The model version too: a resumed sweep never mixes results of two models.
            p.id = StableHash(identity + " base=" + base.dump() + " model=" + ModelVersion(resolved)
                              + InputFilesIdentity(p.scenario));
            if (sweep.points.empty())
            {
                for (const Scenario& job : resolved.jobs)
                {
                    sweep.jobNames.push_back(job.jobName);
                }
            }
            sweep.points.push_back(std::move(p));
        }
    }
    return sweep;
}

namespace
{

// Each job's columns: its mean and p99 iteration time, its goodput, and the share of its
// all-reduce time beside other jobs' (comm-phases.h).
const std::vector<std::string> kJobColumns
    = { "iteration_mean_s", "iteration_p99_s", "dl_goodput_gbps", "comm_overlap" };

} // namespace

std::vector<std::string>
ResultColumns(const Sweep& sweep)
{
    std::vector<std::string> c = { "point", "status", "seed" };
    c.insert(c.end(), sweep.keys.begin(), sweep.keys.end());
    for (const char* m : { "iterations", "iteration_mean_s", "iteration_stdev_s", "iteration_p50_s",
                           "iteration_p99_s", "cross_offered_gbps", "cross_achieved_gbps",
                           "dl_goodput_gbps", "bottleneck_utilization", "bottleneck_drops",
                           "bottleneck_ecn_marks", "simulated_time_s", "wall_time_s" })
    {
        c.push_back(m);
    }
    for (const auto& job : sweep.jobNames)
    {
        for (const auto& m : kJobColumns)
        {
            c.push_back(job + "." + m);
        }
    }
    c.push_back("error");
    return c;
}

std::vector<std::string>
ResultRow(const Sweep& sweep, const SweepPoint& point, const RunSummary* summary,
          const std::string& status, const std::string& error)
{
    std::vector<std::string> r = { point.id, status, std::to_string(point.seed) };
    for (const auto& [key, value] : point.assignments)
    {
        r.push_back(Cell(value));
    }
    if (summary)
    {
        const RunSummary& s = *summary;
        const SummaryStatistics& it = s.iterationTimeS;
        for (const json& v :
             { json(s.iterations), json(it.mean), json(it.stdev), json(it.p50), json(it.p99),
               json(s.crossTraffic.offeredGbps), json(s.crossTraffic.achievedGbps),
               json(s.dlGoodputGbps), json(s.bottleneck.utilization), json(s.bottleneck.drops),
               json(s.bottleneck.ecnMarks), json(s.simulatedTimeS), json(s.wallTimeS) })
        {
            r.push_back(Cell(v));
        }
        // Jobs by position (a grid may rename them); a point with fewer leaves cells empty.
        for (size_t j = 0; j < sweep.jobNames.size(); ++j)
        {
            if (j < s.jobs.size())
            {
                const JobSummary& job = s.jobs[j];
                for (const json& v :
                     { json(job.iterationTimeS.mean), json(job.iterationTimeS.p99),
                       json(job.dlGoodputGbps),
                       job.commOverlap ? json(*job.commOverlap) : json(std::string()) })
                {
                    r.push_back(Cell(v));
                }
            }
            else
            {
                r.resize(r.size() + kJobColumns.size());
            }
        }
    }
    else
    {
        r.resize(r.size() + 13 + sweep.jobNames.size() * kJobColumns.size());
    }
    r.push_back(error);
    return r;
}

std::string
StableHash(const std::string& text)
{
    // FNV-1a, 64 bits: identity, not security.
    uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : text)
    {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return fmt::format("{:016x}", h);
}

std::string
SweepId(const Sweep& sweep)
{
    std::string ids;
    for (const auto& p : sweep.points)
        ids += p.id + "\n";
    return StableHash(ids);
}

} // namespace flumen
