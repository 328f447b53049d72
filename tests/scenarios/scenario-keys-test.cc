// The key table: each key declared once, attribute-backed keys take their defaults from the
// attribute's TypeId and really set it, sizes are bounded where ns-3 stores them in 32 bits.
#include "scenario-keys.h"
#include "scenario.h"
#include "test-support.h"

#include "ns3/config.h"
#include "ns3/dcqcn-rate-control.h"
#include "ns3/double.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/star-topology-helper.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <set>

using namespace flumen;
using nlohmann::json;

TEST(ScenarioKeys, EveryKeyIsDeclaredOnceWithAStoreOrAnAttribute)
{
    std::set<std::string> paths;
    for (const auto& k : ScenarioKeys())
    {
        EXPECT_TRUE(paths.insert(k.path).second) << k.path << " declared twice";
        // A key nobody reads would be accepted and silently ignored.
        EXPECT_TRUE(k.store || !k.attribute.empty()) << k.path << " is applied nowhere";
        EXPECT_FALSE(k.defaultValue.is_null()) << k.path;
    }
}

TEST(ScenarioKeys, AttributeDefaultsAreTheTypeIdsInTheKeysUnit)
{
    // By hand from the TypeIds: DcqcnRateControl's AlphaUpdateInterval is 55 us, MinRate
    // 1 Mb/s; RdmaRingTransport's RetransmitTimeout 4.096 us x 2^14 = 67.108864 ms.
    EXPECT_EQ(FindKey(ScenarioKeys(), "dcqcn.alpha_update_us")->defaultValue, json(55.0));
    EXPECT_EQ(FindKey(ScenarioKeys(), "dcqcn.min_rate_mbps")->defaultValue, json(1.0));
    EXPECT_DOUBLE_EQ(
        FindKey(ScenarioKeys(), "job.rdma.retransmit_timeout_ms")->defaultValue.get<double>(),
        67.108864);
    // The queue keys' defaults are the topology helper's.
    const ns3::StarTopologyConfig topology;
    EXPECT_EQ(FindKey(ScenarioKeys(), "topology.host_queue.buffer_bytes")->defaultValue,
              json(topology.hostQueue.bufferBytes));
    EXPECT_EQ(FindKey(ScenarioKeys(), "topology.switch_queue.discipline")->defaultValue,
              json(topology.switchQueue.discipline));
}

TEST(ScenarioKeys, ApplyingAScenarioSetsTheAttributes)
{
    json user = { { "dcqcn", { { "alpha_update_us", 12.5 }, { "min_rate_mbps", 40 } } },
                  { "job", { { "rdma", { { "retransmit_timeout_ms", 2.5 } } } } } };
    Scenario s = test::Resolve(user);
    ApplyAttributeKeys(s.resolved);
    auto rc = ns3::CreateObject<ns3::DcqcnRateControl>();
    ns3::TimeValue update;
    rc->GetAttribute("AlphaUpdateInterval", update);
    EXPECT_EQ(update.Get(), ns3::NanoSeconds(12500));
    ns3::DataRateValue minRate;
    rc->GetAttribute("MinRate", minRate);
    EXPECT_EQ(minRate.Get().GetBitRate(), 40000000u);
    auto qp = ns3::CreateObject<ns3::RdmaRingTransport>();
    ns3::TimeValue rto;
    qp->GetAttribute("RetransmitTimeout", rto);
    EXPECT_EQ(rto.Get(), ns3::MicroSeconds(2500));
    ns3::Config::Reset();
}

TEST(ScenarioKeys, BuffersBeyondThirtyTwoBitsAreRefusedNotWrapped)
{
    // ns-3's QueueSize holds 32 bits: 2^32 bytes would have wrapped to 0.
    json user = { { "topology", { { "switch_queue", { { "buffer_bytes", 4294967296 } } } } } };
    try
    {
        ResolveScenario(user, "big.json");
        FAIL() << "accepted a 4 GiB buffer";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("big.json: key 'topology.switch_queue.buffer_bytes'"),
                  std::string::npos)
            << e.what();
    }
    user["topology"]["switch_queue"]["buffer_bytes"] = 4294967295;
    EXPECT_EQ(test::Resolve(user).switchQueue.bufferBytes, 4294967295u);
}

TEST(ScenarioKeys, DescriptionListsEveryKeyWithUnitAndAttribute)
{
    const std::string text = DescribeKeys();
    for (const auto& k : ScenarioKeys())
    {
        EXPECT_NE(text.find(k.path), std::string::npos) << k.path;
    }
    EXPECT_NE(text.find("(sets ns3::DcqcnRateControl::AlphaGain)"), std::string::npos);
    EXPECT_NE(text.find("models.<name>.backward_share"), std::string::npos);
}
