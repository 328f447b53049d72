// The parts of a validation plan that a caller keeps: the runs of some points
// (cross-validation's folds), or the runs whose names match `validate --runs`.
#include "validation-plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <regex>
#include <set>
#include <stdexcept>

namespace flumen
{

void
KeepPointRuns(ValidationPlan& plan, const std::function<bool(const ValidatedPoint&)>& keep)
{
    std::set<std::string> used;
    for (const auto& pp : plan.points)
    {
        if (keep(pp.point))
        {
            used.insert(pp.runIds.begin(), pp.runIds.end());
        }
    }
    plan.cdfs.clear();
    plan.rings.clear();
    plan.runs.erase(std::remove_if(plan.runs.begin(), plan.runs.end(),
                                   [&](const PoolPoint& r) { return !used.count(r.id); }),
                    plan.runs.end());
}

std::vector<PoolPoint>
RunsMatching(const std::vector<PoolPoint>& runs, const std::string& pattern)
{
    std::regex re;
    try
    {
        re = std::regex(pattern, std::regex::ECMAScript);
    }
    catch (const std::regex_error& e)
    {
        throw std::invalid_argument(
            fmt::format("--runs: '{}' is not a regular expression ({})", pattern, e.what()));
    }
    std::vector<PoolPoint> kept;
    std::copy_if(runs.begin(), runs.end(), std::back_inserter(kept),
                 [&re](const PoolPoint& r) { return std::regex_search(r.id, re); });
    if (kept.empty())
    {
        throw std::invalid_argument(fmt::format(
            "--runs: '{}' matches none of the plan's {} runs (their names look like '{}')", pattern,
            runs.size(), runs.empty() ? std::string() : runs.front().id));
    }
    return kept;
}

} // namespace flumen
