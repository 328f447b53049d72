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

TEST(LeafSpineScenario, CrossTrafficGoesBetweenTheHostsNamed)
{
    json user = Fabric({ { "spines", 2 } });
    user["cross_traffic"] = { { "type", "iperf" }, { "load_gbps", 5 }, { "source", "S6" } };
    Scenario s = test::Resolve(user);
    EXPECT_EQ(CrossTrafficRoles(s).crossSource, 6u);
    EXPECT_EQ(CrossTrafficRoles(s).crossDestination, 0u); // configuration B's
    EXPECT_EQ(CrossTrafficRoles(s).BottleneckName(), "ToR port towards S0");
    user["cross_traffic"]["destination"] = "S6";
    EXPECT_NE(test::ScenarioErrorOf(user).find("key 'cross_traffic.destination': expected the "
                                               "cross traffic's source and destination apart"),
              std::string::npos)
        << test::ScenarioErrorOf(user);
    user["cross_traffic"]["destination"] = "S1,S2";
    EXPECT_NE(test::ScenarioErrorOf(user).find("expected one host"), std::string::npos);
    user["cross_traffic"]["destination"] = "S8";
    EXPECT_NE(test::ScenarioErrorOf(user).find("host names S0..S7"), std::string::npos);
    user["cross_traffic"].erase("destination");
    user["cross_traffic"]["source"] = "S0"; // B's destination
    EXPECT_NE(test::ScenarioErrorOf(user).find("key 'cross_traffic.source'"), std::string::npos);
}

TEST(LeafSpine, CrossTrafficBetweenLeavesTakesTheSameSpinesInBothEngines)
{
    // 10 Gbps of iperf from S6 (leaf 1) into S1 (leaf 0) beside a ring on S0,S1,S4,S5: its 4
    // streams
    // hash over both spines as the packet level's sockets do (their ephemeral ports).
    json user = Fabric({ { "spines", 2 }, { "oversubscription", 2 } });
    user["models"] = { { "comm", { { "parameters", 5000000 }, { "compute_s", 0.01 } } } };
    user["job"] = { { "model", "comm" },
                    { "iterations", 4 },
                    { "warmup_iterations", 1 },
                    { "hosts", "S0,S1,S4,S5" } };
    user["cross_traffic"]
        = { { "type", "iperf" }, { "load_gbps", 10 }, { "source", "S6" }, { "destination", "S1" } };
    user["simulation"] = { { "progress_interval_s", 0 } };
    std::map<std::string, RunSummary> run;
    for (const std::string engine : { "packet", "flow" })
    {
        user["simulation"]["engine"] = engine;
        run[engine] = RunScenario(test::Resolve(user)).summary;
        EXPECT_EQ(run[engine].bottleneck.port, "ToR port towards S1");
        EXPECT_NEAR(run[engine].crossTraffic.achievedGbps, 10, 0.2) << engine;
    }
    for (size_t p = 0; p < run["packet"].ports.size(); ++p)
    {
        const PortSummary& packet = run["packet"].ports[p];
        const PortSummary& flow = run["flow"].ports.at(p);
        ASSERT_EQ(packet.port, flow.port);
        // The uplinks (the packet level's host ports also carry the ACKs the flow engine
        // leaves out).
        if (packet.port.find("uplink") != std::string::npos || packet.port.rfind("spine", 0) == 0)
        {
            EXPECT_NEAR(flow.utilization, packet.utilization, 0.05) << packet.port;
        }
    }
    std::cout << "[measure] iperf S6 -> S1 across 2 spines: mean iteration packet "
              << run["packet"].iterationTimeS.mean << " s, flow " << run["flow"].iterationTimeS.mean
              << " s\n";
    EXPECT_NEAR(run["flow"].iterationTimeS.mean, run["packet"].iterationTimeS.mean,
                0.05 * run["packet"].iterationTimeS.mean);
}
