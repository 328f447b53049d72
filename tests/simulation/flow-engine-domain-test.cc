// The flow engine's domain (what engine auto keeps at flow level, docs/flow-engine.md) judged
// from a flow run's summary: a switch port whose queue reached its buffer, and over TCP alone a
// TCP ring's host ceiling beside flow cross traffic that with it asks more than the bottleneck
// carries. (A FIFO bottleneck busier than simulation.auto_max_utilization: flow-engine-test.cc,
// end to end.)
#include "flow-network.h"
#include "packet-network.h"
#include "scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using nlohmann::json;
using namespace flumen;

namespace
{

// A flow run's summary in configuration B (per host its NIC, then the ToR's port towards it),
// its bottleneck the ToR's port towards S0, busy below auto's threshold.
RunSummary
FlowRun(const Scenario& s, double crossAchievedGbps)
{
    RunSummary run;
    for (uint32_t h = 0; h < s.hosts; ++h)
    {
        for (const char* where : { "NIC of S", "ToR port towards S" })
        {
            PortSummary p;
            p.port = where + std::to_string(h);
            p.utilization = 0.9;
            run.ports.push_back(p);
        }
    }
    run.bottleneck = run.ports[1];
    run.crossTraffic.type = s.crossType;
    run.crossTraffic.achievedGbps = crossAchievedGbps;
    return run;
}

Scenario
Resolve(const std::string& text)
{
    return test::Resolve(json::parse(text));
}

} // namespace

TEST(FlowEngineDomain, ATcpRingsCeilingBesideFlowTrafficThatFillsThePortIsOutOfTheDomain)
{
    const Scenario s = Resolve(R"({"job": {"transport": "tcp", "tcp": {"host_ceiling_gbps": 11.8}},
                        "cross_traffic": {"type": "websearch", "load_gbps": 14}})");
    // 25 Gbps links: the cross traffic may take 13.2 Gbps on the wire beside 11.8.
    const double fits = (25 - 11.8) / TcpWireFactor(s);
    std::string why;
    EXPECT_TRUE(FlowEngineInDomain(s, FlowRun(s, 0.995 * fits), why)) << why;
    EXPECT_NE(why.find("90.0 % busy"), std::string::npos) << why;
    EXPECT_FALSE(FlowEngineInDomain(s, FlowRun(s, 1.005 * fits), why));
    EXPECT_NE(why.find("job.tcp.host_ceiling_gbps = 11.80) and the websearch beside it"),
              std::string::npos)
        << why;
    EXPECT_NE(why.find("ask more than the 25 Gbps of ToR port towards S0"), std::string::npos)
        << why;
    EXPECT_NE(why.find("re-run at packet level"), std::string::npos) << why;
}

TEST(FlowEngineDomain, TheCeilingRuleNeedsACappedTcpRingFlowTrafficAndNoStandingQueue)
{
    std::string why;
    // No ceiling: the ring fills what the cross traffic leaves, whatever the sharing.
    Scenario s = Resolve(R"({"job": {"transport": "tcp"},
                    "cross_traffic": {"type": "websearch", "load_gbps": 20}})");
    EXPECT_TRUE(FlowEngineInDomain(s, FlowRun(s, 20), why)) << why;
    // iperf keeps its pace in both engines, the ring what is left.
    s = Resolve(R"({"job": {"transport": "tcp", "tcp": {"host_ceiling_gbps": 11.8}},
                    "cross_traffic": {"type": "iperf", "load_gbps": 20}})");
    EXPECT_TRUE(FlowEngineInDomain(s, FlowRun(s, 20), why)) << why;
    // Burst and replayed flows are flows as web-search's are.
    s = Resolve(R"({"job": {"transport": "tcp", "tcp": {"host_ceiling_gbps": 11.8}},
                    "cross_traffic": {"type": "burst", "load_gbps": 20}})");
    EXPECT_FALSE(FlowEngineInDomain(s, FlowRun(s, 20), why));
    // An RDMA job on the FIFO switch: standing queues and windows, not max-min; its ring runs
    // at line rate.
    s = Resolve(
        R"({"job": {"transport": "rdma"}, "topology": {"switch_queue": {"discipline": "fifo"}},
                    "cross_traffic": {"type": "websearch", "load_gbps": 20}})");
    EXPECT_TRUE(FlowEngineInDomain(s, FlowRun(s, 20), why)) << why;
}

TEST(FlowEngineDomain, AutoRerunsWhereTheEnginesQueueReachedTheSwitchsBuffer)
{
    const Scenario s = Resolve(R"({"job": {"transport": "rdma"},
                        "topology": {"switch_queue": {"buffer_bytes": 4000000}},
                        "cross_traffic": {"type": "websearch", "load_gbps": 5}})");
    RunSummary run = FlowRun(s, 5);
    std::string why;
    EXPECT_TRUE(FlowEngineInDomain(s, run, why)) << why;
    run.ports[0].maxQueueBytes = 5000000; // a NIC's queue is not the switch's buffer
    EXPECT_TRUE(FlowEngineInDomain(s, run, why)) << why;
    run.ports[1].maxQueueBytes = 3999999; // not quite full
    run.ports[1].switchBuffer = BufferLossSummary{ 0, 0 };
    EXPECT_TRUE(FlowEngineInDomain(s, run, why)) << why;
    run.ports[1].maxQueueBytes = 4000000; // full: the engine dropped there
    EXPECT_FALSE(FlowEngineInDomain(s, run, why));
    EXPECT_NE(why.find("ToR port towards S0 reached topology.switch_queue.buffer_bytes (4.00 MB)"),
              std::string::npos)
        << why;
    run.ports[1].maxQueueBytes = 10; // filled earlier, emptied since: its fills say so
    run.ports[1].switchBuffer = BufferLossSummary{ 2, 5 };
    EXPECT_FALSE(FlowEngineInDomain(s, run, why));
}
