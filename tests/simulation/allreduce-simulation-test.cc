// The ring over ns-3 TCP on an idle rack: bytes on the wire per iteration and the time of
// one large all-reduce against the line-rate bound.
#include "run-scenario.h"
#include "test-support.h"

#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/tcp-header.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>

using namespace flumen;
using nlohmann::json;

namespace
{

// Header bytes of a data segment on a point-to-point link: PPP 2 + IPv4 20 + TCP 20, plus
// the timestamp option's 12 when it is on (SACK blocks ride on ACKs only). The MSS is what
// a 1500-byte MTU leaves, so a full segment is 1502 bytes on the wire either way.
uint32_t
HeaderBytes(bool timestamps)
{
    return timestamps ? 54 : 42;
}

uint32_t
Mss(bool timestamps)
{
    return timestamps ? 1448 : 1460;
}

struct WireCount
{
    uint64_t dataWireBytes = 0; //!< whole packets carrying job payload, headers included
    uint64_t payloadBytes = 0;
    uint64_t segments = 0;
    uint32_t largestPayload = 0; //!< bytes of the largest segment's payload
    uint64_t ackWireBytes = 0;   //!< pure ACKs of the job's connections
};

// Classifies a packet leaving a host NIC by its TCP ports: the ring listens on 45000 and
// connects from 40000+k (TcpRingTransport defaults).
void
CountPacket(WireCount* c, ns3::Ptr<const ns3::Packet> packet)
{
    ns3::Ptr<ns3::Packet> p = packet->Copy();
    ns3::PppHeader ppp;
    ns3::Ipv4Header ip;
    ns3::TcpHeader tcp;
    p->RemoveHeader(ppp);
    p->RemoveHeader(ip);
    if (ip.GetProtocol() != 6)
    {
        return;
    }
    p->RemoveHeader(tcp);
    bool toRing = tcp.GetDestinationPort() == 45000;
    bool fromRing = tcp.GetSourcePort() == 45000;
    if (!toRing && !fromRing)
    {
        return;
    }
    if (toRing && p->GetSize() > 0)
    {
        c->dataWireBytes += packet->GetSize();
        c->payloadBytes += p->GetSize();
        ++c->segments;
        c->largestPayload = std::max(c->largestPayload, p->GetSize());
    }
    else if (fromRing && p->GetSize() == 0)
    {
        c->ackWireBytes += packet->GetSize();
    }
}

json
IdleJob(const std::string& configuration, uint64_t parameters, double computeS, uint32_t iterations)
{
    return { { "topology", { { "configuration", configuration } } },
             { "job",
               { { "model", "probe" }, { "iterations", iterations }, { "warmup_iterations", 0 } } },
             { "models",
               { { "probe", { { "parameters", parameters }, { "compute_s", computeS } } } } },
             { "simulation", { { "progress_interval_s", 0 } } } };
}

void
CheckWireBytes(const std::string& configuration, uint32_t workers, bool timestamps = true)
{
    const uint64_t parameters = 3000000; // 12 MB of fp32 gradients
    const uint32_t iterations = 2;
    json job = IdleJob(configuration, parameters, 0.002, iterations);
    job["tcp"]["timestamps"] = timestamps;
    Scenario s = test::Resolve(job);
    const uint32_t headerBytes = HeaderBytes(timestamps);
    const uint32_t mss = Mss(timestamps);
    WireCount count;
    RunOptions options;
    options.beforeRun = [&](const SimulationHandles& h)
    {
        for (uint32_t host : h.topology->jobHosts)
        {
            h.topology->hostDevices.Get(host)->TraceConnectWithoutContext(
                "PhyTxBegin", ns3::MakeBoundCallback(&CountPacket, &count));
        }
    };
    RunOutput out = RunScenario(s, options);
    ASSERT_EQ(ToJson(out.summary)["workers"], workers);

    // 2(N-1)/N x 4P per worker and iteration.
    const double perWorker = 2.0 * (workers - 1) / workers * 4.0 * parameters;
    const double expectedPayload = perWorker * workers * iterations;
    const double segments = std::ceil(perWorker / mss) * workers * iterations;
    const double expectedWire = expectedPayload + segments * headerBytes;
    std::cout << "[measure] configuration " << configuration << ", N=" << workers << ": payload "
              << count.payloadBytes << " B (expected " << expectedPayload << "), data on the wire "
              << count.dataWireBytes << " B (expected " << expectedWire << ", headers "
              << headerBytes << " B per " << mss << " B segment), ACKs " << count.ackWireBytes
              << " B\n";
    EXPECT_NEAR(count.payloadBytes / expectedPayload, 1.0, 0.01);
    EXPECT_NEAR(count.dataWireBytes / expectedWire, 1.0, 0.01);
    // Exact per segment (the 1 % above cannot tell 42 from 54 header bytes).
    EXPECT_EQ(count.dataWireBytes - count.payloadBytes, count.segments * headerBytes);
    EXPECT_EQ(count.largestPayload, mss);
}

void
CheckAllReduceTime(const std::string& configuration, uint32_t workers)
{
    const uint64_t parameters = 25000000; // a 100 MB buffer
    // The network's own efficiency: without the hosts' fitted TCP ceiling (14.8 Gbps).
    json job = IdleJob(configuration, parameters, 0.0, 1);
    job["job"]["tcp"]["host_ceiling_gbps"] = 0;
    Scenario s = test::Resolve(job);
    RunOutput out = RunScenario(s);
    ASSERT_EQ(out.rows.size(), workers);
    double slowest = 0;
    for (const auto& r : out.rows)
    {
        slowest = std::max(slowest, r.DurationS());
    }
    // Line-rate bound on payload; TCP/IP headers alone add 54/1448 = 3.7%, connection
    // set-up and slow start a little more.
    const double bound = 2.0 * (workers - 1) / workers * 100e6 * 8 / 25e9;
    std::cout << "[measure] 100 MB all-reduce, N=" << workers << ": " << slowest * 1e3
              << " ms vs line-rate bound " << bound * 1e3 << " ms (ratio " << slowest / bound
              << ", efficiency " << bound / slowest << ")\n";
    EXPECT_GE(slowest / bound, 1.0);
    EXPECT_LE(slowest / bound, 1.15);
}

} // namespace

TEST(AllReduceSimulation, WireBytesPerIterationFourWorkers)
{
    CheckWireBytes("A", 4);
}

TEST(AllReduceSimulation, WireBytesPerIterationThreeWorkers)
{
    CheckWireBytes("B", 3);
}

// tcp.timestamps = false (a speed option): no option bytes, a 12-byte larger MSS.
TEST(AllReduceSimulation, WireBytesPerIterationWithoutTimestamps)
{
    CheckWireBytes("A", 4, false);
}

TEST(AllReduceSimulation, HundredMegabytesNearLineRateFourWorkers)
{
    CheckAllReduceTime("A", 4);
}

TEST(AllReduceSimulation, HundredMegabytesNearLineRateThreeWorkers)
{
    CheckAllReduceTime("B", 3);
}
