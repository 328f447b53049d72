#include "testbed-fit.h"

#include "flow-network.h"
#include "point-pool.h"
#include "scenario-keys.h"
#include "scenario.h"
#include "slurm-pool.h"
#include "validation-collate.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

// Keys the validation plan sets per point, or that are not physics of the testbed.
bool
SetPerPoint(const std::string& key)
{
    for (const char* prefix :
         { "seed", "name", "topology.configuration", "topology.hosts", "job.model", "job.transport",
           "job.iterations", "job.warmup_iterations", "job.enabled", "cross_traffic.type",
           "cross_traffic.load_gbps", "cross_traffic.streams", "cross_traffic.file",
           "cross_traffic.size_cdf", "simulation.", "outputs." })
    {
        if (key.rfind(prefix, 0) == 0)
        {
            return true;
        }
    }
    return false;
}

} // namespace

double
ParseNumber(const std::string& text, const std::string& what)
{
    size_t used = 0;
    double v = std::numeric_limits<double>::quiet_NaN();
    try
    {
        v = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (used == 0 || used != text.size() || !std::isfinite(v))
    {
        throw std::invalid_argument(fmt::format("{}: expected a number, got '{}'", what, text));
    }
    return v;
}

FitParameter
ParseFitParameter(const std::string& text, const std::string& engine)
{
    const std::string usage = "expected --fit key=lo:hi, e.g. job.tcp.host_ceiling_gbps=8:14";
    auto eq = text.find('=');
    auto colon = text.find(':', eq == std::string::npos ? 0 : eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos)
    {
        throw std::invalid_argument(fmt::format("--fit '{}': {}", text, usage));
    }
    FitParameter p;
    p.key = text.substr(0, eq);
    const KeySpec* spec = FindKey(ScenarioKeys(), p.key);
    if (!spec)
    {
        throw std::invalid_argument(
            fmt::format("--fit {}: unknown key (see ./flumen keys)", p.key));
    }
    if (spec->type != KeyType::Integer && spec->type != KeyType::Number)
    {
        throw std::invalid_argument(fmt::format(
            "--fit {}: a {} key; only numeric keys can be fitted", p.key, TypeName(spec->type)));
    }
    if (SetPerPoint(p.key))
    {
        throw std::invalid_argument(fmt::format(
            "--fit {}: the validation sets this key for each testbed point; it is not a "
            "testbed parameter",
            p.key));
    }
    if (p.key == "job.compute_s" || p.key == "job.compute_jitter_cv")
    {
        throw std::invalid_argument(
            fmt::format("--fit {}: compute profiles come from the runs without cross traffic only "
                        "(flumen calibrate fits them there)",
                        p.key));
    }
    if (engine == "flow" || engine == "auto")
    {
        for (const auto& ignored : FlowEngineIgnoredKeys())
        {
            std::string prefix = ignored.substr(0, ignored.find(' '));
            if (p.key.rfind(prefix, 0) == 0)
            {
                throw std::invalid_argument(fmt::format(
                    "--fit {}: the flow engine does not model it (docs/flow-engine.md); fit it "
                    "with --engine packet",
                    p.key));
            }
        }
    }
    p.range.lo = ParseNumber(text.substr(eq + 1, colon - eq - 1), "--fit " + p.key + ": lo");
    p.range.hi = ParseNumber(text.substr(colon + 1), "--fit " + p.key + ": hi");
    p.range.integer = spec->type == KeyType::Integer;
    if (!(p.range.lo < p.range.hi) || p.range.lo < spec->min || p.range.hi > spec->max)
    {
        throw std::invalid_argument(
            fmt::format("--fit {}: expected lo < hi within the key's range [{}, {}], got {}:{}",
                        p.key, spec->min, spec->max, p.range.lo, p.range.hi));
    }
    if (p.range.integer && std::round(p.range.hi) - std::round(p.range.lo) < 1)
    {
        throw std::invalid_argument(
            fmt::format("--fit {}: an integer key needs a range holding two integers", p.key));
    }
    p.range.logScale = p.range.lo > 0 && p.range.hi >= 10 * p.range.lo;
    return p;
}

FitWeights
ParseObjective(const std::string& text)
{
    FitWeights w;
    std::stringstream ss(text);
    std::string term;
    while (std::getline(ss, term, ','))
    {
        auto eq = term.find('=');
        std::string name = term.substr(0, eq);
        double* target = name == "mean"    ? &w.mean
                         : name == "cross" ? &w.cross
                         : name == "p99"   ? &w.p99
                                           : nullptr;
        if (!target || eq == std::string::npos)
        {
            throw std::invalid_argument(
                fmt::format("--objective: expected terms mean=W,cross=W,p99=W, got '{}'", term));
        }
        *target = ParseNumber(term.substr(eq + 1), "--objective " + name);
        if (*target < 0)
        {
            throw std::invalid_argument(
                fmt::format("--objective {}: expected a weight of 0 or more", name));
        }
    }
    if (!(w.mean + w.cross + w.p99 > 0))
    {
        throw std::invalid_argument("--objective: at least one term needs a weight above 0");
    }
    return w;
}

FitTerms
ObjectiveTerms(const std::vector<ValidatedPoint>& points, const FitWeights& weights)
{
    FitTerms t;
    double mean = 0, cross = 0, p99 = 0;
    for (const auto& v : points)
    {
        if (!v.testbed || v.idle || v.calibration)
        {
            continue;
        }
        bool censored = std::isfinite(v.simMeanLowerBoundS);
        if (!std::isfinite(v.simMeanS) && !censored)
        {
            ++t.missing;
            continue;
        }
        if (v.testbedMeanS > 0)
        {
            double e = censored ? std::max(0.0, std::log(v.simMeanLowerBoundS / v.testbedMeanS))
                                : std::log(v.simMeanS / v.testbedMeanS);
            if (!censored || e > 0)
            {
                mean += e * e;
                ++t.meanPoints;
            }
        }
        if (!censored && v.testbedP99S > 0 && v.simP99S > 0)
        {
            double e = std::log(v.simP99S / v.testbedP99S);
            p99 += e * e;
            ++t.p99Points;
        }
        if (v.measuredGbps > 0 && v.simAchievedGbps > 0)
        {
            double e = std::log(v.simAchievedGbps / v.measuredGbps);
            cross += e * e;
            ++t.crossPoints;
        }
    }
    auto term = [](double sum, int n) { return n > 0 ? sum / n : 0.0; };
    t.meanRms = std::sqrt(term(mean, t.meanPoints));
    t.crossRms = std::sqrt(term(cross, t.crossPoints));
    t.p99Rms = std::sqrt(term(p99, t.p99Points));
    t.loss = t.missing > 0 ? std::numeric_limits<double>::infinity()
                           : weights.mean * term(mean, t.meanPoints)
                                 + weights.cross * term(cross, t.crossPoints)
                                 + weights.p99 * term(p99, t.p99Points);
    return t;
}

std::string
DescribeValues(const json& values)
{
    std::string out;
    for (const auto& [key, v] : values.items())
    {
        out += fmt::format("{}{}={}", out.empty() ? "" : ", ", key,
                           v.is_number_integer() ? v.dump()
                                                 : fmt::format("{:.6g}", v.get<double>()));
    }
    return out;
}

namespace
{

json
ValuesOf(const std::vector<FitParameter>& parameters, const std::vector<double>& x)
{
    json values = json::object();
    for (size_t k = 0; k < parameters.size(); ++k)
    {
        if (parameters[k].range.integer)
        {
            values[parameters[k].key] = static_cast<int64_t>(std::llround(x[k]));
        }
        else
        {
            values[parameters[k].key] = x[k];
        }
    }
    return values;
}

// A candidate's plan, reduced to the runs of the points the objective counts.
ValidationPlan
CandidatePlan(const TestbedFitRequest& r, const json& values)
{
    ValidationOptions o = r.base;
    for (const auto& [key, v] : values.items())
    {
        o.testbedValues[key] = v;
    }
    ValidationPlan plan = PlanValidation(o);
    KeepPointRuns(plan,
                  [](const ValidatedPoint& v) { return v.testbed && !v.idle && !v.calibration; });
    return plan;
}

} // namespace

TestbedFit
FitTestbed(const TestbedFitRequest& r)
{
    if (r.parameters.empty())
    {
        throw std::invalid_argument("no parameter to fit (--fit key=lo:hi)");
    }
    TestbedFit fit;
    // Plans the start now: bad input fails here, before any run.
    ValidationPlan startPlan = CandidatePlan(r, json::object());
    if (startPlan.runs.empty())
    {
        throw std::invalid_argument("no testbed point under load to fit on in the series given");
    }
    for (const auto& pp : startPlan.points)
    {
        if (std::find(fit.series.begin(), fit.series.end(), pp.point.series) == fit.series.end())
        {
            fit.series.push_back(pp.point.series);
        }
    }
    // Start where the runs are now (the manifests' declared values, or the key's default),
    // or mid-range when that is outside the range searched.
    const json resolved
        = ResolveScenario(startPlan.runs.front().scenario, "the fit's first run").resolved;
    std::vector<SearchDimension> dims;
    std::vector<double> start;
    for (const auto& p : r.parameters)
    {
        dims.push_back(p.range);
        double now = ValueAt(resolved, p.key).get<double>();
        start.push_back(now >= p.range.lo && now <= p.range.hi ? now
                                                               : DimensionValue(p.range, 0.5));
    }
    fit.start = ValuesOf(r.parameters, start);

    // A fit runs many short batches: a progress line every 10 s at most.
    const PoolOptions pool = ValidationPool(r.base, r.label, 10);
    int evaluated = 0;
    // What each candidate derives, by its values (each worked out once).
    std::map<std::string, json> derived;
    auto withDerived = [&](const std::vector<json>& batch)
    {
        std::vector<json> missing;
        for (const json& v : batch)
        {
            if (r.derive && !derived.count(v.dump()))
            {
                missing.push_back(v);
            }
        }
        if (!missing.empty())
        {
            const std::vector<json> got = r.derive(missing);
            for (size_t i = 0; i < missing.size(); ++i)
            {
                derived[missing[i].dump()] = got.at(i);
            }
        }
        std::vector<json> out;
        for (json v : batch)
        {
            if (r.derive)
            {
                v.update(derived.at(v.dump()));
            }
            out.push_back(v);
        }
        return out;
    };
    BatchLoss loss = [&](const std::vector<std::vector<double>>& xs)
    {
        std::vector<json> batch;
        for (const auto& x : xs)
        {
            batch.push_back(ValuesOf(r.parameters, x));
        }
        const std::vector<json> full = withDerived(batch);
        std::vector<ValidationPlan> plans;
        std::vector<PoolPoint> runs;
        std::set<std::string> ids;
        for (const json& values : full)
        {
            plans.push_back(CandidatePlan(r, values));
            for (const auto& run : plans.back().runs)
            {
                if (ids.insert(run.id).second)
                {
                    runs.push_back(run);
                }
            }
        }
        PoolResult ran = RunPointPool(runs, r.pointsDir, pool);
        fit.coreSeconds += ran.wallSeconds;
        // Runs cut short by SLURM (scancel, a time limit) are not the candidates' fault: no
        // infinite loss to steer the search; the fit stops, and the next run retries them.
        StopIfCutShort(ran, r.label);
        std::vector<double> out;
        for (size_t i = 0; i < xs.size(); ++i)
        {
            CollatedValidation got = CollateValidation(plans[i], r.pointsDir);
            FitTerms t = ObjectiveTerms(got.points, r.weights);
            out.push_back(t.loss);
            std::cerr << fmt::format("{}: candidate {}: {}: loss {:.5f} (mean {:.1f} %, cross "
                                     "{:.1f} %, p99 {:.1f} % rms{})\n",
                                     r.label, ++evaluated, DescribeValues(full[i]), t.loss,
                                     100 * t.meanRms, 100 * t.crossRms, 100 * t.p99Rms,
                                     t.missing ? fmt::format(", {} points missing", t.missing)
                                               : std::string());
        }
        return out;
    };
    fit.search = CoordinateSearch(dims, start, loss, r.search);
    fit.values = ValuesOf(r.parameters, fit.search.best);
    if (r.derive)
    {
        fit.derived = derived.at(fit.values.dump());
    }
    auto termsAt = [&](const json& values)
    {
        const json full = withDerived({ values }).front();
        FitTerms t = ObjectiveTerms(CollateValidation(CandidatePlan(r, full), r.pointsDir).points,
                                    r.weights);
        t.loss += r.extraLoss ? r.extraLoss(values) : 0;
        return t;
    };
    fit.startTerms = termsAt(fit.start);
    fit.bestTerms = termsAt(fit.values);
    return fit;
}

json
TestbedFitJson(const TestbedFit& fit, const TestbedFitRequest& r)
{
    json ranges = json::object();
    for (const auto& p : r.parameters)
    {
        ranges[p.key] = { { "lo", p.range.lo },
                          { "hi", p.range.hi },
                          { "scale", p.range.logScale ? "log" : "linear" },
                          { "integer", p.range.integer } };
    }
    auto terms = [](const FitTerms& t)
    {
        return json{ { "loss", t.loss },
                     { "mean_rms_log_error", t.meanRms },
                     { "cross_rms_log_error", t.crossRms },
                     { "p99_rms_log_error", t.p99Rms },
                     { "mean_points", t.meanPoints },
                     { "cross_points", t.crossPoints },
                     { "p99_points", t.p99Points } };
    };
    json trace = json::array();
    for (const auto& e : fit.search.evaluations)
    {
        json values = json::object();
        for (size_t k = 0; k < r.parameters.size(); ++k)
        {
            values[r.parameters[k].key] = e.x[k];
        }
        trace.push_back({ { "phase", e.phase },
                          { "values", values },
                          { "loss", std::isfinite(e.loss) ? json(e.loss) : json(nullptr) } });
    }
    return { { "values", fit.values },
             { "fitted_on", fit.series },
             { "engine", r.base.engine },
             { "objective",
               { { "weights",
                   { { "mean", r.weights.mean },
                     { "cross", r.weights.cross },
                     { "p99", r.weights.p99 } } },
                 { "terms", "mean square of log(simulated / measured) over the loaded testbed "
                            "points, per term; loss = weighted sum" } } },
             { "method",
               fmt::format("coordinate search on a {}-point grid per key (up to {} cycles; "
                           "{}), then {} rounds of half steps",
                           r.search.gridPoints, r.search.maxCycles, fit.search.stopped,
                           r.search.refineRounds) },
             { "ranges", ranges },
             { "start", fit.start },
             { "at_start", terms(fit.startTerms) },
             { "at_fit", terms(fit.bestTerms) },
             { "evaluations", trace } };
}

} // namespace flumen
