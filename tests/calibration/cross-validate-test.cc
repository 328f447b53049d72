// Fitting testbed parameters end to end, by a twin experiment: two synthetic series are
// "measured" by the flow engine at a known TCP host ceiling; a fit on one series must find that
// value, and the other series, predicted out of sample, must match. Then the same through
// `flumen calibrate --fit` on the testbed's own TCP series, and bad options; and which fold
// predicts a series of CDFs alone.
#include "cross-validation.h"
#include "test-support.h"
#include "twin-series.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace fs = std::filesystem;
using namespace flumen;
using nlohmann::json;

namespace
{

using test::kManifests;

const std::string kCalibration = test::kShippedCalibration;
// Plans that do not depend on the testbed's values: 8 iterations always, one seed.
const std::string kFixedPlan = " --engine flow --seeds 1 --max-sim-s 1000 --budget-iterations 0";

using test::SimulatedRows;
using test::WriteTwinSeries;

TEST(CrossValidate, ATwinExperimentRecoversTheTrueValueAndPredictsTheOtherSeries)
{
    test::TempDir dir;
    // The truth: a host ceiling of 8.75 Gbps, a point of the 5:20 search grid.
    const std::string truth
        = test::WriteCalibrationWith(dir, "truth.json", { { "job.tcp.host_ceiling_gbps", 8.75 } });
    test::SeriesRows placeholder = { { 2, { 1, 1, 2 } }, { 6, { 1, 1, 6 } }, { 12, { 1, 1, 12 } } };
    test::SeriesRows placeholderB
        = { { 4, { 1, 1, 4 } }, { 9, { 1, 1, 9 } }, { 15, { 1, 1, 15 } } };
    std::string a = WriteTwinSeries(dir, "twin-a", placeholder);
    std::string b = WriteTwinSeries(dir, "twin-b", placeholderB);
    auto r = test::RunValidate(a + " " + b + " --out " + dir.Path() + "/measure --calibration "
                               + truth + kFixedPlan);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto measuredA = SimulatedRows(dir.Path() + "/measure/points.csv", "twin-a");
    auto measuredB = SimulatedRows(dir.Path() + "/measure/points.csv", "twin-b");
    ASSERT_EQ(measuredA.size(), 3u);
    ASSERT_EQ(measuredB.size(), 3u);
    WriteTwinSeries(dir, "twin-a", measuredA);
    WriteTwinSeries(dir, "twin-b", measuredB);

    const std::string out = dir.Path() + "/cv";
    r = test::RunValidate(a + " " + b + " --out " + out + " --calibration " + kCalibration
                          + kFixedPlan + " --fit-on twin-a --fit job.tcp.host_ceiling_gbps=5:20");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    auto folds = test::Lines(test::ReadFile(out + "/folds.csv"));
    ASSERT_EQ(folds.size(), 3u) << test::ReadFile(out + "/folds.csv"); // header, fold, in sample
    EXPECT_NE(folds[1].find("twin-b,twin-a,8.75,"), std::string::npos) << folds[1];
    // Out of sample, twin-b at the value fitted on twin-a is its own measurement.
    auto predicted = SimulatedRows(out + "/points.csv", "twin-b");
    ASSERT_EQ(predicted.size(), 3u);
    for (const auto& [load, m] : measuredB)
    {
        EXPECT_NEAR(predicted[load][0], m[0], 1e-9 * m[0]) << load;
        EXPECT_NEAR(predicted[load][2], m[2], 1e-9 * m[2]) << load;
    }
    EXPECT_TRUE(SimulatedRows(out + "/points.csv", "twin-a").empty()); // judged in sample only
    const std::string report = test::ReadFile(out + "/report.md");
    EXPECT_NE(report.find("**Out of sample.**"), std::string::npos);
    EXPECT_NE(test::ReadFile(out + "/in-sample/report.md").find("**In sample"), std::string::npos);
    EXPECT_EQ(SimulatedRows(out + "/in-sample/points.csv", "twin-a").size(), 3u);

    // Leave one series out: both folds find the truth. Every run of the fits above is reused.
    r = test::RunValidate(a + " " + b + " --out " + out + " --calibration " + kCalibration
                          + kFixedPlan + " --cross-validate --fit job.tcp.host_ceiling_gbps=5:20");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    folds = test::Lines(test::ReadFile(out + "/folds.csv"));
    ASSERT_EQ(folds.size(), 4u);
    for (int i : { 1, 2, 3 })
    {
        EXPECT_NE(folds[i].find(",8.75,"), std::string::npos) << folds[i];
    }
    EXPECT_NE(test::ReadFile(out + "/folds.md").find("| job.tcp.host_ceiling_gbps | 8.75 | 8.75 |"),
              std::string::npos);

    // Bad input: nothing runs, nothing is written.
    const std::string none = dir.Path() + "/none";
    for (const std::string& bad :
         { std::string(" --cross-validate"),
           std::string(" --fit-on nosuch --fit job.tcp.host_ceiling_gbps=5:20"),
           std::string(" --fit-on twin-a,twin-b --fit job.tcp.host_ceiling_gbps=5:20"),
           std::string(" --cross-validate --fit topology.switch_queue.buffer_bytes=1e5:1e6"),
           std::string(" --fit job.tcp.host_ceiling_gbps=5:20"),
           std::string(" --cross-validate --fit-on twin-a --fit job.tcp.host_ceiling_gbps=5:20") })
    {
        r = test::RunValidate(a + " " + b + " --out " + none + kFixedPlan + bad);
        EXPECT_EQ(r.exitCode, 2) << bad << "\n" << r.output;
        EXPECT_FALSE(fs::exists(none)) << bad;
    }
}

TEST(CrossValidate, CalibrateFitWritesTheFittedValuesThatValidateThenApplies)
{
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const std::string out = dir.Path() + "/cal.json";
    const std::string args
        = kManifests + "websearch-tcp-configB.json --out " + out + " --calibration " + kCalibration
          + " --engine flow --models resnet50 --fit job.tcp.host_ceiling_gbps=5:20";
    auto r = test::RunCalibrate(args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    json cal = json::parse(test::ReadFile(out));
    const json& t = cal.at("testbed");
    const double fitted = t["values"]["job.tcp.host_ceiling_gbps"];
    EXPECT_GE(fitted, 5);
    EXPECT_LE(fitted, 20);
    EXPECT_LE(t["at_fit"]["loss"].get<double>(), t["at_start"]["loss"].get<double>());
    EXPECT_EQ(t["fitted_on"], json::array({ "websearch-tcp-configB" }));
    EXPECT_EQ(t["engine"], "flow");
    EXPECT_EQ(cal["models"], json::parse(test::ReadFile(kCalibration))["models"]); // kept
    // Resumable: the same fit again runs nothing new.
    r = test::RunCalibrate(args);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    int batches = 0;
    for (const auto& line : test::Lines(r.output))
    {
        if (line.find(" to run, ") != std::string::npos)
        {
            ++batches;
            EXPECT_NE(line.find(", 0 to run, "), std::string::npos) << line;
        }
    }
    EXPECT_GT(batches, 0) << r.output;
    // validate --calibration applies the fitted value and says so.
    r = test::RunValidate(kManifests + "websearch-tcp-configB.json --models resnet50 --quick --out "
                          + dir.Path() + "/v --engine flow --calibration " + out);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    EXPECT_NE(test::ReadFile(dir.Path() + "/v/report.md")
                  .find(fmt::format("`job.tcp.host_ceiling_gbps` = {}", json(fitted).dump())),
              std::string::npos);

    for (const std::string& bad :
         { std::string(" --fit job.model=1:2"),
           std::string(" --fit job.tcp.host_ceiling_gbps=5:20 --check"),
           std::string(" --fit-on websearch-tcp-configB"),
           std::string(" --fit job.tcp.host_ceiling_gbps=5:20 --fit-on nosuch"),
           std::string(" --fit job.tcp.host_ceiling_gbps=5:20 --objective fct=1") })
    {
        r = test::RunCalibrate(kManifests + "websearch-tcp-configB.json --out " + dir.Path()
                               + "/bad.json" + bad);
        EXPECT_EQ(r.exitCode, 2) << bad << "\n" << r.output;
        EXPECT_FALSE(fs::exists(dir.Path() + "/bad.json"));
    }
}

} // namespace

TEST(CrossValidate, TheSplitFittedOnOneConfigurationIsFoundAndPredictsTheOther)
{
    // Twin series of ResNet-50 over RDMA on the testbed's deep FIFO, measured by the flow engine
    // at a known split: a backward share of 0.3 with the shipped compute time. Each fold fits the
    // share on one configuration's loaded points, with the compute time solved on the idle runs
    // for each candidate, and must match that configuration's points and its idle runs. B's
    // web-search points identify the share (0.05 and 0.5 miss them by 10 % and more); A's iperf
    // points fit every share up to 0.3 alike, so the fold fitted on A is judged on its own points
    // only. The fold fitted on B finds the truth and predicts A out of sample.
    test::TempDir dir;
    json truth = json::parse(test::ReadFile(kCalibration));
    truth["models"]["resnet50"]["backward_share"] = 0.3;
    const std::string truthFile = dir.Write("truth.json", truth.dump());
    // The testbed's switch: a deep FIFO, no marks (validation/manifests).
    const json deepFifo = {
        { "topology",
          { { "switch_queue", { { "discipline", "fifo" }, { "buffer_bytes", 296875000 } } } } }
    };
    test::TwinSetup b{ "B", "rdma", "websearch", 3, deepFifo };
    test::TwinSetup a{ "A", "rdma", "iperf", 4, deepFifo };
    const test::SeriesRows rowsB
        = { { 0, { 1, 1, 0 } }, { 14, { 1, 1, 14 } }, { 19, { 1, 1, 19 } } };
    const test::SeriesRows rowsA
        = { { 0, { 1, 1, 0 } }, { 17, { 1, 1, 17 } }, { 21, { 1, 1, 21 } } };
    std::string twinB = WriteTwinSeries(dir, "twin-b", rowsB, b);
    std::string twinA = WriteTwinSeries(dir, "twin-a", rowsA, a);
    auto r = test::RunValidate(twinA + " " + twinB + " --out " + dir.Path()
                               + "/measure --calibration " + truthFile + kFixedPlan);
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const std::string measured = dir.Path() + "/measure/points.csv";
    auto measuredA = SimulatedRows(measured, "twin-a");
    auto measuredB = SimulatedRows(measured, "twin-b");
    ASSERT_EQ(measuredA.size(), 3u);
    ASSERT_EQ(measuredB.size(), 3u);
    WriteTwinSeries(dir, "twin-a", measuredA, a);
    WriteTwinSeries(dir, "twin-b", measuredB, b);
    {
        // A published ring bandwidth in B: the fold that leaves B out predicts its run too.
        json manifest = json::parse(test::ReadFile(twinB));
        manifest["ring_bandwidth"] = { { { "model", "resnet50" },
                                         { "requested_gbps", 14 },
                                         { "dl_only_gbps", 9 },
                                         { "dl_shared_gbps", 8 },
                                         { "source", "twin experiment" } } };
        dir.Write("twin-b.json", manifest.dump());
    }
    EXPECT_GT(measuredB[19][0], 1.3 * measuredB[0][0]); // the loaded points slow the ring
    EXPECT_GT(measuredA[21][0], 1.3 * measuredA[0][0]);

    const std::string out = dir.Path() + "/cv";
    r = test::RunValidate(twinA + " " + twinB + " --out " + out + " --calibration " + kCalibration
                          + kFixedPlan
                          + " --cross-validate --folds configuration --fit-split 0.05:0.95");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const auto rows = test::ReadCsvRows(out + "/folds.csv");
    ASSERT_EQ(rows.size(), 3u) << test::ReadFile(out + "/folds.csv"); // 2 folds + in sample
    for (const auto& row : rows)
    {
        EXPECT_EQ(row.at("model"), "resnet50");
        EXPECT_LT(std::stod(row.at("loss_at_fit")), 1e-3) << row.at("fold") << ": its own points";
        std::stringstream idle(row.at("idle_errors_pct"));
        int held = 0;
        for (double e; idle >> e; ++held)
        {
            EXPECT_LE(std::abs(e), 0.3) << row.at("fold") << ": idle runs held";
        }
        EXPECT_EQ(held, 2) << row.at("fold");
        if (row.at("fitted_on") != "twin-a")
        {
            EXPECT_NEAR(std::stod(row.at("backward_share")), 0.3, 0.06) << row.at("fold");
        }
    }
    // Each fold's profiles are a calibration file that validate reads.
    EXPECT_TRUE(fs::exists(out + "/folds/configuration-A.calibration.json"));
    EXPECT_TRUE(fs::exists(out + "/folds/configuration-B.calibration.json"));
    // A out of sample, at the share fitted on B: its own measurement.
    auto predicted = SimulatedRows(out + "/points.csv", "twin-a");
    ASSERT_EQ(predicted.size(), measuredA.size());
    for (const auto& [load, m] : measuredA)
    {
        EXPECT_NEAR(predicted[load][0], m[0], 0.03 * m[0]) << "twin-a at " << load;
    }
    EXPECT_NE(test::ReadFile(out + "/folds.md").find("compute/communication split"),
              std::string::npos);
    // The ring bandwidth's run, out of sample: in the headline report, simulated.
    const auto rings = test::ReadCsvRows(out + "/ring-bandwidth.csv");
    ASSERT_EQ(rings.size(), 1u) << test::ReadFile(out + "/ring-bandwidth.csv");
    EXPECT_EQ(rings[0].at("series"), "twin-b");
    EXPECT_GT(std::stod(rings[0].at("simulated_s1_to_s3_injection_gbps")), 1.0);
    EXPECT_NE(test::ReadFile(out + "/report.md").find("The ring's own bandwidth"),
              std::string::npos);
}

TEST(FoldSplit, ACdfOnlySeriesIsPredictedByItsConfigurationsFoldAndNeverFittedOn)
{
    // The shipped iteration CDFs are a series of configuration B with no points: the fold that
    // leaves B out predicts them beside B's points (out of sample); no fold fits on them, and
    // leaving one series out does not make them a fold of their own.
    REQUIRE_TESTBED_DATA();
    test::TempDir dir;
    const test::SeriesRows rows = { { 0, { 1, 1, 0 } }, { 14, { 1.2, 1.3, 14 } } };
    ValidationOptions o;
    o.manifests = { WriteTwinSeries(dir, "twin-a", rows, { "A", "rdma", "iperf", 4 }),
                    WriteTwinSeries(dir, "twin-b", rows, { "B", "rdma", "websearch", 3 }),
                    kManifests + "iteration-cdfs.json" };
    o.calibrationFile = kCalibration;
    CrossValidationOptions cv;
    cv.split = true;
    cv.foldBy = "configuration";
    const std::vector<SeriesSplit> byConfiguration = SplitSeries(o, cv);
    ASSERT_EQ(byConfiguration.size(), 2u);
    using Names = std::vector<std::string>;
    EXPECT_EQ(byConfiguration[0].predicted, Names{ "twin-a" });
    EXPECT_EQ(byConfiguration[0].fitOn, Names{ "twin-b" });
    EXPECT_EQ(byConfiguration[1].predicted, (Names{ "twin-b", "iteration-cdfs" }));
    EXPECT_EQ(byConfiguration[1].fitOn, Names{ "twin-a" });
    cv.foldBy = "series";
    const std::vector<SeriesSplit> bySeries = SplitSeries(o, cv);
    ASSERT_EQ(bySeries.size(), 2u);
    for (const SeriesSplit& split : bySeries)
    {
        EXPECT_EQ(split.predicted.size() + split.fitOn.size(), 2u) << split.name;
    }
}
