// FlowHashRouting: longest prefix first, one next hop per flow (its 5-tuple), flows spread
// evenly over equal-cost hops, the salt reshuffles them; and on the leaf-spine fabric of
// StarTopologyHelper every host reaches every other, over both spines.
#include "ns3/core-module.h"
#include "ns3/flow-hash-routing.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/star-topology-helper.h"

#include <gtest/gtest.h>

#include <map>

using namespace ns3;

namespace
{

Ipv4Header
IpHeader(const char* source, const char* destination, uint8_t protocol = 6)
{
    Ipv4Header h;
    h.SetSource(Ipv4Address(source));
    h.SetDestination(Ipv4Address(destination));
    h.SetProtocol(protocol);
    return h;
}

Ptr<Packet>
TcpSegment(uint16_t sourcePort, uint16_t destinationPort)
{
    Ptr<Packet> p = Create<Packet>(100);
    TcpHeader tcp;
    tcp.SetSourcePort(sourcePort);
    tcp.SetDestinationPort(destinationPort);
    p->AddHeader(tcp);
    return p;
}

Ptr<FlowHashRouting>
Router(uint64_t salt)
{
    Ptr<FlowHashRouting> r = CreateObject<FlowHashRouting>();
    r->SetAttribute("Salt", UintegerValue(salt));
    r->AddRoute(Ipv4Address("10.0.1.0"), Ipv4Mask("255.255.255.0"), 1);
    for (uint32_t i = 2; i <= 5; ++i)
    {
        r->AddRoute(Ipv4Address::GetZero(), Ipv4Mask::GetZero(), i, Ipv4Address(0x0b000000 + i));
    }
    return r;
}

} // namespace

TEST(FlowHashRouting, LongestPrefixThenOneHopPerFlow)
{
    Ptr<FlowHashRouting> r = Router(0);
    FlowHashRouting::NextHop hop;
    ASSERT_TRUE(r->Lookup(IpHeader("10.0.9.1", "10.0.1.7"), TcpSegment(1, 2), hop));
    EXPECT_EQ(hop.interface, 1u);
    EXPECT_EQ(hop.gateway, Ipv4Address::GetZero());

    ASSERT_TRUE(r->Lookup(IpHeader("10.0.1.7", "10.0.9.1"), TcpSegment(40000, 45000), hop));
    const uint32_t first = hop.interface;
    EXPECT_GE(first, 2u);
    EXPECT_LE(first, 5u);
    EXPECT_EQ(hop.gateway, Ipv4Address(0x0b000000 + first));
    for (int i = 0; i < 10; ++i) // every packet of the flow
    {
        r->Lookup(IpHeader("10.0.1.7", "10.0.9.1"), TcpSegment(40000, 45000), hop);
        EXPECT_EQ(hop.interface, first);
    }

    Ptr<FlowHashRouting> only = CreateObject<FlowHashRouting>();
    only->AddRoute(Ipv4Address("10.0.1.0"), Ipv4Mask("255.255.255.0"), 1);
    EXPECT_FALSE(only->Lookup(IpHeader("10.0.1.7", "10.0.9.1"), TcpSegment(1, 2), hop));
}

TEST(FlowHashRouting, FlowsSpreadEvenlyAndTheSaltReshufflesThem)
{
    Ptr<FlowHashRouting> a = Router(0);
    Ptr<FlowHashRouting> b = Router(7);
    std::map<uint32_t, int> perHop;
    int moved = 0;
    const int flows = 8000;
    for (int f = 0; f < flows; ++f)
    {
        FlowHashRouting::NextHop x;
        FlowHashRouting::NextHop y;
        const auto port = static_cast<uint16_t>(10000 + f);
        a->Lookup(IpHeader("10.0.1.7", "10.0.9.1"), TcpSegment(port, 45000), x);
        b->Lookup(IpHeader("10.0.1.7", "10.0.9.1"), TcpSegment(port, 45000), y);
        perHop[x.interface]++;
        moved += x.interface != y.interface ? 1 : 0;
    }
    ASSERT_EQ(perHop.size(), 4u);
    for (const auto& [hop, n] : perHop)
    {
        EXPECT_NEAR(n, flows / 4, flows / 4 * 0.06) << "interface " << hop;
    }
    // Independent choices: 3 in 4 flows land elsewhere.
    EXPECT_NEAR(moved, flows * 3 / 4, flows * 0.03);
    // UDP ports count too; another protocol hashes on the addresses only.
    FlowHashRouting::NextHop u1;
    FlowHashRouting::NextHop u2;
    int differ = 0;
    for (uint16_t port = 1; port < 50; ++port)
    {
        a->Lookup(IpHeader("10.0.1.7", "10.0.9.1", 17), TcpSegment(port, 4791), u1);
        a->Lookup(IpHeader("10.0.1.7", "10.0.9.1", 1), TcpSegment(port, 4791), u2);
        differ += u1.interface != u2.interface ? 1 : 0;
    }
    EXPECT_GT(differ, 0);
}

TEST(FlowHashRouting, LeafSpineFabricConnectsEveryPairOverBothSpines)
{
    StarTopologyConfig c;
    c.hosts = 8;
    c.leaves = 2;
    c.spines = 2;
    StarTopology t = StarTopologyHelper(c).Install();
    ASSERT_EQ(t.uplinks.size(), 4u);
    std::map<uint32_t, uint32_t> received; // host -> datagrams
    std::vector<Ptr<Socket>> sinks;
    for (uint32_t h = 0; h < t.hosts.GetN(); ++h)
    {
        Ptr<Socket> sink = Socket::CreateSocket(t.hosts.Get(h), UdpSocketFactory::GetTypeId());
        sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
        sink->SetRecvCallback(
            MakeCallback(+[](std::map<uint32_t, uint32_t>* rx, uint32_t host, Ptr<Socket> s)
                         {
                             while (s->Recv())
                             {
                                 (*rx)[host]++;
                             }
                         })
                .Bind(&received, h));
        sinks.push_back(sink);
    }
    const uint16_t flowsPerPair = 8;
    for (uint32_t from = 0; from < t.hosts.GetN(); ++from)
    {
        for (uint32_t to = 0; to < t.hosts.GetN(); ++to)
        {
            for (uint16_t f = 0; f < flowsPerPair && from != to; ++f)
            {
                Ptr<Socket> s
                    = Socket::CreateSocket(t.hosts.Get(from), UdpSocketFactory::GetTypeId());
                s->Bind(InetSocketAddress(Ipv4Address::GetAny(), 20000 + f));
                Simulator::Schedule(MicroSeconds(10 * (from * 8 + to)),
                                    [s, to, &t] {
                                        s->SendTo(Create<Packet>(200), 0,
                                                  InetSocketAddress(t.hostAddresses[to], 9));
                                    });
            }
        }
    }
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    for (uint32_t h = 0; h < t.hosts.GetN(); ++h)
    {
        EXPECT_EQ(received[h], 7u * flowsPerPair) << "S" << h;
    }
    // Between leaves, flows took both spines (each leaf's uplinks carried some).
    for (const auto& u : t.uplinks)
    {
        EXPECT_GT(u.leafQueueDisc->GetStats().nTotalReceivedPackets, 20u)
            << "ToR " << u.leaf << " to spine " << u.spine;
        EXPECT_GT(u.spineQueueDisc->GetStats().nTotalReceivedPackets, 20u)
            << "spine " << u.spine << " to ToR " << u.leaf;
    }
    Simulator::Destroy();
}
