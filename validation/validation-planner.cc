#include "validation-planner.h"

#include "testbed-settings.h"
#include "wire-share.h"

#include "calibration-file.h"
#include "scenario.h"
#include "sweep.h"

#include "ns3/model-profile.h"
#include "ns3/star-topology-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <stdexcept>

namespace flumen::detail
{

using nlohmann::json;

std::string
RunId(const std::string& label, uint64_t seed, const json& scenario, const std::string& version)
{
    return fmt::format("{}-s{}-{}", FileSafeName(label), seed,
                       StableHash(scenario.dump() + version).substr(0, 8));
}

std::string
PacketRunId(const std::string& label, uint64_t seed, json scenario, const std::string& version)
{
    if (scenario.contains("simulation"))
    {
        scenario["simulation"].erase("engine");
    }
    return RunId(label, seed, scenario, version);
}

ValidationPlanner::ValidationPlanner(const ValidationOptions& o, const json* calibration)
    : m_options(o), m_calibration(calibration)
{
    for (const auto& [configuration, file] : o.configurationCalibration)
    {
        m_configurationCalibration[configuration] = LoadCalibration(file);
    }
    m_iterations = o.iterations ? o.iterations : (o.quick ? 3 : 8);
    m_warmup = std::min(2, m_iterations - 1);
    if (o.quick)
    {
        m_warmup = 1;
    }
}

std::string
ValidationPlanner::AddRun(const Series& s, const std::string& label, const std::string& model,
                          const std::string& transport, double loadGbps, uint64_t seed,
                          int iterations, int warmup, double maxSimS, const std::string& where,
                          int linkBinUs, const SeriesCdf* cdf)
{
    const std::string& traffic = s.crossTraffic;
    json j = {
        { "name", label },
        { "seed", seed },
        { "topology", { { "configuration", s.configuration } } },
        { "job",
          { { "model", model },
            { "transport", transport },
            { "iterations", iterations },
            { "warmup_iterations", warmup } } },
        { "outputs", { { "link_bin_us", linkBinUs } } },
        { "simulation",
          { { "progress_interval_s", 0 }, { "max_time_s", maxSimS }, { "on_max_time", "report" } } }
    };
    j["cross_traffic"] = loadGbps > 0 ? json{ { "type", traffic }, { "load_gbps", loadGbps } }
                                      : json{ { "type", "none" } };
    if (traffic == "iperf" && loadGbps > 0)
    {
        j["cross_traffic"]["streams"] = IperfStreamsFor(loadGbps);
    }
    const json own = j; // the point itself, which --set may not redefine
    j.merge_patch(cdf ? ScenarioOf(s, *cdf) : ScenarioOf(s, model));
    // Fitted values replace what the manifests declared (ApplyCalibration then keeps them).
    for (const auto& [key, value] : TestbedValues().items())
    {
        SetKey(j, key, value);
    }
    if (auto c = m_configurationCalibration.find(s.configuration);
        c != m_configurationCalibration.end())
    {
        ApplyCalibration(j, c->second, m_options.configurationCalibration.at(s.configuration));
    }
    else if (m_calibration)
    {
        ApplyCalibration(j, *m_calibration, m_options.calibrationFile);
    }
    for (const auto& assignment : m_options.settings)
    {
        const std::string key = assignment.substr(0, assignment.find('='));
        if (key == "simulation.engine" || HasPath(own, key))
        {
            throw std::invalid_argument("--set " + key + ": the validation sets it per point");
        }
        ApplyOverride(j, assignment); // an unknown key or bad value throws, naming --set
    }
    // Throws ScenarioError naming `where`.
    const std::string packetVersion = ModelVersion(ResolveScenario(j, where));
    std::string version = packetVersion;
    if (m_options.engine != "packet")
    {
        j["simulation"]["engine"] = m_options.engine;
        version = ModelVersion(ResolveScenario(j, where));
    }
    const std::string id = RunId(label, seed, j, version);
    const std::string packetId = PacketRunId(label, seed, j, packetVersion);
    if (m_ids.insert(id).second)
    {
        m_plan.runs.push_back({ id,
                                j,
                                { { "point", label },
                                  { "series", s.name },
                                  { "testbed", where },
                                  { "model_version", version },
                                  { "packet_run", packetId } } });
    }
    return id;
}

void
ValidationPlanner::AddSeries(const Series& s)
{
    json probe = s.scenario;
    ResolveScenario(probe, s.manifest + ": scenario"); // names the manifest
    for (const auto& [model, own] : s.modelScenario)
    {
        json merged = ScenarioOf(s, model);
        ResolveScenario(merged, fmt::format("{}: {}'s scenario", s.manifest, model));
    }
    for (const auto& c : s.cdfs)
    {
        json merged = ScenarioOf(s, c);
        ResolveScenario(merged, fmt::format("{}: {}'s CDF scenario", s.manifest, c.file));
    }
    const int expectWorkers = JobWorkers(s.configuration);
    if (s.workers != expectWorkers && !s.points.empty())
    {
        throw ScenarioError(
            fmt::format("{}: the series has {} workers; configuration {} runs the job on {}",
                        s.manifest, s.workers, s.configuration, expectWorkers));
    }
    std::vector<std::string> models;
    for (const auto& p : s.points)
    {
        if (std::find(models.begin(), models.end(), p.model) == models.end())
        {
            models.push_back(p.model);
        }
    }
    for (const auto& model : models)
    {
        if (!Wanted(model, s.manifest))
        {
            continue;
        }
        std::vector<const SeriesPoint*> ps;
        for (const auto& p : s.points)
        {
            if (p.model == model)
            {
                ps.push_back(&p);
            }
        }
        if (m_options.quick)
        {
            ps = QuickSubset(ps);
        }
        const auto references = NearIdleTcpReferences(s);
        // The testbed's fastest pace for this model: what a simulated-only idle reference
        // is expected to take per iteration.
        double fastest = kUnknown;
        for (const auto* p : ps)
        {
            if (std::isfinite(p->meanS) && !(p->meanS >= fastest))
            {
                fastest = p->meanS;
            }
        }
        bool hasIdle = std::any_of(ps.begin(), ps.end(), [](auto* p) { return p->idle; });
        if (!hasIdle)
        {
            // The curve and the baselines need an idle reference: simulated only.
            SeriesPoint idle;
            idle.model = model;
            idle.idle = true;
            idle.measuredGbps = 0;
            idle.index = kNoIndex;
            idle.source = s.manifest;
            AddPoint(s, idle, false, false, fastest, BudgetS(fastest));
        }
        for (const auto* p : ps)
        {
            // Idle runs calibrate the compute profiles; a TCP series' near-idle points, the
            // hosts' TCP ceiling. Both are reported, never counted as validation.
            bool calibration
                = p->idle || std::find(references.begin(), references.end(), p) != references.end();
            AddPoint(s, *p, true, calibration, p->meanS, BudgetS(fastest));
        }
    }
    for (const auto& c : s.cdfs)
    {
        if (!Wanted(c.model, s.manifest)
            || (m_options.quick && !(c.model == "resnet50" && c.requestedGbps < 10)))
        {
            continue;
        }
        PlannedCdf pc;
        pc.cdf.model = c.model;
        pc.cdf.transport = c.transport;
        pc.cdf.configuration = s.configuration;
        pc.cdf.requestedGbps = c.requestedGbps;
        pc.cdf.file = c.file;
        pc.cdf.measured = c.points;
        // Enough iterations for a distribution: several times the point runs' count, and
        // at flow level (cheap) or when asked, hundreds, as the testbed's CDFs hold.
        int iterations = m_options.quick                ? 6
                         : m_options.cdfIterations > 0  ? m_options.cdfIterations
                         : m_options.engine != "packet" ? 300
                                                        : std::max(30, m_iterations);
        double sum = 0;
        for (const auto& q : c.points)
        {
            sum += q.seconds;
        }
        // Every CDF row is one iteration, so their mean is the run's pace.
        const double pace = c.points.empty() ? kUnknown : sum / c.points.size();
        pc.budgetS = BudgetS(pace);
        if ((m_options.cdfIterations > 0 || m_options.engine != "packet") && pace > 0)
        {
            // Room for every iteration at twice the testbed's pace.
            pc.budgetS = std::max(pc.budgetS, 2 * (iterations + 0.5) * pace);
        }
        pc.runId = AddRun(
            s, fmt::format("{}-cdf-{}-{}G-{}", s.name, c.model, c.requestedGbps, c.transport),
            c.model, c.transport, c.requestedGbps, 1, iterations, m_warmup, pc.budgetS, c.file, 0,
            &c);
        m_plan.cdfs.push_back(pc);
    }
    for (const auto& rb : s.ringBandwidth)
    {
        if (m_options.quick || !Wanted(rb.model, s.manifest))
        {
            continue;
        }
        // The testbed's pace at the series' point nearest the load: as many iterations as
        // fit the budget there, at least 3.
        const SeriesPoint* nearest = nullptr;
        for (const auto& p : s.points)
        {
            if (p.model == rb.model && std::isfinite(PointLoadGbps(p))
                && (!nearest
                    || std::abs(PointLoadGbps(p) - rb.requestedGbps)
                           < std::abs(PointLoadGbps(*nearest) - rb.requestedGbps)))
            {
                nearest = &p;
            }
        }
        const double pace = nearest ? nearest->meanS : kUnknown;
        const double budget = BudgetS(pace);
        const int iterations = IterationsWithin(budget, pace);
        PlannedRing pr;
        pr.ring.series = s.name;
        pr.ring.published = rb;
        // Bins of 100 us: about the 30-50 packet moving average the thesis used.
        pr.runId
            = AddRun(s, fmt::format("{}-ring-{}-{}G", s.name, rb.model, rb.requestedGbps), rb.model,
                     s.transport, rb.requestedGbps, 1, iterations, iterations >= 5 ? m_warmup : 1,
                     budget, s.manifest + ": ring_bandwidth", 100);
        m_plan.rings.push_back(pr);
    }
}

const json&
ValidationPlanner::TestbedValues() const
{
    static const json none = json::object();
    if (!m_options.testbedValues.empty())
    {
        return m_options.testbedValues;
    }
    if (m_calibration && m_calibration->contains("testbed"))
    {
        return (*m_calibration)["testbed"]["values"];
    }
    return none;
}

double
ValidationPlanner::BudgetS(double paceS) const
{
    double paced = (m_options.budgetIterations + 0.5) * paceS;
    return m_options.budgetIterations > 0 && paceS > 0 ? std::max(m_options.maxSimS, paced)
                                                       : m_options.maxSimS;
}

int
ValidationPlanner::IterationsWithin(double budgetS, double paceS) const
{
    if (!(paceS > 0))
    {
        return m_iterations;
    }
    return static_cast<int>(std::clamp(std::floor(budgetS / paceS), 3.0, double(m_iterations)));
}

bool
ValidationPlanner::Wanted(const std::string& model, const std::string& manifest)
{
    if (!m_options.models.empty() && !m_options.models.count(model))
    {
        return false;
    }
    if (m_options.quick && model != "resnet50")
    {
        return false;
    }
    if (!ns3::ModelProfile::BuiltIn(model))
    {
        std::cerr << "flumen validate: " << manifest << ": model '" << model
                  << "' is not built in; skipped\n";
        return false;
    }
    return true;
}

std::vector<const SeriesPoint*>
ValidationPlanner::QuickSubset(const std::vector<const SeriesPoint*>& ps)
{
    std::vector<const SeriesPoint*> out;
    for (auto* p : ps)
    {
        if (p->idle)
        {
            out.push_back(p);
        }
    }
    for (double target : { 8.0, 18.0 })
    {
        const SeriesPoint* best = nullptr;
        for (auto* p : ps)
        {
            if (!p->idle && std::isfinite(p->measuredGbps)
                && (!best
                    || std::abs(p->measuredGbps - target) < std::abs(best->measuredGbps - target)))
            {
                best = p;
            }
        }
        if (best && std::find(out.begin(), out.end(), best) == out.end())
        {
            out.push_back(best);
        }
    }
    return out;
}

void
ValidationPlanner::AddPoint(const Series& s, const SeriesPoint& sp, bool testbed, bool calibration,
                            double paceS, double budgetS)
{
    PlannedPoint pp;
    ValidatedPoint& v = pp.point;
    v.series = s.name;
    v.model = sp.model;
    v.transport = s.transport;
    v.configuration = s.configuration;
    v.traffic = s.crossTraffic;
    v.index = sp.index == kNoIndex ? kUnknown : sp.index;
    v.requestedGbps = sp.requestedGbps;
    v.measuredGbps = sp.idle ? 0.0 : sp.measuredGbps;
    v.idle = sp.idle;
    v.testbed = testbed;
    v.calibration = calibration;
    v.source = sp.source;
    if (testbed)
    {
        v.testbedMeanS = sp.meanS;
        v.testbedP99S = sp.p99S;
    }
    if (!sp.idle)
    {
        v.offeredGbps = PointLoadGbps(sp);
        if (!(v.offeredGbps > 0))
        {
            throw ScenarioError(
                fmt::format("{}: no cross-traffic rate for this point (neither requested "
                            "nor measured)",
                            sp.source));
        }
    }
    std::string label
        = fmt::format("{}-{}-{}", s.name, sp.model,
                      sp.idle ? std::string("idle") : fmt::format("{:.3f}G", v.offeredGbps));
    const int iterations = IterationsWithin(budgetS, paceS);
    int warmup = iterations >= 5 ? m_warmup : std::min(m_warmup, 1);
    v.iterations = iterations;
    v.warmup = warmup;
    // Seed 1 here; congested points get more seeds once the whole plan is known.
    pp.runIds.push_back(AddRun(s, label, sp.model, s.transport, v.offeredGbps, 1, iterations,
                               warmup, budgetS, sp.source));
    if (testbed)
    {
        const auto run = std::find_if(m_plan.runs.begin(), m_plan.runs.end(),
                                      [&pp](const PoolPoint& r) { return r.id == pp.runIds[0]; });
        v.testbedWireShare = TestbedWireShare(ResolveScenario(run->scenario, sp.source),
                                              v.measuredGbps, v.testbedMeanS);
    }
    m_plan.points.push_back(std::move(pp));
}

} // namespace flumen::detail
