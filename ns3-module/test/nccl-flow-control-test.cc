// NCCL's flow control on the ring (RingAllReduce with RingPacing::flowControl) over RoCE at
// packet level: what a connection has in flight is bounded by its FIFO's slots, and a ring so
// bounded behind a standing queue of Q bytes moves W / (RTT + Q / C).
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/queue-disc.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/ring-allreduce.h"
#include "ns3/star-topology-helper.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace ns3;

namespace
{

// Configuration B's rack with a deep FIFO at the switch (the testbed's): nothing marks, nothing
// drops, queues grow as far as the senders push.
StarTopology
DeepFifoRack()
{
    StarTopologyConfig c;
    c.configuration = 'B';
    c.rdmaNic = true;
    c.switchQueue.discipline = "fifo";
    c.switchQueue.bufferBytes = 300000000;
    return StarTopologyHelper(c).Install();
}

/** A ring of RoCE queue pairs over some hosts, one all-reduce per rank. */
struct Ring
{
    std::vector<Ptr<RdmaRingTransport>> transports;
    std::vector<Ptr<RingAllReduce>> ranks;
    uint32_t done = 0;
    uint32_t maxUnacknowledged = 0; //!< packets, over every rank's queue pair
    uint32_t maxSendSlots = 0;
    uint32_t maxReceives = 0;

    Ring(const StarTopology& t, const std::vector<uint32_t>& hosts, uint16_t qp,
         const RingPacing& pacing)
    {
        const uint32_t n = static_cast<uint32_t>(hosts.size());
        for (uint32_t r = 0; r < n; ++r)
        {
            auto q = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(qp));
            q->SetNode(t.hosts.Get(hosts[r]));
            q->SetNextAddress(t.hostAddresses[hosts[(r + 1) % n]]);
            q->SetPreviousAddress(t.hostAddresses[hosts[(r + n - 1) % n]]);
            transports.push_back(q);
            Ptr<RingAllReduce> a = CreateObject<RingAllReduce>();
            a->Setup(q, r, n, pacing);
            ranks.push_back(a);
        }
    }
    /** At time 0 of the run (the stack sends nothing before it). */
    void StartAtZero(uint64_t bytes) { Simulator::ScheduleNow(&Ring::Start, this, bytes); }
    void Start(uint64_t bytes)
    {
        for (auto& q : transports)
        {
            q->Start();
        }
        for (auto& a : ranks)
        {
            a->Start(bytes, MakeCallback(&Ring::Done, this));
        }
        Simulator::ScheduleNow(&Ring::Sample, this);
    }
    void Done()
    {
        ++done;
        doneAt = Simulator::Now();
    }
    Time doneAt;
    void Sample()
    {
        for (uint32_t r = 0; r < ranks.size(); ++r)
        {
            maxUnacknowledged
                = std::max(maxUnacknowledged, transports[r]->GetPacketsUnacknowledged());
            maxSendSlots = std::max(maxSendSlots, ranks[r]->GetSendSlotsInUse());
            maxReceives = std::max(maxReceives, ranks[r]->GetReceivesOutstanding());
        }
        if (done < ranks.size())
        {
            Simulator::Schedule(MicroSeconds(20), &Ring::Sample, this);
        }
    }
};

/** A queue pair from S2 to S0 that sends one message as fast as the link takes it. */
struct Blast
{
    Ptr<RdmaRingTransport> sender;
    Ptr<RdmaRingTransport> receiver;
    Blast(const StarTopology& t, uint64_t bytes)
    {
        sender = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(9));
        sender->SetNode(t.hosts.Get(2));
        sender->SetNextAddress(t.hostAddresses[0]);
        receiver = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(9));
        receiver->SetNode(t.hosts.Get(0));
        receiver->SetNextAddress(t.hostAddresses[2]);
        Simulator::ScheduleNow(&Blast::Start, this, bytes);
    }
    void Start(uint64_t bytes)
    {
        receiver->Start();
        sender->Start();
        receiver->PostReceive(bytes);
        sender->Send(bytes);
    }
};

/**
 * A queue pair from S2 to S0 with clear to send: its receiver keeps `window` receives of
 * `bytes` posted, posting the next as one completes; the sender has `messages` queued.
 */
struct Windowed
{
    Ptr<RdmaRingTransport> sender;
    Ptr<RdmaRingTransport> receiver;
    uint32_t left;
    uint64_t bytes;
    Windowed(const StarTopology& t, uint32_t window, uint64_t messageBytes, uint32_t messages)
        : left(messages), bytes(messageBytes)
    {
        sender = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(9));
        sender->SetNode(t.hosts.Get(2));
        sender->SetNextAddress(t.hostAddresses[0]);
        sender->SetClearToSend(true);
        receiver = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(9));
        receiver->SetNode(t.hosts.Get(0));
        receiver->SetNextAddress(t.hostAddresses[2]);
        receiver->SetPreviousAddress(t.hostAddresses[2]);
        receiver->SetClearToSend(true);
        receiver->SetReceiveCallback(MakeCallback(&Windowed::Received, this));
        Simulator::ScheduleNow(&Windowed::Start, this, window);
    }
    void Start(uint32_t window)
    {
        receiver->Start();
        sender->Start();
        for (uint32_t i = 0; i < left; ++i)
        {
            sender->Send(bytes);
        }
        for (uint32_t i = 0; i < window && i < left; ++i)
        {
            receiver->PostReceive(bytes);
        }
        posted = std::min(window, left);
    }
    void Received(uint64_t)
    {
        if (posted < left)
        {
            ++posted;
            receiver->PostReceive(bytes);
        }
    }
    uint32_t posted = 0;
};

struct InFlight
{
    uint32_t maxUnacknowledged;
    uint32_t maxSendSlots;
    uint32_t maxReceives;
    uint32_t done;
};

// A 3-rank ring S0 -> S1 -> S3 -> S0 of 24 MiB beside a 60 MB blast into S0: the hop S3 -> S0
// shares the ToR port towards S0 with the blast, whose queue grows for as long as it lasts.
InFlight
RingBesideABlast(bool flowControl)
{
    StarTopology t = DeepFifoRack();
    RingPacing pacing;
    pacing.flowControl = flowControl;
    Ring ring(t, { 0, 1, 3 }, 1, pacing);
    Blast blast(t, 60000000);
    ring.StartAtZero(24 << 20);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    Simulator::Destroy();
    return { ring.maxUnacknowledged, ring.maxSendSlots, ring.maxReceives, ring.done };
}

} // namespace

TEST(NcclFlowControl, AConnectionNeverHasMoreInFlightThanItsSlots)
{
    // 4 slices of 1 MiB may be cleared and unacknowledged at once: 4096 packets of 1 KiB; the
    // receiver acknowledges every 16 packets and each message's last, so the sender may count
    // up to 15 packets more of a message whose next ACK is on its way.
    const NcclSlicing s;
    const uint32_t bound
        = static_cast<uint32_t>(s.SlotsInSlices() * s.StepBytes() * s.sliceSteps / 1024) + 16;
    const InFlight bounded = RingBesideABlast(true);
    const InFlight unbounded = RingBesideABlast(false);
    std::cout << "[measure] most packets unacknowledged on a ring queue pair beside a blast: "
              << bounded.maxUnacknowledged << " with NCCL's flow control (bound " << bound << "), "
              << unbounded.maxUnacknowledged << " without\n";
    EXPECT_EQ(bounded.done, 3u);
    EXPECT_EQ(unbounded.done, 3u);
    EXPECT_LE(bounded.maxUnacknowledged, bound);
    EXPECT_LE(bounded.maxSendSlots, s.SlotsInSlices());
    EXPECT_LE(bounded.maxReceives, s.SlotsInSlices());
    // What the bound holds back: without it the ring keeps far more in the queue.
    EXPECT_GT(unbounded.maxUnacknowledged, 2 * bound);
}

TEST(NcclFlowControl, AWindowLimitedRingBehindAStandingQueueMovesWindowOverRoundTrip)
{
    // The ring S0 -> S1 -> S3 -> S0 with NCCL's 8 slots (W = 4 slices of 1 MiB per connection)
    // shares the ToR port towards S0 with a queue pair from S2 whose receiver keeps 20 receives
    // of 1 MiB posted (a window of 20 MiB, cleared as the ring's are). Both are window-limited,
    // so the port holds a standing queue of about their windows together, Q, and the ring's hop
    // S3 -> S0 moves W / (RTT + Q / C), C the port's 25 Gb/s: where sharing the port evenly
    // would give half of it, the windows give the ring about a sixth.
    StarTopology t = DeepFifoRack();
    Ring ring(t, { 0, 1, 3 }, 1, RingPacing());
    Windowed other(t, 20, 1 << 20, 100);
    struct Watch
    {
        Ptr<QueueDisc> q;
        Ptr<RdmaRingTransport> hop; // S0's receiving end of S3 -> S0
        double queueByteSeconds = 0;
        uint64_t bytesAtStart = 0;
        uint64_t bytesAtEnd = 0;
        void Sample(Time from, Time to)
        {
            const Time now = Simulator::Now();
            if (now == from)
            {
                bytesAtStart = hop->GetBytesReceived();
            }
            if (now > from && now <= to)
            {
                queueByteSeconds += q->GetNBytes() * 10e-6;
            }
            if (now == to)
            {
                bytesAtEnd = hop->GetBytesReceived();
                return;
            }
            Simulator::Schedule(MicroSeconds(10), &Watch::Sample, this, from, to);
        }
    } watch{ t.torQueueDiscs[0], ring.transports[0] };
    const Time from = MilliSeconds(5);
    const Time to = MilliSeconds(25);
    Simulator::Schedule(from, &Watch::Sample, &watch, from, to);
    ring.StartAtZero(24 << 20);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    Simulator::Destroy();
    ASSERT_EQ(ring.done, 3u);
    ASSERT_GT(ring.doneAt, to) << "the ring must still run at the end of the measurement";
    const double c = 25e9;
    const double q = watch.queueByteSeconds / (to - from).GetSeconds();
    const double w = 4.0 * (1 << 20);
    const double rtt = 4 * 1e-6 + 2 * 1070 * 8 / c; // two hops each way, a packet at each
    const double predicted = w * 8 / (rtt + q * 8 / c);
    const double measured
        = (watch.bytesAtEnd - watch.bytesAtStart) * 8.0 / (to - from).GetSeconds();
    std::cout << "[measure] ring hop behind a standing queue of " << q / 1e6
              << " MB: " << measured / 1e9 << " Gb/s, W / (RTT + Q/C) = " << predicted / 1e9
              << " Gb/s\n";
    EXPECT_GT(q, 15e6); // the queue stood: about both windows
    EXPECT_NEAR(measured, predicted, 0.05 * predicted);
    EXPECT_LT(measured, 0.25 * c);
}
