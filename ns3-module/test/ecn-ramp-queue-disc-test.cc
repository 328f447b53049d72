// EcnRampQueueDisc: DCQCN's marking ramp on the instantaneous queue (no marks up to Kmin,
// Pmax (q - Kmin) / (Kmax - Kmin) between, every ECN-capable packet from Kmax on), and tail
// drop at the buffer for every packet. The queue disc is driven directly (Enqueue/Dequeue),
// so the queue an arrival finds is known exactly.
#include "ns3/double.h"
#include "ns3/ecn-ramp-queue-disc.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/packet.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ns3;

namespace
{

constexpr uint32_t kItemBytes = 1000; //!< IPv4 20 + UDP 8 + 972 payload

Ptr<Ipv4QueueDiscItem>
Item(Ipv4Header::EcnType ecn)
{
    Ptr<Packet> p = Create<Packet>(kItemBytes - 20 - 8);
    UdpHeader udp;
    udp.SetSourcePort(49152);
    udp.SetDestinationPort(5001);
    p->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(17);
    ip.SetPayloadSize(p->GetSize());
    ip.SetEcn(ecn);
    return Create<Ipv4QueueDiscItem>(p, Address(), Ipv4L3Protocol::PROT_NUMBER, ip);
}

Ptr<EcnRampQueueDisc>
Disc(uint32_t kmin, uint32_t kmax, double pmax, const std::string& maxSize)
{
    Ptr<EcnRampQueueDisc> q = CreateObjectWithAttributes<EcnRampQueueDisc>(
        "KminBytes", UintegerValue(kmin), "KmaxBytes", UintegerValue(kmax), "Pmax",
        DoubleValue(pmax), "MaxSize", QueueSizeValue(QueueSize(maxSize)));
    q->Initialize();
    return q;
}

Ipv4Header::EcnType
EcnOf(Ptr<QueueDiscItem> item)
{
    return DynamicCast<Ipv4QueueDiscItem>(item)->GetHeader().GetEcn();
}

/** Fraction of N ECN-capable arrivals marked when each finds exactly `level` bytes queued. */
double
MarkedFractionAtLevel(uint32_t level, uint32_t n)
{
    Ptr<EcnRampQueueDisc> q = Disc(10000, 20000, 0.2, "1MB");
    q->AssignStreams(7);
    // Hold the queue at `level` with packets that cannot be marked, then alternate one
    // arrival and one departure so every arrival finds `level` bytes.
    for (uint32_t i = 0; i < level / kItemBytes; ++i)
    {
        q->Enqueue(Item(Ipv4Header::ECN_NotECT));
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        EXPECT_EQ(q->GetNBytes(), level);
        q->Enqueue(Item(Ipv4Header::ECN_ECT0));
        q->Dequeue();
    }
    return static_cast<double>(q->GetStats().nTotalMarkedPackets) / n;
}

} // namespace

TEST(EcnRampQueueDisc, MarkProbabilityIsTheLinearRamp)
{
    Ptr<EcnRampQueueDisc> q = Disc(10000, 20000, 0.2, "4MB");
    // Pmax (q - Kmin) / (Kmax - Kmin), 0 up to Kmin, 1 from Kmax.
    EXPECT_DOUBLE_EQ(q->MarkProbability(0), 0.0);
    EXPECT_DOUBLE_EQ(q->MarkProbability(10000), 0.0);
    EXPECT_DOUBLE_EQ(q->MarkProbability(12500), 0.2 * 2500 / 10000); // 0.05
    EXPECT_DOUBLE_EQ(q->MarkProbability(15000), 0.1);
    EXPECT_DOUBLE_EQ(q->MarkProbability(19999), 0.2 * 9999 / 10000);
    EXPECT_DOUBLE_EQ(q->MarkProbability(20000), 1.0);
    EXPECT_DOUBLE_EQ(q->MarkProbability(4000000), 1.0);
}

TEST(EcnRampQueueDisc, NoMarksUpToKminEveryCapablePacketMarkedFromKmax)
{
    // 40 ECN-capable arrivals of 1000 B into an empty queue that is not served: arrival i
    // finds 1000 i bytes. Arrivals 0..10 find <= Kmin = 10000 (never marked); arrivals
    // 20..39 find >= Kmax = 20000 (always marked); 11..19 are on the ramp (random).
    Ptr<EcnRampQueueDisc> q = Disc(10000, 20000, 0.2, "1MB");
    for (uint32_t i = 0; i < 40; ++i)
    {
        ASSERT_TRUE(q->Enqueue(Item(Ipv4Header::ECN_ECT0)));
    }
    uint32_t ce = 0;
    for (uint32_t i = 0; i < 40; ++i)
    {
        Ptr<QueueDiscItem> item = q->Dequeue();
        ASSERT_TRUE(item);
        Ipv4Header::EcnType ecn = EcnOf(item);
        if (i <= 10)
        {
            EXPECT_EQ(ecn, Ipv4Header::ECN_ECT0) << "arrival " << i << " found <= Kmin";
        }
        else if (i >= 20)
        {
            EXPECT_EQ(ecn, Ipv4Header::ECN_CE) << "arrival " << i << " found >= Kmax";
        }
        ce += ecn == Ipv4Header::ECN_CE;
    }
    EXPECT_GE(ce, 20u);
    EXPECT_LE(ce, 29u);
    QueueDisc::Stats s = q->GetStats();
    EXPECT_EQ(s.nTotalMarkedPackets, ce);
    EXPECT_EQ(s.nMarkedPackets[EcnRampQueueDisc::kRampMark], ce);
    EXPECT_EQ(s.nTotalDroppedPackets, 0u);
}

TEST(EcnRampQueueDisc, MarkedFractionOnTheRampMatchesItsProbability)
{
    // Every arrival finds the same queue, so marks are independent Bernoulli draws with the
    // ramp's probability p. Over n = 20000 arrivals the marked fraction has standard
    // deviation sqrt(p (1 - p) / n): 0.0021 at p = 0.1, 0.0026 at p = 0.16. A tolerance of
    // 0.01 is more than 3.8 standard deviations in both cases (and the draws are seeded, so
    // the outcome is fixed).
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(1);
    const uint32_t n = 20000;
    // q = 15000: 0.2 (15000 - 10000) / 10000 = 0.1.
    EXPECT_NEAR(MarkedFractionAtLevel(15000, n), 0.1, 0.01);
    // q = 18000: 0.2 (18000 - 10000) / 10000 = 0.16.
    EXPECT_NEAR(MarkedFractionAtLevel(18000, n), 0.16, 0.01);
}

TEST(EcnRampQueueDisc, NonCapablePacketsAreNeverMarkedOnlyTailDropped)
{
    // A 30000-byte buffer with the ramp at 5000..10000: 40 arrivals of 1000 B, not
    // ECN-capable, into an unserved queue. Arrival i fits while 1000 i + 1000 <= 30000:
    // the first 30 are queued (even the 20 that find more than Kmax: no early drop), the
    // other 10 are tail-dropped; none is marked.
    Ptr<EcnRampQueueDisc> q = Disc(5000, 10000, 0.2, "30000B");
    uint32_t accepted = 0;
    for (uint32_t i = 0; i < 40; ++i)
    {
        bool ok = q->Enqueue(Item(Ipv4Header::ECN_NotECT));
        EXPECT_EQ(ok, i < 30) << "arrival " << i;
        accepted += ok;
    }
    EXPECT_EQ(accepted, 30u);
    EXPECT_EQ(q->GetNBytes(), 30000u);
    // An ECN-capable packet that does not fit is dropped too, not marked instead.
    EXPECT_FALSE(q->Enqueue(Item(Ipv4Header::ECN_ECT0)));

    QueueDisc::Stats s = q->GetStats();
    EXPECT_EQ(s.nTotalMarkedPackets, 0u);
    EXPECT_EQ(s.nTotalDroppedPackets, 11u);
    EXPECT_EQ(s.nDroppedPacketsBeforeEnqueue[EcnRampQueueDisc::kLimitExceeded], 11u);
    EXPECT_EQ(s.nTotalDroppedPacketsAfterDequeue, 0u);
    for (uint32_t i = 0; i < 30; ++i)
    {
        Ptr<QueueDiscItem> item = q->Dequeue();
        ASSERT_TRUE(item);
        EXPECT_EQ(EcnOf(item), Ipv4Header::ECN_NotECT);
    }
    EXPECT_FALSE(q->Dequeue());
}
