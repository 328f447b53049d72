// NicQueueDisc: deficit round robin between the RDMA queue and the TCP/IP send queues
// (byte-fair per queue, RdmaWeight scaling RDMA's quantum), flows taking TCP/IP queues in
// order of appearance, PFC pausing only the RDMA queue, and the TCP/IP class's tail drop.
// The queue disc is driven directly: every queue is kept backlogged and packets are
// dequeued one by one, so the shares are those of the scheduler alone.
#include "ns3/double.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/nic-queue-disc.h"
#include "ns3/packet.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

using namespace ns3;

namespace
{

// RoCE: IPv4 20 + UDP 8 + RoCE 16 + 1024 payload; TCP/IP: a full 1500-byte IP packet. The
// sizes differ on purpose: a packet-fair round robin would give other shares.
constexpr uint32_t kRdmaBytes = 20 + 8 + 16 + 1024;
constexpr uint32_t kHostBytes = 1500;
constexpr uint32_t kQuantum = 1500;

/** A RoCEv2 packet (UDP to 4791), or a TCP/IP-stack packet of flow `flow` (its UDP port). */
Ptr<Ipv4QueueDiscItem>
Item(bool rdma, uint16_t flow = 0)
{
    Ptr<Packet> p;
    UdpHeader udp;
    if (rdma)
    {
        p = Create<Packet>(1024);
        p->AddHeader(RoceHeader());
        udp.SetSourcePort(49152);
        udp.SetDestinationPort(RoceHeader::kUdpPort);
    }
    else
    {
        p = Create<Packet>(kHostBytes - 20 - 8);
        udp.SetSourcePort(10000 + flow);
        udp.SetDestinationPort(5001);
    }
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    return Create<Ipv4QueueDiscItem>(p, Address(), Ipv4L3Protocol::PROT_NUMBER, ip);
}

/** Flow of a dequeued item: -1 for RDMA, else its TCP/IP flow number. */
int
FlowOf(Ptr<QueueDiscItem> item)
{
    if (RoceHeader::IsRoce(item))
    {
        return -1;
    }
    UdpHeader udp;
    item->GetPacket()->PeekHeader(udp);
    return udp.GetSourcePort() - 10000;
}

Ptr<NicQueueDisc>
Nic(uint32_t hostTxQueues, double rdmaWeight = 1.0)
{
    Ptr<NicQueueDisc> q = CreateObjectWithAttributes<NicQueueDisc>(
        "HostTxQueues", UintegerValue(hostTxQueues), "RdmaWeight", DoubleValue(rdmaWeight),
        "Quantum", UintegerValue(kQuantum), "HostBufferBytes", UintegerValue(64 << 20),
        "RdmaBufferBytes", UintegerValue(64 << 20));
    q->Initialize();
    return q;
}

/**
 * Fills the RDMA queue and `flows` TCP/IP flows with 2 MB each (interleaved, so flows
 * appear in order 0, 1, 2...), then dequeues until `bytes` have left. Returns the bytes
 * sent per flow (-1 = RDMA). Every queue stays backlogged: none can send 2 MB of `bytes`.
 */
std::map<int, uint64_t>
Serve(Ptr<NicQueueDisc> q, uint32_t flows, uint64_t bytes)
{
    for (uint32_t i = 0; i < 2000; ++i)
    {
        q->Enqueue(Item(true));
        for (uint32_t f = 0; f < flows; ++f)
        {
            q->Enqueue(Item(false, f));
        }
    }
    std::map<int, uint64_t> sent;
    uint64_t total = 0;
    while (total < bytes)
    {
        Ptr<QueueDiscItem> item = q->Dequeue();
        if (!item)
        {
            ADD_FAILURE() << "ran dry";
            break;
        }
        sent[FlowOf(item)] += item->GetSize();
        total += item->GetSize();
    }
    return sent;
}

double
HostShare(std::map<int, uint64_t>& sent)
{
    uint64_t total = 0;
    for (const auto& [flow, bytes] : sent)
    {
        total += bytes;
    }
    return 1.0 - static_cast<double>(sent[-1]) / total;
}

// Tolerance of the shares below. Deficit round robin: after r full rounds a backlogged queue
// with quantum Qi has sent r Qi - d bytes, 0 <= d < its packet size (<= 1500), and a partial
// round adds at most one quantum. So two queues' bytes differ from their quanta's ratio by at
// most one quantum plus one packet: 3000 B at Q = 1500, 6000 B with RDMA's 4500 at weight 3.
// Over the 400 kB served that moves a share by at most 6000 / 2 / 400000 = 0.0075.
constexpr uint64_t kServed = 400000;
constexpr double kShareTolerance = 0.01;

} // namespace

TEST(NicQueueDisc, KBusyTcpQueuesGetKOverKPlusOneByteFair)
{
    // k = 3 TCP/IP flows in 3 of the 32 send queues, beside RDMA: 4 queues served byte-fair,
    // TCP/IP 3/4 of the bytes, RDMA 1/4. (Packet-fair would give TCP/IP 3x1500 / (3x1500 +
    // 1068) = 0.81.)
    Ptr<NicQueueDisc> q = Nic(32);
    std::map<int, uint64_t> sent = Serve(q, 3, kServed);
    EXPECT_NEAR(HostShare(sent), 3.0 / 4, kShareTolerance);
    for (int f = -1; f < 3; ++f)
    {
        EXPECT_NEAR(static_cast<double>(sent[f]), kServed / 4.0, 3000.0) << "flow " << f;
    }
    // k = 1: one TCP/IP queue beside RDMA, half each.
    std::map<int, uint64_t> one = Serve(Nic(32), 1, kServed);
    EXPECT_NEAR(HostShare(one), 1.0 / 2, kShareTolerance);
}

TEST(NicQueueDisc, FlowsTakeTcpQueuesInOrderOfAppearance)
{
    // HostTxQueues = 1 (the older model): 3 flows share one TCP/IP queue, so TCP/IP as a
    // whole gets 1/2, not 3/4.
    std::map<int, uint64_t> single = Serve(Nic(1), 3, kServed);
    EXPECT_NEAR(HostShare(single), 1.0 / 2, kShareTolerance);

    // HostTxQueues = 2 and 3 flows: flows 0 and 2 take queue 1, flow 1 queue 2. Three
    // queues share the link: TCP/IP 2/3; flow 1 alone 1/3; flows 0 and 2 (interleaved in
    // their queue) 1/6 each.
    std::map<int, uint64_t> two = Serve(Nic(2), 3, kServed);
    EXPECT_NEAR(HostShare(two), 2.0 / 3, kShareTolerance);
    EXPECT_NEAR(two[1] / static_cast<double>(kServed), 1.0 / 3, kShareTolerance);
    EXPECT_NEAR(two[0] / static_cast<double>(kServed), 1.0 / 6, kShareTolerance);
    EXPECT_NEAR(two[2] / static_cast<double>(kServed), 1.0 / 6, kShareTolerance);
}

TEST(NicQueueDisc, RdmaWeightScalesRdmasQuantum)
{
    // One TCP/IP queue beside RDMA with RdmaWeight w: quanta w Q and Q, so RDMA gets
    // w / (w + 1) of the bytes: 3/4 at w = 3; 1/3 at w = 0.5 (a quantum of 750 B, smaller
    // than a RoCE packet: the deficit carries over to the next round).
    std::map<int, uint64_t> heavy = Serve(Nic(32, 3.0), 1, kServed);
    EXPECT_NEAR(1 - HostShare(heavy), 3.0 / 4, kShareTolerance);
    std::map<int, uint64_t> light = Serve(Nic(32, 0.5), 1, kServed);
    EXPECT_NEAR(1 - HostShare(light), 1.0 / 3, kShareTolerance);
    // With 3 busy TCP/IP queues, w = 3 makes RDMA's quantum that of the three together.
    std::map<int, uint64_t> three = Serve(Nic(32, 3.0), 3, kServed);
    EXPECT_NEAR(1 - HostShare(three), 1.0 / 2, kShareTolerance);
}

TEST(NicQueueDisc, PfcPausesOnlyTheRdmaQueue)
{
    Ptr<NicQueueDisc> q = Nic(32);
    std::vector<int> sent; //!< what the device was handed once the queue disc runs itself
    q->SetSendCallback(
        [&sent](Ptr<QueueDiscItem> item)
        {
            // The queue disc has put the IPv4 header on the packet by now.
            Ptr<Packet> p = item->GetPacket()->Copy();
            Ipv4Header ip;
            p->RemoveHeader(ip);
            UdpHeader udp;
            p->PeekHeader(udp);
            sent.push_back(udp.GetDestinationPort() == RoceHeader::kUdpPort
                               ? -1
                               : udp.GetSourcePort() - 10000);
        });
    std::vector<std::pair<double, bool>> trace; //!< (time in us, paused)
    q->TraceConnectWithoutContext(
        "RdmaPaused",
        Callback<void, bool>([&trace](bool paused)
                             { trace.emplace_back(Simulator::Now().GetMicroSeconds(), paused); }));
    for (uint32_t i = 0; i < 3; ++i)
    {
        q->Enqueue(Item(true));
        q->Enqueue(Item(false, 0));
    }
    // At 10 us, paused: only the TCP/IP packets leave, then nothing while RDMA waits.
    Simulator::Stop(MicroSeconds(10));
    Simulator::Run();
    q->SetRdmaPaused(true);
    EXPECT_TRUE(q->IsRdmaPaused());
    for (uint32_t i = 0; i < 3; ++i)
    {
        Ptr<QueueDiscItem> item = q->Dequeue();
        ASSERT_TRUE(item);
        EXPECT_EQ(FlowOf(item), 0);
    }
    EXPECT_FALSE(q->Dequeue());
    EXPECT_EQ(q->GetRdmaBytes(), 3 * kRdmaBytes);
    EXPECT_EQ(q->GetHostBytes(), 0u);
    q->SetRdmaPaused(true); // a repeated PAUSE changes nothing
    // Resumed 25 us later: the queue disc restarts by itself and hands the RDMA packets on.
    Simulator::Schedule(MicroSeconds(25), &NicQueueDisc::SetRdmaPaused, q, false);
    Simulator::Run();
    EXPECT_EQ(sent, std::vector<int>({ -1, -1, -1 }));
    EXPECT_EQ(q->GetRdmaBytes(), 0u);
    EXPECT_EQ(q->GetPausedTime(), MicroSeconds(25));
    EXPECT_EQ(trace, (std::vector<std::pair<double, bool>>{ { 10, true }, { 35, false } }));
    Simulator::Destroy();
}

TEST(NicQueueDisc, TcpClassIsTailDroppedAtItsBufferRdmaIsNot)
{
    // HostBufferBytes = 4500: three 1500-byte TCP/IP packets fit, the fourth is dropped;
    // RDMA has its own limit and is not affected by a full TCP/IP class.
    Ptr<NicQueueDisc> q = CreateObjectWithAttributes<NicQueueDisc>(
        "HostBufferBytes", UintegerValue(4500), "RdmaBufferBytes", UintegerValue(3 * kRdmaBytes));
    q->Initialize();
    for (uint16_t f = 0; f < 4; ++f)
    {
        EXPECT_EQ(q->Enqueue(Item(false, f)), f < 3) << "TCP/IP packet " << f;
    }
    for (uint32_t i = 0; i < 4; ++i)
    {
        EXPECT_EQ(q->Enqueue(Item(true)), i < 3) << "RDMA packet " << i;
    }
    EXPECT_EQ(q->GetHostBytes(), 4500u);
    EXPECT_EQ(q->GetRdmaBytes(), 3 * kRdmaBytes);
    QueueDisc::Stats s = q->GetStats();
    EXPECT_EQ(s.nDroppedPacketsBeforeEnqueue[NicQueueDisc::kHostBufferFull], 1u);
    EXPECT_EQ(s.nDroppedPacketsBeforeEnqueue[NicQueueDisc::kRdmaBufferFull], 1u);
    // A queue alone gets everything: after the drops, all 6 queued packets come out.
    uint32_t n = 0;
    while (q->Dequeue())
    {
        ++n;
    }
    EXPECT_EQ(n, 6u);
}
