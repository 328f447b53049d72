#include "time-shift-search.h"

#include "run-scenario.h"
#include "scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace flumen
{

using nlohmann::json;

namespace
{

ShiftPoint
Evaluate(const json& scenario, const std::string& source, const std::vector<double>& startS)
{
    const Scenario s = ResolveScenario(WithShifts(scenario, startS), source);
    const RunOutput out = RunScenario(s);
    ShiftPoint p;
    p.startS = startS;
    for (const JobSummary& job : out.summary.jobs)
    {
        p.meanS.push_back(job.iterationTimeS.mean);
        p.p99S.push_back(job.iterationTimeS.p99);
        p.overlap.push_back(job.commOverlap.value_or(0.0));
        p.objective += job.iterationTimeS.mean / out.summary.jobs.size();
    }
    return p;
}

std::string
Offsets(const std::vector<double>& startS)
{
    std::string out;
    for (double s : startS)
    {
        out += fmt::format("{}{:.4f}", out.empty() ? "" : " ", s);
    }
    return out;
}

} // namespace

json
WithShifts(const json& scenario, const std::vector<double>& startS)
{
    json shifted = scenario;
    for (size_t i = 0; i < startS.size(); ++i)
    {
        shifted["jobs"][i]["start_s"] = startS[i];
    }
    return shifted;
}

ShiftSearchResult
SearchTimeShifts(const json& scenario, const std::string& source, const ShiftSearchOptions& options)
{
    const Scenario resolved = ResolveScenario(scenario, source);
    if (resolved.jobs.size() < 2)
    {
        throw ScenarioError(fmt::format("{}: jobs: expected at least two jobs to shift against "
                                        "each other, got {}",
                                        source, resolved.jobs.size()));
    }
    if (options.steps < 2)
    {
        throw ScenarioError(fmt::format("--steps: expected at least 2, got {}", options.steps));
    }
    ShiftSearchResult r;
    r.steps = options.steps;
    for (const Scenario& job : resolved.jobs)
    {
        r.jobs.push_back(job.jobName);
    }
    const size_t n = r.jobs.size();
    std::map<std::vector<long long>, size_t> seen; // offsets in ns -> index in `tried`
    auto run = [&](const std::vector<double>& startS) -> const ShiftPoint&
    {
        std::vector<long long> key;
        for (double s : startS)
        {
            key.push_back(std::llround(s * 1e9));
        }
        if (auto it = seen.find(key); it != seen.end())
        {
            return r.tried[it->second];
        }
        r.tried.push_back(Evaluate(scenario, source, startS));
        seen[key] = r.tried.size() - 1;
        if (options.progress)
        {
            *options.progress << fmt::format("[shift] offsets {} s: mean {:.4f} s\n",
                                             Offsets(startS), r.tried.back().objective);
        }
        return r.tried.back();
    };
    r.unshifted = run(std::vector<double>(n, 0.0));
    r.periodS = *std::max_element(r.unshifted.meanS.begin(), r.unshifted.meanS.end());
    r.best = r.unshifted;
    for (uint32_t pass = 0; pass < options.passes; ++pass)
    {
        bool improved = false;
        for (size_t j = 1; j < n; ++j)
        {
            for (uint32_t k = 0; k < options.steps; ++k)
            {
                std::vector<double> candidate = r.best.startS;
                candidate[j] = r.periodS * k / options.steps;
                const ShiftPoint p = run(candidate); // a copy: `tried` may grow
                if (p.objective < r.best.objective * (1 - 1e-9))
                {
                    r.best = p;
                    improved = true;
                }
            }
        }
        if (!improved)
        {
            break;
        }
    }
    return r;
}

std::string
FormatShiftCsv(const ShiftSearchResult& r)
{
    std::string out = "run";
    for (const auto& j : r.jobs)
    {
        out += fmt::format(",{0}.start_s,{0}.iteration_mean_s,{0}.iteration_p99_s,{0}.comm_overlap",
                           j);
    }
    out += ",objective_s\n";
    for (size_t i = 0; i < r.tried.size(); ++i)
    {
        const ShiftPoint& p = r.tried[i];
        out += std::to_string(i);
        for (size_t j = 0; j < r.jobs.size(); ++j)
        {
            out += fmt::format(",{:.6f},{:.6f},{:.6f},{:.4f}", p.startS[j], p.meanS[j], p.p99S[j],
                               p.overlap[j]);
        }
        out += fmt::format(",{:.6f}\n", p.objective);
    }
    return out;
}

std::string
FormatShiftReport(const ShiftSearchResult& r, const std::string& source)
{
    const double gain = r.unshifted.objective / r.best.objective;
    std::string out = fmt::format(
        "# Time shifts for {}\n\n{} runs; offsets tried at {} points of the {:.4f} s period "
        "(the unshifted run's longest mean iteration time). Mean of the jobs' mean iteration "
        "times: {:.4f} s unshifted, {:.4f} s at the best offsets ({:.3f}x).\n\n"
        "| job | offset (s) | mean, unshifted (s) | mean, shifted (s) | p99, unshifted | p99, "
        "shifted | comm overlap, unshifted | comm overlap, shifted |\n"
        "|---|---|---|---|---|---|---|---|\n",
        source, r.tried.size(), r.steps, r.periodS, r.unshifted.objective, r.best.objective, gain);
    for (size_t j = 0; j < r.jobs.size(); ++j)
    {
        out += fmt::format("| {} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.4f} | {:.1f} % | "
                           "{:.1f} % |\n",
                           r.jobs[j], r.best.startS[j], r.unshifted.meanS[j], r.best.meanS[j],
                           r.unshifted.p99S[j], r.best.p99S[j], 100 * r.unshifted.overlap[j],
                           100 * r.best.overlap[j]);
    }
    return out;
}

} // namespace flumen
