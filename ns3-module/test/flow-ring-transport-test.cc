// FlowRingTransport between two fluid hosts: messages arrive in order, each after its bytes
// at the link rate plus the route's delay, receives complete as posted, and the weight and
// the host ceiling set its share.
#include "ns3/double.h"
#include "ns3/flow-ring-transport.h"
#include "ns3/fluid-host.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

struct Pair
{
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    Ptr<Node> nodes[2] = { CreateObject<Node>(), CreateObject<Node>() };
    Ptr<FlowRingTransport> tx = CreateObject<FlowRingTransport>();
    Ptr<FlowRingTransport> rx = CreateObject<FlowRingTransport>();
    uint32_t link;
    std::vector<std::pair<uint64_t, int64_t>> received; //!< bytes, ns

    explicit Pair(double bps)
    {
        link = net->AddLink(bps);
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<FluidHost> h = CreateObject<FluidHost>();
            h->SetNetwork(net);
            h->SetAddress(Ipv4Address(0x0a000001 + i));
            nodes[i]->AggregateObject(h);
        }
        FluidHost::Route r;
        r.to = nodes[1]->GetObject<FluidHost>();
        r.links = { link };
        r.delay = MicroSeconds(3);
        nodes[0]->GetObject<FluidHost>()->AddRoute(Ipv4Address(0x0a000002), r);
        tx->SetNode(nodes[0]);
        tx->SetNextAddress(Ipv4Address(0x0a000002));
        rx->SetNode(nodes[1]);
        rx->SetReceiveCallback(MakeCallback(&Pair::Received, this));
    }
    void Received(uint64_t bytes)
    {
        received.emplace_back(bytes, Simulator::Now().GetNanoSeconds());
    }
};

struct FlowRing : ::testing::Test
{
    void TearDown() override { Simulator::Destroy(); }
};

} // namespace

TEST_F(FlowRing, MessagesArriveInOrderAfterTheirBytesAndTheDelay)
{
    Pair p(8e9); // 1 byte per ns
    p.tx->Start();
    p.rx->Start();
    p.tx->Send(1000);
    p.tx->Send(500);
    p.rx->PostReceive(1000);
    p.rx->PostReceive(500);
    Simulator::Run();
    ASSERT_EQ(p.received.size(), 2u);
    EXPECT_EQ(p.received[0], std::make_pair(uint64_t(1000), int64_t(1000 + 3000)));
    EXPECT_EQ(p.received[1], std::make_pair(uint64_t(500), int64_t(1500 + 3000)));
    EXPECT_EQ(p.tx->GetBytesSent(), 1500u);
    EXPECT_EQ(p.rx->GetBytesReceived(), 1500u);
}

TEST_F(FlowRing, BytesThatArriveBeforeTheirReceiveIsPostedCount)
{
    Pair p(8e9);
    p.tx->Start();
    p.rx->Start();
    p.tx->Send(2000);
    Simulator::Schedule(MicroSeconds(10), [&] { p.rx->PostReceive(2000); });
    Simulator::Run();
    ASSERT_EQ(p.received.size(), 1u);
    EXPECT_EQ(p.received[0].second, 10000); // completes when posted: the bytes were there
}

TEST_F(FlowRing, HostCeilingAndWireFactorSetTheRate)
{
    Pair p(80e9);
    p.tx->SetAttribute("HostCeiling", DataRateValue(DataRate("8Gbps")));
    p.tx->SetAttribute("WireFactor", DoubleValue(1.25));
    p.tx->Start();
    p.rx->Start();
    p.tx->Send(8000);
    p.rx->PostReceive(8000);
    Simulator::Run();
    ASSERT_EQ(p.received.size(), 1u);
    EXPECT_EQ(p.received[0].second, 8000 + 3000); // the ceiling, not the link, at 1 byte/ns
    EXPECT_NEAR(p.net->GetLinkBytes(p.link, FluidNetwork::JOB), 10000, 1e-6); // headers too
}
