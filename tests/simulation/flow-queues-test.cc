// The flow engine's standing queues (simulation.flow_queues) against the evidence that called
// for them: web-search beside an RDMA job in configuration B, where the packet level's port
// towards S0 holds a deep queue that unmarked RoCE keeps filling. The packet level's runs are
// the shipped validation's (results/validation/points: same scenario and seed); each point is
// re-run here at flow level with and without the queues.
#include "run-scenario.h"
#include "tcp-csv-checks.h"
#include "test-support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;
using nlohmann::json;
using namespace flumen;

namespace
{

const std::string kPoints = FLUMEN_SOURCE_DIR "/results/validation/points/";

// The shipped packet-level run of a planned point, as a folder in `dir` ("" when not shipped).
std::string
PacketRun(const std::string& prefix, const test::TempDir& dir)
{
    return test::StoredRunFolder(kPoints, prefix, dir);
}

struct Figures
{
    double mean = 0;
    double cross = 0;
};

Figures
Read(const std::string& summary)
{
    json s = json::parse(test::ReadFile(summary));
    return { s["iteration_time_s"]["mean"], s["cross_traffic"]["achieved_gbps"] };
}

} // namespace

TEST(FlowQueues, RoceBesideWebSearchAgreesWithThePacketLevelWhereMaxMinDidNot)
{
    test::TempDir dir;
    for (const std::string point : { "websearch-rdma-configB-resnet50-19.171G-s2-",
                                     "websearch-rdma-configB-densenet161-21.919G-s2-",
                                     "websearch-rdma-configB-vgg16-19.663G-s2-" })
    {
        const std::string packet = PacketRun(point, dir);
        ASSERT_FALSE(packet.empty()) << "no shipped packet run " << point << "* in " << kPoints;
        const Figures ref = Read(packet + "/summary.json");
        Figures flow[2];
        for (int queues = 0; queues < 2; ++queues)
        {
            const std::string out = dir.Path() + "/" + point + std::to_string(queues);
            auto r = test::RunFlumen(packet + "/scenario.json" + test::kRingBeforeFlowControl
                                     + " --quiet --set simulation.engine=flow"
                                     + " --set simulation.flow_queues="
                                     + (queues ? "true" : "false") + " --out " + out);
            ASSERT_EQ(r.exitCode, 0) << r.output;
            flow[queues] = Read(out + "/summary.json");
        }
        auto error = [&](double v, double p) { return std::abs(v / p - 1); };
        std::cout << "[measure] " << point << " mean packet " << ref.mean << " s, flow "
                  << flow[1].mean << " with queues, " << flow[0].mean << " without; web-search "
                  << ref.cross << " / " << flow[1].cross << " / " << flow[0].cross << " Gbps\n";
        // Closer to the packet level with the queues than without, and within 15 %.
        EXPECT_LT(error(flow[1].mean, ref.mean), error(flow[0].mean, ref.mean)) << point;
        EXPECT_LT(error(flow[1].mean, ref.mean), 0.15) << point;
        EXPECT_LT(error(flow[1].cross, ref.cross), 0.1) << point;
    }
}

TEST(FlowQueues, TheSendersBufferReportsTheEnginesLossesWhereThePacketLevelDrops)
{
    // VGG-16 beside 19.7 Gbps of web-search: the packet level drops at S2's NIC (its slow-start
    // flows overrun the 8 MB buffer); the flow engine's overflows there cut windows, which
    // summary.json reports on that port alone. Without standing queues there is no host buffer.
    test::TempDir dir;
    const std::string packet = PacketRun("websearch-rdma-configB-vgg16-19.663G-s2-", dir);
    ASSERT_FALSE(packet.empty()) << "no shipped packet run in " << kPoints;
    auto port = [](const json& summary, const std::string& name)
    {
        for (const auto& p : summary["ports"])
        {
            if (p["port"] == name)
            {
                return p;
            }
        }
        return json();
    };
    const json ref = json::parse(test::ReadFile(packet + "/summary.json"));
    EXPECT_GT(port(ref, "S2 NIC egress")["drops"].get<uint64_t>(), 0u);
    for (const bool queues : { true, false })
    {
        const std::string out = dir.Path() + (queues ? "/queues" : "/max-min");
        // link.csv at the NIC: its buffer's occupancy in the queue columns.
        auto r
            = test::RunFlumen(packet + "/scenario.json" + test::kRingBeforeFlowControl
                              + " --set simulation.engine=flow" + " --set simulation.flow_queues="
                              + (queues ? "true" : "false") + " --set outputs.link_bin_us=1000"
                              + " --set 'outputs.link_port=S2 NIC egress' --out " + out);
        ASSERT_EQ(r.exitCode, 0) << r.output;
        const json s = json::parse(test::ReadFile(out + "/summary.json"));
        const json nic = port(s, "S2 NIC egress");
        ASSERT_FALSE(nic.is_null()) << s["ports"].dump();
        for (const auto& p : s["ports"])
        {
            if (p["port"] != "S2 NIC egress")
            {
                EXPECT_FALSE(p.contains("host_buffer")) << p.dump();
            }
        }
        if (!queues)
        {
            EXPECT_FALSE(nic.contains("host_buffer")) << nic.dump();
            EXPECT_EQ(r.output.find("host buffer"), std::string::npos) << r.output;
            continue;
        }
        ASSERT_TRUE(nic.contains("host_buffer")) << nic.dump();
        const uint64_t overflows = nic["host_buffer"]["overflows"];
        const uint64_t cut = nic["host_buffer"]["windows_cut"];
        std::cout << "[measure] S2 NIC: packet level " << port(ref, "S2 NIC egress")["drops"]
                  << " drops; flow engine " << overflows << " overflows cutting " << cut
                  << " windows\n";
        EXPECT_GE(overflows, 1u);
        EXPECT_GE(cut, overflows); // each overflow cuts at least the flow that overran it
        EXPECT_EQ(nic["drops"], 0);
        // Its occupancy: full at an overflow, never beyond the buffer, in summary.json and in
        // link.csv's bins.
        const double buffer = s["scenario"]["topology"]["host_queue"]["buffer_bytes"];
        EXPECT_NEAR(nic["max_queue_bytes"].get<double>(), buffer, 1);
        EXPECT_GT(nic["mean_queue_bytes"].get<double>(), 0);
        EXPECT_LT(nic["mean_queue_bytes"].get<double>(), buffer);
        // Over the measurement window link.csv's 1 ms bins average what summary.json reports.
        const double from = s["measurement_window_s"][0];
        const double to = s["measurement_window_s"][1];
        double binMax = 0;
        double windowSum = 0;
        int windowBins = 0;
        std::istringstream link(test::ReadFile(out + "/link.csv"));
        std::string line;
        std::getline(link, line); // header
        while (std::getline(link, line))
        {
            // time_s,job_bytes,cross_bytes,job_gbps,cross_gbps,queue_mean_bytes,queue_max_bytes,
            std::vector<double> f;
            std::istringstream row(line);
            for (std::string field; f.size() < 7 && std::getline(row, field, ',');)
            {
                f.push_back(std::stod(field));
            }
            binMax = std::max(binMax, f[6]);
            if (f[0] >= from - 1e-9 && f[0] + 1e-3 <= to + 1e-9)
            {
                windowSum += f[5];
                ++windowBins;
            }
        }
        ASSERT_GT(windowBins, 100);
        EXPECT_NEAR(windowSum / windowBins, nic["mean_queue_bytes"].get<double>(),
                    0.01 * nic["mean_queue_bytes"].get<double>());
        EXPECT_LE(binMax, buffer + 1);
        EXPECT_GT(binMax, 0.9 * buffer);
        EXPECT_NE(r.output.find(fmt::format("host buffer      S2 NIC egress: {} overflows cut {} "
                                            "windows",
                                            overflows, cut)),
                  std::string::npos)
            << r.output;
    }
}

TEST(FlowQueues, LinkCsvFollowsTheNamedPortAtFlowLevelToo)
{
    // Naming the bottleneck gives the default link.csv; naming the sender's NIC another.
    test::TempDir dir;
    const std::string packet = PacketRun("websearch-rdma-configB-vgg16-19.663G-s2-", dir);
    ASSERT_FALSE(packet.empty()) << "no shipped packet run in " << kPoints;
    json user = json::parse(test::ReadFile(packet + "/scenario.json"));
    user["simulation"]["engine"] = "flow";
    user["outputs"]["link_bin_us"] = 1000;
    const RunOutput bottleneck = RunScenario(test::Resolve(user));
    user["outputs"]["link_port"] = bottleneck.summary.bottleneck.port;
    const RunOutput named = RunScenario(test::Resolve(user));
    user["outputs"]["link_port"] = "S2 NIC egress";
    const RunOutput nic = RunScenario(test::Resolve(user));
    ASSERT_GT(bottleneck.link.size(), 1000u);
    ASSERT_EQ(named.link.size(), bottleneck.link.size());
    ASSERT_EQ(nic.link.size(), bottleneck.link.size());
    uint64_t job[3] = { 0, 0, 0 };
    for (size_t i = 0; i < bottleneck.link.size(); ++i)
    {
        EXPECT_EQ(named.link[i].crossBytes, bottleneck.link[i].crossBytes) << "bin " << i;
        EXPECT_EQ(named.link[i].queueMaxBytes, bottleneck.link[i].queueMaxBytes) << "bin " << i;
        job[0] += bottleneck.link[i].jobBytes;
        job[1] += named.link[i].jobBytes;
        job[2] += nic.link[i].jobBytes;
    }
    // The ring's RoCE crosses the ToR's port towards S0, not S2's NIC (S2 runs no job).
    EXPECT_GT(job[0], 0u);
    EXPECT_EQ(job[1], job[0]);
    EXPECT_EQ(job[2], 0u);
}

TEST(FlowQueues, TcpCsvFollowsTheEnginesWindowFlows)
{
    // The same VGG-16 point at flow level with tcp.csv: a row per flow of flows.csv, from its
    // window flow's record; its slow start ends by HyStart (from the low window on) or at a
    // host buffer's overflow, whose cuts are its recoveries. The engine has no timeouts.
    test::TempDir dir;
    const std::string packet = PacketRun("websearch-rdma-configB-vgg16-19.663G-s2-", dir);
    ASSERT_FALSE(packet.empty()) << "no shipped packet run in " << kPoints;
    json user = json::parse(test::ReadFile(packet + "/scenario.json"));
    user["simulation"]["engine"] = "flow";
    user["outputs"]["tcp_csv"] = true;
    const Scenario scenario = test::Resolve(user);
    const RunOutput out = RunScenario(scenario);
    ASSERT_TRUE(out.tcpFlows.has_value());
    const std::vector<TcpFlowRow>& tcp = *out.tcpFlows;
    test::ExpectRowsFollowFlows(tcp, out.flows);
    ASSERT_GT(tcp.size(), 1000u);
    const double low = test::HyStartLowWindowBytes(scenario);
    uint64_t recoveries = 0;
    size_t hystart = 0;
    size_t loss = 0;
    for (size_t i = 0; i < tcp.size(); ++i)
    {
        const TcpFlowRow& t = tcp[i];
        SCOPED_TRACE("flow " + std::to_string(t.id));
        EXPECT_EQ(t.timeouts, 0u);
        recoveries += t.recoveries;
        if (t.slowStartEndS < 0)
        {
            EXPECT_EQ(t.slowStartEndCause, "");
            continue;
        }
        EXPECT_GT(t.slowStartEndS, t.startS);
        EXPECT_LE(t.slowStartEndCwndBytes, t.maxCwndBytes + 1);
        EXPECT_LE(t.minSrttS, t.maxSrttS);
        if (t.slowStartEndCause == "hystart")
        {
            ++hystart;
            EXPECT_GE(t.slowStartEndCwndBytes + 1, low);
        }
        else
        {
            ++loss;
            EXPECT_EQ(t.slowStartEndCause, "loss");
            EXPECT_GE(t.recoveries, 1u); // the overflow that ended it cut it
        }
    }
    std::cout << "[measure] VGG-16 beside 19.7 Gbps at flow level: " << tcp.size() << " flows, "
              << hystart << " left slow start by HyStart, " << loss << " at an overflow; "
              << recoveries << " windows cut\n";
    EXPECT_GT(hystart, 0u);
    EXPECT_GT(loss, 0u);
    // Every flow whose window flow started has its record, those still open at the end too
    // (taken from the network then): its first window, its round trips behind the queue.
    const double first = scenario.mtuBytes - TcpIpHeaderBytes(scenario.tcpTimestamps);
    size_t openRecorded = 0;
    size_t unstarted = 0;
    for (size_t i = 0; i < tcp.size(); ++i)
    {
        const TcpFlowRow& t = tcp[i];
        if (t.maxCwndBytes == 0)
        {
            ++unstarted; // still in its handshake at the end
            continue;
        }
        EXPECT_GE(t.maxCwndBytes + 1, 10 * first) << "flow " << t.id;
        EXPECT_GT(t.minSrttS, 0) << "flow " << t.id;
        EXPECT_GE(t.maxSrttS, t.minSrttS) << "flow " << t.id;
        openRecorded += out.flows[i].endS < 0 ? 1 : 0;
    }
    EXPECT_GT(openRecorded, 0u);
    EXPECT_LT(unstarted, 10u);
    // The overflows over the measurement window cut no more windows than the whole run's.
    const PortSummary* nic = nullptr;
    for (const auto& p : out.summary.ports)
    {
        nic = p.port == "S2 NIC egress" ? &p : nic;
    }
    ASSERT_TRUE(nic && nic->hostBuffer);
    EXPECT_GE(recoveries, nic->hostBuffer->windowsCut);
    EXPECT_GT(nic->hostBuffer->windowsCut, 0u);
    test::ExpectTheSameFlowsWithoutTcpCsv(user, out);
}
