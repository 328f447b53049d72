// The standing queue of a saturated FIFO port (fluid-queue.h) and FluidNetwork's queued links:
// the fixed point worked out by hand, unresponsive flows served from their backlog, window
// flows at window / round trip, slow start, its HyStart exit and the losses where it overruns a
// sender's buffer.
#include "ns3/fluid-network.h"
#include "ns3/fluid-queue.h"
#include "ns3/simulator.h"
#include "queued-port.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace ns3;
using ns3::test::kC;
using ns3::test::kMB;
using ns3::test::QueuedPort;

namespace
{

// Q (1 - D(Q) / C) = backlog: the identity the queue must satisfy.
double
Residual(double q, double paced, const std::vector<WindowAtPort>& windows, double backlog)
{
    double d = paced;
    for (const auto& w : windows)
    {
        d += WindowRateBps(w, kC, q);
    }
    return q * (1 - d / kC) - backlog;
}

} // namespace

TEST(FluidQueue, AnUnresponsiveBacklogAloneIsTheQueue)
{
    EXPECT_NEAR(FifoQueueBits(kC, 0, {}, 3 * kMB), 3 * kMB, 1e-6 * kMB);
    EXPECT_EQ(FifoQueueBits(kC, 0, {}, 0), 0);
}

TEST(FluidQueue, WindowsThatCannotFillThePortLeaveItEmpty)
{
    // 10 KB windows over a 100 us round trip: 0.8 Gbps each, 8 Gbps for ten.
    std::vector<WindowAtPort> w(10, { 0.01 * kMB, 100e-6, FluidNetwork::kUnbounded });
    EXPECT_EQ(FifoQueueBits(kC, 5e9, w, 0), 0);
}

TEST(FluidQueue, WindowsThatOverfillThePortWaitInIt)
{
    // Two 1 MB windows with a 4 us base round trip: the port is full once the queue holds
    // nearly both windows (less what is on the wire: rate x base RTT).
    std::vector<WindowAtPort> w(2, { 1 * kMB, 4e-6, FluidNetwork::kUnbounded });
    const double q = FifoQueueBits(kC, 0, w, 0);
    EXPECT_NEAR(q, 2 * kMB - kC * 4e-6, 1e-6 * kMB);
    EXPECT_NEAR(WindowRateBps(w[0], kC, q) * 2, kC, 1e-6 * kC);
}

TEST(FluidQueue, BacklogAndWindowsShareThePortByWhatTheyHoldInIt)
{
    // A 9 MB backlog beside three 1 MB windows and 5 Gbps paced: the unresponsive flows get
    // C backlog / Q, each window C window / Q (base RTT 0), paced their pace.
    std::vector<WindowAtPort> w(3, { 1 * kMB, 0, FluidNetwork::kUnbounded });
    const double q = FifoQueueBits(kC, 5e9, w, 9 * kMB);
    EXPECT_NEAR(Residual(q, 5e9, w, 9 * kMB), 0, 1e-6 * kMB);
    // Paced bytes in the queue: 5/25 of it; the rest is backlog and windows.
    EXPECT_NEAR(q * (1 - 5e9 / kC), 12 * kMB, 1e-6 * kMB);
    EXPECT_NEAR(WindowRateBps(w[0], kC, q), kC * kMB / q, 1e-6 * kC);
    // A window capped elsewhere takes its cap, and the queue is smaller for it.
    std::vector<WindowAtPort> capped = w;
    capped[0].capBps = 1e9;
    const double q2 = FifoQueueBits(kC, 5e9, capped, 9 * kMB);
    EXPECT_LT(q2, q);
    EXPECT_NEAR(Residual(q2, 5e9, capped, 9 * kMB), 0, 1e-6 * kMB);
}

TEST(FluidQueue, OneWindowAggregateSolvesInClosedFormAsTheSearchDoes)
{
    // Uncapped windows of one base round trip add up; one aggregate takes the quadratic's root,
    // two halves the bisection: the same queue.
    for (double backlog : { 0.0, 0.5 * kMB, 40 * kMB })
    {
        for (double paced : { 0.0, 10e9 })
        {
            const WindowAtPort whole{ 6 * kMB, 8e-6, FluidNetwork::kUnbounded };
            const WindowAtPort half{ 3 * kMB, 8e-6, FluidNetwork::kUnbounded };
            const double q1 = FifoQueueBits(kC, paced, { whole }, backlog);
            const double q2 = FifoQueueBits(kC, paced, { half, half }, backlog);
            EXPECT_NEAR(q1, q2, 1e-6 * q2) << backlog << " " << paced;
            EXPECT_NEAR(Residual(q1, paced, { whole }, backlog), 0, 1e-6 * kMB);
        }
    }
}

TEST_F(QueuedPort, AnUnresponsiveFlowAloneMovesAtLineRateWithoutBacklog)
{
    double sentAt = -1;
    double doneAt = -1;
    auto spec = Unresponsive(25e6); // 8 ms at 25 Gbps
    spec.sent = MakeBoundCallback(
        +[](double* t, uint64_t) { *t = Simulator::Now().GetSeconds(); }, &sentAt);
    spec.done = MakeBoundCallback(
        +[](double* t, uint64_t) { *t = Simulator::Now().GetSeconds(); }, &doneAt);
    net->StartFlow(spec);
    Simulator::Run();
    EXPECT_NEAR(doneAt, 8e-3, 1e-8);
    EXPECT_NEAR(sentAt, 8e-3, 1e-8);
    EXPECT_EQ(net->GetQueueBytes(port), 0);
}

TEST_F(QueuedPort, AnUnresponsiveFlowTakesTheLinkFromAWindowFlowAsItsBacklogGrows)
{
    const uint64_t w = net->StartFlow(Window(FluidNetwork::kUnbounded, 1e6, 1e6));
    const uint64_t u = net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    // At first the window flow holds the queue: the unresponsive one is served nothing yet.
    EXPECT_NEAR(net->GetFlowRate(w), kC, 1e-6 * kC);
    EXPECT_NEAR(net->GetFlowRate(u), 0, 1e-6 * kC);
    std::vector<double> windowRates;
    for (double t : { 1e-3, 4e-3, 16e-3 })
    {
        Simulator::Stop(Seconds(t) - Simulator::Now());
        Simulator::Run();
        net->Advance();
        windowRates.push_back(net->GetFlowRate(w));
        // The port stays full; the unresponsive flow's backlog is the queue less the window.
        const double total = net->GetLinkRate(port, FluidNetwork::CROSS)
                             + net->GetLinkRate(port, FluidNetwork::JOB);
        EXPECT_NEAR(total, kC, 1e-3 * kC) << "at " << t;
        const double q = net->GetQueueBytes(port) * 8;
        EXPECT_NEAR(net->GetFlowRate(w), kC * 8e6 / (q + kC * 4e-6), 1e-3 * kC) << "at " << t;
        EXPECT_GT(net->GetFlowRate(u), 0);
    }
    EXPECT_GT(windowRates[0], windowRates[1]);
    EXPECT_GT(windowRates[1], windowRates[2]);
    Simulator::Stop();
}

TEST_F(QueuedPort, ABackloggedFlowIsSentBeforeItIsDoneAndDrainsAfterwards)
{
    net->StartFlow(Window(FluidNetwork::kUnbounded, 2e6, 2e6)); // holds 2 MB in the queue
    double sentAt = -1;
    double doneAt = -1;
    double queueAtSent = -1;
    auto spec = Unresponsive(5e6);
    struct Probe
    {
        double* sentAt;
        double* queue;
        Ptr<FluidNetwork> net;
        uint32_t port;
    } probe{ &sentAt, &queueAtSent, net, port };
    spec.sent = MakeBoundCallback(
        +[](Probe* p, uint64_t)
        {
            *p->sentAt = Simulator::Now().GetSeconds();
            *p->queue = p->net->GetQueueBytes(p->port);
        },
        &probe);
    spec.done = MakeBoundCallback(
        +[](double* t, uint64_t) { *t = Simulator::Now().GetSeconds(); }, &doneAt);
    net->StartFlow(spec);
    Simulator::Stop(Seconds(0.1));
    Simulator::Run();
    ASSERT_GT(sentAt, 0);
    ASSERT_GT(doneAt, sentAt);
    // Served its share of the queue (what it holds of it), draining in about a dozen queueing
    // delays: its share shrinks with its backlog, so its last bytes take longer than FIFO's
    // single delay (an approximation, docs/flow-engine.md), but they do arrive.
    const double delay = queueAtSent * 8 / kC;
    EXPECT_GT(delay, 0);
    EXPECT_GT(doneAt, sentAt + delay);
    EXPECT_LT(doneAt, sentAt + 20 * delay);
}

TEST_F(QueuedPort, SlowStartGrowsByWhatIsDeliveredUntilHyStartSeesTheQueue)
{
    // Behind a growing unresponsive backlog, two window flows in slow start: one grows by half
    // of what it delivers (an ACK every two segments, a segment per ACK) all along; the other,
    // whose smallest round trip (the empty port's) is within HyStart's ACK spacing, leaves
    // slow start at its HyStart window, then grows by about a segment per round trip.
    net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    const uint64_t plain = net->StartFlow(Window(FluidNetwork::kUnbounded, 4e6, 14480));
    const uint64_t hystart = net->StartFlow(Cubic());
    RunUntil(MilliSeconds(20));
    EXPECT_GT(net->GetQueueBytes(port) * 8 / kC, 0.5e-3); // a standing queue
    EXPECT_NEAR(net->GetFlowWindow(plain), std::min(4e6, 14480 + 0.5 * net->GetFlowBytes(plain)),
                1);
    EXPECT_GE(net->GetFlowWindow(hystart), 16 * 1448);
    EXPECT_LT(net->GetFlowWindow(hystart), 0.5 * net->GetFlowWindow(plain));
    // Their records (tcp.csv at flow level): HyStart's exit at its low window, the window
    // that has grown since as the largest; the other never left slow start.
    const auto h = net->GetWindowRecord(hystart);
    ASSERT_TRUE(h.has_value());
    EXPECT_GT(h->slowStartEndS, 0);
    EXPECT_FALSE(h->slowStartEndedByLoss);
    EXPECT_NEAR(h->slowStartEndBytes, 16 * 1448, 1);
    EXPECT_NEAR(h->maxWindowBytes, net->GetFlowWindow(hystart), 1);
    EXPECT_EQ(h->cuts, 0u);
    // Round trips with the queue: within the ACK spacing at its start (which let the train
    // end slow start), growing with the backlog since.
    EXPECT_GE(h->minRttS, 4e-6);
    EXPECT_LT(h->minRttS, 2e-3);
    EXPECT_GT(h->maxRttS, 0.5e-3);
    const auto p = net->GetWindowRecord(plain);
    ASSERT_TRUE(p.has_value());
    EXPECT_LT(p->slowStartEndS, 0);
    EXPECT_NEAR(p->maxWindowBytes, net->GetFlowWindow(plain), 1);
    EXPECT_FALSE(net->GetWindowRecord(1).has_value()); // the unresponsive flow has no window
    Simulator::Stop();
}

TEST_F(QueuedPort, BehindALongQueueSlowStartGoesOnUntilTheQueueGrowsByItsRoundTrip)
{
    // A 50 MB window holds a steady 16 ms queue. A flow that starts behind it sees 16 ms as its
    // smallest round trip: its ACK bursts (16 segments at line rate: 7 us) are far shorter, so
    // HyStart's train never ends slow start (packet-level traces: flows that start behind
    // VGG-16's standing queue leave slow start at hundreds of segments); the delay rule does
    // once the round trip has grown by 16 ms.
    net->StartFlow(Window(FluidNetwork::kUnbounded, 50e6, 50e6));
    const uint64_t late = net->StartFlow(Cubic());
    RunUntil(MilliSeconds(150));
    const double minRtt = 4e-6 + 50e6 * 8 / kC;
    EXPECT_NEAR(net->GetQueueBytes(port) * 8 / kC, minRtt, 0.2 * minRtt); // still about 16 ms
    EXPECT_TRUE(net->IsInSlowStart(late));
    EXPECT_GT(net->GetFlowWindow(late), 8 * 16 * 1448);
    // An unresponsive backlog grows the queue: past twice the smallest round trip slow start
    // ends.
    net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    bool ended = false;
    while (!ended && Simulator::Now() < MilliSeconds(400))
    {
        RunUntil(Simulator::Now() + MilliSeconds(1));
        const double rtt = 4e-6 + net->GetQueueBytes(port) * 8 / kC;
        ended = !net->IsInSlowStart(late);
        if (!ended)
        {
            EXPECT_LT(rtt, 2 * minRtt * 1.05) << "still in slow start at " << rtt << " s";
        }
        else
        {
            EXPECT_GT(rtt, 2 * minRtt) << "slow start ended early";
        }
    }
    EXPECT_TRUE(ended);
    Simulator::Stop();
}

TEST_F(QueuedPort, SlowStartThatOverrunsItsSendersBufferLosesOnEveryWindowThroughIt)
{
    // Two window flows without HyStart fill the port: in slow start they send half as much
    // again as is delivered, which the NIC cannot pass. With a 1 MB buffer there it overflows
    // within a millisecond: both keep 0.7 of their windows and leave slow start. With a buffer
    // larger than all they can overrun (their windows stop at 4 MB each) nothing is lost.
    for (double buffer : { 1e6, 100e6 })
    {
        Ptr<FluidNetwork> n = CreateObject<FluidNetwork>();
        const uint32_t sender = n->AddLink(kC, true);
        const uint32_t tor = n->AddLink(kC, true, true);
        n->SetOverflowBuffer(sender, buffer);
        auto spec = Window(FluidNetwork::kUnbounded, 4e6, 14480);
        spec.path = { sender, tor };
        spec.lossBeta = 0.7;
        const uint64_t a = n->StartFlow(spec);
        const uint64_t b = n->StartFlow(spec);
        double before = 0;
        double after = 0;
        while (Simulator::Now() < MilliSeconds(20) && n->GetOverflows(sender) == 0)
        {
            before = n->GetFlowWindow(a);
            Simulator::Stop(MicroSeconds(50));
            Simulator::Run();
            n->Advance();
            after = n->GetFlowWindow(a);
        }
        Simulator::Stop(MilliSeconds(20) - Simulator::Now());
        Simulator::Run();
        n->Advance();
        if (buffer < 10e6)
        {
            EXPECT_EQ(n->GetOverflows(sender), 1u);
            EXPECT_EQ(n->GetWindowsCut(sender), 2u); // both flows send through it
            EXPECT_EQ(n->GetWindowsCut(tor), 0u);
            // Its record: slow start ended by the loss, at the window the cut took 0.7 of.
            const auto r = n->GetWindowRecord(a);
            ASSERT_TRUE(r.has_value());
            EXPECT_TRUE(r->slowStartEndedByLoss);
            EXPECT_EQ(r->cuts, 1u);
            EXPECT_NEAR(0.7 * r->slowStartEndBytes, after, 0.7 * 0.5 * kC / 2 * 50e-6 / 8 + 1448);
            EXPECT_GE(r->maxWindowBytes, r->slowStartEndBytes);
            EXPECT_FALSE(n->IsInSlowStart(a));
            EXPECT_FALSE(n->IsInSlowStart(b));
            // 0.7 of the window at the loss: of the window 50 us before, and at most what slow
            // start added to it since (half of 50 us at the flow's share of the link), then a
            // segment per round trip.
            std::cout << "[measure] window before the loss " << before << ", after it " << after
                      << ", at 20 ms " << n->GetFlowWindow(a) << "\n";
            EXPECT_GT(after, 0.7 * before);
            EXPECT_LT(after, 0.7 * (before + 0.5 * kC / 2 * 50e-6 / 8) + 10 * 1448);
            EXPECT_GT(n->GetFlowWindow(a), after); // growing again, a segment per round trip
        }
        else
        {
            EXPECT_EQ(n->GetOverflows(sender), 0u);
            EXPECT_EQ(n->GetWindowsCut(sender), 0u);
            EXPECT_EQ(n->GetWindowRecord(a)->cuts, 0u);
            EXPECT_LT(n->GetWindowRecord(a)->slowStartEndS, 0);
            EXPECT_TRUE(n->IsInSlowStart(a));
            EXPECT_TRUE(n->IsInSlowStart(b));
        }
        n->Dispose();
        Simulator::Destroy();
    }
}

TEST(FluidOverflow, AHostBufferOverflowsWithoutAnyQueuedPortToo)
{
    // Two window flows in slow start share a plain FIFO link with a 1 MB buffer: no standing
    // queue anywhere, yet what slow start sends beyond the link fills the buffer.
    Ptr<FluidNetwork> n = CreateObject<FluidNetwork>();
    const uint32_t sender = n->AddLink(kC, true);
    n->SetOverflowBuffer(sender, 1e6);
    FluidNetwork::FlowSpec spec;
    spec.path = { sender };
    spec.kind = FluidNetwork::WINDOW;
    spec.windowBytes = 4e6;
    spec.initialWindowBytes = 14480;
    spec.slowStartGain = 0.5;
    spec.baseRttS = 4e-6;
    const uint64_t a = n->StartFlow(spec);
    n->StartFlow(spec);
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    n->Advance();
    EXPECT_GE(n->GetOverflows(sender), 1u);
    EXPECT_FALSE(n->IsInSlowStart(a));
    n->Dispose();
    Simulator::Destroy();
}

TEST(FluidOverflow, ASaturatedSenderWhoseRatesAddUpToItsLinkDoesNotFillItsBuffer)
{
    // Flows that share a host's FIFO link exactly fill it; their rates, added up, may pass its
    // rate by a rounding residue. That is no filling buffer: no time steps (a fuzzing finding:
    // the overflow, 10^13 s away, overflowed ns-3's nanosecond count and forced the shortest
    // step instead).
    for (const int flows : { 3, 7, 11 })
    {
        Ptr<FluidNetwork> n = CreateObject<FluidNetwork>();
        const uint32_t sender = n->AddLink(kC, true);
        n->SetOverflowBuffer(sender, 8e6);
        FluidNetwork::FlowSpec spec;
        spec.path = { sender };
        for (int i = 0; i < flows; ++i)
        {
            // One a microsecond: each set of flows is recomputed once (starts at one instant
            // would share a recomputation).
            spec.weight = 1 + i / 3.0;
            spec.wireFactor = 1 + i / 97.0;
            Simulator::Schedule(MicroSeconds(i), [n, spec] { n->StartFlow(spec); });
        }
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        std::cout << "[measure] " << flows
                  << " flows filling a sender's link: " << n->GetRecomputations()
                  << " recomputations in 100 ms\n";
        EXPECT_EQ(n->GetRecomputations(), static_cast<uint64_t>(flows));
        EXPECT_EQ(n->GetOverflows(sender), 0u);
        n->Dispose();
        Simulator::Destroy();
    }
}

TEST_F(QueuedPort, AWindowFlowHandsItsRecordOverAsItEnds)
{
    // WindowFlowEnded fires once for each window flow that ends, done or stopped, with its
    // record; flows of other kinds have none.
    std::vector<std::pair<uint64_t, double>> ended; // id, largest window
    net->TraceConnectWithoutContext(
        "WindowFlowEnded",
        MakeBoundCallback(
            +[](std::vector<std::pair<uint64_t, double>>* to, uint64_t id,
                const FluidNetwork::WindowRecord& r) { to->emplace_back(id, r.maxWindowBytes); },
            &ended));
    net->StartFlow(Unresponsive(1e6));
    const uint64_t done = net->StartFlow(Window(1e6, 4e6, 14480));
    const uint64_t stopped = net->StartFlow(Window(FluidNetwork::kUnbounded, 4e6, 14480));
    RunUntil(MilliSeconds(5));
    ASSERT_EQ(ended.size(), 1u);
    EXPECT_EQ(ended[0].first, done);
    EXPECT_GT(ended[0].second, 14480); // it grew in slow start
    EXPECT_FALSE(net->GetWindowRecord(done).has_value());
    net->StopFlow(stopped);
    ASSERT_EQ(ended.size(), 2u);
    EXPECT_EQ(ended[1].first, stopped);
    Simulator::Stop();
}

TEST_F(QueuedPort, ALightBacklogBesideAHeavyOneTakesNoMoreThanThePortHasLeft)
{
    // Unresponsive flows are served in proportion to their backlogs. Two heavy ones
    // (megabytes), each held by a slower link after the port, are fixed first; then one that
    // has just started (a backlog of nothing, weight 1 byte) takes what the port has left. The
    // port must carry no more than its rate, to rounding: it carried up to 8e-10 over it (a
    // fuzzer found 1e-9) when the heavy weights were taken off the port's rounded sum, whose
    // residue is a share of the light one's weight.
    const uint32_t nic3 = net->AddLink(kC);
    const uint32_t slow = net->AddLink(10e9);
    const uint32_t other = net->AddLink(kC);
    net->StartFlow(Window(FluidNetwork::kUnbounded, 1e6, 1e6));
    auto heavy = Unresponsive(FluidNetwork::kUnbounded);
    heavy.path = { nic, port, slow };
    net->StartFlow(heavy);
    heavy.path = { net->AddLink(kC), port, net->AddLink(3e9) };
    Simulator::Schedule(MicroSeconds(90), [&] { net->StartFlow(heavy); });
    auto fresh = Unresponsive(FluidNetwork::kUnbounded);
    fresh.path = { nic3, port, other };
    uint64_t light = 0;
    double worst = 0;
    for (int i = 1; i <= 200; ++i)
    {
        RunUntil(MicroSeconds(37 * i));
        if (light != 0)
        {
            net->StopFlow(light);
        }
        light = net->StartFlow(fresh);
        const double carried = net->GetLinkRate(port, FluidNetwork::CROSS)
                               + net->GetLinkRate(port, FluidNetwork::JOB);
        worst = std::max(worst, carried / kC - 1);
    }
    EXPECT_LE(worst, 1e-12) << "the port carried more than its rate";
    EXPECT_GT(net->GetQueueBytes(port), 1e6) << "the heavy backlog was megabytes";
    Simulator::Stop();
}

TEST_F(QueuedPort, TheQueueIsIntegratedOverTimeAndItsLargestKept)
{
    // A growing backlog beside a window flow: the queue's integral is the sum of its level
    // over the steps between recomputations, its largest the level last reached; a reset
    // starts the largest again from the level now.
    net->StartFlow(Window(FluidNetwork::kUnbounded, 1e6, 1e6));
    const uint64_t u = net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    double integral = 0;
    double level = net->GetQueueBytes(port);
    Time last = Simulator::Now();
    double largest = level;
    while (Simulator::Now() < MilliSeconds(8))
    {
        // Step event by event: the level holds from one recomputation to the next.
        Simulator::Stop(MicroSeconds(5));
        Simulator::Run();
        net->Advance();
        integral += level * (Simulator::Now() - last).GetSeconds();
        last = Simulator::Now();
        level = net->GetQueueBytes(port);
        largest = std::max(largest, level);
    }
    EXPECT_GT(integral, 0);
    EXPECT_NEAR(net->GetQueueByteSeconds(port), integral, 0.02 * integral);
    EXPECT_DOUBLE_EQ(net->GetMaxQueueBytes(port), largest);
    EXPECT_EQ(net->GetQueueByteSeconds(nic), 0) << "no queue at a NIC";
    net->StopFlow(u); // the backlog goes: so does the queue
    net->ResetMaxQueues();
    EXPECT_EQ(net->GetMaxQueueBytes(port), net->GetQueueBytes(port));
    EXPECT_LT(net->GetMaxQueueBytes(port), largest);
    Simulator::Stop();
}

TEST_F(QueuedPort, AMarkingPortMarksByTheRampOverItsQueueAndACapDrainsTheBacklog)
{
    // DCQCN's ramp: nothing up to 100 KB, 0.2 at 400 KB, everything above.
    net->SetMarking(port, 100e3, 400e3, 0.2);
    auto ramp = [](double q) {
        return q <= 100e3 ? 0.0 : q >= 400e3 ? 1.0 : 0.2 * (q - 100e3) / 300e3;
    };
    const std::vector<uint32_t> path{ nic, port };
    EXPECT_EQ(net->GetMarkProbability(path), 0) << "an empty port marks nothing";
    // A window of 250 KB holds about 237 KB queued: on the ramp.
    net->StartFlow(Window(FluidNetwork::kUnbounded, 250e3, 250e3));
    const double held = net->GetQueueBytes(port);
    ASSERT_GT(held, 100e3);
    ASSERT_LT(held, 400e3);
    EXPECT_DOUBLE_EQ(net->GetMarkProbability(path), ramp(held));
    EXPECT_DOUBLE_EQ(net->GetMarkProbability({ nic }), 0) << "a NIC does not mark";
    // Unresponsive RoCE at line rate: its backlog lifts the queue past Kmax.
    const uint64_t u = net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    RunUntil(MilliSeconds(1));
    EXPECT_GT(net->GetQueueBytes(port), 400e3);
    EXPECT_EQ(net->GetMarkProbability(path), 1);
    EXPECT_GT(net->GetFlowSentBytes(u), net->GetFlowBytes(u)) << "its backlog left the sender";
    // A reaction point's cut: capped below what the window leaves, the backlog drains to what
    // a FIFO holds of a 1 Gbps arrival (its rate's part of the queue), the flow moves at its
    // cap and the queue is about the window's again.
    net->SetFlowCap(u, 1e9);
    RunUntil(MilliSeconds(40));
    EXPECT_NEAR(net->GetFlowRate(u), 1e9, 1e-3 * 1e9);
    const double backlog = net->GetFlowSentBytes(u) - net->GetFlowBytes(u);
    EXPECT_NEAR(backlog, net->GetQueueBytes(port) * 1e9 / kC, 0.05 * backlog);
    EXPECT_LT(net->GetQueueBytes(port), 400e3);
    EXPECT_DOUBLE_EQ(net->GetMarkProbability(path), ramp(net->GetQueueBytes(port)));
    Simulator::Stop();
}

TEST_F(QueuedPort, PfcHoldsANicsQueuedBacklogAtItsThresholdAndSendsOnlyWhatLeaves)
{
    // Unresponsive RoCE beside a window holding 1 MB: its backlog grows without bound (above)
    // unless the ToR pauses its NIC at 500 KB queued.
    net->SetPauseThreshold(nic, 500e3);
    net->StartFlow(Window(FluidNetwork::kUnbounded, 1e6, 1e6));
    const uint64_t u = net->StartFlow(Unresponsive(FluidNetwork::kUnbounded));
    for (double t : { 4e-3, 16e-3 })
    {
        RunUntil(Seconds(t));
        const double backlog = net->GetFlowSentBytes(u) - net->GetFlowBytes(u);
        EXPECT_NEAR(backlog, 500e3, 0.01 * 500e3) << "at " << t;
        // Paused: the NIC sends what the port serves of it.
        EXPECT_NEAR(net->GetLinkRate(nic, FluidNetwork::JOB), net->GetFlowRate(u), 1e-6 * kC)
            << "at " << t;
        EXPECT_GT(net->GetFlowRate(u), 0);
    }
    EXPECT_EQ(net->GetPauses(), 1u);
    EXPECT_LT(net->GetQueueBytes(port), 1.6e6) << "the window's and 500 KB";
    Simulator::Stop();
}

TEST_F(QueuedPort, AnEcnEchoCutsTheWindowARoundTripAfterTheMarks)
{
    // A 1 MB window alone waits almost whole in the port, every packet marked: the marks add
    // up at once, but the window falls only when their echo returns, a round trip (base plus
    // the queue's delay) later, and then by CUBIC's loss decrease.
    const auto spec = MarkedWindow(FluidNetwork::CLASSIC_ECN);
    const uint64_t w = net->StartFlow(spec);
    const double rtt = spec.baseRttS + net->GetQueueBytes(port) * 8 / kC;
    RunUntil(Seconds(0.5 * rtt));
    std::cout << "[measure] round trip " << rtt * 1e6 << " us; window at half of it "
              << net->GetFlowWindow(w) / 1e3 << " KB";
    EXPECT_DOUBLE_EQ(net->GetFlowWindow(w), 1e6) << "the echo is still on its way";
    EXPECT_EQ(net->GetWindowRecord(w)->ecnCuts, 0u);
    RunUntil(Seconds(1.5 * rtt));
    std::cout << ", at one and a half " << net->GetFlowWindow(w) / 1e3 << " KB\n";
    EXPECT_EQ(net->GetWindowRecord(w)->ecnCuts, 1u);
    // (Then a segment per round trip: less than one since.)
    EXPECT_NEAR(net->GetFlowWindow(w), 0.7e6, 1448);
    Simulator::Stop();
}

TEST_F(QueuedPort, EcnCapableWindowsAnswerTheMarksOfTheRamp)
{
    // A 1 MB window alone waits almost whole in the port (about 987 KB, all marked); DCTCP
    // answering the marks brings the queue down to the ramp, the port still full.
    const uint64_t w = net->StartFlow(MarkedWindow(FluidNetwork::DCTCP));
    const double unanswered = net->GetQueueBytes(port);
    EXPECT_GT(unanswered, 900e3);
    RunUntil(MilliSeconds(20));
    const auto record = net->GetWindowRecord(w);
    ASSERT_TRUE(record.has_value());
    std::cout << "[measure] DCTCP: " << record->ecnCuts << " cuts, queue "
              << net->GetQueueBytes(port) / 1e3 << " KB, window " << net->GetFlowWindow(w) / 1e3
              << " KB\n";
    EXPECT_GT(record->ecnCuts, 1u);
    EXPECT_FALSE(net->IsInSlowStart(w)) << "the first echo ends slow start";
    EXPECT_LT(net->GetQueueBytes(port), 400e3);
    EXPECT_GT(net->GetQueueBytes(port), 0);
    EXPECT_NEAR(net->GetFlowRate(w), kC, 1e-3 * kC);
    Simulator::Stop();
}
