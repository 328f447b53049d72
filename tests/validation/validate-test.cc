// flumen validate end to end: bad input rejected before anything runs, a quick validation of
// one testbed series with its report, and a re-run that reuses every finished point.
#include "csv-format.h"
#include "point-pool.h"
#include "run-store.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>

namespace fs = std::filesystem;
using namespace flumen;
using nlohmann::json;

namespace
{

using test::kManifests;
using test::kTestbed;

// Rows of a CSV without quoted commas (validate quotes only free text), header first.
std::vector<std::vector<std::string>>
CsvRows(const std::string& text)
{
    std::vector<std::vector<std::string>> rows;
    std::stringstream ss(text);
    std::string line;
    while (std::getline(ss, line))
    {
        rows.push_back(SplitCsvFields(line));
    }
    return rows;
}

size_t
Column(const std::vector<std::string>& header, const std::string& name)
{
    for (size_t i = 0; i < header.size(); ++i)
    {
        if (header[i] == name)
        {
            return i;
        }
    }
    ADD_FAILURE() << "no column " << name;
    return 0;
}

// validate with these arguments exits 2, saying `message`.
void
ExpectRefused(const std::string& args, const std::string& message)
{
    const auto r = test::RunValidate(args);
    EXPECT_EQ(r.exitCode, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

TEST(Validate, BadInputIsRejectedBeforeAnythingRuns)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/out";

    auto r = test::RunValidate(dir.Path() + "/missing.json --out " + out);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;

    std::string bad = dir.Write("bad.json", "{\"name\": \"x\", \"folder\": 3}");
    r = test::RunValidate(bad + " --out " + out);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("bad.json"), std::string::npos) << r.output;

    r = test::RunValidate(kManifests + "iperf-rdma-configA.json --out " + out
                          + " --models alexnet");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("alexnet"), std::string::npos) << r.output;

    std::string badSettings = dir.Write(
        "settings.json",
        R"({"name": "x", "folder": ".", "experiment": {"configuration": "A", "transport": "rdma", "workers": 4, "cross_traffic": "iperf"}, "scenario": {"topology": {"switch_queue": {"discipline": "wred"}}}})");
    r = test::RunValidate(badSettings + " --out " + out);
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("settings.json: scenario: key 'topology.switch_queue.discipline'"),
              std::string::npos)
        << r.output;

    const std::string iperf = kManifests + "iperf-rdma-configA.json --out " + out;
    ExpectRefused(iperf + " --set cross_traffic.chunk_byte=3",
                  "--set: key 'cross_traffic.chunk_byte': unknown key");
    // What defines a point stays the validation's.
    ExpectRefused(iperf + " --set job.model=vgg16",
                  "--set job.model: the validation sets it per point");
    ExpectRefused(iperf
                      + " --engine flow --set job.backward_share=0.5 --cross-validate --fit "
                        "job.backward_share=0.3:0.9",
                  "--set and --fit of the same key");

    r = test::RunValidate(kManifests + "iperf-rdma-configA.json --out " + out + " --seeds 0");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--seeds"), std::string::npos) << r.output;

    r = test::RunValidate(kManifests + "iperf-rdma-configA.json --out " + out
                          + " --budget-iterations -1");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("--budget-iterations: expected an integer 0..1000, got '-1'"),
              std::string::npos)
        << r.output;

    std::string cal = dir.Write("cal.json", "{\"models\": {\"resnet50\": {\"compute_s\": \"x\"}}}");
    if (fs::exists(kTestbed))
    {
        r = test::RunValidate(kManifests + "iperf-rdma-configA.json --out " + out
                              + " --calibration " + cal);
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("cal.json"), std::string::npos) << r.output;
        EXPECT_NE(r.output.find("compute_s"), std::string::npos) << r.output;
    }
    EXPECT_FALSE(fs::exists(out + "/report.md"));
    EXPECT_FALSE(fs::exists(out + "/points.csv"));
}

// At flow level: the plan, report and resume are the engines' alike, and the packet level's
// runs took about five minutes here (RunsOverTheSimulatedTimeBudget... keeps a packet-level
// validate in the suite).
TEST(Validate, QuickSeriesReportAndResume)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/v";
    const std::string args
        = kManifests
          + "iperf-rdma-configA.json --quick --iterations 3 --seeds 2 --jobs 2 --engine flow --out "
          + out;
    auto r = test::RunValidate(args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("resnet50"), std::string::npos) << r.output;

    auto rows = CsvRows(test::ReadFile(out + "/points.csv"));
    ASSERT_EQ(rows.size(), 4u) << "header + idle + two loaded points";
    const auto& h = rows[0];
    size_t cStatus = Column(h, "status");
    size_t cIdle = Column(h, "idle");
    size_t cCal = Column(h, "used_for_calibration");
    size_t cTb = Column(h, "testbed_mean_s");
    size_t cSim = Column(h, "simulated_mean_s");
    size_t cErr = Column(h, "mean_error_pct");
    size_t cMeasured = Column(h, "testbed_measured_gbps");
    size_t cAchieved = Column(h, "simulated_achieved_gbps");
    size_t cCongested = Column(h, "congested");
    size_t cSeeds = Column(h, "seeds");
    int loaded = 0;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        const auto& row = rows[i];
        ASSERT_EQ(row.size(), h.size());
        EXPECT_EQ(row[cStatus], "done");
        double tb = std::stod(row[cTb]);
        double sim = std::stod(row[cSim]);
        EXPECT_GT(sim, 0.1);
        EXPECT_NEAR(std::stod(row[cErr]), 100 * (sim - tb) / tb, 0.01);
        if (row[cIdle] == "1")
        {
            EXPECT_EQ(row[cCal], "1") << "the idle run is calibration, not validation";
            EXPECT_LT(std::abs(sim - tb) / tb, 0.05) << "idle run off its calibration";
        }
        else
        {
            ++loaded;
            EXPECT_EQ(row[cCal], "0");
            // The offered load is the measured one here (RDMA series): never more carried,
            // and all of it where the testbed's job was not slowed (the link has room).
            double achieved = std::stod(row[cAchieved]);
            double offered = std::stod(row[Column(h, "offered_gbps")]);
            EXPECT_NEAR(offered, std::stod(row[cMeasured]), 0.001);
            EXPECT_LE(achieved, 1.02 * offered);
            if (row[cCongested] == "0")
            {
                EXPECT_NEAR(achieved, offered, 0.05 * offered);
            }
            // Congested points get the seeds asked for, the others one.
            EXPECT_EQ(row[cSeeds], row[cCongested] == "1" ? "2/2" : "1/1");
        }
        // The wire the testbed's traffic needs at S0's NIC, in the manifest's framed jumbo
        // frames (worked out in WireShare.CountsEachPayloadInItsOwnFrames): iperf's TCP
        // payload in 9,038-byte frames of 8,948 (9,000 less IPv4, TCP and timestamps; PPP's 2
        // and Ethernet's 36 beyond), ResNet-50's 153,342,192 ring bytes per iteration in RoCE
        // frames of 4,178 per 4,096 (IPv4 20, UDP 8, BTH and ICRC 16, 2 and 36).
        const double x = row[cIdle] == "1" ? 0.0 : std::stod(row[cMeasured]);
        EXPECT_NEAR(std::stod(row[Column(h, "testbed_wire_share")]),
                    (x * 1e9 * 9038 / 8948 + 8 * 153342192.0 / tb * 4178 / 4096) / 25e9, 1e-4);
    }
    EXPECT_EQ(loaded, 2);
    // The report says how many points are beyond the wire.
    EXPECT_NE(test::ReadFile(out + "/report.md").find("points are beyond 1"), std::string::npos);

    auto series = CsvRows(test::ReadFile(out + "/series.csv"));
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[1][Column(series[0], "model")], "resnet50");
    EXPECT_EQ(series[1][Column(series[0], "validation_points")], "2");
    EXPECT_FALSE(series[1][Column(series[0], "median_abs_mean_error_pct")].empty());
    EXPECT_TRUE(series[1][Column(series[0], "mean_target_met")] == "1"
                || series[1][Column(series[0], "mean_target_met")] == "0");

    std::string report = test::ReadFile(out + "/report.md");
    EXPECT_NE(report.find("## Headline"), std::string::npos);
    // The manifest's testbed settings are declared in the report and reach every run.
    EXPECT_NE(report.find("- iperf-rdma-configA: "
                          "`{\"job\":{\"rdma\":{\"mtu_bytes\":4096}},\"topology\":{"
                          "\"ethernet_framing\":true,\"mtu_bytes\":9000,\"switch_queue\":{"
                          "\"buffer_bytes\":296875000,\"discipline\":\"fifo\"}}}`"),
              std::string::npos)
        << report;
    int runs = 0;
    // The runs, compacted into their series' runs file (batch/run-store.h).
    EXPECT_TRUE(fs::exists(out + "/points/iperf-rdma-configA.runs.jsonl"));
    for (const std::string& id : StoredRunIds(out + "/points"))
    {
        ++runs;
        json run = json::parse(ReadRunFile(out + "/points", id, "scenario.json").value());
        EXPECT_EQ(run["topology"]["switch_queue"]["discipline"], "fifo") << id;
        EXPECT_EQ(run["topology"]["switch_queue"]["buffer_bytes"], 296875000) << id;
        EXPECT_EQ(run["topology"]["ethernet_framing"], true) << id;
        EXPECT_EQ(run["topology"]["mtu_bytes"], 9000) << id;
        EXPECT_EQ(run["job"]["rdma"]["mtu_bytes"], 4096) << id;
        if (run["cross_traffic"]["type"] == "iperf")
        {
            // The fewest iperf streams whose share beside busy RDMA, k/(k+1) of 25 Gbps,
            // reaches the load: what the testbed's operator raised -P to.
            double x = run["cross_traffic"]["load_gbps"].get<double>();
            int k = run["cross_traffic"]["streams"].get<int>();
            EXPECT_GE(25.0 * k / (k + 1), x) << id;
            if (k > 1)
            {
                EXPECT_LT(25.0 * (k - 1) / k, x) << id;
            }
        }
    }
    EXPECT_GE(runs, 3);
    EXPECT_NE(report.find("iperf-rdma-configA"), std::string::npos);
    if (std::system("command -v gnuplot > /dev/null 2>&1") == 0)
    {
        EXPECT_TRUE(fs::exists(out + "/plots/iperf-rdma-configA.png")) << report;
        EXPECT_GT(fs::file_size(out + "/plots/iperf-rdma-configA.png"), 1000u);
    }

    // Again: nothing re-simulated, the same report figures.
    std::string before = test::ReadFile(out + "/points.csv");
    r = test::RunValidate(args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("0 to run"), std::string::npos) << r.output;
    EXPECT_EQ(test::ReadFile(out + "/points.csv"), before);
}

// --report-only simulates nothing: with no finished runs every point is listed as not run.
TEST(Validate, ReportOnlySimulatesNothing)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/v";
    auto r = test::RunValidate(kManifests + "iperf-rdma-configA.json --quick --report-only --out "
                               + out);
    EXPECT_EQ(r.exitCode, 1) << r.output; // not every point simulated
    EXPECT_NE(r.output.find("report only"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out + "/points"));
    auto rows = CsvRows(test::ReadFile(out + "/points.csv"));
    ASSERT_EQ(rows.size(), 4u);
    for (size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_EQ(rows[i][Column(rows[0], "status")], "not run");
    }
    EXPECT_NE(test::ReadFile(out + "/report.md").find("Simulation runs finished: 0 of 3"),
              std::string::npos);
    // A series with nothing simulated is not judged against the targets.
    EXPECT_NE(test::ReadFile(out + "/report.md").find("| none judged: no simulated points |"),
              std::string::npos);
    EXPECT_NE(r.output.find("resnet50      no point simulated yet: not judged"), std::string::npos)
        << r.output;
    // ... and its target columns in series.csv are empty, not 0 ("missed").
    auto series = CsvRows(test::ReadFile(out + "/series.csv"));
    ASSERT_EQ(series.size(), 2u);
    for (const char* target : { "mean_target_met", "congested_target_met", "beats_baselines",
                                "p99_target_met", "congestion_point_met", "achieved_rate_met" })
    {
        EXPECT_EQ(series[1][Column(series[0], target)], "") << target;
    }

    // Each point gets as many iterations as fit in the budget at the testbed's pace, 3 to 8:
    // `budget(fastest)` is the run's budget, given the fastest testbed pace of the series.
    auto iterationCounts = [&](const std::string& options, auto budget)
    {
        test::RunValidate(kManifests + "iperf-rdma-configA.json --quick --iterations 8 " + options
                          + " --report-only --out " + out);
        auto rows = CsvRows(test::ReadFile(out + "/points.csv"));
        std::set<std::string> counts;
        EXPECT_EQ(rows.size(), 4u);
        double fastest = 1e9;
        for (size_t i = 1; i < rows.size(); ++i)
        {
            fastest = std::min(fastest, std::stod(rows[i][Column(rows[0], "testbed_mean_s")]));
        }
        for (size_t i = 1; i < rows.size(); ++i)
        {
            double pace = std::stod(rows[i][Column(rows[0], "testbed_mean_s")]);
            int expected = std::clamp(static_cast<int>(budget(fastest) / pace), 3, 8);
            EXPECT_EQ(rows[i][Column(rows[0], "iterations")],
                      std::to_string(expected) + " (1 warm-up)");
            counts.insert(rows[i][Column(rows[0], "iterations")]);
        }
        return counts;
    };
    auto counts = iterationCounts("--max-sim-s 1", [](double) { return 1.0; });
    EXPECT_FALSE(counts.count("8 (1 warm-up)")) << "ResNet-50 at 0.16 s: 6 fit in 1 s";

    // --budget-iterations: a run may always take that many and a half at the fastest testbed
    // pace of the model in the series, however small --max-sim-s is.
    counts = iterationCounts("--max-sim-s 0.01 --budget-iterations 5",
                             [](double fastest) { return 5.5 * fastest; });
    EXPECT_TRUE(counts.count("5 (1 warm-up)")) << "the idle point: 5.5 of its own pace";
    EXPECT_NE(test::ReadFile(out + "/report.md").find("or 5.5 iterations at the testbed's fastest"),
              std::string::npos);
}

// --runs simulates only the runs whose names match; the report reads every run in DIR/points,
// and a validate without it then runs the rest.
TEST(Validate, RunsPicksTheRunsToSimulate)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/v";
    const std::string base
        = kManifests + "iperf-rdma-configA.json --quick --engine flow --out " + out;
    ExpectRefused(base + " --runs '('", "--runs: '(' is not a regular expression");
    ExpectRefused(base + " --runs no-such-run", "matches none of the plan's 3 runs");
    ExpectRefused(base + " --runs idle --report-only", "--runs picks runs to simulate");
    ExpectRefused(base + " --runs idle --cross-validate --fit topology.link_delay_us=1:2",
                  "--runs picks runs to simulate");
    ExpectRefused(base + " --runs ''", "--runs: expected one non-empty pattern");
    ExpectRefused(base + " --runs idle --runs 4G", "--runs: expected one non-empty pattern");
    EXPECT_FALSE(fs::exists(out));

    auto r = test::RunValidate(base + " --runs '-idle-s1-'");
    ASSERT_EQ(r.exitCode, 0) << r.output; // every run picked finished, though points remain
    EXPECT_NE(r.output.find("(1 simulation runs of 3, picked by --runs: 1 now, 0 earlier"),
              std::string::npos)
        << r.output;
    // The runs of the validation (compacted into their series' file, batch/run-store.h).
    const std::vector<std::string> ran = StoredRunIds(out + "/points");
    ASSERT_EQ(ran.size(), 1u);
    EXPECT_NE(ran[0].find("-idle-s1-"), std::string::npos) << ran[0];
    auto rows = CsvRows(test::ReadFile(out + "/points.csv"));
    ASSERT_EQ(rows.size(), 4u);
    std::multiset<std::string> statuses;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        statuses.insert(rows[i][Column(rows[0], "status")]);
    }
    EXPECT_EQ(statuses.count("not run"), 2u);
    EXPECT_EQ(statuses.count("done"), 1u);

    r = test::RunValidate(base);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("(3 simulation runs: 2 now, 1 earlier, 0 failed)"), std::string::npos)
        << r.output;
}

// A point whose runs reach --max-sim-s before their iterations finish is censored: no mean, a
// lower bound, counted apart in series.csv and left out of the medians.
TEST(Validate, RunsOverTheSimulatedTimeBudgetAreCensoredNotCounted)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/v";
    // ResNet-50 iterations last about 0.16 s idle and beside 8 Gbps of iperf, 0.24 s beside 18:
    // 0.22 s ends the first two inside their second (first measured) iteration, the third
    // inside its first (warm-up).
    auto r = test::RunValidate(kManifests
                               + "iperf-rdma-configA.json --quick --iterations 3 --seeds 1 "
                                 "--jobs 2 --max-sim-s 0.22 --budget-iterations 0 --out "
                               + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto rows = CsvRows(test::ReadFile(out + "/points.csv"));
    ASSERT_EQ(rows.size(), 4u);
    const auto& h = rows[0];
    int withCompleted = 0;
    for (size_t i = 1; i < rows.size(); ++i)
    {
        const auto& row = rows[i];
        ASSERT_EQ(row.size(), h.size());
        EXPECT_EQ(row[Column(h, "status")], "censored");
        EXPECT_TRUE(row[Column(h, "simulated_mean_s")].empty());
        EXPECT_TRUE(row[Column(h, "mean_error_pct")].empty());
        double bound = std::stod(row[Column(h, "simulated_mean_lower_bound_s")]);
        // At least the 0.22 - 0.16 s of the first measured iteration over the two measured.
        EXPECT_GT(bound, 0.025);
        EXPECT_LT(bound, 0.125);
        double tb = std::stod(row[Column(h, "testbed_mean_s")]);
        EXPECT_NEAR(std::stod(row[Column(h, "mean_error_lower_bound_pct")]),
                    100 * (bound - tb) / tb, 0.01);
        // No measured iteration completed: the indicative mean is over the four workers'
        // warm-up iterations, if they ended before the cut (at 18 Gbps they do not).
        const std::string n = row[Column(h, "censored_completed_iterations")];
        if (n.empty())
        {
            EXPECT_TRUE(row[Column(h, "censored_completed_mean_s")].empty());
            // The cross traffic's rate is then measured over the whole run.
            EXPECT_GT(std::stod(row[Column(h, "simulated_achieved_gbps")]), 5.0);
            continue;
        }
        ++withCompleted;
        EXPECT_EQ(n, "4 warm-up");
        double completed = std::stod(row[Column(h, "censored_completed_mean_s")]);
        EXPECT_GT(completed, 0.1);
        EXPECT_LT(completed, 0.22);
        EXPECT_NEAR(std::stod(row[Column(h, "censored_completed_error_pct")]),
                    100 * (completed - tb) / tb, 0.01);
    }
    EXPECT_GE(withCompleted, 2) << "the idle and 8 Gbps points finish their warm-up";
    auto series = CsvRows(test::ReadFile(out + "/series.csv"));
    ASSERT_EQ(series.size(), 2u);
    EXPECT_EQ(series[1][Column(series[0], "points_censored")], "2");
    EXPECT_EQ(series[1][Column(series[0], "censored_above_testbed")], "0");
    EXPECT_EQ(series[1][Column(series[0], "validation_points")], "0");
    EXPECT_TRUE(series[1][Column(series[0], "median_abs_mean_error_pct")].empty());
    std::string report = test::ReadFile(out + "/report.md");
    EXPECT_NE(report.find("+2 censored"), std::string::npos) << report;
    EXPECT_NE(report.find("at most 0.22 s"), std::string::npos) << report;
    EXPECT_NE(report.find("## Censored points"), std::string::npos) << report;
    EXPECT_NE(report.find(" over 4 warm-up |"), std::string::npos) << report;
    EXPECT_NE(report.find("| none within 0.22 s |"), std::string::npos) << report;
}

} // namespace

TEST(Validate, FlowEngineRunsEveryPointAndIsSetBesideThePacketLevel)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/flow";
    // The packet level's runs of the same quick plan, made here under the manifest's settings
    // (half a minute of one core at its jumbo frames): a stored packet validation would have
    // to be re-run whenever the manifest's testbed settings change.
    const std::string packetOut = dir.Path() + "/packet";
    const auto p = test::RunValidate(kManifests + "iperf-rdma-configA.json --quick --jobs 2 --out "
                                     + packetOut);
    ASSERT_EQ(p.exitCode, 0) << p.output;
    const std::string packet = packetOut + "/points";
    auto r = test::RunValidate(kManifests
                               + "iperf-rdma-configA.json --quick --engine flow "
                                 "--compare-engines "
                               + packet + " --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(r.output.find("engines: 3 of 3 runs compared"), std::string::npos) << r.output;
    auto rows = CsvRows(test::ReadFile(out + "/engines.csv"));
    ASSERT_EQ(rows.size(), 4u);
    const auto& h = rows[0];
    for (size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_EQ(rows[i][Column(h, "status")], "compared");
        EXPECT_EQ(rows[i][Column(h, "series")], "iperf-rdma-configA");
        EXPECT_EQ(rows[i][Column(h, "model")], "resnet50");
        EXPECT_EQ(rows[i][Column(h, "transport")], "rdma");
        EXPECT_TRUE(PointFinished(packet, rows[i][Column(h, "packet_run")]));
        // Every run's summary names its engine.
        json s = json::parse(
            ReadRunFile(out + "/points", rows[i][Column(h, "run")], "summary.json").value());
        EXPECT_EQ(s["engine"], "flow");
        const double diff = std::stod(rows[i][Column(h, "mean_diff_pct")]);
        std::cout << "[measure] " << rows[i][Column(h, "run")] << ": flow vs packet mean " << diff
                  << " %\n";
        // ResNet-50 beside iperf in A: the NIC's round robin, which both engines share out
        // alike (the same seed: the same compute draws).
        EXPECT_LT(std::abs(diff), 3.0);
    }
    const std::string md = test::ReadFile(out + "/engines.md");
    EXPECT_NE(md.find("mean iteration time |flow - packet|"), std::string::npos);
    EXPECT_NE(md.find("| iperf-rdma-configA | resnet50 | rdma | 3 |"), std::string::npos) << md;
    // Both engines against the testbed: the packet level's errors are its own validation's,
    // point for point (the same runs read back alike).
    EXPECT_NE(test::ReadFile(out + "/engines-testbed.md").find("| iperf-rdma-configA | resnet50 |"),
              std::string::npos);
    std::map<std::string, std::string> packetError;
    for (const auto& row : test::ReadCsvRows(packetOut + "/points.csv"))
    {
        if (row.at("series") == "iperf-rdma-configA" && row.at("model") == "resnet50"
            && row.at("seeds") == "1/1")
        {
            packetError[row.at("index")] = row.at("mean_error_pct");
        }
    }
    int compared = 0;
    for (const auto& row : test::ReadCsvRows(out + "/engines-testbed.csv"))
    {
        if (row.at("compared") == "1" && packetError.count(row.at("index")))
        {
            ++compared;
            EXPECT_EQ(row.at("packet_error_pct"), packetError.at(row.at("index")))
                << "point " << row.at("index");
            EXPECT_FALSE(row.at("flow_error_pct").empty());
        }
    }
    EXPECT_GT(compared, 0);
    // --compare-engines needs the flow engine, and the engine must be one of the two.
    EXPECT_EQ(test::RunValidate(kManifests + "iperf-rdma-configA.json --quick --compare-engines "
                                + packet + " --out " + dir.Path() + "/x")
                  .exitCode,
              2);
    EXPECT_EQ(test::RunValidate(kManifests
                                + "iperf-rdma-configA.json --quick --engine fluid "
                                  "--out "
                                + dir.Path() + "/x")
                  .exitCode,
              2);
    EXPECT_FALSE(fs::exists(dir.Path() + "/x"));
}

// --set tries a mechanism on a whole validation: every run gets it, the report says so, and
// packet runs without it are not set beside these.
TEST(Validate, SetGoesIntoEveryRunAndTheReport)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/set";
    const std::string packet = FLUMEN_SOURCE_DIR "/results/validation/points";
    auto r = test::RunValidate(kManifests
                               + "websearch-rdma-configB.json --quick --engine flow "
                                 "--set cross_traffic.chunk_bytes=18068 --set "
                                 "cross_traffic.chunk_gap_us=55 --compare-engines "
                               + packet + " --out " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    size_t runs = 0;
    for (const std::string& id : StoredRunIds(out + "/points"))
    {
        const json s = json::parse(ReadRunFile(out + "/points", id, "scenario.json").value());
        EXPECT_EQ(s["cross_traffic"]["chunk_bytes"], 18068) << id;
        EXPECT_EQ(s["cross_traffic"]["chunk_gap_us"], 55) << id;
        ++runs;
    }
    EXPECT_GE(runs, 3u);
    EXPECT_NE(test::ReadFile(out + "/report.md")
                  .find("Set on the command line (`--set`) in every run, over the manifests' "
                        "settings and any fitted values: `cross_traffic.chunk_bytes=18068`, "
                        "`cross_traffic.chunk_gap_us=55`."),
              std::string::npos);
    // The shipped packet runs had no such setting: none of them is compared.
    auto rows = CsvRows(test::ReadFile(out + "/engines.csv"));
    ASSERT_EQ(rows.size(), runs + 1);
    for (size_t i = 1; i < rows.size(); ++i)
    {
        EXPECT_EQ(rows[i][Column(rows[0], "status")], "no packet run");
    }
}

TEST(Validate, PublishedRingBandwidthsAreSetBesideTheSimulatedHops)
{
    // A series with only a published ring bandwidth (ResNet-50, 20 Gbps of web-search, B,
    // TCP): one packet-level run of half a simulated second, its hops in the report.
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    json m = { { "name", "ring-only" },
               { "folder", kTestbed + "websearch-tcp-configB" },
               { "experiment",
                 { { "configuration", "B" },
                   { "transport", "tcp" },
                   { "workers", 3 },
                   { "cross_traffic", "websearch" } } },
               { "ring_bandwidth",
                 { { { "model", "resnet50" },
                     { "requested_gbps", 20 },
                     { "dl_only_gbps", 7.24 },
                     { "dl_shared_gbps", 4.13 },
                     { "source", "thesis Table 3.11" } } } } };
    const std::string manifest = dir.Write("ring.json", m.dump());
    const std::string out = dir.Path() + "/v";
    auto r = test::RunValidate(manifest + " --out " + out
                               + " --max-sim-s 0.5 --budget-iterations 0 --jobs 1");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string report = test::ReadFile(out + "/report.md");
    EXPECT_NE(report.find("## The ring's own bandwidth"), std::string::npos);
    auto rows = CsvRows(test::ReadFile(out + "/ring-bandwidth.csv"));
    ASSERT_EQ(rows.size(), 2u);
    const auto& h = rows[0];
    const double dlOnly = std::stod(rows[1][Column(h, "simulated_s1_to_s3_injection_gbps")]);
    const double intoShared = std::stod(rows[1][Column(h, "simulated_s3_to_s0_injection_gbps")]);
    std::cout << "[measure] ResNet-50, 20 Gbps web-search: S1->S3 sent at " << dlOnly
              << " Gbps, S3->S0 at " << intoShared << " (published 7.24 and 4.13)\n";
    EXPECT_DOUBLE_EQ(std::stod(rows[1][Column(h, "published_dl_shared_gbps")]), 4.13);
    // The hop into the shared node crosses the bottleneck beside 20 Gbps of web-search, the
    // DL-only hop does not.
    EXPECT_LT(intoShared, dlOnly);
    EXPECT_LE(dlOnly, 25.0 * 1.001);
}

TEST(Validate, FlowLevelCdfsHaveHundredsOfIterationsAndACriticalDistance)
{
    // The testbed's per-iteration CDFs hold hundreds of iterations: at flow level the CDF runs
    // get 300, so that the Kolmogorov-Smirnov distance can tell distributions apart.
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/v";
    auto r = test::RunValidate(kManifests
                               + "iteration-cdfs.json --models resnet50 --engine flow "
                                 "--out "
                               + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto rows = CsvRows(test::ReadFile(out + "/cdfs.csv"));
    ASSERT_GE(rows.size(), 2u);
    const auto& h = rows[0];
    for (size_t i = 1; i < rows.size(); ++i)
    {
        const double n = std::stod(rows[i][Column(h, "simulated_iterations")]);
        const double m = std::stod(rows[i][Column(h, "testbed_iterations")]);
        const double critical = std::stod(rows[i][Column(h, "ks_critical_5pct")]);
        std::cout << "[measure] CDF " << rows[i][Column(h, "file")] << ": " << n
                  << " simulated and " << m << " testbed iterations, KS "
                  << rows[i][Column(h, "ks_distance")] << " (5 % critical " << critical << ")\n";
        EXPECT_EQ(n, 298); // 300, 2 warm-up
        EXPECT_GE(m, 100);
        EXPECT_NEAR(critical, 1.358 * std::sqrt((n + m) / (n * m)), 1e-3);
        EXPECT_EQ(rows[i][Column(h, "status")], "done");
    }
    EXPECT_NE(test::ReadFile(out + "/report.md").find("5 % critical distance"), std::string::npos);
}
