// The validation report's curve analysis on curves whose answers are known by construction.
#include "curve-analysis.h"

#include "ns3/model-profile.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace
{

using flumen::CurvePoint;

TEST(CongestionPoint, KneeOfAFlatThenSteepCurveIsWhereTheTwoLinesCross)
{
    // Flat at 0.2 s up to 14 Gbps, then rising 0.1 s per Gbps: the lines cross at x = 14.
    std::vector<CurvePoint> c;
    for (double x = 0; x <= 20; x += 2)
    {
        c.push_back({ x, x <= 14 ? 0.2 : 0.2 + 0.1 * (x - 14) });
    }
    auto cp = flumen::FindCongestionPoint(c);
    ASSERT_TRUE(cp.found);
    EXPECT_NEAR(cp.x, 14.0, 1e-9);
    EXPECT_NEAR(cp.t, 0.2, 1e-9);
    EXPECT_EQ(cp.flatPoints, 8u);
}

TEST(CongestionPoint, UnorderedInputAndASlopedFlatRegion)
{
    // A gently rising region (1 % per Gbps) then a steep one from x = 10; given out of order.
    std::vector<CurvePoint> c;
    for (double x : { 12.0, 0.0, 4.0, 16.0, 2.0, 8.0, 14.0, 6.0, 10.0 })
    {
        double flat = 1.0 + 0.01 * x;
        c.push_back({ x, x <= 10 ? flat : flat + 0.2 * (x - 10) });
    }
    auto cp = flumen::FindCongestionPoint(c);
    ASSERT_TRUE(cp.found);
    EXPECT_NEAR(cp.x, 10.0, 1e-9);
    EXPECT_NEAR(cp.t, 1.1, 1e-9);
}

TEST(CongestionPoint, NotFoundOnAFlatCurve)
{
    std::vector<CurvePoint> c;
    for (double x = 0; x <= 20; x += 2)
    {
        c.push_back({ x, 0.3 + 0.001 * std::sin(x) });
    }
    EXPECT_FALSE(flumen::FindCongestionPoint(c).found);
    EXPECT_FALSE(flumen::FindCongestionPoint({ { 0, 1 }, { 1, 5 } }).found);
}

TEST(ExpCurveFit, RecoversTheParametersOfAnExactCurve)
{
    const double a = 0.3;
    const double b = 2.0;
    const double c = 24.0;
    const double n = 1.5;
    std::vector<CurvePoint> curve;
    for (double x = 0; x <= 22; x += 1)
    {
        curve.push_back({ x, a * std::exp(b / std::pow(c - x, n)) });
    }
    auto fit = flumen::FitExpCurve(curve);
    ASSERT_TRUE(fit.ok);
    EXPECT_GT(fit.r2, 0.99999);
    for (double x : { 0.0, 10.0, 20.0, 22.0 })
    {
        double truth = a * std::exp(b / std::pow(c - x, n));
        EXPECT_NEAR(fit.Evaluate(x), truth, 1e-3 * truth) << "x = " << x;
    }
    EXPECT_GT(fit.c, 22.0);
}

TEST(ExpCurveFit, NoisyDataGivesAHighButImperfectR2AndTooFewPointsNoFit)
{
    std::mt19937 rng(3);
    std::normal_distribution<double> noise(0, 0.02);
    std::vector<CurvePoint> curve;
    for (double x = 0; x <= 21; x += 1.5)
    {
        curve.push_back({ x, 0.2 * std::exp(3.0 / (25.0 - x)) * (1 + noise(rng)) });
    }
    auto fit = flumen::FitExpCurve(curve);
    ASSERT_TRUE(fit.ok);
    EXPECT_GT(fit.r2, 0.9);
    EXPECT_LT(fit.r2, 1.0);
    EXPECT_FALSE(flumen::FitExpCurve({ { 0, 1 }, { 1, 1 }, { 2, 2 } }).ok);
}

TEST(KolmogorovSmirnov, DistanceBetweenSamplesAndAMeasuredCdf)
{
    // Samples 1..4 against a CDF that puts everything at 2: F_sim(2) = 0.5, F_cdf(2) = 1.
    std::vector<double> samples = { 4, 1, 3, 2 };
    EXPECT_NEAR(flumen::KolmogorovSmirnov(samples, { { 2.0, 1.0 } }), 0.5, 1e-12);
    // The samples' own empirical CDF: distance 0.
    EXPECT_NEAR(
        flumen::KolmogorovSmirnov(samples, { { 1, 0.25 }, { 2, 0.5 }, { 3, 0.75 }, { 4, 1 } }), 0.0,
        1e-12);
    // Shifted entirely to the right: distance 1.
    EXPECT_NEAR(flumen::KolmogorovSmirnov(samples, { { 10, 0.5 }, { 11, 1 } }), 1.0, 1e-12);
    EXPECT_TRUE(std::isnan(flumen::KolmogorovSmirnov({}, { { 1, 1 } })));
}

TEST(Baselines, ExposedAndHiddenCommunication)
{
    // t0 = 1 s, D = 10 Gbit, C = 25 Gbps: D/C = 0.4 s.
    const double d = 10e9;
    const double c = 25e9;
    EXPECT_NEAR(flumen::BaselineExposed(1.0, d, c, 0), 1.0, 1e-12);
    EXPECT_NEAR(flumen::BaselineExposed(1.0, d, c, 15e9), 0.6 + 1.0, 1e-12);
    EXPECT_NEAR(flumen::BaselineHidden(1.0, d, c, 15e9), 1.0, 1e-12);
    EXPECT_NEAR(flumen::BaselineHidden(1.0, d, c, 20e9), 2.0, 1e-12);
    EXPECT_TRUE(std::isinf(flumen::BaselineHidden(1.0, d, c, 25e9)));
    // ResNet-50 (25,557,032 parameters) on 4 workers: 1.5 x 4 B x 8 bits per parameter.
    EXPECT_NEAR(8 * ns3::ModelProfile::BuiltIn("resnet50")->RingBytesPerWorker(4),
                1.5 * 32 * 25557032, 1e-3);
}

TEST(ErrorStatistics, MedianAndMeanOfAbsoluteValues)
{
    EXPECT_DOUBLE_EQ(flumen::MedianAbs({ -3, 1, 2 }), 2);
    EXPECT_DOUBLE_EQ(flumen::MedianAbs({ -4, 1, 2, -10 }), 3);
    EXPECT_DOUBLE_EQ(flumen::MeanAbs({ -4, 1, 2, -10 }), 4.25);
    EXPECT_TRUE(std::isnan(flumen::MedianAbs({})));
}

} // namespace
