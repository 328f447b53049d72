#include "series-manifest.h"

#include "input-file.h"

#include <fmt/format.h>

#include <algorithm>

#include <cmath>
#include <filesystem>
#include <map>
#include <set>

namespace flumen
{

using nlohmann::json;

namespace
{

[[noreturn]] void
Fail(const std::string& manifest, const std::string& key, const std::string& what)
{
    throw TraceError(fmt::format("{}: key '{}': {}", manifest, key, what));
}

// The keys an object may have; anything else is a typo the user should hear about.
void
CheckKeys(const std::string& manifest, const std::string& where, const json& obj,
          const std::set<std::string>& allowed)
{
    if (!obj.is_object())
    {
        Fail(manifest, where, fmt::format("expected an object, got {}", obj.dump()));
    }
    for (auto it = obj.begin(); it != obj.end(); ++it)
    {
        if (!allowed.count(it.key()))
        {
            std::string list;
            for (const auto& a : allowed)
            {
                list += (list.empty() ? "" : ", ") + a;
            }
            Fail(manifest, where.empty() ? it.key() : where + "." + it.key(),
                 fmt::format("unknown key (known: {})", list));
        }
    }
}

std::string
String(const std::string& manifest, const json& obj, const std::string& where,
       const std::string& key, const std::vector<std::string>& choices = {})
{
    std::string path = where.empty() ? key : where + "." + key;
    if (!obj.contains(key) || !obj.at(key).is_string())
    {
        Fail(manifest, path, "expected a string");
    }
    std::string v = obj.at(key).get<std::string>();
    if (!choices.empty() && std::find(choices.begin(), choices.end(), v) == choices.end())
    {
        std::string list;
        for (const auto& c : choices)
        {
            list += (list.empty() ? "" : ", ") + c;
        }
        Fail(manifest, path, fmt::format("expected one of {}, got '{}'", list, v));
    }
    return v;
}

double
Number(const std::string& manifest, const json& obj, const std::string& where,
       const std::string& key)
{
    std::string path = where.empty() ? key : where + "." + key;
    if (!obj.contains(key) || !obj.at(key).is_number())
    {
        Fail(manifest, path, "expected a number");
    }
    return obj.at(key).get<double>();
}

// The optional partial scenario of obj (`where` names obj; "" the manifest's top level): an
// object, or none; `runs` says whose runs it is set in, for the message.
json
ScenarioAt(const std::string& manifest, const json& obj, const std::string& where,
           const std::string& runs)
{
    if (!obj.contains("scenario"))
    {
        return json::object();
    }
    if (!obj.at("scenario").is_object())
    {
        Fail(manifest, where.empty() ? "scenario" : where + ".scenario",
             "expected an object (scenario keys to set in " + runs + ")");
    }
    return obj.at("scenario");
}

} // namespace

Series
LoadSeries(const std::string& manifestPath)
{
    const InputFile manifest = ReadInputFile(manifestPath);
    if (!manifest.problem.empty())
    {
        throw TraceError(
            fmt::format("{}: cannot open the manifest: {}", manifestPath, manifest.problem));
    }
    json m;
    try
    {
        m = json::parse(manifest.text);
    }
    catch (const json::exception& e) // parse_error, or out_of_range: a number beyond a double
    {
        throw TraceError(fmt::format("{}: invalid JSON: {}", manifestPath, e.what()));
    }
    const std::string& mp = manifestPath;
    CheckKeys(mp, "", m,
              { "name", "description", "folder", "experiment", "scenario", "models", "cdfs",
                "ring_bandwidth" });
    Series s;
    s.manifest = mp;
    s.name = String(mp, m, "", "name");
    s.description = m.contains("description") ? String(mp, m, "", "description") : "";
    std::filesystem::path folder
        = std::filesystem::path(mp).parent_path() / String(mp, m, "", "folder");
    const json& e = m.contains("experiment") ? m.at("experiment") : json();
    CheckKeys(mp, "experiment", e, { "configuration", "transport", "workers", "cross_traffic" });
    s.configuration = String(mp, e, "experiment", "configuration", { "A", "B" });
    s.transport = String(mp, e, "experiment", "transport", { "rdma", "tcp" });
    const double workers = Number(mp, e, "experiment", "workers");
    if (!(workers >= 1 && workers <= 1024 && workers == std::floor(workers)))
    {
        Fail(mp, "experiment.workers",
             fmt::format("expected a whole number of workers from 1 to "
                         "1024, got {}",
                         e.at("workers").dump()));
    }
    s.workers = static_cast<int>(workers);
    s.crossTraffic
        = String(mp, e, "experiment", "cross_traffic", { "iperf", "websearch", "burst" });
    s.scenario = ScenarioAt(mp, m, "", "every simulated run of the series");
    auto file = [&](const json& obj, const std::string& where)
    { return (folder / String(mp, obj, where, "file")).lexically_normal().string(); };

    const json models = m.value("models", json::array());
    if (!models.is_array())
    {
        Fail(mp, "models", "expected an array of {model, iterations, ...}");
    }
    for (size_t i = 0; i < models.size(); ++i)
    {
        const std::string where = fmt::format("models[{}]", i);
        const json& md = models[i];
        CheckKeys(mp, where, md,
                  { "model", "iterations", "cross_traffic", "idle_index", "index_is_requested_gbps",
                    "scenario" });
        const std::string model = String(mp, md, where, "model");
        if (md.contains("scenario"))
        {
            const json own = ScenarioAt(mp, md, where, "this model's runs, over the series'");
            auto [at, added] = s.modelScenario.emplace(model, own);
            if (!added && at->second != own)
            {
                Fail(mp, where + ".scenario",
                     fmt::format("expected the same scenario as the model's earlier entry ({})",
                                 at->second.dump()));
            }
        }
        if (md.contains("index_is_requested_gbps")
            && !md.at("index_is_requested_gbps").is_boolean())
        {
            Fail(mp, where + ".index_is_requested_gbps", "expected true or false");
        }
        const bool requested = md.value("index_is_requested_gbps", false);
        const bool hasIdle = md.contains("idle_index") && !md.at("idle_index").is_null();
        const double idleIndex = hasIdle ? Number(mp, md, where, "idle_index") : -1;

        // Measured cross traffic by index.
        std::map<double, CrossTrafficRow> measured;
        if (md.contains("cross_traffic"))
        {
            const json& ct = md.at("cross_traffic");
            const std::string w = where + ".cross_traffic";
            CheckKeys(mp, w, ct, { "file", "format", "unit" });
            std::string unit = ct.contains("unit") ? String(mp, ct, w, "unit") : "Gbps";
            for (const auto& r : ReadCrossTraffic(file(ct, w), String(mp, ct, w, "format"), unit))
            {
                measured[r.index] = r;
            }
        }

        // Iteration summaries, from one or more files, joined on index.
        if (!md.contains("iterations") || !md.at("iterations").is_array())
        {
            Fail(mp, where + ".iterations", "expected an array of {file, format}");
        }
        for (const auto& it : md.at("iterations"))
        {
            const std::string w = where + ".iterations";
            CheckKeys(mp, w, it, { "file", "format" });
            const std::string path = file(it, w);
            for (const auto& r : ReadIterationSummary(path, String(mp, it, w, "format")))
            {
                SeriesPoint p;
                p.model = model;
                p.index = r.index;
                p.meanS = r.meanS;
                p.stdevS = r.stdevS;
                p.p99S = r.p99S;
                p.samples = r.samples;
                p.idle = hasIdle && r.index == idleIndex;
                p.requestedGbps = requested ? r.index : (p.idle ? 0.0 : kUnknown);
                if (p.idle)
                {
                    p.measuredGbps = 0.0; // the run without cross traffic has no bw row
                }
                else if (auto b = measured.find(r.index); b != measured.end())
                {
                    p.measuredGbps = b->second.gbps;
                    p.measuredStdevGbps = b->second.stdevGbps;
                }
                p.source = fmt::format("{}:{}", path, r.line);
                s.points.push_back(p);
            }
        }
    }

    const json cdfs = m.value("cdfs", json::array());
    if (!cdfs.is_array())
    {
        Fail(mp, "cdfs", "expected an array of {file, model, requested_gbps, transport}");
    }
    for (size_t i = 0; i < cdfs.size(); ++i)
    {
        const std::string where = fmt::format("cdfs[{}]", i);
        const json& c = cdfs[i];
        CheckKeys(mp, where, c, { "file", "model", "requested_gbps", "transport", "scenario" });
        SeriesCdf cdf;
        cdf.file = file(c, where);
        cdf.model = String(mp, c, where, "model");
        cdf.requestedGbps = Number(mp, c, where, "requested_gbps");
        cdf.transport = String(mp, c, where, "transport", { "rdma", "tcp" });
        cdf.scenario = ScenarioAt(mp, c, where, "this CDF's run, over its model's");
        cdf.points = ReadIterationCdf(cdf.file);
        s.cdfs.push_back(cdf);
    }

    const json rings = m.value("ring_bandwidth", json::array());
    if (!rings.is_array())
    {
        Fail(mp, "ring_bandwidth",
             "expected an array of {model, requested_gbps, dl_only_gbps, dl_shared_gbps, source}");
    }
    for (size_t i = 0; i < rings.size(); ++i)
    {
        const std::string where = fmt::format("ring_bandwidth[{}]", i);
        const json& r = rings[i];
        CheckKeys(mp, where, r,
                  { "model", "requested_gbps", "dl_only_gbps", "dl_shared_gbps", "source" });
        SeriesRingBandwidth rb;
        rb.model = String(mp, r, where, "model");
        rb.source = String(mp, r, where, "source");
        for (auto [key, field] : { std::pair{ "requested_gbps", &rb.requestedGbps },
                                   std::pair{ "dl_only_gbps", &rb.dlOnlyGbps },
                                   std::pair{ "dl_shared_gbps", &rb.dlSharedGbps } })
        {
            *field = Number(mp, r, where, key);
            if (!(*field > 0 && *field <= 1000))
            {
                Fail(mp, where + "." + key, fmt::format("expected Gbps above 0, got {}", *field));
            }
        }
        s.ringBandwidth.push_back(rb);
    }
    return s;
}

json
ScenarioOf(const Series& series, const std::string& model)
{
    json scenario = series.scenario;
    if (auto own = series.modelScenario.find(model); own != series.modelScenario.end())
    {
        scenario.merge_patch(own->second);
    }
    return scenario;
}

json
ScenarioOf(const Series& series, const SeriesCdf& cdf)
{
    json scenario = ScenarioOf(series, cdf.model);
    scenario.merge_patch(cdf.scenario);
    return scenario;
}

double
PointLoadGbps(const SeriesPoint& point)
{
    return std::isfinite(point.requestedGbps) && point.requestedGbps > 0 ? point.requestedGbps
                                                                         : point.measuredGbps;
}

std::vector<const SeriesPoint*>
NearIdleTcpReferences(const Series& series)
{
    std::vector<const SeriesPoint*> out;
    if (series.transport != "tcp"
        || std::any_of(series.points.begin(), series.points.end(),
                       [](const SeriesPoint& p) { return p.idle; }))
    {
        return out;
    }
    std::map<std::string, const SeriesPoint*> lowest;
    for (const auto& p : series.points)
    {
        double load = PointLoadGbps(p);
        if (std::isfinite(load)
            && (!lowest.count(p.model) || load < PointLoadGbps(*lowest[p.model])))
        {
            lowest[p.model] = &p;
        }
    }
    for (const auto& [model, p] : lowest)
    {
        if (PointLoadGbps(*p) <= kNearIdleGbps)
        {
            out.push_back(p);
        }
    }
    return out;
}

} // namespace flumen
