#include "summary-statistics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace flumen
{

double
Percentile(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
    {
        throw std::invalid_argument("Percentile of an empty sample");
    }
    double pos = q / 100.0 * (sorted.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(pos));
    size_t hi = std::min(lo + 1, sorted.size() - 1);
    double frac = pos - lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

SummaryStatistics
Summarize(std::vector<double> values)
{
    SummaryStatistics s;
    s.count = values.size();
    if (values.empty())
    {
        return s;
    }
    std::sort(values.begin(), values.end());
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    s.mean = sum / values.size();
    if (values.size() > 1)
    {
        double ss = 0;
        for (double v : values)
        {
            ss += (v - s.mean) * (v - s.mean);
        }
        s.stdev = std::sqrt(ss / (values.size() - 1));
    }
    s.p50 = Percentile(values, 50);
    s.p99 = Percentile(values, 99);
    s.min = values.front();
    s.max = values.back();
    return s;
}

} // namespace flumen
