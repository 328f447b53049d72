// flumen bench as CI can afford it: --quick (0.05 s simulated, one repeat) runs the anchor
// and every canonical scenario and writes figures that hang together. Speed itself is not
// asserted here (these machines are noisy); the figures are the bench's job.
#include "scale-bench.h"
#include "test-support.h"

#include <gtest/gtest.h>

using namespace flumen;
using nlohmann::json;

TEST(Bench, QuickRunMeasuresTheAnchorAndEveryCanonicalScenario)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/bench.json";
    auto r = test::RunBench("--quick --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json b = json::parse(test::ReadFile(out));
    EXPECT_EQ(b["quick"], true);
    EXPECT_DOUBLE_EQ(b["simulated_s"].get<double>(), 0.05);

    // The anchor: 24 Gbps of UDP over two hops, so two hops per packet and 24 Gbps received.
    const json& a = b["anchor"];
    ASSERT_FALSE(a.contains("error")) << a.dump();
    EXPECT_NEAR(a["udp_goodput_gbps"].get<double>(), 24.0, 0.5);
    EXPECT_NEAR(a["packet_hops"].get<double>() / a["tor_packets"].get<double>(), 2.0, 0.01);
    EXPECT_GT(a["wall_us_per_packet_hop"].get<double>(), 0.0);

    // ns-3's own cost of an empty event, from as many events as were asked for.
    const json& empty = b["empty_event"];
    ASSERT_FALSE(empty.contains("error")) << empty.dump();
    EXPECT_EQ(empty["events"].get<uint64_t>(), 200000u);
    EXPECT_NEAR(empty["wall_us_per_event"].get<double>(),
                empty["wall_s"].get<double>() * 1e6 / 200000, 1e-9);

    ASSERT_EQ(b["scenarios"].size(), 3u);
    for (const json& s : b["scenarios"])
    {
        const std::string name = s["name"];
        ASSERT_FALSE(s.contains("error") || s.contains("skipped")) << s.dump();
        EXPECT_DOUBLE_EQ(s["simulated_s"].get<double>(), 0.05) << name;
        // The ToR forwards part of what crosses the links, and every figure is derived from
        // the same run: per-hop time = wall / hops, ratio = per-hop / the anchor's.
        EXPECT_GT(s["tor_packets"].get<double>(), 1000.0) << name;
        EXPECT_GT(s["packet_hops"].get<double>(), s["tor_packets"].get<double>()) << name;
        EXPECT_NEAR(s["wall_us_per_packet_hop"].get<double>(),
                    s["wall_s"].get<double>() * 1e6 / s["packet_hops"].get<double>(), 1e-6)
            << name;
        EXPECT_NEAR(s["per_hop_vs_anchor"].get<double>(),
                    s["wall_us_per_packet_hop"].get<double>()
                        / a["wall_us_per_packet_hop"].get<double>(),
                    1e-9)
            << name;
        EXPECT_GT(s["peak_rss_mb"].get<double>(), 1.0) << name;
        EXPECT_GT(s["events"].get<double>(), s["packet_hops"].get<double>()) << name;
        // The flow engine beside it, over ten times the simulated time, and the ratios derived
        // from the two measurements.
        const json& f = s["flow_engine"];
        ASSERT_FALSE(f.contains("error")) << f.dump();
        EXPECT_DOUBLE_EQ(f["simulated_s"].get<double>(), 0.5) << name;
        EXPECT_EQ(f["packet_hops"].get<double>(), 0.0) << name;
        EXPECT_NEAR(f["faster_than_real_time"].get<double>(),
                    1 / f["wall_per_simulated_s"].get<double>(), 1e-6)
            << name;
        EXPECT_NEAR(
            f["speedup_vs_packet"].get<double>(),
            s["wall_per_simulated_s"].get<double>() / f["wall_per_simulated_s"].get<double>(), 1e-6)
            << name;
        EXPECT_GT(f["speedup_vs_packet"].get<double>(), 1.0) << name;
        // Its floor: its events per simulated second, each at the empty event's cost.
        EXPECT_NEAR(f["events_per_simulated_s"].get<double>(),
                    f["events"].get<double>() / f["simulated_s"].get<double>(), 1e-6)
            << name;
        EXPECT_NEAR(f["event_floor_faster_than_real_time"].get<double>()
                        * f["events_per_simulated_s"].get<double>()
                        * empty["wall_us_per_event"].get<double>(),
                    1e6, 1e-3)
            << name;
    }
    // The table printed for people names every scenario.
    EXPECT_NE(r.output.find("bert-large-B-tcp-websearch20"), std::string::npos) << r.output;

    // A bad option exits 2 and writes nothing.
    auto bad = test::RunBench("--repeats 0 --out " + dir.Path() + "/none.json");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("--repeats"), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() + "/none.json"));
}

// The scale bench's fabric and formula, then a run of small worker counts end to end. Speed is
// not asserted; the budget is (a point that cannot finish stops at it and says how far it got).
TEST(Bench, ScaleFabricsKeepTheirRatioWith400GbpsUplinks)
{
    // 32 hosts of 100 Gbps per leaf: 3.2 Tbps down, 8 or 2 uplinks of 400 Gbps up.
    const ScaleFabric full = ScaleFabricFor(1024, 1);
    EXPECT_EQ(full.leaves, 32u);
    EXPECT_EQ(full.spines, 8u);
    EXPECT_DOUBLE_EQ(full.uplinkGbps, 400);
    const ScaleFabric four = ScaleFabricFor(4096, 4);
    EXPECT_EQ(four.leaves, 128u);
    EXPECT_EQ(four.spines, 2u);
    EXPECT_DOUBLE_EQ(four.uplinkGbps, 400);
    // Few workers: half of them per leaf, one spine, the uplink slowed to keep the ratio.
    const ScaleFabric small = ScaleFabricFor(8, 4);
    EXPECT_EQ(small.leaves, 2u);
    EXPECT_EQ(small.spines, 1u);
    EXPECT_DOUBLE_EQ(small.uplinkGbps, 100);
}

TEST(Bench, RingAlphaBetaIsTwoNMinusOneStepsOfLatencyAndAChunk)
{
    // 4 ranks, 1 MB, 2 us, 8 Gbps of payload: 6 x 2 us + 6/4 x 1 ms = 1.512 ms.
    EXPECT_NEAR(RingAlphaBetaS(1000000, 4, 2e-6, 8), 1.512e-3, 1e-12);
    EXPECT_EQ(RingAlphaBetaS(1000000, 1, 2e-6, 8), 0.0);
}

TEST(Bench, ScaleModeRunsEveryPointOnceWithinItsBudget)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/scale.json";
    auto r = test::RunBench("--scale --workers 8 --budget-s 60 --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json b = json::parse(test::ReadFile(out));
    // 2 fabrics x (the ring's slices, the whole ring, the tree's slices, the whole tree)
    // beside web-search, 2 probes.
    ASSERT_EQ(b["points"].size(), 10u);
    for (const json& p : b["points"])
    {
        const std::string name = p["name"];
        ASSERT_FALSE(p.contains("error")) << p.dump();
        EXPECT_TRUE(p["finished"].get<bool>()) << name;
        EXPECT_EQ(p["scenario"]["topology"]["hosts"], 8) << name;
        EXPECT_NEAR(p["wall_per_iteration_s"].get<double>(),
                    p["wall_s"].get<double>() / p["iterations_done"].get<double>(), 1e-12)
            << name;
        EXPECT_GT(p["events"].get<double>(), 0) << name;
        EXPECT_GT(p["peak_rss_mb"].get<double>(), 1.0) << name;
        if (p["kind"] == "loaded")
        {
            EXPECT_GT(p["cross_achieved_gbps"].get<double>(), 10) << name; // 50 offered
        }
        else
        {
            // No cross traffic, one tensor: the all-reduce at the formula's pace (the
            // pipelined slices hide most of the latency term, so at most a little below it).
            EXPECT_NEAR(p["allreduce_vs_alpha_beta"].get<double>(), 1.0, 0.02) << name;
            EXPECT_NEAR(p["allreduce_vs_bandwidth_term"].get<double>(), 1.0, 0.01) << name;
        }
    }
    EXPECT_NE(r.output.find("8w-4to1-nccl_tree-websearch"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("8w-4to1-ring-whole-websearch"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("8w-4to1-nccl_tree-whole-websearch"), std::string::npos) << r.output;
    EXPECT_EQ(b["points"][1]["scenario"]["simulation"]["flow_ring"], "whole");
    // The whole ring keeps the standing queues (NCCL's window on every hop); the whole tree
    // runs without them.
    EXPECT_FALSE(b["points"][1]["scenario"]["simulation"].contains("flow_queues"));
    EXPECT_EQ(b["points"][3]["scenario"]["job"]["collective"], "nccl_tree");
    EXPECT_EQ(b["points"][3]["scenario"]["simulation"]["flow_ring"], "whole");
    EXPECT_EQ(b["points"][3]["scenario"]["simulation"]["flow_queues"], false);

    // 256 workers' ring beside web-search takes minutes of wall time per iteration: stopped at
    // the budget, unfinished, with how far it got.
    const std::string cut = dir.Path() + "/cut.json";
    auto c = test::RunBench("--scale --workers 256 --budget-s 1 --out " + cut);
    ASSERT_EQ(c.exitCode, 0) << c.output;
    const json cutReport = json::parse(test::ReadFile(cut));
    const json& ring = cutReport["points"][0];
    ASSERT_EQ(ring["name"], "256w-1to1-ring-websearch");
    EXPECT_FALSE(ring["finished"].get<bool>()) << ring.dump();
    EXPECT_FALSE(ring.contains("wall_per_iteration_s"));
    EXPECT_GT(ring["simulated_s"].get<double>(), 0.0);
    EXPECT_GE(ring["wall_s"].get<double>(), 1.0);

    auto bad = test::RunBench("--scale --workers 8,x --out " + dir.Path() + "/none.json");
    EXPECT_EQ(bad.exitCode, 2) << bad.output;
    EXPECT_NE(bad.output.find("--workers"), std::string::npos) << bad.output;
    EXPECT_FALSE(std::filesystem::exists(dir.Path() + "/none.json"));
}
