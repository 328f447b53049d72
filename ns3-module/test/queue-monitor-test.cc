// QueueMonitor on one point-to-point port: a burst of packets put into the port's queue disc
// at once drains at line rate, so the queue's levels, the link's busy time, drops and marks
// follow by hand from the link rate and the packet sizes.
#include "test-port.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/queue-monitor.h"
#include "ns3/traffic-control-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

// 8 Mb/s: one byte per microsecond. A 1000-byte IP packet is 1002 bytes on the wire (PPP
// header 2), so it takes 1002 us.
constexpr uint32_t kIpBytes = 1000;
constexpr uint32_t kWireBytes = kIpBytes + 2;

/** The shared 8 Mb/s test port, and how this test puts packets into it. */
struct Port : test::TestPort
{
    using TestPort::TestPort;

    /** Puts `n` UDP packets of 1000 IP bytes into the queue disc at once, then runs it. */
    void Burst(uint32_t n, Ipv4Header::EcnType ecn = Ipv4Header::ECN_NotECT)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Packet> p = Create<Packet>(kIpBytes - 20 - 8);
            UdpHeader udp;
            udp.SetSourcePort(49152);
            udp.SetDestinationPort(9);
            p->AddHeader(udp);
            Ipv4Header ip;
            ip.SetSource(Ipv4Address("10.1.1.1"));
            ip.SetDestination(Ipv4Address("10.1.1.2"));
            ip.SetProtocol(17);
            ip.SetTtl(64);
            ip.SetPayloadSize(p->GetSize());
            ip.SetEcn(ecn);
            disc->Enqueue(Create<Ipv4QueueDiscItem>(p, devices.Get(1)->GetAddress(),
                                                    Ipv4L3Protocol::PROT_NUMBER, ip));
        }
        disc->Run();
    }
};

} // namespace

TEST(QueueMonitor, BurstDrainingAtLineRate)
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("100p"));
    Port port(tch);
    Ptr<QueueMonitor> m = CreateObject<QueueMonitor>();
    m->Attach(port.disc, port.devices.Get(0), DataRate("8Mbps"));
    // At 0: 5 packets arrive (queue 5000 B); the first goes on the wire, the second into the
    // one-packet device queue: 3000 B wait. Each further 1002 us one more leaves the queue
    // disc: 3000 B over [0, 1002), 2000 over [1002, 2004), 1000 over [2004, 3006), then 0.
    Simulator::Schedule(Seconds(0), [&] { port.Burst(5); });
    Simulator::Schedule(MicroSeconds(1500), [&] { EXPECT_EQ(m->GetQueueBytes(), 2000u); });
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();
    EXPECT_EQ(m->GetMaxQueueBytes(), 5000u);
    EXPECT_EQ(m->GetQueueBytes(), 0u);
    // (3000 + 2000 + 1000) B x 1002 us over a 10 ms window = 601.2 B.
    EXPECT_NEAR(m->GetMeanQueueBytes(), 6000 * 1002e-6 / 10e-3, 1e-6);
    // 5 frames of 1002 B: 5010 us of the 10 ms busy.
    EXPECT_EQ(m->GetTxPackets(), 5u);
    EXPECT_EQ(m->GetTxBytes(), 5 * kWireBytes);
    EXPECT_NEAR(m->GetUtilization(), 5 * kWireBytes * 8 / (8e6 * 10e-3), 1e-9); // 0.501
    EXPECT_EQ(m->GetDrops(), 0u);
    EXPECT_EQ(m->GetEcnMarks(), 0u);
    Simulator::Destroy();
}

TEST(QueueMonitor, DropsAndMarksCountedResetStartsANewWindow)
{
    // ECN ramp with Kmax = 1000 B and a 3000-byte buffer: of 5 ECN-capable arrivals at once,
    // the 1st finds 0 B (not marked), the 2nd and 3rd find >= 1000 B (marked), the 4th and
    // 5th do not fit (dropped).
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::EcnRampQueueDisc", "MaxSize", StringValue("3000B"), "KminBytes",
                         UintegerValue(500), "KmaxBytes", UintegerValue(1000));
    Port port(tch);
    Ptr<QueueMonitor> m = CreateObject<QueueMonitor>();
    m->Attach(port.disc, port.devices.Get(0), DataRate("8Mbps"));
    Simulator::Schedule(Seconds(0), [&] { port.Burst(5, Ipv4Header::ECN_ECT0); });
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    EXPECT_EQ(m->GetDrops(), 2u);
    EXPECT_EQ(m->GetEcnMarks(), 2u);
    EXPECT_EQ(m->GetTxPackets(), 3u);
    EXPECT_EQ(m->GetMaxQueueBytes(), 3000u);
    // A new window from 5 to 10 ms, in which one packet passes an empty queue.
    m->Reset();
    Simulator::Schedule(MilliSeconds(1), [&] { port.Burst(1); });
    Simulator::Stop(MilliSeconds(5));
    Simulator::Run();
    EXPECT_EQ(m->GetWindowStart(), MilliSeconds(5));
    EXPECT_EQ(m->GetDrops(), 0u);
    EXPECT_EQ(m->GetEcnMarks(), 0u);
    EXPECT_EQ(m->GetTxPackets(), 1u);
    EXPECT_EQ(m->GetTxPacketsSinceAttach(), 4u);
    EXPECT_EQ(m->GetMaxQueueBytes(), kIpBytes) << "the packet was in the queue disc, for 0 s";
    EXPECT_DOUBLE_EQ(m->GetMeanQueueBytes(), 0.0);
    // 1002 B in 5 ms at 8 Mb/s: 8016 / 40000.
    EXPECT_NEAR(m->GetUtilization(), kWireBytes * 8 / (8e6 * 5e-3), 1e-9);
    Simulator::Destroy();
}
