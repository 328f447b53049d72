// flumen calibrate end to end: bad options rejected with nothing written; --check writes the
// idle table at the built-in profiles; --tcp-only fits the host's TCP ceiling to a near-idle
// TCP point and keeps the given profiles. (The two-parameter fit itself costs hours of BERT
// simulation; its run is in the README, "Calibration".)
#include "calibration-file.h"
#include "calibration-plan.h"
#include "scenario.h"
#include "test-support.h"

#include "ns3/model-profile.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>

namespace fs = std::filesystem;
using namespace flumen;
using nlohmann::json;

namespace
{

using test::kManifests;
using test::kTestbed;

// One shipped manifest cut down to ResNet-50, so that a test simulates a single point.
std::string
ResNetOnly(const test::TempDir& dir, const std::string& name)
{
    json m = json::parse(test::ReadFile(kManifests + name + ".json"));
    m["folder"] = fs::absolute(fs::path(kManifests) / m["folder"].get<std::string>())
                      .lexically_normal()
                      .string();
    json models = json::array();
    for (const auto& e : m["models"])
    {
        if (e["model"] == "resnet50")
        {
            models.push_back(e);
        }
    }
    m["models"] = models;
    return dir.Write(name + "-r50.json", m.dump(2));
}

TEST(Calibrate, BadOptionsAreRejectedAndNothingIsWritten)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/cal.json";
    auto r = test::RunCalibrate(dir.Path() + "/missing.json --out " + out);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
    r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json --out " + out
                           + " --calibration x.json");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--calibration FILE goes with --tcp-only"), std::string::npos)
        << r.output;
    r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json --out " + out
                           + " --check --tcp-only");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json --out " + out + " --iterations 1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--iterations"), std::string::npos) << r.output;
    r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    if (fs::exists(kTestbed))
    {
        r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json --out " + out + " --tcp-only");
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("no TCP series"), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(out));
}

TEST(Calibrate, CheckWritesTheIdleTableAtTheBuiltInProfile)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/cal.json";
    auto r = test::RunCalibrate(ResNetOnly(dir, "iperf-rdma-configA") + " --out " + out
                                + " --check --iterations 2");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json cal = json::parse(test::ReadFile(out));
    const json& m = cal["models"]["resnet50"];
    ns3::ModelProfile builtIn = *ns3::ModelProfile::BuiltIn("resnet50");
    EXPECT_DOUBLE_EQ(m["compute_s"].get<double>(), builtIn.ComputeSeconds());
    EXPECT_NEAR(m["backward_share"].get<double>(), builtIn.BackwardShare(), 1e-12);
    EXPECT_EQ(m["fitted"], json::array({ "compute_s" })) << "one worker count: no share";
    ASSERT_EQ(m["points"].size(), 1u);
    const json& p = m["points"][0];
    double measured = p["measured_mean_s"].get<double>();
    double simulated = p["simulated_mean_s"].get<double>();
    EXPECT_NEAR(p["error_percent"].get<double>(), 100 * (simulated - measured) / measured, 1e-9);
    EXPECT_LT(std::abs(simulated - measured) / measured, 0.05) << r.output;
    EXPECT_FALSE(cal.contains("transports"));
    // run, sweep and validate accept what calibrate writes.
    EXPECT_NO_THROW(flumen::LoadCalibration(out));
}

TEST(Calibrate, TcpOnlyFitsTheHostCeilingAndKeepsTheProfiles)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/cal.json";
    std::string profiles = dir.Write(
        "profiles.json",
        R"({"models": {"resnet50": {"compute_s": 0.1556, "compute_jitter_cv": 0.027, "backward_share": 0.7}}})");
    // The fit's logic at flow level (seconds, where the packet level took five minutes of CI
    // time); the packet level's runs go through the same runner in the other calibrate tests.
    auto r = test::RunCalibrate(ResNetOnly(dir, "websearch-tcp-configB") + " --out " + out
                                + " --tcp-only --iterations 2 --engine flow --calibration "
                                + profiles);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json cal = json::parse(test::ReadFile(out));
    EXPECT_DOUBLE_EQ(cal["models"]["resnet50"]["backward_share"].get<double>(), 0.7)
        << "the given profile is kept";
    const json& tcp = cal["transports"]["tcp"];
    double ceiling = tcp["host_ceiling_gbps"].get<double>();
    EXPECT_GE(ceiling, 1.0);
    EXPECT_LE(ceiling, 100.0);
    EXPECT_TRUE(tcp["fitted_beyond_idle_runs"].get<bool>());
    ASSERT_EQ(tcp["points"].size(), 1u);
    const json& p = tcp["points"][0];
    EXPECT_DOUBLE_EQ(p["cross_traffic_gbps"].get<double>(), 2.0) << "the lowest-load point";
    double measured = p["measured_mean_s"].get<double>();
    EXPECT_LT(std::abs(p["simulated_mean_s"].get<double>() - measured) / measured, 0.05)
        << r.output;
    // The ceiling reaches a TCP job unless the scenario sets its own.
    json calibration = flumen::LoadCalibration(out);
    json mine = { { "job", { { "transport", "tcp" } } } };
    flumen::ApplyCalibration(mine, calibration, out);
    EXPECT_DOUBLE_EQ(test::Resolve(mine).hostCeilingGbps, ceiling);
    json own = { { "job", { { "tcp", { { "host_ceiling_gbps", 7.5 } } } } } };
    flumen::ApplyCalibration(own, calibration, out);
    EXPECT_DOUBLE_EQ(test::Resolve(own).hostCeilingGbps, 7.5);
}

} // namespace

TEST(Calibrate, ChecksItsOutputFirstAndLeavesNoFileOnAFullDisk)
{
    test::TempDir dir;
    // An --out that cannot be written is refused before anything is simulated.
    const std::string file = dir.Write("file", "not a folder");
    auto r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json --out " + file
                                + "/cal.json --check");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("is not a folder"), std::string::npos) << r.output;
    REQUIRE_TESTBED_DATA();
    // A full disk when the fit is done: exit 1 naming the file (it once aborted uncaught), and
    // no partial file.
    const std::string disk = dir.Path() + "/disk";
    if (std::string why = test::MountSmallDisk(disk, "4k"); !why.empty())
    {
        GTEST_SKIP() << why;
    }
    test::RunCommand("head -c 4096 /dev/zero > " + disk + "/filler");
    r = test::RunCalibrate(ResNetOnly(dir, "iperf-rdma-configA") + " --out " + disk
                           + "/cal.json --check --iterations 2");
    const bool left = fs::exists(disk + "/cal.json");
    std::vector<std::string> entries;
    for (const auto& e : fs::directory_iterator(disk))
    {
        entries.push_back(e.path().filename().string());
    }
    test::RunCommand("umount " + disk);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("No space left on device"), std::string::npos) << r.output;
    EXPECT_FALSE(left);
    EXPECT_EQ(entries, std::vector<std::string>{ "filler" });
}

TEST(Calibrate, TheFlowEngineFitsTheProfilesTheShippedPacketFitFound)
{
    // The fit starts from the built-in (packet-fitted) profiles and keeps them where they
    // already match the idle points within its tolerance: a profile the flow engine's idle
    // runs did not reproduce would move by more than 3 %.
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/cal.json";
    auto r = test::RunCalibrate(kManifests + "iperf-rdma-configA.json " + kManifests
                                + "websearch-rdma-configB.json --engine flow --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json flow = json::parse(test::ReadFile(out));
    EXPECT_EQ(flow["engine"], "flow");
    json packet = json::parse(
        test::ReadFile(std::string(FLUMEN_SOURCE_DIR) + "/validation/calibration.json"));
    for (const auto& [model, m] : packet["models"].items())
    {
        const double a = m["compute_s"];
        const double b = flow["models"][model]["compute_s"];
        std::cout << "[measure] " << model << " compute: packet fit " << a << " s, flow fit " << b
                  << " s (" << (b / a - 1) * 100 << " %)\n";
        EXPECT_NEAR(b, a, 0.03 * a) << model;
    }
    EXPECT_EQ(test::RunCalibrate(kManifests + "iperf-rdma-configA.json --engine fluid --out "
                                 + dir.Path() + "/x.json")
                  .exitCode,
              2);
}

// A command's --set goes over the manifests' settings in the runs a fit solves the compute on
// (the idle runs) and in the TCP ceiling's reference runs, as in the runs they calibrate.
TEST(Calibrate, CommandSettingsReachTheRunsTheProfilesAreSolvedOn)
{
    const std::vector<std::string> manifests
        = { kManifests + "iperf-rdma-configA.json", kManifests + "websearch-tcp-configB.json" };
    const CalibrationPoints declared = LoadCalibrationPoints(manifests);
    const CalibrationPoints set
        = LoadCalibrationPoints(manifests, { "topology.ethernet_framing=false" });
    ASSERT_FALSE(set.idle.empty());
    ASSERT_FALSE(set.tcpReferences.empty());
    ASSERT_EQ(set.idle.size(), declared.idle.size());
    for (size_t i = 0; i < set.idle.size(); ++i)
    {
        EXPECT_EQ(declared.idle[i].testbedSettings["topology"]["ethernet_framing"], true);
        EXPECT_EQ(set.idle[i].testbedSettings["topology"]["ethernet_framing"], false);
        // The manifest's other settings stay.
        EXPECT_EQ(set.idle[i].testbedSettings["topology"]["switch_queue"]["buffer_bytes"],
                  296875000);
    }
    for (const auto& p : set.tcpReferences)
    {
        EXPECT_EQ(p.testbedSettings["topology"]["ethernet_framing"], false) << p.source;
    }
}
