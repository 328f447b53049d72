// RoCEv2 transport end to end on the star: goodput, DCQCN fairness and queue bounds,
// go-back-N recovery, PFC. Each test builds the rack with RDMA-aware NICs, installs
// RdmaRingTransports by hand (sender on one host, receiver queue pair on the other) and
// measures at the receiver.
#include "ns3/core-module.h"
#include "ns3/dcqcn-rate-control.h"
#include "ns3/error-model.h"
#include "ns3/ethernet-framing.h"
#include "ns3/internet-module.h"
#include "ns3/iperf-helper.h"
#include "ns3/network-module.h"
#include "ns3/queue-disc.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/star-topology-helper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

StarTopologyConfig
RdmaStar(uint32_t switchBuffer = 4000000, bool pfc = false)
{
    StarTopologyConfig c;
    c.configuration = 'B';
    c.rdmaNic = true;
    c.switchQueue.discipline = "ecn";
    c.switchQueue.bufferBytes = switchBuffer;
    c.pfc = pfc;
    return c;
}

/** The star with fixed streams for its marking draws, so that a test's outcome does not depend
 * on the tests run before it in the process. */
StarTopology
InstallStar(const StarTopologyConfig& c)
{
    StarTopology t = StarTopologyHelper(c).Install();
    t.AssignStreams(1);
    return t;
}

/** One queue pair from host `from` to host `to`, numbered `qp`; records deliveries. */
struct Flow
{
    Ptr<RdmaRingTransport> sender;
    Ptr<RdmaRingTransport> receiver;
    uint64_t delivered = 0;
    std::vector<uint32_t> psns;
    Time firstByte = Seconds(-1);
    Time done = Seconds(-1);
    std::vector<std::pair<Time, uint64_t>> samples; //!< (time, delivered) every 100 us

    void OnDelivered(uint32_t bytes, uint32_t psn)
    {
        if (firstByte.IsNegative())
        {
            firstByte = Simulator::Now();
        }
        delivered += bytes;
        psns.push_back(psn);
    }
    void OnDone(uint64_t) { done = Simulator::Now(); }
    void Sample()
    {
        samples.emplace_back(Simulator::Now(), delivered);
        Simulator::Schedule(MicroSeconds(100), &Flow::Sample, this);
    }
    /** Goodput in Gbps between two sample times. */
    double GbpsBetween(Time a, Time b) const
    {
        uint64_t da = 0, db = 0;
        for (const auto& [t, d] : samples)
        {
            if (t <= a)
            {
                da = d;
            }
            if (t <= b)
            {
                db = d;
            }
        }
        return (db - da) * 8.0 / (b - a).GetSeconds() / 1e9;
    }
};

void
Connect(Flow& f, const StarTopology& t, uint32_t from, uint32_t to, uint16_t qp, uint64_t bytes)
{
    f.sender = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(qp));
    f.sender->SetNode(t.hosts.Get(from));
    f.sender->SetNextAddress(t.hostAddresses[to]);
    f.receiver = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(qp));
    f.receiver->SetNode(t.hosts.Get(to));
    f.receiver->SetNextAddress(t.hostAddresses[from]);
    f.receiver->TraceConnectWithoutContext("PacketDelivered", MakeCallback(&Flow::OnDelivered, &f));
    f.receiver->SetReceiveCallback(MakeCallback(&Flow::OnDone, &f));
    f.receiver->Start();
    f.sender->Start();
    f.receiver->PostReceive(bytes);
    f.sender->Send(bytes);
    Simulator::ScheduleNow(&Flow::Sample, &f);
}

/** Largest queue of a queue disc after `from`, sampled every 10 us. */
struct QueueWatch
{
    Ptr<QueueDisc> q;
    Time from;
    uint32_t max = 0;
    void Sample()
    {
        if (Simulator::Now() >= from)
        {
            max = std::max(max, q->GetNBytes());
        }
        Simulator::Schedule(MicroSeconds(10), &QueueWatch::Sample, this);
    }
};

} // namespace

TEST(DcqcnRateControl, CutAndRecoveryFollowThePublishedRules)
{
    Ptr<DcqcnRateControl> rc = CreateObject<DcqcnRateControl>();
    rc->SetLineRate(DataRate("25Gbps"));
    EXPECT_DOUBLE_EQ(rc->GetRateBps(), 25e9);
    // First CNP, alpha = 1: Rt = 25, Rc = 25 (1 - 1/2) = 12.5; alpha = (1-g) + g = 1.
    rc->ReceiveCnp();
    EXPECT_DOUBLE_EQ(rc->GetRateBps(), 12.5e9);
    EXPECT_DOUBLE_EQ(rc->GetTargetRateBps(), 25e9);
    EXPECT_DOUBLE_EQ(rc->GetAlpha(), 1.0);
    // The 300 us timer: stage 1 >= F = 1 while the byte stage is 0: additive increase:
    // Rt = 25 Gb/s (capped), Rc = (25 + 12.5) / 2.
    Simulator::Stop(MicroSeconds(301));
    Simulator::Run();
    EXPECT_DOUBLE_EQ(rc->GetRateBps(), 18.75e9);
    // A second CNP 301 us after the first: 5 alpha periods (55 us) passed without one.
    rc->ReceiveCnp();
    double g = 1.0 / 256;
    double alpha = std::pow(1 - g, 5);
    EXPECT_NEAR(rc->GetRateBps(), 18.75e9 * (1 - alpha / 2), 1.0);
    EXPECT_NEAR(rc->GetAlpha(), (1 - g) * alpha + g, 1e-12);
    // The byte counter drives increases too: 2,097,088 bytes is one stage, which reaches
    // F = 1: additive increase, Rt = 18.75 Gb/s + 5 Mb/s, Rc halfway to it.
    double before = rc->GetRateBps();
    rc->NotifyBytesSent(2097087);
    EXPECT_DOUBLE_EQ(rc->GetRateBps(), before);
    rc->NotifyBytesSent(1);
    EXPECT_NEAR(rc->GetTargetRateBps(), 18.75e9 + 5e6, 1.0);
    EXPECT_NEAR(rc->GetRateBps(), (before + 18.75e9 + 5e6) / 2, 1.0);
    Simulator::Destroy();
}

TEST(DcqcnRateControl, ACallThatSpansSeveralByteStagesIncreasesOncePerStage)
{
    // The flow engine reports an interval's bytes at once, and a packet may exceed a small
    // counter: three stages' bytes in one call are three increases, as in three calls.
    const uint64_t stage = 100'000;
    std::vector<Ptr<DcqcnRateControl>> rcs;
    for (int i = 0; i < 2; ++i)
    {
        rcs.push_back(CreateObjectWithAttributes<DcqcnRateControl>(
            "ByteCounter", UintegerValue(stage), "FastRecoverySteps", UintegerValue(5)));
        rcs.back()->SetLineRate(DataRate("25Gbps"));
        rcs.back()->ReceiveCnp();
    }
    const double rt = rcs[0]->GetTargetRateBps();
    const double cut = rcs[0]->GetRateBps();
    rcs[0]->NotifyBytesSent(3 * stage + 10);
    for (int i = 0; i < 3; ++i)
    {
        rcs[1]->NotifyBytesSent(stage);
    }
    // Fast recovery halves the gap to the target at each stage.
    EXPECT_NEAR(rcs[0]->GetRateBps(), rt - (rt - cut) / 8, 1.0);
    EXPECT_DOUBLE_EQ(rcs[0]->GetRateBps(), rcs[1]->GetRateBps());
    Simulator::Destroy();
}

TEST(RdmaTransport, OneFlowReachesLineRateGoodput)
{
    StarTopology t = InstallStar(RdmaStar());
    Flow f;
    const uint64_t bytes = 50'000'000;
    Connect(f, t, 1, 0, 1, bytes);
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    ASSERT_FALSE(f.done.IsNegative()) << "transfer did not finish";
    double gbps = bytes * 8.0 / (f.done - f.firstByte).GetSeconds() / 1e9;
    double share = gbps / 25.0;
    std::cout << "[measure] one RoCE flow alone: goodput " << gbps << " Gbps = " << share * 100
              << " % of line rate (headers: 1024 of 1070 bytes = 95.7 %)\n";
    EXPECT_GE(share, 0.95);
    EXPECT_EQ(f.receiver->GetPacketsDiscarded(), 0u);
    EXPECT_EQ(f.sender->GetRateControl()->GetCnpsReceived(), 0u);
    Simulator::Destroy();
}

// With Ethernet's framing (36 bytes a packet, as the devices' interframe gap) the queue pair
// paces at what a packet takes of the wire: 1024 of 1106 bytes, nothing queued at the NIC.
TEST(RdmaTransport, PacesWithEthernetsFramingAtItsPayloadShare)
{
    StarTopologyConfig c = RdmaStar();
    c.framingBytes = kEthernetFramingBytes;
    StarTopology t = InstallStar(c);
    Flow f;
    const uint64_t bytes = 50'000'000;
    Connect(f, t, 1, 0, 1, bytes);
    // (The gap is whole nanoseconds: 12 ns at 25 Gbps, 37.5 bytes.)
    EXPECT_NEAR(RdmaNic::GetOrInstall(t.hosts.Get(1))->GetFramingBytes(), kEthernetFramingBytes,
                1.5);
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    ASSERT_FALSE(f.done.IsNegative()) << "transfer did not finish";
    const double gbps = bytes * 8.0 / (f.done - f.firstByte).GetSeconds() / 1e9;
    const double payload = 25.0 * 1024 / (1070 + kEthernetFramingBytes + 1.5);
    std::cout << "[measure] one RoCE flow with Ethernet's framing: goodput " << gbps
              << " Gbps against " << payload << "\n";
    EXPECT_NEAR(gbps / payload, 1.0, 0.01);
    EXPECT_EQ(f.sender->GetRateControl()->GetCnpsReceived(), 0u);
    Simulator::Destroy();
}

TEST(RdmaTransport, TwoFlowsConvergeToFairShareWithBoundedQueue)
{
    StarTopology t = InstallStar(RdmaStar());
    Flow a, b;
    Connect(a, t, 1, 0, 1, 1'000'000'000);
    Connect(b, t, 2, 0, 2, 1'000'000'000);
    QueueWatch w{ t.torQueueDiscs[0], MilliSeconds(20) };
    Simulator::ScheduleNow(&QueueWatch::Sample, &w);
    Simulator::Stop(MilliSeconds(60));
    Simulator::Run();
    double ga = a.GbpsBetween(MilliSeconds(20), MilliSeconds(60));
    double gb = b.GbpsBetween(MilliSeconds(20), MilliSeconds(60));
    double fair = (ga + gb) / 2;
    // When does each flow first stay within 10 % of the fair share (1 ms windows)?
    Time converged = Seconds(-1);
    for (Time x = MilliSeconds(1); x < MilliSeconds(59); x += MilliSeconds(1))
    {
        double x1 = a.GbpsBetween(x, x + MilliSeconds(1));
        double x2 = b.GbpsBetween(x, x + MilliSeconds(1));
        bool ok = std::abs(x1 - x2) / (x1 + x2) < 0.1;
        if (ok && converged.IsNegative())
        {
            converged = x;
        }
        else if (!ok)
        {
            converged = Seconds(-1);
        }
    }
    std::cout << "[measure] two RoCE flows into one port, 20-60 ms: " << ga << " and " << gb
              << " Gbps (fair " << fair << "); within 10 % in every 1 ms window from "
              << converged.As(Time::MS) << "; ToR queue max " << w.max << " B (Kmin 100000, "
              << "Kmax 400000); CNPs " << a.sender->GetRateControl()->GetCnpsReceived() << " + "
              << b.sender->GetRateControl()->GetCnpsReceived() << ", marks "
              << t.torQueueDiscs[0]->GetStats().nTotalMarkedPackets << ", CNPs sent "
              << a.receiver->GetCnpsSent() << "\n";
    EXPECT_LT(std::abs(ga - fair) / fair, 0.10);
    EXPECT_LT(std::abs(gb - fair) / fair, 0.10);
    EXPECT_GT(ga + gb, 0.9 * 25 * 1024.0 / 1070);
    EXPECT_LT(w.max, 600000u) << "queue should stay near the marking thresholds";
    EXPECT_EQ(t.torQueueDiscs[0]->GetStats().nTotalDroppedPackets, 0u);
    Simulator::Destroy();
}

TEST(RdmaTransport, IncastOfThreeHeldBelowTheBufferWithoutDrops)
{
    StarTopology t = InstallStar(RdmaStar(2000000));
    Flow f[3];
    for (uint32_t i = 0; i < 3; ++i)
    {
        Connect(f[i], t, i + 1, 0, static_cast<uint16_t>(i + 1), 1'000'000'000);
    }
    QueueWatch w{ t.torQueueDiscs[0], Seconds(0) };
    Simulator::ScheduleNow(&QueueWatch::Sample, &w);
    Simulator::Stop(MilliSeconds(40));
    Simulator::Run();
    uint64_t drops = t.torQueueDiscs[0]->GetStats().nTotalDroppedPackets;
    double total = 0;
    for (auto& x : f)
    {
        total += x.GbpsBetween(MilliSeconds(10), MilliSeconds(40));
    }
    std::cout << "[measure] incast of 3 RoCE flows, buffer 2 MB (5 x Kmax): queue max " << w.max
              << " B, drops " << drops << ", aggregate goodput 10-40 ms " << total << " Gbps\n";
    EXPECT_EQ(drops, 0u);
    EXPECT_LT(w.max, 2000000u);
    EXPECT_GT(total, 0.9 * 25 * 1024.0 / 1070);
    Simulator::Destroy();
}

TEST(RdmaTransport, DroppedPacketIsRecoveredByGoBackN)
{
    StarTopology t = InstallStar(RdmaStar());
    // S0's NIC loses the 1001st and 5001st packets it receives.
    Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
    em->SetList({ 1000, 5000 });
    t.hostDevices.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    Flow f;
    const uint64_t bytes = 10'000'000 + 123; // a partial last packet
    Connect(f, t, 1, 0, 1, bytes);
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    ASSERT_FALSE(f.done.IsNegative()) << "transfer did not finish";
    EXPECT_EQ(f.delivered, bytes);
    ASSERT_EQ(f.psns.size(), (bytes + 1023) / 1024);
    for (uint32_t i = 0; i < f.psns.size(); ++i)
    {
        ASSERT_EQ(f.psns[i], i) << "delivered out of order or twice";
    }
    EXPECT_GE(f.receiver->GetNaksSent(), 2u);
    EXPECT_GT(f.sender->GetPacketsRetransmitted(), 0u);
    EXPECT_EQ(f.sender->GetTimeouts(), 0u);
    std::cout << "[measure] go-back-N: 2 losses, " << f.receiver->GetNaksSent() << " NAKs, "
              << f.sender->GetPacketsRetransmitted() << " packets sent again, "
              << f.receiver->GetPacketsDiscarded() << " discarded at the receiver\n";
    Simulator::Destroy();
}

TEST(RdmaTransport, LostTailIsRecoveredByTimeout)
{
    StarTopology t = InstallStar(RdmaStar());
    // 100 packets; the last one is lost: no later packet can reveal the gap.
    Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
    em->SetList({ 99 });
    t.hostDevices.Get(0)->SetAttribute("ReceiveErrorModel", PointerValue(em));
    Flow f;
    Connect(f, t, 1, 0, 1, 100 * 1024);
    f.sender->SetAttribute("RetransmitTimeout", TimeValue(MilliSeconds(2)));
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    ASSERT_FALSE(f.done.IsNegative());
    EXPECT_EQ(f.delivered, 100u * 1024);
    EXPECT_EQ(f.sender->GetTimeouts(), 1u);
    EXPECT_GT(f.done, MilliSeconds(2));
    Simulator::Destroy();
}

namespace
{

uint64_t
IncastDrops(bool pfc, uint32_t* pauses, uint64_t* delivered)
{
    // A shallow buffer (300 KB) and marking late (Kmin 200 KB, Kmax 280 KB): DCQCN cannot
    // react before the buffer overflows.
    StarTopologyConfig c = RdmaStar(300000, pfc);
    c.switchQueue.ecnKminBytes = 200000;
    c.switchQueue.ecnKmaxBytes = 280000;
    Config::SetDefault("ns3::PfcController::XoffBytes", UintegerValue(50000));
    Config::SetDefault("ns3::PfcController::XonBytes", UintegerValue(47000));
    StarTopology t = InstallStar(c);
    Flow f[3];
    for (uint32_t i = 0; i < 3; ++i)
    {
        Connect(f[i], t, i + 1, 0, static_cast<uint16_t>(i + 1), 3'000'000);
    }
    Simulator::Stop(MilliSeconds(30));
    Simulator::Run();
    uint64_t drops = t.torQueueDiscs[0]->GetStats().nTotalDroppedPackets;
    *pauses = t.pfc ? static_cast<uint32_t>(t.pfc->GetPausesSent()) : 0;
    *delivered = 0;
    for (auto& x : f)
    {
        *delivered += x.delivered;
    }
    Simulator::Destroy();
    return drops;
}

} // namespace

TEST(RdmaTransport, PfcPreventsTheDropsOfAnIncast)
{
    uint32_t pausesOff = 0, pausesOn = 0;
    uint64_t deliveredOff = 0, deliveredOn = 0;
    uint64_t dropsOff = IncastDrops(false, &pausesOff, &deliveredOff);
    uint64_t dropsOn = IncastDrops(true, &pausesOn, &deliveredOn);
    std::cout << "[measure] incast of 3 x 3 MB into a 300 KB buffer: PFC off " << dropsOff
              << " drops; PFC on " << dropsOn << " drops, " << pausesOn << " pauses\n";
    EXPECT_GT(dropsOff, 0u);
    EXPECT_EQ(dropsOn, 0u);
    EXPECT_GT(pausesOn, 0u);
    EXPECT_EQ(deliveredOn, 9'000'000u);
    EXPECT_EQ(deliveredOff, 9'000'000u) << "go-back-N recovers the drops";
}

TEST(RdmaTransport, NicSharedWithTcpServesSendQueuesRoundRobin)
{
    // Configuration A's situation: S0's NIC carries a RoCE flow and iperf (TCP, 4 streams) to
    // S1. The NIC serves RDMA's queue and each TCP/IP send queue round robin, byte-fair:
    // iperf asking 8 Gbps gets it and RDMA the rest; iperf asking 20 Gbps with its 4 streams
    // in 4 send queues gets up to 4/5 of the link; with one TCP/IP queue (the older model)
    // only half of it.
    struct Case
    {
        double iperfGbps;
        uint32_t tcpQueues;
        double expectTcpGbps;
        double tolerance;
    };
    for (Case k :
         { Case{ 8.0, 32, 8.0, 0.4 }, Case{ 20.0, 32, 19.3, 1.0 }, Case{ 20.0, 1, 12.0, 1.5 } })
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 20));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 20));
        StarTopologyConfig c = RdmaStar();
        c.configuration = 'A';
        Config::SetDefault("ns3::NicQueueDisc::HostTxQueues", UintegerValue(k.tcpQueues));
        StarTopology t = InstallStar(c);
        IperfFlows iperf = IperfHelper(DataRate(static_cast<uint64_t>(k.iperfGbps * 1e9)), 4)
                               .Install(t.hosts.Get(0), t.hosts.Get(1), t.hostAddresses[1],
                                        Seconds(0), Seconds(1));
        Flow f;
        Connect(f, t, 0, 1, 1, 1'000'000'000);
        uint64_t iperfAt10 = 0;
        Simulator::Schedule(MilliSeconds(10), [&] { iperfAt10 = iperf.sink->GetTotalRx(); });
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        double tcp = (iperf.sink->GetTotalRx() - iperfAt10) * 8.0 / 0.04 / 1e9;
        double rdma = f.GbpsBetween(MilliSeconds(10), MilliSeconds(50));
        std::cout << "[measure] S0's NIC shared (" << k.tcpQueues << " TCP/IP queues): iperf asks "
                  << k.iperfGbps << " Gbps, gets " << tcp << "; RoCE gets " << rdma
                  << " Gbps; drops at the NIC "
                  << t.hostQueueDiscs[0]->GetStats().nTotalDroppedPackets << "\n";
        EXPECT_NEAR(tcp, k.expectTcpGbps, k.tolerance);
        EXPECT_GT(tcp + rdma, 0.93 * 25);
        EXPECT_EQ(f.receiver->GetPacketsDiscarded(), 0u) << "RDMA is not dropped at its NIC";
        Simulator::Destroy();
        Config::Reset();
    }
}
