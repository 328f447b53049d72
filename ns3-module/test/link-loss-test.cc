// LinkLoss on one point-to-point link: the loss applied over many packets is the rate asked
// for, the same stream loses the same packets, and nothing is lost at rate 0.
#include "ns3/core-module.h"
#include "ns3/link-loss.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

struct LossyLink
{
    Ptr<LinkLoss> loss = CreateObject<LinkLoss>();
    std::vector<uint64_t> lostUids;

    // Sends `packets` 100-byte packets over a 1 Gb/s link into a LinkLoss of `rate` on
    // `stream`, spaced so that no queue ever drops one.
    LossyLink(double rate, uint32_t packets, int64_t stream)
    {
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1us"));
        NetDeviceContainer devices = p2p.Install(nodes);
        loss->SetAttribute("Rate", DoubleValue(rate));
        loss->Install(devices.Get(1));
        loss->AssignStreams(stream);
        loss->TraceConnectWithoutContext(
            "Lost", MakeCallback(+[](std::vector<uint64_t>* uids, Ptr<const Packet> p) {
                        uids->push_back(p->GetUid());
                    }).Bind(&lostUids));
        Ptr<NetDevice> sender = devices.Get(0);
        Address to = devices.Get(1)->GetAddress();
        for (uint32_t i = 0; i < packets; ++i)
        {
            Simulator::Schedule(NanoSeconds(2000 * i),
                                [sender, to] { sender->Send(Create<Packet>(100), to, 0x0800); });
        }
        Simulator::Run();
        Simulator::Destroy();
    }
};

} // namespace

TEST(LinkLoss, AppliedLossIsTheRateAskedFor)
{
    for (double rate : { 0.005, 0.02 })
    {
        LossyLink link(rate, 200000, 7);
        EXPECT_EQ(link.loss->GetArrived(), 200000u);
        EXPECT_EQ(link.loss->GetLost(), link.lostUids.size());
        // Binomial: the standard deviation of the applied rate is sqrt(r(1-r)/n), 1.6 % of r
        // at 2 % and 3.2 % at 0.5 %; within 10 % is over 3 standard deviations.
        const double applied = double(link.loss->GetLost()) / link.loss->GetArrived();
        EXPECT_NEAR(applied, rate, 0.1 * rate) << rate;
    }
}

TEST(LinkLoss, SameStreamLosesTheSamePackets)
{
    LossyLink a(0.01, 20000, 3);
    LossyLink b(0.01, 20000, 3);
    LossyLink c(0.01, 20000, 4);
    ASSERT_FALSE(a.lostUids.empty());
    // Packet uids count from the simulation's start in each run; compare positions.
    auto positions = [](const std::vector<uint64_t>& uids)
    {
        std::vector<uint64_t> p;
        for (uint64_t u : uids)
        {
            p.push_back(u - uids.front());
        }
        return p;
    };
    EXPECT_EQ(positions(a.lostUids), positions(b.lostUids));
    EXPECT_NE(positions(a.lostUids), positions(c.lostUids));
}

TEST(LinkLoss, NothingLostAtRateZeroAndResetStartsAWindow)
{
    LossyLink none(0.0, 5000, 1);
    EXPECT_EQ(none.loss->GetArrived(), 5000u);
    EXPECT_EQ(none.loss->GetLost(), 0u);
    none.loss->Reset();
    EXPECT_EQ(none.loss->GetArrived(), 0u);
}
