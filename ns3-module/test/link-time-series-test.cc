// LinkTimeSeries on one point-to-point port: packets put into the port's queue disc at chosen
// times go on the wire at times that follow from the link rate (8 Mb/s: one byte per us), so
// the bin of each frame, the queue's integral and maximum per bin, and the bins of drops and
// marks are known by hand. Job traffic is recognised by its transport ports.
#include "test-port.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/link-time-series.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <gtest/gtest.h>

using namespace ns3;

namespace
{

/** The shared 8 Mb/s test port, and how this test puts packets into it. */
struct Port : test::TestPort
{
    using TestPort::TestPort;

    /**
     * Puts a packet of `ipBytes` (IPv4 size; on the wire 2 more) into the queue disc: UDP, or
     * TCP when `tcp`, between the given ports. Runs the queue disc unless `run` is false.
     */
    void Send(uint32_t ipBytes, uint16_t srcPort, uint16_t dstPort, bool tcp = false,
              Ipv4Header::EcnType ecn = Ipv4Header::ECN_NotECT, bool run = true)
    {
        Ptr<Packet> p;
        if (tcp)
        {
            p = Create<Packet>(ipBytes - 20 - 20);
            TcpHeader h;
            h.SetSourcePort(srcPort);
            h.SetDestinationPort(dstPort);
            h.SetFlags(TcpHeader::ACK);
            p->AddHeader(h);
        }
        else
        {
            p = Create<Packet>(ipBytes - 20 - 8);
            UdpHeader h;
            h.SetSourcePort(srcPort);
            h.SetDestinationPort(dstPort);
            p->AddHeader(h);
        }
        Ipv4Header ip;
        ip.SetSource(Ipv4Address("10.1.1.1"));
        ip.SetDestination(Ipv4Address("10.1.1.2"));
        ip.SetProtocol(tcp ? 6 : 17);
        ip.SetTtl(64);
        ip.SetPayloadSize(p->GetSize());
        ip.SetEcn(ecn);
        disc->Enqueue(Create<Ipv4QueueDiscItem>(p, devices.Get(1)->GetAddress(),
                                                Ipv4L3Protocol::PROT_NUMBER, ip));
        if (run)
        {
            disc->Run();
        }
    }

    /** Puts `n` UDP packets of 998 IP bytes (1000 on the wire) into the queue disc at once. */
    void Burst(uint32_t n, Ipv4Header::EcnType ecn)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            Send(998, 40000, 6000, false, ecn, false);
        }
        disc->Run();
    }
};

TrafficControlHelper
Fifo()
{
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", StringValue("1000p"));
    return tch;
}

} // namespace

TEST(LinkTimeSeries, FramesLandInTheBinOfTheirTransmissionAndAreClassifiedByPort)
{
    Port port(Fifo());
    Ptr<LinkTimeSeries> s = CreateObject<LinkTimeSeries>(); // 100 us bins
    s->SetJobPorts({ 5000 });
    s->Attach(port.disc, port.devices.Get(0));
    // 10 us: job UDP (to port 5000), 200 B on the wire: 10..210 us, bin 0.
    Simulator::Schedule(MicroSeconds(10), [&] { port.Send(198, 40000, 5000); });
    // 250 us: cross UDP 6000 -> 7000, 300 B: 250..550 us, bin 2.
    Simulator::Schedule(MicroSeconds(250), [&] { port.Send(298, 6000, 7000); });
    // 300 us: job TCP from port 5000 (the job's ACK direction), 500 B: it waits for the link
    // and starts at 550 us: bin 5, not bin 3 where it arrived.
    Simulator::Schedule(MicroSeconds(300), [&] { port.Send(498, 5000, 40001, true); });
    // 1200 us: cross UDP 5001 -> 4999 (near the job's port, not it), 100 B: bin 12.
    Simulator::Schedule(MicroSeconds(1200), [&] { port.Send(98, 5001, 4999); });
    // 1300 us exactly: a bin boundary belongs to the later bin: job UDP, 100 B, bin 13.
    Simulator::Schedule(MicroSeconds(1300), [&] { port.Send(98, 40000, 5000); });
    Simulator::Stop(MicroSeconds(1450));
    Simulator::Run();
    const std::vector<LinkTimeSeries::Bin>& bins = s->GetBins();
    ASSERT_EQ(bins.size(), 15u) << "bins up to now (1450 us: bin 14)";
    std::vector<uint64_t> job(bins.size()), cross(bins.size());
    for (size_t i = 0; i < bins.size(); ++i)
    {
        job[i] = bins[i].jobBytes;
        cross[i] = bins[i].crossBytes;
    }
    std::vector<uint64_t> expectJob(15), expectCross(15);
    expectJob[0] = 200;
    expectCross[2] = 300;
    expectJob[5] = 500;
    expectCross[12] = 100;
    expectJob[13] = 100;
    EXPECT_EQ(job, expectJob);
    EXPECT_EQ(cross, expectCross);
    Simulator::Destroy();
}

TEST(LinkTimeSeries, QueueIntegralAndMaximumPerBin)
{
    Port port(Fifo());
    Ptr<LinkTimeSeries> s
        = CreateObjectWithAttributes<LinkTimeSeries>("BinWidth", TimeValue(MicroSeconds(500)));
    s->Attach(port.disc, port.devices.Get(0));
    // 50 us: 4 packets of 998 IP bytes (1000 us each on the wire) at once: the queue reaches
    // 3992 B; the first goes on the wire, the second into the device queue: 1996 B wait
    // until 1050 us, 998 B until 2050 us, then none.
    Simulator::Schedule(MicroSeconds(50), [&] { port.Burst(4, Ipv4Header::ECN_NotECT); });
    Simulator::Stop(MicroSeconds(3200));
    Simulator::Run();
    const std::vector<LinkTimeSeries::Bin>& bins = s->GetBins();
    ASSERT_EQ(bins.size(), 7u) << "bins up to now (3200 us: bin 6)";
    // Bin [0, 500): 1996 B over 450 us; [500, 1000): 1996 B; [1000, 1500): 1996 B over
    // 50 us and 998 B over 450 us; [1500, 2000): 998 B; [2000, 2500): 998 B over 50 us.
    // A bin's maximum is the largest level the queue had in it: 3992 B at 50 us in bin 0,
    // else the level the bin started with.
    const double expect[] = { 1996 * 450e-6,
                              1996 * 500e-6,
                              1996 * 50e-6 + 998 * 450e-6,
                              998 * 500e-6,
                              998 * 50e-6,
                              0.0,
                              0.0 };
    const uint32_t expectMax[] = { 3992, 1996, 1996, 998, 998, 0, 0 };
    // The 1000-byte frames start at 50, 1050, 2050 and 3050 us: bins 0, 2, 4 and 6.
    const uint64_t expectBytes[] = { 1000, 0, 1000, 0, 1000, 0, 1000 };
    for (size_t i = 0; i < bins.size(); ++i)
    {
        EXPECT_NEAR(bins[i].queueByteSeconds, expect[i], 1e-9) << "bin " << i;
        EXPECT_EQ(bins[i].maxQueueBytes, expectMax[i]) << "bin " << i;
        EXPECT_EQ(bins[i].crossBytes, expectBytes[i]) << "bin " << i;
        EXPECT_EQ(bins[i].jobBytes, 0u) << "no job ports set";
    }
    Simulator::Destroy();
}

TEST(LinkTimeSeries, DropsAndMarksLandInTheirBins)
{
    // ECN ramp, Kmax 998 B, buffer 2994 B (three packets of 998 B).
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::EcnRampQueueDisc", "MaxSize", StringValue("2994B"), "KminBytes",
                         UintegerValue(100), "KmaxBytes", UintegerValue(998));
    Port port(tch);
    Ptr<LinkTimeSeries> s
        = CreateObjectWithAttributes<LinkTimeSeries>("BinWidth", TimeValue(MicroSeconds(500)));
    s->Attach(port.disc, port.devices.Get(0));
    // 50 us (bin 0): 4 ECN-capable arrivals at once: they find 0 (not marked), 998 and 1996
    // (>= Kmax: marked), 2994 (does not fit: dropped).
    Simulator::Schedule(MicroSeconds(50), [&] { port.Burst(4, Ipv4Header::ECN_ECT0); });
    // 2600 us (bin 5), the queue empty again: 4 arrivals that are not ECN-capable: 3 fit
    // (none marked), the 4th is dropped.
    Simulator::Schedule(MicroSeconds(2600), [&] { port.Burst(4, Ipv4Header::ECN_NotECT); });
    Simulator::Stop(MicroSeconds(2900));
    Simulator::Run();
    const std::vector<LinkTimeSeries::Bin>& bins = s->GetBins();
    ASSERT_EQ(bins.size(), 6u);
    std::vector<uint32_t> drops, marks;
    for (const auto& b : bins)
    {
        drops.push_back(b.drops);
        marks.push_back(b.ecnMarks);
    }
    EXPECT_EQ(drops, std::vector<uint32_t>({ 1, 0, 0, 0, 0, 1 }));
    EXPECT_EQ(marks, std::vector<uint32_t>({ 2, 0, 0, 0, 0, 0 }));
    Simulator::Destroy();
}

// The bins taken while the run goes (at 700 us, twice at 1500 us, at 2000 us: a bin
// boundary) and those left at the end are the series one GetBins() at the end gives, to the
// bit: the queue integral is split only where bins split it anyway.
TEST(LinkTimeSeries, BinsTakenWhileRunningAreTheWholeSeries)
{
    auto run = [](const std::vector<int64_t>& takeAtUs, uint64_t& firstLeft)
    {
        Port port(Fifo());
        Ptr<LinkTimeSeries> s
            = CreateObjectWithAttributes<LinkTimeSeries>("BinWidth", TimeValue(MicroSeconds(500)));
        s->Attach(port.disc, port.devices.Get(0));
        Simulator::Schedule(MicroSeconds(50), [&] { port.Burst(4, Ipv4Header::ECN_NotECT); });
        Simulator::Schedule(MicroSeconds(1730), [&] { port.Burst(3, Ipv4Header::ECN_NotECT); });
        std::vector<LinkTimeSeries::Bin> bins;
        for (int64_t at : takeAtUs)
        {
            Simulator::Schedule(MicroSeconds(at),
                                [&]
                                {
                                    EXPECT_EQ(s->GetFirstBin(), bins.size());
                                    auto taken = s->TakeBins(true);
                                    bins.insert(bins.end(), taken.begin(), taken.end());
                                });
        }
        Simulator::Stop(MicroSeconds(4200));
        Simulator::Run();
        firstLeft = s->GetFirstBin();
        auto rest = takeAtUs.empty() ? s->GetBins() : s->TakeBins(false);
        bins.insert(bins.end(), rest.begin(), rest.end());
        Simulator::Destroy();
        return bins;
    };
    uint64_t firstWhole = 99;
    uint64_t firstTaken = 0;
    const auto whole = run({}, firstWhole);
    const auto taken = run({ 700, 1500, 1500, 2000 }, firstTaken);
    EXPECT_EQ(firstWhole, 0u);
    EXPECT_EQ(firstTaken, 4u) << "bins 0-3 end by 2000 us";
    ASSERT_EQ(whole.size(), 9u) << "bins up to 4200 us";
    ASSERT_EQ(taken.size(), whole.size());
    for (size_t i = 0; i < whole.size(); ++i)
    {
        EXPECT_EQ(taken[i].queueByteSeconds, whole[i].queueByteSeconds) << "bin " << i;
        EXPECT_EQ(taken[i].maxQueueBytes, whole[i].maxQueueBytes) << "bin " << i;
        EXPECT_EQ(taken[i].crossBytes, whole[i].crossBytes) << "bin " << i;
    }
    EXPECT_GT(whole[3].queueByteSeconds, 0) << "the second burst queues in bin 3";
}
