// FluidNetwork's drop buffers at switch ports (fluid-network.h, SetDropBuffer): windows that
// would overfill the buffer lose, paced flows beside unresponsive RoCE lose, time out and come
// back, and unresponsive backlog is held at the buffer.
#include "queued-port.h"

#include "ns3/fluid-queue.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace ns3;
using ns3::test::kC;
using ns3::test::QueuedPort;

TEST_F(QueuedPort, WindowsThatWouldOverfillAFullBufferLoseUntilTheQueueFitsInIt)
{
    // Two 2 MB windows after slow start: without a buffer nearly all of both waits in the port.
    const double window = 2e6;
    const WindowAtPort w{ window * 8, 4e-6, FluidNetwork::kUnbounded };
    ASSERT_GT(FifoQueueBits(kC, 0, { w, w }, 0) / 8, 3.9e6);
    net->SetDropBuffer(port, 1e6);
    uint64_t ids[2];
    for (auto& id : ids)
    {
        auto spec = Cubic();
        spec.initialWindowBytes = window;
        spec.hystartWindowBytes = FluidNetwork::kUnbounded;
        id = net->StartFlow(spec);
    }
    double largest = 0;
    for (int i = 1; i <= 200; ++i)
    {
        RunUntil(MicroSeconds(50 * i));
        largest = std::max(largest, net->GetQueueBytes(port));
        const double served = net->GetLinkRate(port, FluidNetwork::CROSS);
        EXPECT_NEAR(served, kC, 1e-6 * kC) << "the port stays busy at " << i * 50 << " us";
    }
    EXPECT_LE(largest, 1e6 * (1 + 1e-9));
    EXPECT_LE(net->GetMaxQueueBytes(port), 1e6 * (1 + 1e-9));
    // Each lost at least once, at most once per round trip (base + the full buffer's 0.32 ms):
    // 10 ms is at most 31 of them.
    for (uint64_t id : ids)
    {
        auto record = net->GetWindowRecord(id);
        ASSERT_TRUE(record);
        EXPECT_GE(record->cuts, 1u);
        EXPECT_LE(record->cuts, 31u);
        EXPECT_TRUE(record->slowStartEndedByLoss); // (HyStart is off here)
        EXPECT_LT(net->GetFlowWindow(id), window);
    }
    EXPECT_GE(net->GetOverflows(port), 1u);
    EXPECT_GE(net->GetWindowsCut(port), 2u);
    Simulator::Stop();
}

TEST_F(QueuedPort, APacedFlowBesideUnresponsiveRoceLosesTimesOutAndComesBackAfterTheBurst)
{
    // iperf at 20 Gbps beside a 25 MB RoCE burst at line rate, 1 MB of buffer: without one the
    // paced flow keeps its pace and the RoCE backlog grows by 20 Gbps's worth (the PFC test's
    // setting). With it the port drops: the paced flow loses, loses again while recovering and
    // sends nothing for its timeout (10 ms); the burst is served meanwhile, its backlog held at
    // the buffer; afterwards the paced flow is back at its pace.
    net->SetDropBuffer(port, 1e6);
    FluidNetwork::FlowSpec iperf;
    iperf.path = { nic2, port };
    iperf.capBps = 20e9;
    iperf.paced = true;
    iperf.baseRttS = 4e-6;
    iperf.segmentBytes = 1448;
    iperf.slowStartGain = 0.5;
    iperf.timeoutS = 10e-3;
    const uint64_t p = net->StartFlow(iperf);
    double burstDone = -1;
    auto burst = Unresponsive(25e6);
    burst.done = MakeBoundCallback(
        +[](double* t, uint64_t) { *t = Simulator::Now().GetSeconds(); }, &burstDone);
    const uint64_t u = net->StartFlow(burst);
    double idleFrom = -1;
    double idleTo = -1;
    double largestBacklog = 0;
    for (int i = 1; i <= 800; ++i) // 40 ms in 50 us samples
    {
        RunUntil(MicroSeconds(50 * i));
        const double t = 50e-6 * i;
        if (net->GetFlowRate(p) == 0 && idleFrom < 0)
        {
            idleFrom = t;
        }
        if (net->GetFlowRate(p) > 0 && idleFrom >= 0 && idleTo < 0)
        {
            idleTo = t;
        }
        largestBacklog = std::max(largestBacklog, net->GetFlowSentBytes(u) - net->GetFlowBytes(u));
        EXPECT_LE(net->GetQueueBytes(port), 1e6 * (1 + 1e-9)) << "at " << t;
    }
    ASSERT_GT(idleFrom, 0) << "the paced flow never timed out";
    ASSERT_GT(idleTo, idleFrom) << "the paced flow never came back";
    EXPECT_NEAR(idleTo - idleFrom, 10e-3, 0.2e-3);
    EXPECT_LE(largestBacklog, 1e6 * (1 + 1e-6));
    // The burst (8 ms at line rate alone) finished while the paced flow was out or soon after,
    // and the paced flow keeps its pace again by the end.
    ASSERT_GT(burstDone, 0);
    EXPECT_LT(burstDone, idleTo + 2e-3);
    EXPECT_NEAR(net->GetFlowRate(p), 20e9, 1e-6 * 20e9);
    EXPECT_EQ(net->GetQueueBytes(port), 0);
    Simulator::Stop();
}
