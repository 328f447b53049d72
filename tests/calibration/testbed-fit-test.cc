// The fit of testbed parameters: the coordinate search on functions with a known minimum
// (smooth, integer, a step where gradients see nothing), the parsing of --fit and --objective,
// the objective's terms, and a calibration file's fitted values applied to a scenario.
#include "calibration-file.h"
#include "fit-search.h"
#include "scenario.h"
#include "testbed-fit.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>
#include <set>

using namespace flumen;
using nlohmann::json;

namespace
{

// A batch loss from a function of one point, counting batches and points.
struct Counted
{
    std::function<double(const std::vector<double>&)> f;
    std::vector<std::vector<double>> seen;
    std::vector<size_t> batches;
    BatchLoss Loss()
    {
        return [this](const std::vector<std::vector<double>>& xs)
        {
            batches.push_back(xs.size());
            std::vector<double> out;
            for (const auto& x : xs)
            {
                seen.push_back(x);
                out.push_back(f(x));
            }
            return out;
        };
    }
};

TEST(FitSearch, FindsASmoothMinimumWithinTheLastStep)
{
    // Linear [0, 1] and log [1, 1000]: minimum at 0.37 and 42.
    std::vector<SearchDimension> dims = { { 0, 1, false, false }, { 1, 1000, false, true } };
    Counted c;
    c.f = [](const std::vector<double>& x)
    {
        double a = x[0] - 0.37, b = std::log(x[1] / 42);
        return a * a + b * b;
    };
    SearchOptions o;
    o.refineRounds = 5;
    SearchResult r = CoordinateSearch(dims, { 0.9, 900 }, c.Loss(), o);
    // The final half step in position is 1/4 / 2^5; the optimum lies within it.
    const double step = 0.25 / 32;
    EXPECT_NEAR(r.best[0], 0.37, step);
    EXPECT_NEAR(DimensionPosition(dims[1], r.best[1]), DimensionPosition(dims[1], 42), step);
    EXPECT_LT(r.bestLoss, r.startLoss);
    EXPECT_DOUBLE_EQ(r.bestLoss, c.f(r.best));
    // Each distinct point is evaluated once, and a grid line goes in one batch.
    std::set<std::vector<double>> distinct(c.seen.begin(), c.seen.end());
    EXPECT_EQ(distinct.size(), c.seen.size());
    EXPECT_EQ(r.evaluations.size(), c.seen.size());
    EXPECT_EQ(c.batches[0], 1u); // the start
    EXPECT_EQ(c.batches[1], 5u); // the first grid line holds all 5 values of x[0]
}

TEST(FitSearch, IntegerDimensionsAreSearchedOnIntegers)
{
    std::vector<SearchDimension> dims = { { 1, 64, true, true } };
    Counted c;
    c.f = [](const std::vector<double>& x) { return std::abs(x[0] - 23); };
    SearchResult r = CoordinateSearch(dims, { 1 }, c.Loss());
    for (const auto& x : c.seen)
    {
        EXPECT_EQ(x[0], std::round(x[0]));
        EXPECT_GE(x[0], 1);
        EXPECT_LE(x[0], 64);
    }
    EXPECT_NEAR(r.best[0], 23, 2); // the last log step around 23 is +-2 integers
}

TEST(FitSearch, FindsAStepThatAGradientWouldNotSee)
{
    // Flat below 0.8, lower above: a buffer that starts to drop, a timeout that starts to fire.
    // Finite differences at the start see a zero gradient; the grid sees the whole range.
    std::vector<SearchDimension> dims = { { 0, 1, false, false } };
    Counted c;
    c.f = [](const std::vector<double>& x) { return x[0] >= 0.8 ? 0.0 : 1.0; };
    SearchResult r = CoordinateSearch(dims, { 0.1 }, c.Loss());
    EXPECT_GE(r.best[0], 0.8);
    EXPECT_EQ(r.bestLoss, 0.0);
}

TEST(FitSearch, FailedEvaluationsAreNeverChosenAndTiesKeepTheStart)
{
    std::vector<SearchDimension> dims = { { 0, 1, false, false } };
    Counted c;
    c.f = [](const std::vector<double>& x)
    {
        return x[0] > 0.6 ? std::numeric_limits<double>::quiet_NaN() : 1.0; // NaN: failed
    };
    SearchResult r = CoordinateSearch(dims, { 0.3 }, c.Loss());
    EXPECT_EQ(r.best[0], 0.3);
    EXPECT_EQ(r.bestLoss, 1.0);
    for (const auto& e : r.evaluations)
    {
        if (e.x[0] > 0.6)
        {
            EXPECT_TRUE(std::isinf(e.loss));
        }
    }
    EXPECT_THROW(CoordinateSearch(dims, { 1.5 }, c.Loss()), std::invalid_argument);
    EXPECT_THROW(CoordinateSearch({ { 0, 10, false, true } }, { 1 }, c.Loss()),
                 std::invalid_argument); // log scale from 0
}

TEST(TestbedFit, FitOptionsAreCheckedNamingWhatIsWrong)
{
    FitParameter p
        = ParseFitParameter("topology.switch_queue.buffer_bytes=100000:300000000", "packet");
    EXPECT_TRUE(p.range.integer);
    EXPECT_TRUE(p.range.logScale);
    p = ParseFitParameter("job.tcp.host_ceiling_gbps=5:20", "flow");
    EXPECT_FALSE(p.range.integer);
    EXPECT_FALSE(p.range.logScale); // a factor of 4
    auto message = [](const std::string& text, const std::string& engine)
    {
        try
        {
            ParseFitParameter(text, engine);
        }
        catch (const std::invalid_argument& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message("nosuch.key=1:2", "packet").find("unknown key"), std::string::npos);
    EXPECT_NE(message("job.model=1:2", "packet").find("only numeric keys"), std::string::npos);
    EXPECT_NE(message("cross_traffic.load_gbps=1:2", "packet").find("each testbed point"),
              std::string::npos);
    EXPECT_NE(message("job.compute_s=0.1:0.2", "packet").find("runs without cross traffic"),
              std::string::npos);
    EXPECT_NE(message("topology.switch_queue.buffer_bytes=1e5:1e6", "flow").find("flow engine"),
              std::string::npos);
    EXPECT_NE(message("dcqcn.alpha_gain=0.1:0.2", "auto").find("flow engine"), std::string::npos);
    EXPECT_NE(message("job.tcp.host_ceiling_gbps=20:5", "packet").find("lo < hi"),
              std::string::npos);
    EXPECT_NE(message("job.backward_share=0.5:0.99", "packet").find("range"), std::string::npos);
    EXPECT_NE(message("job.tcp.host_ceiling_gbps=5", "packet").find("key=lo:hi"),
              std::string::npos);
    EXPECT_NE(message("job.tcp.host_ceiling_gbps=a:5", "packet").find("expected a number"),
              std::string::npos);
    EXPECT_NE(message("job.nccl.channels=1.2:1.4", "packet").find("two integers"),
              std::string::npos);

    FitWeights w = ParseObjective("p99=0.5,mean=2");
    EXPECT_EQ(w.mean, 2);
    EXPECT_EQ(w.cross, 1); // not named: the default
    EXPECT_EQ(w.p99, 0.5);
    EXPECT_THROW(ParseObjective("fct=1"), std::invalid_argument);
    EXPECT_THROW(ParseObjective("mean=-1"), std::invalid_argument);
    EXPECT_THROW(ParseObjective("mean=0,cross=0"), std::invalid_argument);
}

ValidatedPoint
Point(double testbed, double simulated, double measuredGbps, double achievedGbps)
{
    ValidatedPoint v;
    v.testbedMeanS = testbed;
    v.simMeanS = simulated;
    v.testbedP99S = 2 * testbed;
    v.simP99S = 2 * simulated;
    v.measuredGbps = measuredGbps;
    v.simAchievedGbps = achievedGbps;
    return v;
}

TEST(TestbedFit, TheObjectiveWeighsLogErrorsOfTheCountedPointsOnly)
{
    std::vector<ValidatedPoint> points = { Point(1.0, 1.1, 10, 10), Point(2.0, 2.0 / 1.1, 20, 18) };
    ValidatedPoint idle = Point(1.0, 5.0, 0, 0);
    idle.idle = true;
    ValidatedPoint calibration = Point(1.0, 5.0, 2, 2);
    calibration.calibration = true;
    points.push_back(idle);
    points.push_back(calibration);
    FitWeights w{ 1, 2, 0.5 };
    FitTerms t = ObjectiveTerms(points, w);
    const double e = std::log(1.1);
    EXPECT_EQ(t.meanPoints, 2);
    EXPECT_NEAR(t.meanRms, e, 1e-12); // +10 % and -9.1 % weigh alike in log
    EXPECT_NEAR(t.p99Rms, e, 1e-12);
    const double cross = std::log(0.9) * std::log(0.9) / 2;
    EXPECT_NEAR(t.crossRms, std::sqrt(cross), 1e-12);
    EXPECT_NEAR(t.loss, e * e + 2 * cross + 0.5 * e * e, 1e-12);

    // A censored point counts by its lower bound where that is above the testbed.
    ValidatedPoint over = Point(1.0, NAN, 5, 5);
    over.simMeanLowerBoundS = 1.5;
    over.simP99S = NAN;
    ValidatedPoint under = over;
    under.simMeanLowerBoundS = 0.5;
    FitTerms c = ObjectiveTerms({ over, under }, w);
    EXPECT_EQ(c.meanPoints, 1);
    EXPECT_NEAR(c.meanRms, std::log(1.5), 1e-12);
    EXPECT_EQ(c.p99Points, 0);

    // A counted point that did not run: no loss can be given.
    ValidatedPoint missing = Point(1.0, NAN, 5, NAN);
    missing.simP99S = NAN;
    FitTerms m = ObjectiveTerms({ points[0], missing }, w);
    EXPECT_EQ(m.missing, 1);
    EXPECT_TRUE(std::isinf(m.loss));
}

TEST(TestbedFit, ACalibrationFilesFittedValuesApplyUnlessTheScenarioSetsThem)
{
    json calibration = { { "models", json::object() },
                         { "transports", { { "tcp", { { "host_ceiling_gbps", 14.8 } } } } },
                         { "testbed",
                           { { "values",
                               { { "job.tcp.host_ceiling_gbps", 9.5 },
                                 { "topology.switch_queue.buffer_bytes", 1000000 } } } } } };
    json s = json::object();
    ApplyCalibration(s, calibration, "cal.json");
    // The fitted value wins over the calibration's own TCP ceiling.
    EXPECT_EQ(s["job"]["tcp"]["host_ceiling_gbps"], 9.5);
    EXPECT_EQ(s["topology"]["switch_queue"]["buffer_bytes"], 1000000);
    json own = { { "topology", { { "switch_queue", { { "buffer_bytes", 5 } } } } } };
    ApplyCalibration(own, calibration, "cal.json");
    EXPECT_EQ(own["topology"]["switch_queue"]["buffer_bytes"], 5);

    auto message = [](json values)
    {
        json c = { { "models", json::object() }, { "testbed", { { "values", values } } } };
        json s = json::object();
        try
        {
            ApplyCalibration(s, c, "cal.json");
        }
        catch (const ScenarioError& e)
        {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_NE(message({ { "nosuch", 1 } }).find("cal.json: testbed.values"), std::string::npos);
    EXPECT_NE(message({ { "job.tcp.host_ceiling_gbps", "x" } })
                  .find("testbed.values.job.tcp.host_ceiling_gbps"),
              std::string::npos);
    EXPECT_NE(message(json::array()).find("'testbed'"), std::string::npos);
}

} // namespace
