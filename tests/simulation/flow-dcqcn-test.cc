// The flow engine's DCQCN (docs/flow-engine.md, "DCQCN where the switch marks") against the
// evidence that called for it: an RDMA ring beside web-search on a switch that marks (the
// default ecn discipline), where the packet level's queue pairs are cut by CNPs and the ring
// slows several-fold while max-min left it at line rate. The packet level's runs are the
// shipped comparison's (results/flow-engine/dcqcn, from examples/dcqcn/sweep.json); each is
// re-run here at flow level with DCQCN and, as before it, without the queues (max-min).
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

using nlohmann::json;
using namespace flumen;

namespace
{

const std::string kRuns = FLUMEN_SOURCE_DIR "/results/flow-engine/dcqcn/";

struct RingRun
{
    double mean = 0;
    double cnps = 0;
    double queueBytes = 0; //!< the bottleneck's mean queue
};

RingRun
ReadRun(const std::string& folder)
{
    json s = json::parse(test::ReadFile(folder + "/summary.json"));
    return { s["iteration_time_s"]["mean"], s["rdma"].is_object() ? double(s["rdma"]["cnps"]) : 0,
             s["bottleneck"]["mean_queue_bytes"] };
}

/** The shipped packet run of a sweep's point (its folder), or "" when there is none. */
std::string
PacketRun(const std::string& runs, const std::string& model, const std::string& load,
          const std::string& seed)
{
    for (const auto& row : test::ReadCsvRows(runs + "results.csv"))
    {
        if (row.at("job.model") == model && row.at("cross_traffic.load_gbps") == load
            && row.at("seed") == seed && row.at("simulation.engine") == "packet")
        {
            return runs + "points/" + row.at("point");
        }
    }
    return "";
}

/** The same scenario at flow level. */
RingRun
RunFlow(const std::string& packet, const std::string& out)
{
    auto r = test::RunFlumen(packet + "/scenario.json" + test::kRingBeforeFlowControl
                             + " --quiet --set simulation.engine=flow --out " + out);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    return ReadRun(out);
}

} // namespace

TEST(FlowDcqcn, TheRingWhereTheSwitchMarksSlowsAsAtPacketLevelWhereMaxMinLeftItAtLineRate)
{
    test::TempDir dir;
    int compared = 0;
    for (const auto& [model, load, seed] :
         { std::tuple{ "resnet50", "11", "1" }, std::tuple{ "densenet161", "11", "2" } })
    {
        const std::string packet = PacketRun(kRuns, model, load, seed);
        ASSERT_FALSE(packet.empty()) << "no shipped packet run of " << model << " at " << load;
        const RingRun ref = ReadRun(packet);
        RingRun flow[2];
        for (int dcqcn = 0; dcqcn < 2; ++dcqcn)
        {
            const std::string out = dir.Path() + "/" + model + std::to_string(dcqcn);
            auto r = test::RunFlumen(packet + "/scenario.json" + test::kRingBeforeFlowControl
                                     + " --quiet --set simulation.engine=flow"
                                     + " --set simulation.flow_queues=" + (dcqcn ? "true" : "false")
                                     + " --out " + out);
            ASSERT_EQ(r.exitCode, 0) << r.output;
            flow[dcqcn] = ReadRun(out);
        }
        const double maxMin = flow[0].mean / ref.mean - 1;
        const double withDcqcn = flow[1].mean / ref.mean - 1;
        std::cout << "[measure] " << model << " beside " << load << " Gbps seed " << seed
                  << ": packet " << ref.mean << " s (" << ref.cnps << " CNPs), flow "
                  << flow[1].mean << " s (" << flow[1].cnps << " CNPs), max-min " << flow[0].mean
                  << " s\n";
        // Max-min: the ring at line rate, most of the packet level's time missing.
        EXPECT_LT(maxMin, -0.6);
        EXPECT_EQ(flow[0].cnps, 0);
        // DCQCN: within the packet level's own spread between seeds at these loads (up to
        // 37 % on DenseNet-161), its CNPs within a factor of 1.5.
        EXPECT_LT(std::abs(withDcqcn), 0.3);
        EXPECT_GT(flow[1].cnps, ref.cnps / 1.5);
        EXPECT_LT(flow[1].cnps, ref.cnps * 1.5);
        ++compared;
    }
    EXPECT_EQ(compared, 2);
}

// DCTCP web-search answers the ramp's marks (FluidNetwork::Flow::AnswerMarks, the echo a round
// trip after the marks): against the shipped packet runs of examples/dcqcn/dctcp.json
// (results/flow-engine/dctcp), at the same points as above. Where the packet level's queue falls
// from CUBIC's to DCTCP's, the engine's falls too and lands within a factor of 1.5 of it; the
// ring's time stays within the packet level's spread over seeds at these loads (up to 59 %), and
// its queue pairs get the packet level's CNPs within 30 % (answered at once, 0.60 and 0.65 of
// them: the queue never rose as far up the ramp).
TEST(FlowDcqcn, DctcpWebSearchKeepsThePortsQueueAsAtPacketLevel)
{
    const std::string dctcpRuns = FLUMEN_SOURCE_DIR "/results/flow-engine/dctcp/";
    test::TempDir dir;
    int compared = 0;
    for (const auto& [model, load, seed] :
         { std::tuple{ "resnet50", "11", "1" }, std::tuple{ "densenet161", "11", "2" } })
    {
        const std::string dctcpPacket = PacketRun(dctcpRuns, model, load, seed);
        const std::string cubicPacket = PacketRun(kRuns, model, load, seed);
        ASSERT_FALSE(dctcpPacket.empty() || cubicPacket.empty())
            << "no shipped packet run of " << model << " at " << load;
        const RingRun packet[2] = { ReadRun(cubicPacket), ReadRun(dctcpPacket) };
        const RingRun flow[2] = { RunFlow(cubicPacket, dir.Path() + "/cubic" + model),
                                  RunFlow(dctcpPacket, dir.Path() + "/dctcp" + model) };
        std::cout << "[measure] " << model << " beside " << load << " Gbps seed " << seed
                  << ", mean queue CUBIC -> DCTCP: packet " << packet[0].queueBytes / 1e3 << " -> "
                  << packet[1].queueBytes / 1e3 << " KB, flow " << flow[0].queueBytes / 1e3
                  << " -> " << flow[1].queueBytes / 1e3 << " KB; DCTCP iteration packet "
                  << packet[1].mean << " s, flow " << flow[1].mean << " s; CNPs packet "
                  << packet[1].cnps << ", flow " << flow[1].cnps << "\n";
        EXPECT_LT(packet[1].queueBytes, 0.8 * packet[0].queueBytes);
        EXPECT_LT(flow[1].queueBytes, 0.8 * flow[0].queueBytes);
        EXPECT_GT(flow[1].queueBytes, packet[1].queueBytes / 1.5);
        EXPECT_LT(flow[1].queueBytes, packet[1].queueBytes * 1.5);
        EXPECT_LT(std::abs(flow[1].mean / packet[1].mean - 1), 0.3);
        EXPECT_GT(flow[1].cnps, packet[1].cnps * 0.7);
        EXPECT_LT(flow[1].cnps, packet[1].cnps * 1.3);
        ++compared;
    }
    EXPECT_EQ(compared, 2);
}
