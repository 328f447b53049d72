// flumen bench as CI can afford it: --quick (0.05 s simulated, one repeat) runs the anchor
// and every canonical scenario and writes figures that hang together. Speed itself is not
// asserted here (these machines are noisy); the figures are the bench's job.
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
