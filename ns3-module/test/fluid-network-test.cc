// FluidNetwork: weighted max-min with caps, worked out by hand on small networks, and flows
// that finish exactly when their bytes at those rates say.
#include "ns3/fluid-network.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

struct Fluid : ::testing::Test
{
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    void TearDown() override
    {
        net->Dispose();
        Simulator::Destroy();
    }
    FluidNetwork::FlowSpec Spec(std::vector<uint32_t> path, double bytes, double weight = 1,
                                double cap = FluidNetwork::kUnbounded)
    {
        FluidNetwork::FlowSpec s;
        s.path = std::move(path);
        s.bytes = bytes;
        s.weight = weight;
        s.capBps = cap;
        return s;
    }
};

} // namespace

TEST_F(Fluid, FlowsOnOneLinkShareItByWeight)
{
    const uint32_t l = net->AddLink(30e9);
    const uint64_t a = net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 1));
    const uint64_t b = net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 2));
    EXPECT_DOUBLE_EQ(net->GetFlowRate(a), 10e9);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(b), 20e9);
}

TEST_F(Fluid, ACappedFlowLeavesTheRestToTheOthers)
{
    const uint32_t l = net->AddLink(25e9);
    const uint64_t paced = net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 1, 5e9));
    const uint64_t a = net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 1));
    const uint64_t b = net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 1));
    EXPECT_DOUBLE_EQ(net->GetFlowRate(paced), 5e9);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(a), 10e9);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(b), 10e9);
    EXPECT_DOUBLE_EQ(net->GetLinkRate(l, FluidNetwork::CROSS), 25e9);
}

TEST_F(Fluid, MaxMinAcrossTwoLinks)
{
    // Classic example: f1 on links 0 and 1, f2 on 0, f3 on 1; link 0 is 10, link 1 is 30.
    // Link 0 fixes f1 and f2 at 5 each; f3 takes the 25 left on link 1.
    const uint32_t l0 = net->AddLink(10e9);
    const uint32_t l1 = net->AddLink(30e9);
    const uint64_t f1 = net->StartFlow(Spec({ l0, l1 }, FluidNetwork::kUnbounded));
    const uint64_t f2 = net->StartFlow(Spec({ l0 }, FluidNetwork::kUnbounded));
    const uint64_t f3 = net->StartFlow(Spec({ l1 }, FluidNetwork::kUnbounded));
    EXPECT_DOUBLE_EQ(net->GetFlowRate(f1), 5e9);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(f2), 5e9);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(f3), 25e9);
}

TEST_F(Fluid, HeadersOnTheWireTakeCapacity)
{
    const uint32_t l = net->AddLink(10e9);
    FluidNetwork::FlowSpec s = Spec({ l }, FluidNetwork::kUnbounded);
    s.wireFactor = 1.25;
    const uint64_t f = net->StartFlow(s);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(f), 8e9); // its own bytes
    EXPECT_DOUBLE_EQ(net->GetLinkRate(l, FluidNetwork::CROSS), 10e9);
}

TEST_F(Fluid, AFlowEndsWhenItsBytesHaveMovedAndTheOthersSpeedUp)
{
    // 8 Gb/s: 1 byte per ns. Two flows share it (4 Gb/s each): the 1000-byte one ends at
    // 2 us; the 3000-byte one has moved 1000 by then and takes the link alone for the other
    // 2000 bytes: it ends at 4 us.
    const uint32_t l = net->AddLink(8e9);
    std::vector<std::pair<uint64_t, double>> ends;
    auto record = [&](uint64_t id) { ends.emplace_back(id, Simulator::Now().GetNanoSeconds()); };
    FluidNetwork::FlowSpec a = Spec({ l }, 1000);
    FluidNetwork::FlowSpec b = Spec({ l }, 3000);
    std::function<void(uint64_t)> cb = record;
    a.done = MakeCallback(&std::function<void(uint64_t)>::operator(), &cb);
    b.done = a.done;
    const uint64_t ia = net->StartFlow(a);
    const uint64_t ib = net->StartFlow(b);
    Simulator::Run();
    ASSERT_EQ(ends.size(), 2u);
    EXPECT_EQ(ends[0], std::make_pair(ia, 2000.0));
    EXPECT_EQ(ends[1], std::make_pair(ib, 4000.0));
    EXPECT_NEAR(net->GetLinkBytes(l, FluidNetwork::CROSS), 4000, 1e-6);
    EXPECT_DOUBLE_EQ(net->GetFlowBytes(ia), 0); // ended: no longer tracked
}

TEST_F(Fluid, AFlowStartedWhenAnotherEndsIsServedByTheSameRecomputation)
{
    // 8 Gb/s: 1 byte per ns. The 1000-byte flow ends at 1 us and its callback starts a
    // 2000-byte one, which ends at 3 us: the completion and that start are one recomputation
    // (three in all: the first start, that instant, the last end).
    const uint32_t l = net->AddLink(8e9);
    double secondEndNs = 0;
    std::function<void(uint64_t)> second
        = [&](uint64_t) { secondEndNs = Simulator::Now().GetNanoSeconds(); };
    std::function<void(uint64_t)> first = [&](uint64_t)
    {
        FluidNetwork::FlowSpec next = Spec({ l }, 2000);
        next.done = MakeCallback(&std::function<void(uint64_t)>::operator(), &second);
        net->StartFlow(next);
    };
    FluidNetwork::FlowSpec a = Spec({ l }, 1000);
    a.done = MakeCallback(&std::function<void(uint64_t)>::operator(), &first);
    net->StartFlow(a);
    Simulator::Run();
    EXPECT_EQ(secondEndNs, 3000.0);
    EXPECT_EQ(net->GetRecomputations(), 3u);
    EXPECT_NEAR(net->GetLinkBytes(l, FluidNetwork::CROSS), 3000, 1e-6);
}

TEST_F(Fluid, FlowsChangedAtOneInstantShareOneRecomputationUnlessTheRatesAreReadBetween)
{
    // A ring step's messages start together on every host: one recomputation serves them all,
    // in a zero-delay event after them. A getter in between recomputes first (it sees the
    // flows started so far), and the changes after it share one more.
    const uint32_t l = net->AddLink(40e9);
    std::vector<uint64_t> ids;
    uint64_t atStart = 0;
    double rateAfterThree = 0;
    Simulator::Schedule(
        MicroSeconds(1),
        [&]
        {
            atStart = net->GetRecomputations();
            for (int i = 0; i < 3; ++i)
            {
                ids.push_back(net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded)));
            }
            rateAfterThree = net->GetFlowRate(ids[0]);
            for (int i = 0; i < 5; ++i)
            {
                ids.push_back(net->StartFlow(Spec({ l }, FluidNetwork::kUnbounded)));
            }
            net->SetFlowCap(ids[0], 5e9);
            net->StopFlow(ids[7]);
        });
    uint64_t atEnd = 0;
    Simulator::Schedule(MicroSeconds(2), [&] { atEnd = net->GetRecomputations(); });
    Simulator::Run();
    EXPECT_DOUBLE_EQ(rateAfterThree, 40e9 / 3);
    EXPECT_EQ(atEnd - atStart, 2u);
    EXPECT_DOUBLE_EQ(net->GetFlowRate(ids[0]), 5e9);
    for (size_t i = 1; i < 7; ++i)
    {
        EXPECT_DOUBLE_EQ(net->GetFlowRate(ids[i]), 35e9 / 6);
    }
    EXPECT_EQ(net->GetFlowRate(ids[7]), 0);
}

TEST_F(Fluid, AStoppedFlowKeepsItsBytesAndTheRatesChangedTraceCoversTime)
{
    const uint32_t l = net->AddLink(8e9);
    double traced = 0;
    std::function<void(Time, Time)> onChange = [&](Time from, Time to)
    { traced += (to - from).GetSeconds() * net->GetLinkRate(l, FluidNetwork::JOB) / 8; };
    net->TraceConnectWithoutContext(
        "RatesChanged", MakeCallback(&std::function<void(Time, Time)>::operator(), &onChange));
    FluidNetwork::FlowSpec s = Spec({ l }, FluidNetwork::kUnbounded);
    s.cls = FluidNetwork::JOB;
    uint64_t id = 0;
    Simulator::Schedule(MicroSeconds(1), [&] { id = net->StartFlow(s); });
    Simulator::Schedule(MicroSeconds(6), [&] { net->StopFlow(id); });
    Simulator::Run();
    EXPECT_NEAR(net->GetFlowBytes(id), 5000, 1e-6); // 5 us at 1 byte per ns
    EXPECT_NEAR(traced, 5000, 1e-6);
    EXPECT_NEAR(net->GetLinkBytes(l, FluidNetwork::JOB), 5000, 1e-6);
}

TEST_F(Fluid, PacedFlowsKeepTheirPaceAtAFifoAndTheOthersShareTheRest)
{
    // 25 Gb/s: four streams paced at 5 and a weight-2 flow. Sharing by weight would give the
    // paced ones 25/6 each; at a FIFO they keep their 5 and the other gets the 5 left.
    for (bool fifo : { false, true })
    {
        Ptr<FluidNetwork> n = CreateObject<FluidNetwork>();
        const uint32_t l = n->AddLink(25e9, fifo);
        std::vector<uint64_t> pacedIds;
        for (int k = 0; k < 4; ++k)
        {
            FluidNetwork::FlowSpec p = Spec({ l }, FluidNetwork::kUnbounded, 1, 5e9);
            p.paced = true;
            pacedIds.push_back(n->StartFlow(p));
        }
        const uint64_t ring = n->StartFlow(Spec({ l }, FluidNetwork::kUnbounded, 2));
        EXPECT_DOUBLE_EQ(n->GetFlowRate(pacedIds[0]), fifo ? 5e9 : 25e9 / 6) << fifo;
        EXPECT_DOUBLE_EQ(n->GetFlowRate(ring), fifo ? 5e9 : 25e9 / 3) << fifo;
        n->Dispose();
    }
}
