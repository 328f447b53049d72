// FlowRingTransport between two fluid hosts: messages arrive in order, each after its bytes
// at the link rate plus the route's delay, receives complete as posted, and the weight and
// the host ceiling set its share.
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/flow-ring-transport.h"
#include "ns3/fluid-host.h"
#include "ns3/node.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <iostream>

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

    /** Over one link of this rate, 3 us away. */
    explicit Pair(double bps)
    {
        link = net->AddLink(bps);
        Connect({ link }, MicroSeconds(3));
    }
    Pair() = default;
    /** The sender's route to the receiver over these links of `net`. */
    void Connect(const std::vector<uint32_t>& links, Time delay)
    {
        for (uint32_t i = 0; i < 2; ++i)
        {
            Ptr<FluidHost> h = CreateObject<FluidHost>();
            h->SetNetwork(net);
            h->SetAddress(Ipv4Address(0x0a000001 + i));
            nodes[i]->AggregateObject(h);
        }
        FluidHost::Route r;
        r.to = nodes[1]->GetObject<FluidHost>();
        r.links = links;
        r.delay = delay;
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

namespace
{

// A queue pair's message through a marking port that a window flow holds this deep.
struct MarkedRun
{
    uint64_t cnps = 0;
    double rateBps = 0; //!< DCQCN's rate when the message has arrived
    double seconds = 0; //!< the message's time
};

MarkedRun
SendThroughMarkingPort(double windowBytes, int64_t stream)
{
    const double c = 25e9;
    Pair pair;
    const Ptr<FluidNetwork> net = pair.net;
    const uint32_t nic = net->AddLink(c);
    const uint32_t port = net->AddLink(c, true, true);
    net->SetMarking(port, 100e3, 400e3, 0.2);
    pair.Connect({ nic, port }, MicroSeconds(2));
    if (windowBytes > 0)
    {
        // Another sender's window through the same port: it holds the queue.
        FluidNetwork::FlowSpec w;
        w.path = { net->AddLink(c), port };
        w.kind = FluidNetwork::WINDOW;
        w.windowBytes = w.initialWindowBytes = windowBytes;
        w.baseRttS = 4e-6;
        net->StartFlow(w);
    }
    const Ptr<FlowRingTransport> tx = pair.tx;
    const Ptr<FlowRingTransport> rx = pair.rx;
    tx->SetAttribute("Unresponsive", BooleanValue(true));
    tx->SetAttribute("Connections", UintegerValue(0)); // a queue pair
    tx->SetAttribute("CnpInterval", TimeValue(MicroSeconds(50)));
    tx->AssignStreams(stream);
    MarkedRun run;
    rx->SetReceiveCallback(MakeBoundCallback(
        +[](MarkedRun* m, Ptr<FlowRingTransport> t, uint64_t)
        {
            m->seconds = Simulator::Now().GetSeconds();
            m->rateBps = t->GetRateControl()->GetRateBps();
            m->cnps = t->GetCnps();
            Simulator::Stop();
        },
        &run, tx));
    tx->Start();
    rx->Start();
    tx->Send(50000000);
    rx->PostReceive(50000000);
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    tx->Dispose();
    rx->Dispose();
    net->Dispose();
    Simulator::Destroy();
    return run;
}

} // namespace

TEST_F(FlowRing, DcqcnCutsAQueuePairWhosePathMarksAndLeavesItAtLineRateWhereNothingDoes)
{
    // Nothing queued: no marks, no CNP; the message goes at line rate (8 ms for 50 MB).
    const MarkedRun alone = SendThroughMarkingPort(0, 7);
    EXPECT_EQ(alone.cnps, 0u);
    EXPECT_DOUBLE_EQ(alone.rateBps, 25e9);
    EXPECT_NEAR(alone.seconds, 50e6 * 8 / 25e9, 1e-5);
    // A window holding about 240 KB at the port (on the ramp, about 9 % of packets marked):
    // CNPs cut the queue pair, which the window then outpaces; the message takes longer.
    const MarkedRun marked = SendThroughMarkingPort(250e3, 7);
    std::cout << "[measure] 50 MB beside a 250 KB window: " << marked.cnps << " CNPs, "
              << marked.seconds * 1e3 << " ms, rate at the end " << marked.rateBps / 1e9
              << " Gbps\n";
    EXPECT_GT(marked.cnps, 10u);
    EXPECT_LT(marked.rateBps, 12.5e9);
    EXPECT_GT(marked.seconds, 3 * alone.seconds);
    // The draws come from the assigned stream: the same stream, the same run.
    const MarkedRun again = SendThroughMarkingPort(250e3, 7);
    EXPECT_EQ(again.cnps, marked.cnps);
    EXPECT_EQ(again.seconds, marked.seconds);
}

TEST_F(FlowRing, AQueuePairWithClearToSendSendsOnlyWhatTheReceiverHasPosted)
{
    // 1 byte per ns, 3 us each way. The receiver posts one receive at 0 and the next at 20 us:
    // the first message leaves at once (its CTS takes 3 us to come back: it arrives at
    // 3 + 1 + 3 us); the second leaves only when the second CTS is back, 23 us, and arrives
    // 1 us + 3 us later. A message counts as sent when its ACK would be back: delivered + 3 us.
    Pair p(8e9);
    FluidHost::Route back;
    back.to = p.nodes[0]->GetObject<FluidHost>();
    back.links = { p.net->AddLink(8e9) };
    back.delay = MicroSeconds(3);
    p.nodes[1]->GetObject<FluidHost>()->AddRoute(Ipv4Address(0x0a000001), back);
    for (auto t : { p.tx, p.rx })
    {
        t->SetAttribute("Connections", UintegerValue(0)); // a queue pair
        t->SetClearToSend(true);
    }
    p.rx->SetPreviousAddress(Ipv4Address(0x0a000001));
    struct Sent
    {
        std::vector<int64_t> at;
        void Done(uint64_t) { at.push_back(Simulator::Now().GetNanoSeconds()); }
    } completions;
    p.tx->SetSendCompleteCallback(MakeCallback(&Sent::Done, &completions));
    const std::vector<int64_t>& sent = completions.at;
    p.tx->Start();
    p.rx->Start();
    p.tx->Send(1000);
    p.tx->Send(1000);
    p.rx->PostReceive(1000);
    Simulator::Schedule(MicroSeconds(20), [&] { p.rx->PostReceive(1000); });
    Simulator::Run();
    ASSERT_EQ(p.received.size(), 2u);
    EXPECT_EQ(p.received[0].second, 3000 + 1000 + 3000);
    EXPECT_EQ(p.received[1].second, 23000 + 1000 + 3000);
    ASSERT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0], 4000 + 3000 + 3000); // its last byte left at 4 us
    EXPECT_EQ(sent[1], 24000 + 3000 + 3000);
}
