// iperf alone (no job): the paced streams reach their target rate.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

namespace
{

void
CheckIperf(double gbps, double seconds)
{
    json user
        = { { "job", { { "enabled", false } } },
            { "cross_traffic", { { "type", "iperf" }, { "load_gbps", gbps }, { "streams", 4 } } },
            { "simulation", { { "duration_s", seconds }, { "progress_interval_s", 0 } } } };
    RunOutput out = RunScenario(test::Resolve(user));
    double achieved = ToJson(out.summary)["cross_traffic"]["achieved_gbps"].get<double>();
    std::cout << "[measure] iperf " << gbps << " Gbps alone over " << seconds << " s: achieved "
              << achieved << " Gbps (" << 100 * (achieved / gbps - 1) << "%)\n";
    EXPECT_NEAR(achieved / gbps, 1.0, 0.03);
}

} // namespace

TEST(Iperf, FiveGbpsAlone)
{
    CheckIperf(5, 0.1);
}

TEST(Iperf, TwentyGbpsAlone)
{
    CheckIperf(20, 0.05);
}
