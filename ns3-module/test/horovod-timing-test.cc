// Horovod's timing and NCCL's ring on an idle rack: fusion counts, overlap of communication
// with the backward pass, slices and channels. Small hand-made models keep every expected
// figure computable by hand.
#include "ns3/core-module.h"
#include "ns3/horovod-coordinator.h"
#include "ns3/model-profile.h"
#include "ns3/nccl-all-reduce.h"
#include "ns3/network-module.h"
#include "ns3/rdma-nic.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/star-topology-helper.h"
#include "ns3/training-job-helper.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace ns3;

namespace
{

// Forward order; released last layer first: 4 MB, 2 MB, 1 MB, then 4 KB at the very end.
ModelProfile
FourLayerModel()
{
    ModelProfile p;
    p.name = "four-layer";
    p.layers = { { 1000, 10.0 }, { 250000, 5.0 }, { 500000, 3.0 }, { 1000000, 1.0 } };
    for (const auto& l : p.layers)
    {
        p.parameters += l.parameters;
    }
    p.forwardSeconds = 0.010;
    p.backwardSeconds = 0.020;
    p.stepSeconds = 0.001;
    return p;
}

StarTopology
Rack(double gbps, Time delay)
{
    StarTopologyConfig c;
    c.configuration = 'A';
    c.rdmaNic = true;
    c.switchQueue.discipline = "ecn";
    c.linkRate = DataRate(static_cast<uint64_t>(gbps * 1e9));
    c.linkDelay = delay;
    StarTopology t = StarTopologyHelper(c).Install();
    t.AssignStreams(1); // marking draws independent of the tests before
    return t;
}

struct JobResult
{
    double meanIterationS = 0;
    double meanWaitS = 0;
    double allReducesPerIteration = 0;
};

JobResult
RunJob(const ModelProfile& model, double gbps, Time delay, Time cycle, uint64_t threshold,
       uint32_t iterations = 3)
{
    StarTopology t = Rack(gbps, delay);
    TrainingJobHelper h;
    h.SetModel(model);
    h.SetIterations(iterations);
    h.SetTransport("ns3::RdmaRingTransport");
    h.SetCoordinatorAttribute("CycleTime", TimeValue(cycle));
    h.SetCoordinatorAttribute("FusionThresholdBytes", UintegerValue(threshold));
    NodeContainer nodes;
    for (uint32_t i = 0; i < 4; ++i)
    {
        nodes.Add(t.hosts.Get(i));
    }
    TrainingJob job = h.Install(nodes, t.hostAddresses);
    Simulator::Stop(Seconds(10));
    Simulator::Run();
    JobResult r;
    uint32_t n = 0;
    for (const auto& rec : job.recorder->GetRecords())
    {
        if (rec.iteration == 0)
        {
            continue; // warm-up: the Horovod loop's phase is arbitrary at the start
        }
        r.meanIterationS += (rec.end - rec.start).GetSeconds();
        r.meanWaitS += rec.Waiting().GetSeconds();
        ++n;
    }
    EXPECT_EQ(n, 4 * (iterations - 1)) << "every worker finishes its iterations";
    r.meanIterationS /= std::max(1u, n);
    r.meanWaitS /= std::max(1u, n);
    r.allReducesPerIteration = DynamicCast<TrainingWorker>(job.workers.Get(0))->GetAllReducesDone()
                               / static_cast<double>(iterations);
    Simulator::Destroy();
    return r;
}

} // namespace

TEST(HorovodFusion, VggFusesByTheThresholdAsItsLayerSizesDictate)
{
    // VGG-16 in release order: fc8 16,387,600 B, fc7 67,125,248 B, fc6 411,058,176 B, then
    // the 13 convolutions, 58,858,752 B together.
    std::vector<uint64_t> bytes = ModelProfile::BuiltIn("vgg16")->ReleaseBytes();
    ASSERT_EQ(bytes.size(), 16u);
    EXPECT_EQ(bytes[0], 16387600u);
    EXPECT_EQ(bytes[1], 67125248u);
    EXPECT_EQ(bytes[2], 411058176u);
    // 128 MiB: {fc8 + fc7 = 83.5 MB}, {fc6, alone above the threshold}, {convolutions}.
    EXPECT_EQ(HorovodCoordinator::Fuse(bytes, 134217728).size(), 3u);
    // 64 MiB: fc7 (67,125,248 B) no longer fits with fc8 and exceeds 64 MiB alone: 4.
    EXPECT_EQ(HorovodCoordinator::Fuse(bytes, 67108864).size(), 4u);
    // 1 byte: every tensor alone.
    EXPECT_EQ(HorovodCoordinator::Fuse(bytes, 1).size(), 16u);
}

TEST(HorovodFusion, SmallerThresholdGivesMoreAllReducesPerIteration)
{
    // A 100 ms cycle ends after the whole 30 ms forward + backward: every tensor is ready in
    // one cycle, so the calls per iteration are exactly the fusion of the four tensors:
    // 64 MB: one buffer; 3,000,000 B: {4 MB alone}, {2 MB + 1 MB = 3,000,000}, {4 KB}; 1 B: 4.
    const ModelProfile m = FourLayerModel();
    std::vector<std::pair<uint64_t, double>> cases{ { 64000000, 1 }, { 3000000, 3 }, { 1, 4 } };
    for (const auto& [threshold, expected] : cases)
    {
        JobResult r = RunJob(m, 25, MicroSeconds(1), MilliSeconds(100), threshold);
        std::cout << "[measure] fusion threshold " << threshold
                  << " B: " << r.allReducesPerIteration << " all-reduces per iteration\n";
        EXPECT_DOUBLE_EQ(r.allReducesPerIteration, expected) << "threshold " << threshold;
    }
    // With Horovod's 1 ms cycle the tensors become ready in different cycles: one call each.
    JobResult r = RunJob(m, 25, MicroSeconds(1), MilliSeconds(1), 64000000);
    EXPECT_DOUBLE_EQ(r.allReducesPerIteration, 4);
}

TEST(HorovodOverlap, FullyHiddenCommunicationCostsNothingAndASlowLinkShows)
{
    const ModelProfile m = FourLayerModel();
    const double compute = m.ComputeSeconds(); // 31 ms
    // 100 Gbps, no propagation delay, 10 us cycles: every all-reduce but the last (4 KB)
    // finishes inside the backward pass, the last takes microseconds.
    JobResult fast = RunJob(m, 100, Seconds(0), MicroSeconds(10), 64000000);
    // 1 Gbps: the ring's 7 MB x 1.5 take about 84 ms, far beyond the 20 ms backward pass.
    JobResult slow = RunJob(m, 1, Seconds(0), MicroSeconds(10), 64000000);
    std::cout << "[measure] forward + backward + step " << compute * 1e3
              << " ms; 100 Gbps: " << fast.meanIterationS * 1e3 << " ms (waiting "
              << fast.meanWaitS * 1e6 << " us); 1 Gbps: " << slow.meanIterationS * 1e3
              << " ms (waiting " << slow.meanWaitS * 1e3 << " ms)\n";
    EXPECT_NEAR(fast.meanIterationS, compute, 0.002 * compute);
    EXPECT_LT(fast.meanWaitS, 50e-6);
    const double ringS = 7001000.0 * 4 / 4 * 1.5 * 8 / 1e9; // parameters x 4 B, x 2(N-1)/N
    EXPECT_GT(slow.meanIterationS, compute + 0.5 * (ringS - m.backwardSeconds));
    EXPECT_GT(slow.meanWaitS, 0.040);
}

namespace
{

struct Completions
{
    uint32_t count = 0;
    Time last;
    void Hit()
    {
        ++count;
        last = Simulator::Now();
    }
};

/** Time of one all-reduce of `bytes` on an idle 4-host rack (configuration A) over RDMA. */
double
AllReduceSeconds(uint64_t bytes, uint64_t sliceBytes, uint32_t channels)
{
    StarTopology t = Rack(25, MicroSeconds(1));
    std::vector<Ptr<NcclAllReduce>> ranks;
    Completions done;
    for (uint32_t r = 0; r < 4; ++r)
    {
        std::vector<Ptr<RingTransport>> ch;
        for (uint32_t c = 0; c < channels; ++c)
        {
            auto q
                = CreateObjectWithAttributes<RdmaRingTransport>("QueuePair", UintegerValue(c + 1));
            q->SetNode(t.hosts.Get(r));
            q->SetNextAddress(t.hostAddresses[(r + 1) % 4]);
            q->SetPreviousAddress(t.hostAddresses[(r + 3) % 4]);
            q->Start();
            ch.push_back(q);
        }
        Ptr<NcclAllReduce> a = CreateObject<NcclAllReduce>();
        RingPacing pipelined; // the slices of this test, without NCCL's loops and FIFOs
        pipelined.flowControl = false;
        pipelined.sliceBytes = sliceBytes;
        a->Setup(ch, r, 4, pipelined);
        ranks.push_back(a);
    }
    for (auto& a : ranks)
    {
        a->Start(bytes, MakeCallback(&Completions::Hit, &done));
    }
    Simulator::Run();
    Simulator::Destroy();
    EXPECT_EQ(done.count, 4u);
    return done.last.GetSeconds();
}

} // namespace

TEST(NcclRing, SlicesAndChannelsChangeOneAllReduceAsExpected)
{
    // 96 KiB over 4 ranks: chunks of 24 packets of 1024 B, 1070 B on the wire each.
    // C = 25 Gb/s; a chunk takes c = 24 x 1070 x 8 / C = 8.22 us; one packet's transit after
    // it leaves the sender is L = 2 x 1 us propagation + 1070 x 8 / C at the ToR = 2.34 us.
    // Whole steps: each of the 2(N-1) = 6 steps waits for the previous one: T = 6 (c + L).
    // Slices of 4 KiB: a slice moves on as soon as it arrived (S/C + L < c), the link never
    // idles: T = 6 c + L. Two channels share every link, each with half of every chunk:
    // the same T as one channel.
    const double c = 24 * 1070 * 8 / 25e9;
    const double l = 2e-6 + 1070 * 8 / 25e9;
    const double whole = AllReduceSeconds(98304, 0, 1);
    const double sliced = AllReduceSeconds(98304, 4096, 1);
    const double twoChannels = AllReduceSeconds(98304, 4096, 2);
    std::cout << "[measure] one 96 KiB all-reduce, 4 ranks: whole steps " << whole * 1e6
              << " us (expected " << 6 * (c + l) * 1e6 << "), 4 KiB slices " << sliced * 1e6
              << " us (expected " << (6 * c + l) * 1e6 << "), 2 channels " << twoChannels * 1e6
              << " us\n";
    EXPECT_NEAR(whole, 6 * (c + l), 0.03 * 6 * (c + l));
    EXPECT_NEAR(sliced, 6 * c + l, 0.03 * (6 * c + l));
    EXPECT_LT(sliced, 0.85 * whole);
    EXPECT_NEAR(twoChannels, sliced, 0.05 * sliced);
}
