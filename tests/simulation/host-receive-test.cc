// topology.host_receive_gbps: the switch's port towards a host sends no faster than the host
// takes frames, in both engines, and a rate above the link's is refused.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

// Configuration B's iperf goes S2 -> S0 through the ToR's port towards S0: at 15 Gbps of
// receive it gets that port's payload rate (1,448-byte segments in 1,502 bytes of wire), not
// the 16 Gbps it asks, while the same run without the key gets what it asks.
TEST(HostReceive, ThePortTowardsAHostSendsAtItsReceiveRate)
{
    for (const char* engine : { "packet", "flow" })
    {
        for (double receive : { 0.0, 15.0 })
        {
            json user = {
                { "job", { { "enabled", false } } },
                { "topology", { { "host_receive_gbps", receive } } },
                { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 16 }, { "streams", 4 } } },
                { "simulation",
                  { { "duration_s", 0.05 }, { "engine", engine }, { "progress_interval_s", 0 } } }
            };
            RunOutput out = RunScenario(test::Resolve(user));
            const json summary = ToJson(out.summary);
            const double achieved = summary["cross_traffic"]["achieved_gbps"].get<double>();
            // The port is as busy at its own rate as the link would be at the link's.
            const double busy = summary["bottleneck"]["utilization"].get<double>();
            if (receive > 0)
            {
                EXPECT_GT(busy, 0.97) << engine;
                EXPECT_LE(busy, 1.001) << engine;
            }
            const double expected = receive > 0 ? receive * 1448 / 1502 : 16.0;
            std::cout << "[measure] iperf at 16 Gbps into S0, " << engine << ", receive " << receive
                      << " Gbps: achieved " << achieved << " Gbps against " << expected
                      << ", port " << busy << " busy\n";
            EXPECT_LE(achieved, expected * 1.005) << engine << " receive " << receive;
            EXPECT_GE(achieved, expected * 0.97) << engine << " receive " << receive;
        }
    }
}

TEST(HostReceive, AboveTheLinkRateIsRefusedNamingTheKey)
{
    const std::string e = test::ScenarioErrorOf(
        { { "topology", { { "link_rate_gbps", 25 }, { "host_receive_gbps", 26 } } } });
    EXPECT_NE(e.find("topology.host_receive_gbps"), std::string::npos) << e;
    EXPECT_NE(e.find("at most the link rate"), std::string::npos) << e;
}
