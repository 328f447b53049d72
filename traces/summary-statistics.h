// Summary statistics of a sample: mean, sample standard deviation, percentiles (linear
// interpolation between order statistics, as numpy's default), min and max.
#ifndef FLUMEN_SUMMARY_STATISTICS_H
#define FLUMEN_SUMMARY_STATISTICS_H

#include <cstddef>
#include <vector>

namespace flumen
{

struct SummaryStatistics
{
    size_t count = 0;
    double mean = 0;
    double stdev = 0; //!< sample standard deviation (n-1); 0 for fewer than 2 values
    double p50 = 0;
    double p99 = 0;
    double min = 0;
    double max = 0;
};

/** Percentile q in [0,100] of values sorted ascending (linear interpolation). */
double Percentile(const std::vector<double>& sorted, double q);
SummaryStatistics Summarize(std::vector<double> values);

} // namespace flumen

#endif
