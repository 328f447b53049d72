// FluidNetwork's ACKs (FlowSpec::ackPath, ackWireFactor): they load the links back to the
// sender, queue behind line-rate RoCE there, and that queue lengthens the round trip of a paced
// TCP stream whose buffers bound its window (the packet level's iperf beside a RoCE ring in
// configuration A, docs/flow-engine.md "ACKs").
#include "queued-port.h"

#include <gtest/gtest.h>

using namespace ns3;
using ns3::test::kC;
using ns3::test::QueuedPort;

namespace
{

constexpr double kPace = 11.68e9;
constexpr double kWindow = 1048576;        // its buffers (tcp.snd_buf_bytes, rcv_buf_bytes)
constexpr double kAckFactor = 54.0 / 2896; // 54 wire bytes per two 1448-byte segments
constexpr double kBaseRtt = 20e-6;

struct Acks : QueuedPort
{
    uint32_t forward = 0; // the stream's own link (its ACKs come back through the port)

    void SetUp() override
    {
        QueuedPort::SetUp();
        forward = net->AddLink(kC, true);
    }
    FluidNetwork::FlowSpec Stream(double ackFactor)
    {
        FluidNetwork::FlowSpec s;
        s.path = { forward };
        s.ackPath = { port };
        s.ackWireFactor = ackFactor;
        s.paced = true;
        s.capBps = kPace;
        s.windowBytes = kWindow;
        s.baseRttS = kBaseRtt;
        s.cls = FluidNetwork::CROSS;
        return s;
    }
};

} // namespace

TEST_F(Acks, AcksBehindLineRateRoceQueueAndBoundAPacedStreamByItsWindow)
{
    const uint64_t stream = net->StartFlow(Stream(kAckFactor));
    net->StartFlow(Unresponsive(FluidNetwork::kUnbounded)); // pushes 25 Gbps into the port
    // The ACKs take their rate of the port: the RoCE backlog grows by it, and so the queue.
    RunUntil(MilliSeconds(20));
    const double ackBps = kPace * kAckFactor;
    EXPECT_NEAR(net->GetLinkRate(port, FluidNetwork::CROSS), ackBps, 1e-3 * ackBps);
    EXPECT_NEAR(net->GetFlowRate(stream), kPace, 1e-6 * kPace); // its window still covers it
    EXPECT_NEAR(net->GetQueueBytes(port) * 8, ackBps * 0.02, 0.02 * ackBps * 0.02);
    // Once the queue's delay passes window / pace less the base round trip (0.70 ms), the
    // window holds the stream below its pace, and its ACKs (and the queue's growth) fall too.
    RunUntil(MilliSeconds(150));
    const double rtt = kBaseRtt + net->GetQueueBytes(port) * 8 / kC;
    EXPECT_GT(rtt, kWindow * 8 / kPace);
    EXPECT_NEAR(net->GetFlowRate(stream), kWindow * 8 / rtt, 2e-3 * kPace);
    EXPECT_LT(net->GetLinkRate(port, FluidNetwork::CROSS), 0.95 * ackBps);
    // A queue that only a backlog builds, by a trickle, is followed in steps of a fraction of
    // its age: about 170 recomputations here, where steps of a quarter of its delay took 2,063.
    EXPECT_LT(net->GetRecomputations(), 500u);
    Simulator::Stop();
}

TEST_F(Acks, WithoutAcksTheStreamKeepsItsPaceBesideLineRateRoce)
{
    const uint64_t stream = net->StartFlow(Stream(0));
    net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    RunUntil(MilliSeconds(150));
    EXPECT_EQ(net->GetQueueBytes(port), 0);
    EXPECT_EQ(net->GetLinkRate(port, FluidNetwork::CROSS), 0);
    EXPECT_NEAR(net->GetFlowRate(stream), kPace, 1e-6 * kPace);
    Simulator::Stop();
}
