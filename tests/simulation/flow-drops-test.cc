// The flow engine's drops at switch ports (docs/flow-engine.md, "Drops at switch ports") against
// the evidence that called for them: a ResNet-50 RoCE ring beside iperf into S0 on the default
// 4 MB FIFO buffer (examples/switch-drops), where the packet level drops at the port, iperf's
// TCP backs off and times out, and the ring keeps its idle pace. Without drops the engine's
// queue grew to 42 MB at 20 Gbps and the ring took twice as long. The packet runs are the
// shipped ones (results/flow-engine/switch-drops); each is re-run here at flow level. Beside
// web-search (results/flow-engine/switch-drops-websearch) the engine departs where the buffer
// fills (RoCE's go-back-N is not modelled), and its runs must say so.
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>

using nlohmann::json;

namespace
{

const std::string kRuns = FLUMEN_SOURCE_DIR "/results/flow-engine/switch-drops/";
const std::string kWebSearchRuns = FLUMEN_SOURCE_DIR "/results/flow-engine/switch-drops-websearch/";

/** The shipped packet runs' folders of a comparison, by cross-traffic load and seed. */
std::map<std::pair<std::string, std::string>, std::string>
PacketRuns(const std::string& runs)
{
    std::map<std::pair<std::string, std::string>, std::string> folders;
    for (const auto& row : flumen::test::ReadCsvRows(runs + "results.csv"))
    {
        if (row.at("simulation.engine") == "packet")
        {
            folders[{ row.at("cross_traffic.load_gbps"), row.at("seed") }]
                = runs + "points/" + row.at("point");
        }
    }
    return folders;
}

/** The shipped packet run's folder at this iperf load and seed ("" when there is none). */
std::string
PacketRun(const std::string& load, const std::string& seed)
{
    const auto runs = PacketRuns(kRuns);
    auto it = runs.find({ load, seed });
    return it == runs.end() ? "" : it->second;
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
        auto r = flumen::test::RunFlumen(packet + "/scenario.json --set simulation.engine=flow"
                                         + flumen::test::kRingBeforeFlowControl + " --out " + out);
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

TEST(FlowDrops, BesideWebSearchEveryRunThatDepartsSaysItIsOutOfItsDomain)
{
    flumen::test::TempDir dir;
    const auto runs = PacketRuns(kWebSearchRuns);
    ASSERT_EQ(runs.size(), 8u) << "4 web-search loads x 2 seeds shipped";
    int departing = 0;
    int inDomain = 0;
    for (const auto& [point, packet] : runs)
    {
        const json ref = Summary(packet);
        const std::string out = dir.Path() + "/flow" + point.first + "-" + point.second;
        auto r = flumen::test::RunFlumen(packet + "/scenario.json --set simulation.engine=flow"
                                         + flumen::test::kRingBeforeFlowControl + " --out " + out);
        ASSERT_EQ(r.exitCode, 0) << r.output;
        const json flow = Summary(out);
        const double ringDiff = flow["iteration_time_s"]["mean"].get<double>()
                                    / ref["iteration_time_s"]["mean"].get<double>()
                                - 1;
        const double crossDiff = flow["cross_traffic"]["achieved_gbps"].get<double>()
                                     / ref["cross_traffic"]["achieved_gbps"].get<double>()
                                 - 1;
        const bool flagged
            = flow.contains("engine_domain")
              && flow["engine_domain"].get<std::string>().find("buffer_bytes") != std::string::npos;
        std::cout << "[measure] web-search " << point.first << " Gbps seed " << point.second
                  << ": ring " << 100 * ringDiff << " %, web-search " << 100 * crossDiff
                  << " % against the packet level; " << (flagged ? "out of domain" : "in domain")
                  << "\n";
        // Beyond the targets (3 % on the ring, 3 % on the cross traffic's rate, with room for two
        // iterations' noise), the run must flag itself, so that engine auto re-runs it.
        const bool departs = std::abs(ringDiff) > 0.05 || std::abs(crossDiff) > 0.10;
        departing += departs ? 1 : 0;
        inDomain += flagged ? 0 : 1;
        EXPECT_TRUE(flagged || !departs)
            << "web-search " << point.first << " Gbps seed " << point.second
            << " departs from the packet level unflagged";
    }
    // The comparison has departures to catch (the shipped table: 6 runs from 10 Gbps on), and
    // runs the engine keeps, which must agree (at 5 Gbps its queue stays below the buffer).
    EXPECT_GE(departing, 4);
    EXPECT_GE(inDomain, 1);
}
