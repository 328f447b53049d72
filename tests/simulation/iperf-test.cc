// iperf alone (no job): the paced streams reach their target rate; asking more than the link
// carries, they get its payload rate, less with Ethernet's framing (topology.ethernet_framing),
// in both engines.
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

// 25 Gbps carries 1,448-byte segments in 1,502 bytes of wire (PPP), or 1,538 with Ethernet's
// preamble, MAC header, FCS and interframe gap: 24.10 or 23.54 Gbps of payload.
TEST(Iperf, BeyondTheLinkGetsItsPayloadRateWithOrWithoutEthernetsFraming)
{
    for (const char* engine : { "packet", "flow" })
    {
        for (bool framing : { false, true })
        {
            json user = {
                { "job", { { "enabled", false } } },
                { "topology", { { "ethernet_framing", framing } } },
                { "cross_traffic",
                  { { "type", "iperf" }, { "load_gbps", 24.5 }, { "streams", 4 } } },
                { "simulation",
                  { { "duration_s", 0.05 }, { "engine", engine }, { "progress_interval_s", 0 } } }
            };
            RunOutput out = RunScenario(test::Resolve(user));
            const double achieved
                = ToJson(out.summary)["cross_traffic"]["achieved_gbps"].get<double>();
            const double payload = 25.0 * 1448 / (framing ? 1538 : 1502);
            std::cout << "[measure] iperf at 24.5 Gbps, " << engine
                      << (framing ? ", Ethernet's framing" : "") << ": achieved " << achieved
                      << " Gbps against " << payload << "\n";
            EXPECT_NEAR(achieved / payload, 1.0, 0.005) << engine << " framing " << framing;
        }
    }
}
