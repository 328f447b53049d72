// TcpRingTransport between two hosts of the star: the order in which the host ceiling lets the
// sockets' stripes go. Eight 1 MB messages are queued at once (as a ring step's slices are)
// over two connections behind a 10 Gbps ceiling. Written in turn, the stripes of a message
// leave side by side and each message completes after its own bytes; written socket by
// socket, the first message waits for every stripe of the first socket.
#include "ns3/boolean.h"
#include "ns3/core-module.h"
#include "ns3/star-topology-helper.h"
#include "ns3/tcp-ring-transport.h"

#include <gtest/gtest.h>

#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kMessageBytes = 1'000'000;
constexpr int kMessages = 8;
constexpr double kCeilingBps = 10e9;

struct Completions
{
    std::vector<double> seconds;
    void Received(uint64_t) { seconds.push_back(Simulator::Now().GetSeconds()); }
};

/** Completion times of the messages, in seconds after the first write. */
std::vector<double>
CompletionTimes(bool interleave)
{
    StarTopology t = StarTopologyHelper(StarTopologyConfig{}).Install();
    auto make = [&](uint32_t host, uint32_t next)
    {
        Ptr<TcpRingTransport> r = CreateObjectWithAttributes<TcpRingTransport>(
            "SocketsPerPeer", UintegerValue(2), "HostCeiling", DataRateValue(DataRate(kCeilingBps)),
            "InterleaveStripes", BooleanValue(interleave));
        r->SetNode(t.hosts.Get(host));
        r->SetNextAddress(t.hostAddresses[next]);
        return r;
    };
    Ptr<TcpRingTransport> tx = make(1, 0);
    Ptr<TcpRingTransport> rx = make(0, 1);
    Completions done;
    rx->SetReceiveCallback(MakeCallback(&Completions::Received, &done));
    // Started inside the run: the nodes' queue discs are initialised at time 0.
    Simulator::ScheduleNow(&TcpRingTransport::Start, rx);
    Simulator::ScheduleNow(&TcpRingTransport::Start, tx);
    const Time first = MilliSeconds(1); // connections are up by then
    Simulator::Schedule(first,
                        [&]()
                        {
                            for (int m = 0; m < kMessages; ++m)
                            {
                                rx->PostReceive(kMessageBytes);
                                tx->Send(kMessageBytes);
                            }
                        });
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    Simulator::Destroy();
    for (double& d : done.seconds)
    {
        d -= first.GetSeconds();
    }
    return done.seconds;
}

} // namespace

TEST(TcpRingTransport, InterleavedStripesCompleteEachMessageAfterItsOwnBytes)
{
    const double perMessage = kMessageBytes * 8 / kCeilingBps; // 0.8 ms
    std::vector<double> interleaved = CompletionTimes(true);
    std::vector<double> serial = CompletionTimes(false);
    ASSERT_EQ(interleaved.size(), static_cast<size_t>(kMessages));
    ASSERT_EQ(serial.size(), static_cast<size_t>(kMessages));
    std::cout << "[measure] first / last of 8 messages: interleaved " << interleaved.front() * 1e3
              << " / " << interleaved.back() * 1e3 << " ms, serial " << serial.front() * 1e3
              << " / " << serial.back() * 1e3 << " ms\n";
    for (int m = 0; m < kMessages; ++m)
    {
        // Its bytes and those before it at the ceiling, plus a few round trips.
        EXPECT_NEAR(interleaved[m], (m + 1) * perMessage, 0.1 * perMessage) << "message " << m;
    }
    // Serially the first message needs the first socket's 8 stripes and its own second stripe.
    EXPECT_NEAR(serial.front(), (kMessages / 2.0 + 0.5) * perMessage, 0.1 * perMessage);
    // The ceiling sets the whole either way.
    EXPECT_NEAR(serial.back(), interleaved.back(), 0.05 * perMessage);
}
