// The leaf-spine fabric end to end: the uplink rate from the oversubscription, its rules, and
// two identical jobs that meet on oversubscribed uplinks sharing them evenly in both engines.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

namespace
{

json
Fabric(const json& topology)
{
    json t = { { "hosts", 8 }, { "leaves", 2 } };
    t.merge_patch(topology);
    return { { "topology", t } };
}

} // namespace

TEST(LeafSpineScenario, TheUplinkRateFollowsTheOversubscription)
{
    // 4 hosts per leaf at 25 Gbps over 2 spines at 2:1: 25 Gbps uplinks.
    Scenario s = test::Resolve(Fabric({ { "spines", 2 }, { "oversubscription", 2 } }));
    EXPECT_DOUBLE_EQ(s.uplinkRateGbps, 25.0);
    Scenario r = test::Resolve(Fabric({ { "spines", 4 }, { "uplink_rate_gbps", 100 } }));
    EXPECT_DOUBLE_EQ(r.oversubscription, 0.25);
    Scenario star = test::Resolve(json::object());
    EXPECT_EQ(star.leaves, 1u);

    EXPECT_NE(test::ScenarioErrorOf(Fabric({ { "leaves", 3 } }))
                  .find("key 'topology.leaves': expected a divisor"),
              std::string::npos);
    EXPECT_NE(
        test::ScenarioErrorOf(Fabric({ { "uplink_rate_gbps", 100 }, { "oversubscription", 2 } }))
            .find("key 'topology.oversubscription'"),
        std::string::npos);
    json pfc = Fabric(json::object());
    pfc["topology"]["pfc"] = { { "enabled", true } };
    pfc["job"] = { { "transport", "rdma" } };
    EXPECT_NE(test::ScenarioErrorOf(pfc).find(
                  "key 'topology.pfc.enabled': PFC is modelled at the star's ToR"),
              std::string::npos)
        << test::ScenarioErrorOf(pfc);
}

TEST(LeafSpine, TwoIdenticalJobsShareOversubscribedUplinksEvenly)
{
    // 4:1 over one spine: each leaf's uplink is 25 Gbps, and both jobs' rings cross it.
    json user = Fabric({ { "spines", 1 }, { "oversubscription", 4 } });
    user["models"] = { { "comm", { { "parameters", 5000000 }, { "compute_s", 0.002 } } } };
    user["job"] = { { "model", "comm" }, { "iterations", 5 }, { "warmup_iterations", 1 } };
    user["jobs"]
        = { { { "name", "a" }, { "hosts", "S0,S4" } }, { { "name", "b" }, { "hosts", "S1,S5" } } };
    user["simulation"] = { { "progress_interval_s", 0 } };
    std::map<std::string, double> mean;
    for (const std::string engine : { "packet", "flow" })
    {
        user["simulation"]["engine"] = engine;
        RunOutput out = RunScenario(test::Resolve(user));
        const auto& jobs = out.summary.jobs;
        ASSERT_EQ(jobs.size(), 2u);
        const double a = jobs[0].dlGoodputGbps;
        const double b = jobs[1].dlGoodputGbps;
        std::cout << "[measure] two jobs on 25 Gbps uplinks, " << engine << " engine: goodput " << a
                  << " and " << b << " Gbps per worker, iterations " << jobs[0].iterationTimeS.mean
                  << " and " << jobs[1].iterationTimeS.mean << " s\n";
        EXPECT_NEAR(a, b, 0.05 * (a + b) / 2) << engine;
        // The uplinks are where they meet: busier than any host link.
        double uplink = 0;
        double host = 0;
        for (const auto& p : out.summary.ports)
        {
            if (p.port.rfind("ToR 0 uplink", 0) == 0)
            {
                uplink = std::max(uplink, p.utilization);
            }
            else if (p.port.find(" NIC egress") != std::string::npos
                     || p.port.rfind("ToR port towards", 0) == 0)
            {
                host = std::max(host, p.utilization);
            }
        }
        EXPECT_GT(uplink, 0.6) << engine;
        EXPECT_NE(FormatHumanSummary(out.summary).find("busiest uplink   ToR 0 uplink to spine 0"),
                  std::string::npos)
            << FormatHumanSummary(out.summary);
        EXPECT_GT(uplink, 1.5 * host) << engine;
        mean[engine] = jobs[0].iterationTimeS.mean;
    }
    EXPECT_NEAR(mean["flow"], mean["packet"], 0.1 * mean["packet"]);
}

TEST(LeafSpine, TheFlowEngineSpreadsConnectionsOverSpinesAsTheSwitchesDo)
{
    // One 2-worker ring between two leaves over 2 spines, 3 TCP connections per hop: each
    // connection takes the spine its source leaf's hash picks, in both engines.
    json user = Fabric({ { "spines", 2 }, { "oversubscription", 2 } });
    user["models"] = { { "comm", { { "parameters", 5000000 }, { "compute_s", 0.002 } } } };
    user["job"] = { { "model", "comm" },
                    { "iterations", 3 },
                    { "warmup_iterations", 1 },
                    { "hosts", "S0,S4" },
                    { "tcp", { { "sockets_per_peer", 3 } } } };
    user["simulation"] = { { "progress_interval_s", 0 } };
    std::map<std::string, std::map<std::string, double>> used; // engine -> uplink -> utilization
    for (const std::string engine : { "packet", "flow" })
    {
        user["simulation"]["engine"] = engine;
        RunOutput out = RunScenario(test::Resolve(user));
        for (const auto& p : out.summary.ports)
        {
            if (p.port.find("uplink") != std::string::npos || p.port.rfind("spine", 0) == 0)
            {
                used[engine][p.port] = p.utilization;
            }
        }
    }
    ASSERT_EQ(used["packet"].size(), 8u);
    int carrying = 0;
    for (const auto& [port, packet] : used["packet"])
    {
        const double flow = used["flow"].at(port);
        std::cout << "[measure] " << port << ": packet " << packet << ", flow " << flow << "\n";
        // The same uplinks carry the ring, about as much.
        EXPECT_EQ(packet > 0.02, flow > 0.02) << port;
        if (packet > 0.02)
        {
            ++carrying;
            EXPECT_NEAR(flow, packet, 0.15 * packet) << port;
        }
    }
    EXPECT_GE(carrying, 2);
}
