// A window flow whose window applies per segment of its path (FluidNetwork's window segments:
// a whole ring, NCCL's window on every hop): each segment's window over its own round trip and
// the queues on it alone; no queue of its own at a port where it is alone; no more into a port
// than the room the other flows leave it on the links before it.
#include "ns3/fluid-network.h"
#include "ns3/fluid-queue.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3
{
namespace
{

constexpr double kC = 25e9;

// Two hops, each a NIC and a FIFO switch port with a standing queue; a TCP-like window flow
// beside the first hop's port, from its own NIC.
struct TwoHops : ::testing::Test
{
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    uint32_t nicA = 0, portA = 0, nicB = 0, portB = 0, nicT = 0;

    void SetUp() override
    {
        nicA = net->AddLink(kC);
        portA = net->AddLink(kC, true, true);
        nicB = net->AddLink(kC);
        portB = net->AddLink(kC, true, true);
        nicT = net->AddLink(kC);
    }
    void TearDown() override
    {
        net->Dispose();
        Simulator::Destroy();
    }
    FluidNetwork::FlowSpec Ring(double window)
    {
        FluidNetwork::FlowSpec s;
        s.path = { nicA, portA, nicB, portB };
        s.kind = FluidNetwork::WINDOW;
        s.cls = FluidNetwork::JOB;
        s.windowBytes = s.initialWindowBytes = window;
        s.lossBeta = 1;
        s.windowSegments = { { 0, 10e-6, {} }, { 2, 30e-6, {} } };
        return s;
    }
    FluidNetwork::FlowSpec Tcp(double window)
    {
        FluidNetwork::FlowSpec s;
        s.path = { nicT, portA };
        s.kind = FluidNetwork::WINDOW;
        s.windowBytes = s.initialWindowBytes = window;
        s.baseRttS = 4e-6;
        return s;
    }
    void RunFor(double seconds)
    {
        Simulator::Stop(Seconds(seconds));
        Simulator::Run();
    }
};

TEST_F(TwoHops, AlonePortsHoldNoQueueOfItsWindowAndItMovesAtLineRate)
{
    // Every hop sends what it receives: alone at its ports the ring fills them without a queue.
    const uint64_t ring = net->StartFlow(Ring(4e6));
    RunFor(1e-3);
    EXPECT_DOUBLE_EQ(net->GetQueueBytes(portA), 0);
    EXPECT_DOUBLE_EQ(net->GetQueueBytes(portB), 0);
    EXPECT_NEAR(net->GetFlowRate(ring), kC, 1e-9 * kC);
}

TEST_F(TwoHops, BesidePacedTrafficAloneItsWindowHoldsNoQueue)
{
    // A paced 0.1 Gbps (ACKs, a paced sender) at the first port: the ring takes what is left,
    // and its window does not fill the port (its excess would build at 0.1 Gbps at most).
    FluidNetwork::FlowSpec paced;
    paced.path = { nicT, portA };
    paced.paced = true;
    paced.capBps = 0.1e9;
    net->StartFlow(paced);
    const uint64_t ring = net->StartFlow(Ring(4e6));
    RunFor(1e-3);
    EXPECT_DOUBLE_EQ(net->GetQueueBytes(portA), 0);
    EXPECT_NEAR(net->GetFlowRate(ring), kC - 0.1e9, 1e-9 * kC);
}

TEST_F(TwoHops, ASegmentsWindowSharesItsPortOverItsOwnRoundTripAlone)
{
    const double w = 1e6, tcpWindow = 3e6;
    const uint64_t ring = net->StartFlow(Ring(w));
    const uint64_t tcp = net->StartFlow(Tcp(tcpWindow));
    RunFor(1e-3);
    // The port's queue holds both windows as the fluid FIFO's fixed point: the first segment's
    // window over its own 10 us (the second segment's 30 us and its port do not count).
    const double q = net->GetQueueBytes(portA) * 8;
    const std::vector<WindowAtPort> windows{ { w * 8, 10e-6, FluidNetwork::kUnbounded },
                                             { tcpWindow * 8, 4e-6, FluidNetwork::kUnbounded } };
    EXPECT_NEAR(q, FifoQueueBits(kC, 0, windows, 0), 1e-6 * q);
    EXPECT_GT(q, 1e6 * 8); // (the queue stands)
    EXPECT_NEAR(net->GetFlowRate(ring), WindowRateBps(windows[0], kC, q), 1e-6 * kC);
    EXPECT_NEAR(net->GetFlowRate(tcp), WindowRateBps(windows[1], kC, q), 1e-6 * kC);
    // The second hop's port: the ring alone, no queue; its round trip is not the longest.
    EXPECT_DOUBLE_EQ(net->GetQueueBytes(portB), 0);
    // Had the segments been one window over the whole path's round trip (40 us, both queues),
    // the ring would have moved slower.
    EXPECT_LT(w * 8 / (40e-6 + q / kC), net->GetFlowRate(ring));
}

TEST_F(TwoHops, ItPushesNoMoreIntoAPortThanTheLinksBeforeItLeaveIt)
{
    // Another flow takes 20 of the first NIC's 25 Gbps by its weight: the ring can bring only 5
    // to the port beside the TCP flow, which then keeps what the ring cannot use, with no
    // queue of the ring's window there (once the rates have settled: the room is taken from
    // the rates before, and the queue steps on while it moves).
    FluidNetwork::FlowSpec other;
    other.path = { nicA };
    other.weight = 4;
    net->StartFlow(other);
    const uint64_t ring = net->StartFlow(Ring(4e6));
    FluidNetwork::FlowSpec tcp = Tcp(0.05e6); // 50 KB over 4 us: at most 100 Gbps, no queue
    const uint64_t t = net->StartFlow(tcp);
    RunFor(1e-3);
    EXPECT_NEAR(net->GetFlowRate(ring), 5e9, 1e-6 * kC);
    EXPECT_NEAR(net->GetFlowRate(t), 20e9, 1e-6 * kC);
    // The queue is the fixed point with the ring's window capped at its 5 Gbps: what the TCP
    // window holds beyond its pipe, not the ring's 4 MB.
    const std::vector<WindowAtPort> windows{ { 4e6 * 8, 10e-6, 5e9 }, { 0.05e6 * 8, 4e-6, 1e300 } };
    const double q = FifoQueueBits(kC, 0, windows, 0);
    EXPECT_NEAR(net->GetQueueBytes(portA) * 8, q, 1e-6 * q);
    EXPECT_LT(q, 0.1 * 4e6 * 8); // (the ring's window would hold the port near its 4 MB)
}

} // namespace
} // namespace ns3
