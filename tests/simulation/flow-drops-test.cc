// The flow engine's drops at switch ports (docs/flow-engine.md, "Drops at switch ports") against
// the evidence that called for them: a ResNet-50 RoCE ring beside iperf into S0 on the default
// 4 MB FIFO buffer (examples/switch-drops), where the packet level drops at the port, iperf's
// TCP backs off and times out, and the ring keeps its idle pace. Without drops the engine's
// queue grew to 42 MB at 20 Gbps and the ring took twice as long. The packet runs are the
// shipped ones (results/flow-engine/switch-drops); each is re-run here at flow level.
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <iostream>

using nlohmann::json;

namespace
{

const std::string kRuns = FLUMEN_SOURCE_DIR "/results/flow-engine/switch-drops/";

/** The shipped packet run's folder at this iperf load and seed ("" when there is none). */
std::string
PacketRun(const std::string& load, const std::string& seed)
{
    for (const auto& row : flumen::test::ReadCsvRows(kRuns + "results.csv"))
    {
        if (row.at("cross_traffic.load_gbps") == load && row.at("seed") == seed
            && row.at("simulation.engine") == "packet")
        {
            return kRuns + "points/" + row.at("point");
        }
    }
    return "";
}

json
Summary(const std::string& folder)
{
    return json::parse(flumen::test::ReadFile(folder + "/summary.json"));
}

} // namespace

TEST(FlowDrops, AFullSwitchBufferDropsAndTheRingKeepsItsPaceAsAtPacketLevel)
{
    flumen::test::TempDir dir;
    for (const char* load : { "10", "20" })
    {
        const std::string packet = PacketRun(load, "1");
        ASSERT_FALSE(packet.empty()) << "no shipped packet run at " << load << " Gbps";
        const json ref = Summary(packet);
        const std::string out = dir.Path() + "/flow" + load;
        auto r = flumen::test::RunFlumen(
            packet + "/scenario.json --set simulation.engine=flow --out " + out);
        ASSERT_EQ(r.exitCode, 0) << r.output;
        const json flow = Summary(out);
        const json& port = flow["bottleneck"];
        std::cout << "[measure] iperf " << load << " Gbps: mean "
                  << flow["iteration_time_s"]["mean"] << " s (packet "
                  << ref["iteration_time_s"]["mean"] << "), iperf "
                  << flow["cross_traffic"]["achieved_gbps"] << " Gbps (packet "
                  << ref["cross_traffic"]["achieved_gbps"] << "), queue max "
                  << port["max_queue_bytes"] << " B, " << port["switch_buffer"] << "\n";
        // The queue stays within the buffer, which fills and cuts windows (both engines drop).
        ASSERT_EQ(port["port"], "ToR port towards S0");
        EXPECT_LE(port["max_queue_bytes"].get<double>(), 4e6);
        EXPECT_GT(port["switch_buffer"]["overflows"].get<int>(), 0);
        EXPECT_GT(port["switch_buffer"]["windows_cut"].get<int>(), 0);
        EXPECT_GT(ref["bottleneck"]["drops"].get<int>(), 0);
        // The ring keeps its pace, as at packet level, and iperf gets less than it offers.
        EXPECT_NEAR(flow["iteration_time_s"]["mean"].get<double>(),
                    ref["iteration_time_s"]["mean"].get<double>(),
                    0.01 * ref["iteration_time_s"]["mean"].get<double>());
        EXPECT_LT(flow["cross_traffic"]["achieved_gbps"].get<double>(), 0.9 * std::stod(load));
        // The engine's drops are approximate: a flow run says it is out of its domain there.
        ASSERT_TRUE(flow.contains("engine_domain"));
        EXPECT_NE(flow["engine_domain"].get<std::string>().find("buffer_bytes"), std::string::npos);
    }
}
