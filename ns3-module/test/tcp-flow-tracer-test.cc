// TcpFlowTracer on flows of a FlowGenerator over one point-to-point link: CUBIC's HyStart ends
// slow start on an empty link, a sender queue too short for the window ends it by a loss,
// NewReno (no HyStart) never leaves it without one.
#include "ns3/core-module.h"
#include "ns3/flow-generator-helper.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/tcp-flow-tracer.h"
#include "ns3/traffic-control-module.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kSegment = 1448;

/**
 * Flows of `sizes` bytes, one every 100 ms, from node 0 to node 1 over a 1 Gb/s link with 50 us
 * of delay and a FIFO of `queuePackets` on node 0's device, each flow's socket traced
 * (TCP timestamps off).
 */
std::vector<TcpFlowStats>
TraceFlows(const std::string& congestionControl, const std::vector<uint64_t>& sizes,
           uint32_t queuePackets)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kSegment));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(8 << 20));
    // Without timestamps ns-3 takes round-trip samples from its own clock (with them, from the
    // echoed timestamp, in whole milliseconds).
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(false));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                       TypeIdValue(TypeId::LookupByName(congestionControl)));
    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    p2p.SetChannelAttribute("Delay", StringValue("50us"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
    NetDeviceContainer devices = p2p.Install(nodes);
    InternetStackHelper().Install(nodes);
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                          StringValue(std::to_string(queuePackets) + "p"));
    fifo.Install(devices); // before the addresses, which would install ns-3's default
    Ipv4InterfaceContainer interfaces
        = Ipv4AddressHelper("10.1.1.0", "255.255.255.0").Assign(devices);

    std::vector<FlowArrival> flows;
    for (size_t i = 0; i < sizes.size(); ++i)
    {
        FlowArrival a;
        a.startUs = 100000 * i;
        a.sizeBytes = sizes[i];
        flows.push_back(a);
    }
    FlowTraffic traffic = FlowGeneratorHelper().Install(
        nodes.Get(0), { nodes.Get(1) }, { interfaces.GetAddress(1) },
        Create<ReplayFlowSchedule>(flows), Seconds(0), Seconds(10));
    Ptr<TcpFlowTracer> tracer = CreateObject<TcpFlowTracer>();
    tracer->Install(traffic.generator);
    Simulator::Stop(Seconds(0.1 * sizes.size() + 1));
    Simulator::Run();
    std::vector<TcpFlowStats> stats = tracer->GetStats();
    for (const FlowRecord& r : traffic.generator->GetRecords())
    {
        EXPECT_TRUE(r.IsComplete()) << "flow " << r.id;
    }
    Simulator::Destroy();
    Config::Reset();
    return stats;
}

} // namespace

TEST(TcpFlowTracer, HyStartEndsCubicsSlowStartOnAnEmptyLink)
{
    // Round trip about 0.1 ms: HyStart's ACK train ends slow start as soon as the window
    // reaches its low window (16 segments), long before 4 MB could overrun the 1000-packet
    // queue; nothing is lost.
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpCubic", { 4000000, 4000000 }, 1000);
    ASSERT_EQ(stats.size(), 2u);
    for (const TcpFlowStats& s : stats)
    {
        SCOPED_TRACE("flow " + std::to_string(s.id));
        EXPECT_EQ(s.id, &s - stats.data());
        ASSERT_FALSE(s.slowStartEnd.IsNegative());
        EXPECT_FALSE(s.slowStartEndedByLoss);
        EXPECT_GE(s.slowStartEndCwnd, 16 * kSegment);
        EXPECT_LE(s.slowStartEndCwnd, 32 * kSegment);
        EXPECT_GE(s.maxCwnd, s.slowStartEndCwnd);
        EXPECT_EQ(s.recoveries, 0u);
        EXPECT_EQ(s.timeouts, 0u);
        // Two 50 us hops of delay, plus serialisation and the delayed ACK.
        EXPECT_GE(s.minRtt.GetSeconds(), 100e-6);
        EXPECT_LE(s.minRtt, s.maxRtt);
        EXPECT_LT(s.maxRtt.GetSeconds(), 10e-3);
    }
    // The second flow starts 0.1 s after the first (done by then): on its own empty link.
    EXPECT_GE(stats[1].slowStartEnd.GetSeconds(), 0.1);
}

TEST(TcpFlowTracer, ASenderQueueTooShortForTheWindowEndsSlowStartByALoss)
{
    // Without HyStart the window doubles per round trip until it overruns a 20-packet FIFO:
    // the threshold falls with the loss, and the flow recovers.
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpCubic", { 4000000 }, 20);
    ASSERT_EQ(stats.size(), 1u);
    const TcpFlowStats& s = stats[0];
    ASSERT_FALSE(s.slowStartEnd.IsNegative());
    EXPECT_TRUE(s.slowStartEndedByLoss);
    EXPECT_GT(s.slowStartEndCwnd, 20 * kSegment);
    EXPECT_GE(s.recoveries + s.timeouts, 1u);
}

TEST(TcpFlowTracer, NewRenoStaysInSlowStartWithoutALoss)
{
    // NewReno has no HyStart: on the empty link nothing ends its slow start, and its window
    // grows far past CUBIC's exit (by a segment per segment acked, short of the queue).
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpNewReno", { 1000000 }, 1000);
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_TRUE(stats[0].slowStartEnd.IsNegative());
    EXPECT_EQ(stats[0].recoveries, 0u);
    EXPECT_GT(stats[0].maxCwnd, 100 * kSegment);
}
