#include "ns3-anchor.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"

#include <chrono>
#include <cstdint>

namespace flumen
{

namespace
{

// Packets put on either link; a trace sink cannot carry state, hence a global.
uint64_t g_anchorHops = 0;

void
CountHop(ns3::Ptr<const ns3::Packet>)
{
    ++g_anchorHops;
}

} // namespace

// n0 -> n1 -> n2, 25 Gbps links, a 24 Gbps constant UDP flow of 1500-byte IP packets into a
// PacketSink.
nlohmann::json
MeasureNs3Anchor(double seconds)
{
    using namespace ns3;
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    NodeContainer nodes;
    nodes.Create(3);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("25Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("1us"));
    InternetStackHelper stack;
    stack.Install(nodes);
    NetDeviceContainer a = p2p.Install(nodes.Get(0), nodes.Get(1));
    NetDeviceContainer b = p2p.Install(nodes.Get(1), nodes.Get(2));
    Ipv4AddressHelper addr;
    addr.SetBase("10.1.1.0", "255.255.255.0");
    addr.Assign(a);
    addr.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer bi = addr.Assign(b);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(bi.GetAddress(1), 9));
    onoff.SetConstantRate(DataRate("24Gbps"), 1472);
    ApplicationContainer src = onoff.Install(nodes.Get(0));
    src.Start(Seconds(0));
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), 9));
    ApplicationContainer sink = sinkHelper.Install(nodes.Get(2));
    a.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&CountHop));
    b.Get(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&CountHop));
    Simulator::Stop(Seconds(seconds));
    Simulator::Run();
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    double rx = DynamicCast<PacketSink>(sink.Get(0))->GetTotalRx() * 8.0 / seconds / 1e9;
    nlohmann::json r = { { "simulated_s", Simulator::Now().GetSeconds() },
                         { "wall_s", wall },
                         { "events", Simulator::GetEventCount() },
                         { "tor_packets", g_anchorHops / 2 },
                         { "packet_hops", g_anchorHops },
                         { "udp_goodput_gbps", rx } };
    Simulator::Destroy();
    return r;
}

} // namespace flumen
