#include "summary-statistics.h"

#include <gtest/gtest.h>

using flumen::Percentile;
using flumen::Summarize;

TEST(SummaryStatistics, MatchesHandComputedValues)
{
    // numpy: mean 3.0, std(ddof=1) 1.58113883, percentile 50 -> 3.0, 99 -> 4.96
    auto s = Summarize({ 5, 1, 4, 2, 3 });
    EXPECT_EQ(s.count, 5u);
    EXPECT_DOUBLE_EQ(s.mean, 3.0);
    EXPECT_NEAR(s.stdev, 1.5811388300841898, 1e-12);
    EXPECT_DOUBLE_EQ(s.p50, 3.0);
    EXPECT_NEAR(s.p99, 4.96, 1e-12);
    EXPECT_DOUBLE_EQ(s.min, 1.0);
    EXPECT_DOUBLE_EQ(s.max, 5.0);
}

TEST(SummaryStatistics, PercentileInterpolatesLinearly)
{
    std::vector<double> v{ 10, 20 };
    EXPECT_DOUBLE_EQ(Percentile(v, 0), 10);
    EXPECT_DOUBLE_EQ(Percentile(v, 25), 12.5);
    EXPECT_DOUBLE_EQ(Percentile(v, 100), 20);
    EXPECT_THROW(Percentile({}, 50), std::invalid_argument);
}

TEST(SummaryStatistics, SingleValueHasZeroSpread)
{
    auto s = Summarize({ 0.25 });
    EXPECT_DOUBLE_EQ(s.mean, 0.25);
    EXPECT_DOUBLE_EQ(s.stdev, 0.0);
    EXPECT_DOUBLE_EQ(s.p99, 0.25);
}
