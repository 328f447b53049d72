// PfcController: per ingress port (= source host), the RoCE bytes buffered in the ToR's
// egress queue discs; PAUSE when a port holds more than XoffBytes, RESUME at or below
// XonBytes, each taking effect on the host's NIC after the pause delay. The ToR's queue
// discs are driven directly (Enqueue/Dequeue at chosen times), so the buffered bytes are
// known exactly; the NICs are real NicQueueDiscs (not attached to devices).
#include "ns3/codel-queue-disc.h"
#include "ns3/ecn-ramp-queue-disc.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/nic-queue-disc.h"
#include "ns3/packet.h"
#include "ns3/pfc-controller.h"
#include "ns3/roce-header.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint32_t kItemBytes = 1000; //!< IPv4 20 + UDP 8 + RoCE 16 + 956 payload
constexpr uint32_t kXoff = 10000;
constexpr uint32_t kXon = 7000;

Ipv4Address
Host(uint32_t i)
{
    return Ipv4Address(0x0a000001 + i); // 10.0.0.(i+1)
}

/** A 1000-byte packet from `src`: RoCEv2 (UDP to 4791), or other UDP traffic. */
Ptr<Ipv4QueueDiscItem>
Item(Ipv4Address src, bool roce = true)
{
    Ptr<Packet> p = Create<Packet>(kItemBytes - 20 - 8 - 16);
    p->AddHeader(RoceHeader());
    UdpHeader udp;
    udp.SetSourcePort(49152);
    udp.SetDestinationPort(roce ? RoceHeader::kUdpPort : 5001);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(src);
    ip.SetDestination(Ipv4Address("10.0.0.100"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    return Create<Ipv4QueueDiscItem>(p, Address(), Ipv4L3Protocol::PROT_NUMBER, ip);
}

/** Three hosts, their NICs, the ToR's egress queue discs and the controller. */
struct Rack
{
    std::vector<Ptr<QueueDisc>> egress;
    std::vector<Ptr<NicQueueDisc>> nics;
    Ptr<PfcController> pfc;
    /** (time in us, port, paused) of every PAUSE/RESUME the controller sent. */
    std::vector<std::tuple<int64_t, uint32_t, bool>> frames;

    explicit Rack(std::vector<Ptr<QueueDisc>> discs, uint32_t xoff = kXoff, uint32_t xon = kXon)
        : egress(std::move(discs))
    {
        std::vector<Ipv4Address> hosts;
        for (uint32_t i = 0; i < 3; ++i)
        {
            hosts.push_back(Host(i));
            Ptr<NicQueueDisc> nic = CreateObject<NicQueueDisc>();
            nic->Initialize();
            nic->SetSendCallback([](Ptr<QueueDiscItem>) {});
            nics.push_back(nic);
        }
        for (auto& q : egress)
        {
            q->Initialize();
        }
        pfc = CreateObjectWithAttributes<PfcController>("XoffBytes", UintegerValue(xoff),
                                                        "XonBytes", UintegerValue(xon));
        pfc->TraceConnectWithoutContext(
            "Pause", Callback<void, uint32_t, bool>(
                         [this](uint32_t port, bool paused) {
                             frames.emplace_back(Simulator::Now().GetMicroSeconds(), port, paused);
                         }));
        pfc->Install(egress, hosts, nics, MicroSeconds(5));
    }

    std::vector<bool> Paused() const
    {
        return { nics[0]->IsRdmaPaused(), nics[1]->IsRdmaPaused(), nics[2]->IsRdmaPaused() };
    }
};

Ptr<QueueDisc>
EcnDisc()
{
    return CreateObject<EcnRampQueueDisc>(); // Kmin 100 kB: no marks at these queue lengths
}

/** Runs the simulation up to time `t`. */
void
RunUntil(Time t)
{
    Simulator::Stop(t - Simulator::Now());
    Simulator::Run();
}

} // namespace

TEST(PfcController, PausesAboveXoffResumesAtXon)
{
    Rack r({ EcnDisc(), EcnDisc() });
    Ptr<QueueDisc> toHost0 = r.egress[0];
    Ptr<QueueDisc> toHost2 = r.egress[1];
    // At 0: traffic that is not host 1's RoCE does not count towards port 1: other UDP from
    // host 1, RoCE from an address that is no port's host.
    for (uint32_t i = 0; i < 20; ++i)
    {
        toHost2->Enqueue(Item(Host(1), false));
        toHost2->Enqueue(Item(Ipv4Address("10.0.0.99")));
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 0u);
    // Host 1's RoCE: 10 packets = 10000 B = Xoff, not above it: no PAUSE yet.
    for (uint32_t i = 0; i < 10; ++i)
    {
        toHost0->Enqueue(Item(Host(1)));
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 10000u);
    EXPECT_EQ(r.pfc->GetPausesSent(), 0u);
    // The 11th: 11000 > Xoff: PAUSE to host 1. A 12th does not send another.
    toHost0->Enqueue(Item(Host(1)));
    EXPECT_EQ(r.pfc->GetPausesSent(), 1u);
    toHost0->Enqueue(Item(Host(1)));
    EXPECT_EQ(r.pfc->GetPausesSent(), 1u);
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 12000u);

    // The PAUSE takes effect 5 us later, on host 1's NIC only.
    RunUntil(MicroSeconds(4));
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, false, false }));
    RunUntil(MicroSeconds(6));
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, true, false }));

    // At 10 us, draining: 11000, 10000, 9000, 8000 B are above Xon = 7000; 7000 is at it:
    // RESUME, which takes effect at 15 us.
    RunUntil(MicroSeconds(10));
    for (uint32_t i = 0; i < 4; ++i)
    {
        toHost0->Dequeue();
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 8000u);
    EXPECT_EQ(r.frames.size(), 1u) << "no RESUME above Xon";
    toHost0->Dequeue();
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 7000u);
    EXPECT_EQ(r.frames.size(), 2u);
    RunUntil(MicroSeconds(14));
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, true, false }));
    RunUntil(MicroSeconds(16));
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, false, false }));

    // Host 1's NIC was paused from 5 to 15 us.
    EXPECT_EQ(r.nics[1]->GetPausedTime(), MicroSeconds(10));
    EXPECT_EQ(r.nics[0]->GetPausedTime(), Time(0));
    using F = std::tuple<int64_t, uint32_t, bool>;
    EXPECT_EQ(r.frames, (std::vector<F>{ F{ 0, 1, true }, F{ 10, 1, false } }));
    EXPECT_EQ(r.pfc->GetPausesSent(), 1u) << "RESUMEs are not counted as pauses";
    EXPECT_EQ(r.pfc->GetMaxIngressBytes(), 12000u);
    Simulator::Destroy();
}

TEST(PfcController, CountsEachPortOverAllEgressQueues)
{
    Rack r({ EcnDisc(), EcnDisc() });
    Ptr<QueueDisc> a = r.egress[0];
    Ptr<QueueDisc> b = r.egress[1];
    // Host 1 spreads its RoCE over both egress queues: 6 + 5 packets = 11000 B > Xoff:
    // PAUSE, although neither queue alone holds more than 6000 B. Host 2's 8000 B in one
    // queue stay below Xoff. Ports are counted apart: 11000 and 8000, not 19000.
    for (uint32_t i = 0; i < 8; ++i)
    {
        a->Enqueue(Item(Host(2)));
    }
    for (uint32_t i = 0; i < 6; ++i)
    {
        a->Enqueue(Item(Host(1)));
    }
    for (uint32_t i = 0; i < 5; ++i)
    {
        b->Enqueue(Item(Host(1)));
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(0), 0u);
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 11000u);
    EXPECT_EQ(r.pfc->GetIngressBytes(2), 8000u);
    EXPECT_EQ(r.pfc->GetPausesSent(), 1u);
    // Queue b drains (5 x 1000 B): port 1 falls to 6000 <= Xon: RESUME. Queue a's first 8
    // packets are host 2's: port 2 drains to 0, port 1 is untouched.
    while (b->Dequeue())
    {
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 6000u);
    for (uint32_t i = 0; i < 8; ++i)
    {
        a->Dequeue();
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(2), 0u);
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 6000u);
    // 5 more from host 1: 11000 > Xoff again: a second PAUSE.
    for (uint32_t i = 0; i < 5; ++i)
    {
        b->Enqueue(Item(Host(1)));
    }
    EXPECT_EQ(r.pfc->GetPausesSent(), 2u);
    using F = std::tuple<int64_t, uint32_t, bool>;
    EXPECT_EQ(r.frames, (std::vector<F>{ F{ 0, 1, true }, F{ 0, 1, false }, F{ 0, 1, true } }));
    // PAUSE and RESUME of the same instant are applied in order: host 1 ends up paused.
    Simulator::Run();
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, true, false }));
    EXPECT_EQ(r.pfc->GetMaxIngressBytes(), 11000u);
    Simulator::Destroy();
}

TEST(PfcController, PacketsDroppedAfterDequeueLeaveTheCountOnce)
{
    // Regression: PfcController once subtracted such a packet twice (on Dequeue and on
    // DropAfterDequeue), so the port's count underflowed and a spurious PAUSE never resumed.
    // A CoDel egress queue (target 100 us, interval 1 ms) holding 40 RoCE packets of host 1
    // (40000 B, below an Xoff of 100000 B), served one packet per 100 us: sojourn times grow
    // past the target, so CoDel drops some packets when it dequeues them. Every packet leaves
    // the queue once (sent or dropped): port 1's count must end at 0 with no PAUSE sent.
    Ptr<CoDelQueueDisc> codel = CreateObjectWithAttributes<CoDelQueueDisc>(
        "Target", StringValue("100us"), "Interval", StringValue("1ms"));
    Rack r({ codel }, 100000, 90000);
    for (uint32_t i = 0; i < 40; ++i)
    {
        codel->Enqueue(Item(Host(1)));
    }
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 40000u);
    for (uint32_t i = 1; i <= 40; ++i)
    {
        Simulator::Schedule(MicroSeconds(100 * i), [&] { codel->Dequeue(); });
    }
    Simulator::Run();
    ASSERT_EQ(codel->GetNPackets(), 0u);
    ASSERT_GT(codel->GetStats().nTotalDroppedPacketsAfterDequeue, 0u)
        << "the scenario must make CoDel drop after dequeue";
    EXPECT_EQ(r.pfc->GetIngressBytes(1), 0u);
    EXPECT_EQ(r.pfc->GetPausesSent(), 0u);
    EXPECT_EQ(r.Paused(), std::vector<bool>({ false, false, false }));
    Simulator::Destroy();
}
