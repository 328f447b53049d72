// TcpFlowTracer on flows of a FlowGenerator over one point-to-point link: CUBIC's HyStart ends
// slow start on an empty link, a sender queue too short for the window ends it by a fast
// recovery, an outage by a retransmission timeout, an ECN mark by CWR; NewReno (no HyStart)
// never leaves it without one.
#include "ns3/core-module.h"
#include "ns3/ecn-ramp-queue-disc.h"
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

/** A FIFO of this many packets. */
TrafficControlHelper
Fifo(uint32_t packets)
{
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                          StringValue(std::to_string(packets) + "p"));
    return fifo;
}

/**
 * Flows of `sizes` bytes, one every 100 ms, from node 0 to node 1 over a 1 Gb/s link with 50 us
 * of delay and the queue disc `queue` on node 0's device, each flow's socket traced (TCP
 * timestamps off); `receiverLoss`, if set, on node 1's device.
 */
std::vector<TcpFlowStats>
TraceFlows(const std::string& congestionControl, const std::vector<uint64_t>& sizes,
           TrafficControlHelper queue, Ptr<ErrorModel> receiverLoss = nullptr)
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
    if (receiverLoss)
    {
        devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(receiverLoss));
    }
    InternetStackHelper().Install(nodes);
    queue.Install(devices); // before the addresses, which would install ns-3's default
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
    Simulator::Stop(Seconds(0.1 * sizes.size() + 5));
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

/** CUBIC's HyStart low window, in segments: ns-3's default of the attribute. */
uint32_t
HyStartLowWindow()
{
    TypeId::AttributeInformation info;
    if (!TypeId::LookupByName("ns3::TcpCubic").LookupAttributeByName("HyStartLowWindow", &info))
    {
        ADD_FAILURE() << "ns3::TcpCubic has no HyStartLowWindow";
        return 0;
    }
    return DynamicCast<const UintegerValue>(info.initialValue)->Get();
}

} // namespace

TEST(TcpFlowTracer, HyStartEndsCubicsSlowStartOnAnEmptyLink)
{
    // Round trip about 0.1 ms: HyStart's ACK train ends slow start as soon as the window
    // reaches its low window (16 segments), long before 4 MB could overrun the 1000-packet
    // queue; nothing is lost.
    const uint32_t low = HyStartLowWindow();
    ASSERT_EQ(low, 16u);
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpCubic", { 4000000, 4000000 }, Fifo(1000));
    ASSERT_EQ(stats.size(), 2u);
    for (const TcpFlowStats& s : stats)
    {
        SCOPED_TRACE("flow " + std::to_string(s.id));
        ASSERT_FALSE(s.slowStartEnd.IsNegative());
        EXPECT_EQ(s.slowStartEndCause, TcpFlowStats::HYSTART);
        EXPECT_GE(s.slowStartEndCwnd, low * kSegment);
        EXPECT_LE(s.slowStartEndCwnd, 2 * low * kSegment);
        EXPECT_EQ(s.recoveries, 0u);
        EXPECT_EQ(s.timeouts, 0u);
        // Two 50 us hops of delay, plus serialisation and the delayed ACK.
        EXPECT_GE(s.minSrtt.GetSeconds(), 100e-6);
        EXPECT_LT(s.maxSrtt.GetSeconds(), 10e-3);
    }
}

TEST(TcpFlowTracer, ASenderQueueTooShortForTheWindowEndsSlowStartByALoss)
{
    // Without HyStart the window doubles per round trip until it overruns a 20-packet FIFO:
    // the threshold falls with the loss, and the flow recovers fast (its duplicate ACKs come
    // well within the 1 s minimum timeout).
    Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(false));
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpCubic", { 4000000 }, Fifo(20));
    ASSERT_EQ(stats.size(), 1u);
    const TcpFlowStats& s = stats[0];
    ASSERT_FALSE(s.slowStartEnd.IsNegative());
    EXPECT_EQ(s.slowStartEndCause, TcpFlowStats::LOSS);
    EXPECT_GT(s.slowStartEndCwnd, 20 * kSegment);
    EXPECT_GE(s.recoveries, 1u);
    EXPECT_EQ(s.timeouts, 0u);
}

TEST(TcpFlowTracer, AnOutageEndsSlowStartByATimeout)
{
    // The receiver loses every packet from 0.5 to 50 ms: the window in flight vanishes with no
    // duplicate ACK to come back, so only the retransmission timer (ns-3's 1 s minimum)
    // recovers, and slow start ends there.
    Ptr<RateErrorModel> outage = CreateObject<RateErrorModel>();
    outage->SetAttribute("ErrorRate", DoubleValue(1.0));
    outage->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
    outage->Disable();
    Simulator::Schedule(MicroSeconds(500), &ErrorModel::Enable, outage);
    Simulator::Schedule(MilliSeconds(50), &ErrorModel::Disable, outage);
    std::vector<TcpFlowStats> stats
        = TraceFlows("ns3::TcpNewReno", { 4000000 }, Fifo(1000), outage);
    ASSERT_EQ(stats.size(), 1u);
    const TcpFlowStats& s = stats[0];
    ASSERT_FALSE(s.slowStartEnd.IsNegative());
    EXPECT_EQ(s.slowStartEndCause, TcpFlowStats::LOSS);
    EXPECT_GE(s.timeouts, 1u);
    EXPECT_GE(s.slowStartEnd.GetSeconds(), 1.0);
}

TEST(TcpFlowTracer, AnEcnMarkEndsSlowStartByCwr)
{
    // NewReno with ECN behind a queue that marks every ECN-capable packet once it holds more
    // than 15,000 bytes (and has room for all): the first echoed mark lowers the threshold;
    // nothing is lost.
    Config::SetDefault("ns3::TcpSocketBase::UseEcn", EnumValue(TcpSocketState::On));
    TrafficControlHelper marking;
    marking.SetRootQueueDisc("ns3::EcnRampQueueDisc", "MaxSize", StringValue("10MB"), "KminBytes",
                             UintegerValue(10 * 1500), "KmaxBytes", UintegerValue(10 * 1500 + 1));
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpNewReno", { 4000000 }, marking);
    ASSERT_EQ(stats.size(), 1u);
    const TcpFlowStats& s = stats[0];
    ASSERT_FALSE(s.slowStartEnd.IsNegative());
    EXPECT_EQ(s.slowStartEndCause, TcpFlowStats::ECN);
    EXPECT_EQ(s.recoveries + s.timeouts, 0u);
}

TEST(TcpFlowTracer, NewRenoStaysInSlowStartWithoutALoss)
{
    // NewReno has no HyStart: on the empty link nothing ends its slow start, and its window
    // grows far past CUBIC's exit (by a segment per segment acked, short of the queue).
    std::vector<TcpFlowStats> stats = TraceFlows("ns3::TcpNewReno", { 1000000 }, Fifo(1000));
    ASSERT_EQ(stats.size(), 1u);
    EXPECT_TRUE(stats[0].slowStartEnd.IsNegative());
    EXPECT_EQ(stats[0].slowStartEndCause, TcpFlowStats::NONE);
    EXPECT_EQ(stats[0].recoveries, 0u);
    EXPECT_GT(stats[0].maxCwnd, 100 * kSegment);
}
