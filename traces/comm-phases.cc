#include "comm-phases.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace flumen
{

namespace
{

using Intervals = std::vector<std::pair<double, double>>;

// The union of the phases' intervals, sorted and disjoint.
Intervals
Union(const std::vector<CommPhase>& phases)
{
    Intervals all;
    for (const CommPhase& p : phases)
    {
        if (p.endS > p.startS)
        {
            all.emplace_back(p.startS, p.endS);
        }
    }
    std::sort(all.begin(), all.end());
    Intervals merged;
    for (const auto& i : all)
    {
        if (!merged.empty() && i.first <= merged.back().second)
        {
            merged.back().second = std::max(merged.back().second, i.second);
        }
        else
        {
            merged.push_back(i);
        }
    }
    return merged;
}

double
Length(const Intervals& intervals)
{
    double sum = 0;
    for (const auto& i : intervals)
    {
        sum += i.second - i.first;
    }
    return sum;
}

} // namespace

std::string
FormatCommCsv(const std::vector<CommPhase>& rows)
{
    std::string out = "job,iteration,start_s,end_s,bytes,warmup\n";
    for (const CommPhase& r : rows)
    {
        out += fmt::format("{},{},{:.9f},{:.9f},{},{}\n", r.job, r.iteration, r.startS, r.endS,
                           r.bytes, r.warmup ? 1 : 0);
    }
    return out;
}

double
CommOverlap(const std::vector<CommPhase>& mine, const std::vector<CommPhase>& others)
{
    const Intervals a = Union(mine);
    const Intervals b = Union(others);
    const double total = Length(a);
    if (total <= 0)
    {
        return 0;
    }
    double shared = 0;
    size_t j = 0;
    for (const auto& i : a)
    {
        while (j < b.size() && b[j].second <= i.first)
        {
            ++j;
        }
        for (size_t k = j; k < b.size() && b[k].first < i.second; ++k)
        {
            shared += std::min(i.second, b[k].second) - std::max(i.first, b[k].first);
        }
    }
    return shared / total;
}

} // namespace flumen
