// link.csv and flows.csv written while the run goes (RunOptions::streamDir, what flumen run
// does): the files are, byte for byte, the outputs a run keeps in memory to the end, in both
// engines, with the same summary; the flow engine's bins taken as they close are the bins kept.
#include "fluid-link-bins.h"
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>

using namespace flumen;

namespace
{

// The same stretches of constant rates, the bins taken at `takeAt` (after the stretches that
// end by then) and at the end.
std::vector<LinkRow>
BinStretches(const std::vector<double>& takeAt)
{
    // (end of the stretch, job bytes/s, cross bytes/s): ends inside bins and on their edges.
    const std::vector<std::array<double, 3>> stretches = {
        { 0.00037, 1e9, 0 }, { 0.0010, 2e9, 5e8 }, { 0.00231, 0, 3e9 }, { 0.0045, 1.5e9, 1.5e9 }
    };
    FluidLinkBins bins(1e-4);
    std::vector<LinkRow> rows;
    double from = 0;
    size_t next = 0;
    for (const auto& [to, job, cross] : stretches)
    {
        // A take inside this stretch adds its part up to the open bin first, as the flow
        // network does.
        while (next < takeAt.size() && takeAt[next] < to)
        {
            bins.Add(from, bins.BinStart(takeAt[next]), job, cross);
            auto taken = bins.Take(takeAt[next++], false);
            rows.insert(rows.end(), taken.begin(), taken.end());
        }
        bins.Add(from, to, job, cross);
        from = to;
    }
    auto rest = bins.Take(from, true);
    rows.insert(rows.end(), rest.begin(), rest.end());
    return rows;
}

} // namespace

TEST(StreamedOutputs, FluidBinsTakenAsTheyCloseAreTheBinsKeptToTheEnd)
{
    const auto whole = BinStretches({});
    const auto taken = BinStretches({ 0.00025, 0.0007, 0.0012, 0.0012, 0.003 });
    ASSERT_EQ(whole.size(), 45u) << "bins up to 4.5 ms";
    ASSERT_EQ(FormatLinkCsv(taken), FormatLinkCsv(whole));
    // By hand: bin 3 holds 70 us at 1 GB/s and 30 us at 2 GB/s of the job, 30 us at 0.5 GB/s
    // of cross traffic.
    EXPECT_EQ(whole[3].jobBytes, 70000u + 60000u);
    EXPECT_EQ(whole[3].crossBytes, 15000u);
}

TEST(StreamedOutputs, FluidBinsFollowAHostBufferFillingAndDraining)
{
    // A host buffer fills at 1 GB/s from empty to its 200 KB (at 0.2 ms), stays full to 0.25
    // ms, then drains at 1 GB/s (empty at 0.45 ms): each 0.1 ms bin's mean and largest level by
    // hand. Taken in the middle of the draining stretch, the bins are the same.
    auto run = [](bool takeEarly)
    {
        FluidLinkBins bins(1e-4);
        bins.Add(0, 0.00025, 0, 0, 0, 1e9, 2e5);
        std::vector<LinkRow> rows;
        if (takeEarly)
        {
            bins.Add(0.00025, bins.BinStart(0.00037), 0, 0, 2e5, -1e9, 2e5);
            rows = bins.Take(0.00037, false);
        }
        bins.Add(0.00025, 0.0006, 0, 0, 2e5, -1e9, 2e5);
        auto rest = bins.Take(0.0006, true);
        rows.insert(rows.end(), rest.begin(), rest.end());
        return rows;
    };
    const auto rows = run(false);
    ASSERT_EQ(rows.size(), 6u);
    const double mean[] = { 5e4, 1.5e5, 1.875e5, 1e5, 1.25e4, 0 };
    const uint32_t max[] = { 100000, 200000, 200000, 150000, 50000, 0 };
    for (size_t i = 0; i < rows.size(); ++i)
    {
        EXPECT_NEAR(rows[i].queueMeanBytes, mean[i], 1) << "bin " << i;
        EXPECT_NEAR(rows[i].queueMaxBytes, max[i], 1) << "bin " << i;
    }
    EXPECT_EQ(FormatLinkCsv(run(true)), FormatLinkCsv(rows));
}

TEST(StreamedOutputs, StreamedFilesAreTheOutputsKeptInMemoryInBothEngines)
{
    for (const std::string engine : { "flow", "packet" })
    {
        // RoCE beside web-search behind a FIFO: at flow level the standing queues, whose
        // rates change between the flow events.
        Scenario s = test::Resolve(
            { { "topology",
                { { "configuration", "B" }, { "switch_queue", { { "discipline", "fifo" } } } } },
              { "job", { { "model", "resnet50" }, { "transport", "rdma" } } },
              { "cross_traffic", { { "type", "websearch" }, { "load_gbps", 18 } } },
              { "outputs", { { "link_bin_us", 50 } } },
              { "simulation", { { "engine", engine }, { "progress_interval_s", 0 } } } });
        test::TempDir dir;
        RunOptions streamed;
        streamed.fixedDurationS = engine == "flow" ? 1.234567 : 0.0634567;
        streamed.streamDir = dir.Path();
        RunOptions kept;
        kept.fixedDurationS = streamed.fixedDurationS;
        const RunOutput a = RunScenario(s, streamed);
        const RunOutput b = RunScenario(s, kept);
        EXPECT_EQ(a.streamed, std::vector<std::string>({ "flows.csv", "link.csv" })) << engine;
        EXPECT_TRUE(a.link.empty() && a.flows.empty()) << engine;
        EXPECT_TRUE(b.streamed.empty()) << engine;
        ASSERT_EQ(b.link.size(), static_cast<size_t>(streamed.fixedDurationS / 50e-6) + 1)
            << engine << ": bins up to the end";
        ASSERT_GT(b.flows.size(), 20u) << engine;
        EXPECT_EQ(test::ReadFile(dir.Path() + "/link.csv"), FormatLinkCsv(b.link)) << engine;
        EXPECT_EQ(test::ReadFile(dir.Path() + "/flows.csv"), FormatFlowsCsv(b.flows)) << engine;
        EXPECT_EQ(FormatIterationsCsv(a.rows), FormatIterationsCsv(b.rows)) << engine;
        // The summary's flow figures are gathered from the pieces: the same to the bit.
        auto figures = [](const RunOutput& o)
        {
            nlohmann::json j = ToJson(o.summary);
            return j["cross_traffic"].dump();
        };
        EXPECT_EQ(figures(a), figures(b)) << engine;
    }
}

TEST(StreamedOutputs, FlumenRunLeavesOnlyItsOutputFolder)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("s.json", R"({
      "job": {"model": "resnet50", "iterations": 3, "warmup_iterations": 1},
      "cross_traffic": {"type": "iperf", "load_gbps": 10},
      "outputs": {"link_bin_us": 10},
      "simulation": {"engine": "flow"}})");
    auto r = test::RunFlumen(scenario + " --quiet --out " + dir.Path() + "/out/");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir.Path()))
    {
        names.push_back(e.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, std::vector<std::string>({ "out", "s.json" })) << "no staging folder left";
    const auto lines = test::Lines(test::ReadFile(dir.Path() + "/out/link.csv"));
    ASSERT_GT(lines.size(), 3000u) << "10 us bins over more than 30 ms";
    EXPECT_EQ(lines[2].substr(0, 9), "0.000010,");
}
