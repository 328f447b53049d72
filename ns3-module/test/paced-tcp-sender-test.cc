// PacedTcpSender on a point-to-point link into a PacketSink: the rate it achieves against
// its pace, the token bucket's write schedule, a link slower than the pace, and the cap on
// the credit a stalled stream may keep.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/paced-tcp-sender.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

/** Two nodes on one link, node 1 with TCP sinks on ports 5001, 5002, ... */
struct Link
{
    NodeContainer nodes;
    NetDeviceContainer devices;
    Ipv4InterfaceContainer interfaces;
    std::vector<Ptr<PacketSink>> sinks;

    Link(const std::string& rate, const std::string& delay, uint32_t nSinks = 1)
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue(rate));
        p2p.SetChannelAttribute("Delay", StringValue(delay));
        devices = p2p.Install(nodes);
        InternetStackHelper().Install(nodes);
        interfaces = Ipv4AddressHelper("10.1.1.0", "255.255.255.0").Assign(devices);
        for (uint32_t i = 0; i < nSinks; ++i)
        {
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), 5001 + i));
            sinks.push_back(DynamicCast<PacketSink>(sink.Install(nodes.Get(1)).Get(0)));
        }
    }

    Ptr<PacedTcpSender> Sender(const std::string& rate, uint32_t writeBytes, uint32_t sink = 0)
    {
        Ptr<PacedTcpSender> s = CreateObjectWithAttributes<PacedTcpSender>(
            "Remote", AddressValue(InetSocketAddress(interfaces.GetAddress(1), 5001 + sink)),
            "Rate", DataRateValue(DataRate(rate)), "WriteBytes", UintegerValue(writeBytes));
        nodes.Get(0)->AddApplication(s);
        s->SetStartTime(Seconds(0));
        return s;
    }
};

/** Times (s) and sizes of a sender's writes. */
struct Writes
{
    std::vector<double> times;
    std::vector<uint32_t> sizes;

    void Connect(Ptr<PacedTcpSender> s)
    {
        s->TraceConnectWithoutContext("Tx", Callback<void, Ptr<const Packet>>(
                                                [this](Ptr<const Packet> p)
                                                {
                                                    times.push_back(Simulator::Now().GetSeconds());
                                                    sizes.push_back(p->GetSize());
                                                }));
    }
};

} // namespace

TEST(PacedTcpSender, AchievesItsPaceOnAFasterLink)
{
    // Two streams paced at 100 and 300 Mb/s share a 1 Gb/s link: each is limited by its own
    // pace, not by TCP or the link. In steady state (0.1 to 0.6 s) the sink gets pace x 0.5 s:
    // 6.25 MB and 18.75 MB. The writes are 10 kB, so the window's edges cut at most one write
    // plus what is in flight (a few segments): well under the 1 % tolerance (62 kB).
    Link link("1Gbps", "20us", 2);
    link.Sender("100Mbps", 10000, 0);
    link.Sender("300Mbps", 10000, 1);
    uint64_t at100ms[2] = { 0, 0 };
    Simulator::Schedule(MilliSeconds(100), [&] { at100ms[0] = link.sinks[0]->GetTotalRx(); });
    Simulator::Schedule(MilliSeconds(100), [&] { at100ms[1] = link.sinks[1]->GetTotalRx(); });
    Simulator::Stop(MilliSeconds(600));
    Simulator::Run();
    double mbps0 = (link.sinks[0]->GetTotalRx() - at100ms[0]) * 8 / 0.5 / 1e6;
    double mbps1 = (link.sinks[1]->GetTotalRx() - at100ms[1]) * 8 / 0.5 / 1e6;
    std::cout << "[measure] paced at 100 and 300 Mb/s on 1 Gb/s, 0.1-0.6 s: " << mbps0 << " and "
              << mbps1 << " Mb/s\n";
    EXPECT_NEAR(mbps0, 100.0, 1.0);
    EXPECT_NEAR(mbps1, 300.0, 3.0);
    Simulator::Destroy();
}

TEST(PacedTcpSender, WritesFollowTheTokenBucket)
{
    // 10 kB writes at 80 Mb/s: one write every 10000 x 8 / 80e6 s = 1 ms, starting with one
    // buffer as soon as the connection is up (no credit accrues before it is).
    Link link("1Gbps", "100us");
    Ptr<PacedTcpSender> s = link.Sender("80Mbps", 10000);
    Writes w;
    w.Connect(s);
    Simulator::Stop(MilliSeconds(100));
    Simulator::Run();
    ASSERT_GE(w.times.size(), 2u);
    // The handshake takes one round trip (2 x 100 us plus serialisation) before the first
    // write.
    EXPECT_GT(w.times[0], 200e-6);
    EXPECT_LT(w.times[0], 300e-6);
    // Writes k = 0, 1, ... at t0 + k ms while t0 + k ms < 100 ms (each wait is rounded up to
    // whole nanoseconds, so a write may come 1 ns late, never early).
    const double t0 = w.times[0];
    double late = 0;
    for (size_t k = 0; k < w.times.size(); ++k)
    {
        late = std::max(late, w.times[k] - (t0 + k * 1e-3));
    }
    std::cout << "[measure] first write at " << t0 * 1e6 << " us, " << w.times.size()
              << " writes, latest " << late * 1e9 << " ns behind t0 + k ms\n";
    EXPECT_EQ(w.times.size(), static_cast<size_t>(1 + std::floor((0.1 - t0) / 1e-3)));
    for (size_t k = 0; k < w.times.size(); ++k)
    {
        EXPECT_NEAR(w.times[k], t0 + k * 1e-3, 2e-9) << "write " << k;
        EXPECT_EQ(w.sizes[k], 10000u);
    }
    EXPECT_EQ(s->GetBytesWritten(), 10000u * w.times.size());
    Simulator::Destroy();
}

TEST(PacedTcpSender, LinkSlowerThanThePaceLimitsTheStream)
{
    // Paced at 50 Mb/s on a 10 Mb/s link: TCP fills the link. Each 1448-byte segment is
    // 1448 + 32 (TCP with timestamps) + 20 (IP) + 2 (PPP) = 1502 bytes on the wire, so the
    // goodput is 10 x 1448 / 1502 = 9.64 Mb/s (tolerance 2 %). The writes are held back by
    // the full socket buffer: written is what arrived plus at most that buffer.
    Link link("10Mbps", "100us");
    Ptr<PacedTcpSender> s = link.Sender("50Mbps", 10000);
    uint64_t at200ms = 0;
    Simulator::Schedule(MilliSeconds(200), [&] { at200ms = link.sinks[0]->GetTotalRx(); });
    Simulator::Stop(MilliSeconds(1200));
    Simulator::Run();
    double mbps = (link.sinks[0]->GetTotalRx() - at200ms) * 8 / 1.0 / 1e6;
    std::cout << "[measure] paced at 50 Mb/s on 10 Mb/s, 0.2-1.2 s: " << mbps << " Mb/s; written "
              << s->GetBytesWritten() << " B, received " << link.sinks[0]->GetTotalRx() << " B\n";
    EXPECT_NEAR(mbps, 10.0 * 1448 / 1502, 0.02 * 9.64);
    // Written: what arrived plus at most the socket's send buffer (128 KiB).
    EXPECT_GE(s->GetBytesWritten(), link.sinks[0]->GetTotalRx());
    EXPECT_LE(s->GetBytesWritten(), link.sinks[0]->GetTotalRx() + 131072 + 10000);
    Simulator::Destroy();
}

TEST(PacedTcpSender, StalledStreamCatchesUpAtMostItsCreditCap)
{
    // 10 kB writes at 10 Mb/s: one every 8 ms. The receiver loses every packet from 100 to
    // 300 ms; TCP resumes only after its retransmission timeout (1 s minimum; then the
    // receiver's delayed ACK, 200 ms, for the lone retransmitted segment), and meanwhile the
    // socket's 60 kB send buffer fills and the writes stop. The unused credit of the
    // stall is kept but capped at MaxCreditWrites = 4 writes: once TCP drains the buffer the
    // stream writes 4 buffers at once, then its pace again. Within 4 ms of the first write
    // after the stall (half a pacing period) it may write 4 buffers of credit plus
    // 4 ms x 1.25 MB/s = 5 kB: 4 writes, where the stall's full credit (over 1 MB) would
    // let it write as fast as TCP drains the socket (dozens of buffers in 4 ms).
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(60000));
    Link link("1Gbps", "50us");
    Ptr<PacedTcpSender> s = link.Sender("10Mbps", 10000);
    s->SetAttribute("MaxCreditWrites", UintegerValue(4));
    Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
    loss->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    loss->SetRate(1.0);
    loss->Disable();
    link.devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
    Simulator::Schedule(MilliSeconds(100), [&] { loss->Enable(); });
    Simulator::Schedule(MilliSeconds(300), [&] { loss->Disable(); });
    Writes w;
    w.Connect(s);
    Simulator::Stop(MilliSeconds(2000));
    Simulator::Run();

    // The stall: the longest pause between two writes.
    size_t after = 1;
    for (size_t k = 1; k < w.times.size(); ++k)
    {
        if (w.times[k] - w.times[k - 1] > w.times[after] - w.times[after - 1])
        {
            after = k;
        }
    }
    const double stallEnd = w.times[after];
    const double stall = stallEnd - w.times[after - 1];
    ASSERT_GT(stall, 0.5) << "the writes should stop until TCP's timeout";
    size_t burst = 0;
    for (double t : w.times)
    {
        burst += t >= stallEnd && t < stallEnd + 4e-3;
    }
    std::cout << "[measure] stall of " << stall << " s ending at " << stallEnd
              << " s; writes after it at";
    for (size_t k = after; k < std::min(after + 7, w.times.size()); ++k)
    {
        std::cout << " +" << (w.times[k] - stallEnd) * 1e3 << " ms";
    }
    std::cout << "; written " << s->GetBytesWritten() << " B\n";
    EXPECT_EQ(burst, 4u) << "writes within 4 ms of the end of a " << stall << " s stall";
    // Over the whole run the stream wrote its pace's worth except the stall's lost credit:
    // at most 10 Mb/s x (2 s - stall) / 8, plus the 4-write cap and one write per edge.
    EXPECT_LE(s->GetBytesWritten(), 1.25e6 * (2.0 - stall) + 6 * 10000);
    Simulator::Destroy();
}
