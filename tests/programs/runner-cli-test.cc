// flumen-run as a user meets it: bad scenarios exit with 2, name the key, and leave no
// output folder; a good one writes both files; same scenario and seed, same bytes.
#include "run-outputs.h"
#include "test-support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

using namespace flumen;
namespace fs = std::filesystem;

namespace
{

// A short scenario: a small model over TCP in configuration B with iperf at 15 Gbps.
const char* kSmall = R"({
  "name": "small",
  "seed": 7,
  "job": {"model": "small", "iterations": 3, "warmup_iterations": 1},
  "models": {"small": {"parameters": 1000000, "compute_s": 0.004, "compute_jitter_cv": 0.05}},
  "cross_traffic": {"type": "iperf", "load_gbps": 15, "streams": 3},
  "simulation": {"progress_interval_s": 0}
})";

} // namespace

TEST(RunnerCli, BadScenariosExitTwoNameTheKeyAndWriteNothing)
{
    test::TempDir dir;
    struct Case
    {
        std::string name, json, key;
    };
    std::vector<Case> cases = {
        { "unknown-key", R"({"job": {"iteratons": 3}})", "job.iteratons" },
        { "wrong-type", R"({"cross_traffic": {"load_gbps": "high"}})", "cross_traffic.load_gbps" },
        { "negative-load", R"({"cross_traffic": {"type": "iperf", "load_gbps": -1}})",
          "cross_traffic.load_gbps" },
        { "load-above-link", R"({"cross_traffic": {"type": "iperf", "load_gbps": 26}})",
          "cross_traffic.load_gbps" },
        { "zero-iterations", R"({"job": {"iterations": 0}})", "job.iterations" },
        { "unknown-model", R"({"job": {"model": "alexnet"}})", "job.model" },
        { "bad-configuration", R"({"topology": {"configuration": "C"}})",
          "topology.configuration" },
    };
    for (const auto& c : cases)
    {
        std::string file = dir.Write(c.name + ".json", c.json);
        std::string out = dir.Path() + "/out-" + c.name;
        auto r = test::RunFlumen(file + " --out " + out);
        EXPECT_EQ(r.exitCode, 2) << c.name << ": " << r.output;
        EXPECT_NE(r.output.find("key '" + c.key + "'"), std::string::npos)
            << c.name << ": " << r.output;
        EXPECT_NE(r.output.find(file), std::string::npos) << c.name << ": " << r.output;
        EXPECT_FALSE(fs::exists(out)) << c.name;
    }
    // A bad --set is named too.
    std::string ok = dir.Write("ok.json", "{}");
    auto r = test::RunFlumen(ok + " --set job.iterations=-4 --out " + dir.Path() + "/o");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("key 'job.iterations'"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.Path() + "/o"));
    // Broken JSON names the line.
    std::string broken = dir.Write("broken.json", "{\n\"seed\": 1,,\n}");
    r = test::RunFlumen(broken + " --out " + dir.Path() + "/b");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(broken + ":2:"), std::string::npos) << r.output;
}

TEST(RunnerCli, TimeLimitHitIsAnErrorWithNoOutputs)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    std::string out = dir.Path() + "/out";
    auto r = test::RunFlumen(file + " --set simulation.max_time_s=0.002 --out " + out);
    EXPECT_EQ(r.exitCode, 1) << r.output;
    EXPECT_NE(r.output.find("simulation.max_time_s"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(out));
}

// The progress line says how the run's pace compares with real time, either way: a flow-level
// run is far faster (it once printed "0x real time"). The first lines, a millisecond in, carry
// the set-up's wall time and are slower.
TEST(RunnerCli, ProgressLinesSayHowMuchFasterOrSlowerThanRealTime)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    auto r = test::RunFlumen(file + " --set simulation.engine=flow --set job.iterations=300"
                             + " --set simulation.progress_interval_s=1e-9 --out " + dir.Path()
                             + "/out");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const size_t first = r.output.find("[flumen] simulated");
    const size_t last = r.output.rfind("[flumen] simulated");
    ASSERT_NE(first, std::string::npos) << r.output;
    auto line = [&r](size_t at) { return r.output.substr(at, r.output.find('\n', at) - at); };
    EXPECT_NE(line(first).find("x slower than real time)"), std::string::npos) << line(first);
    EXPECT_NE(line(last).find("x faster than real time)"), std::string::npos) << line(last);
    EXPECT_EQ(r.output.find("(0x"), std::string::npos);
}

// Web-search offered beyond what its sender's link carries with its headers piles up without
// bound: the run says so before it starts; just below, it does not.
TEST(RunnerCli, CrossTrafficBeyondItsSendersLinkIsNoted)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    const std::string common = " --set simulation.engine=flow --set cross_traffic.type=websearch"
                               " --set simulation.max_time_s=0.05"
                               " --set simulation.on_max_time=report --out ";
    auto over = test::RunFlumen(file + common + dir.Path() + "/over"
                                + " --set cross_traffic.load_gbps=24.5");
    EXPECT_EQ(over.exitCode, 0) << over.output;
    EXPECT_NE(over.output.find("flumen: note: websearch cross traffic offered at 24.50 Gbps "
                               "takes 25.41 Gbps on the wire"),
              std::string::npos)
        << over.output;
    auto under = test::RunFlumen(file + common + dir.Path() + "/under"
                                 + " --set cross_traffic.load_gbps=24");
    EXPECT_EQ(under.exitCode, 0) << under.output;
    EXPECT_EQ(under.output.find("pile up"), std::string::npos) << under.output;
}

// With on_max_time = report, a job cut short still writes its outputs, says it did not finish,
// and bounds its mean from below. Same seed, same trajectory up to the cut: the bound must not
// exceed the mean of the whole run.
TEST(RunnerCli, TimeLimitReportedGivesALowerBoundOfTheWholeRunsMean)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    auto full = test::RunFlumen(file + " --out " + dir.Path() + "/full");
    ASSERT_EQ(full.exitCode, 0) << full.output;
    auto whole = nlohmann::json::parse(test::ReadFile(dir.Path() + "/full/summary.json"));
    EXPECT_TRUE(whole["job_finished"].get<bool>());
    EXPECT_FALSE(whole.contains("iteration_time_lower_bound_s"));
    const double mean = whole["iteration_time_s"]["mean"].get<double>();
    const double end = whole["simulated_time_s"].get<double>();
    // Cut inside the last iteration (strict bound), and inside the warm-up (approximate).
    for (double at : { end - 0.3 * mean, 0.5 * mean })
    {
        std::string out = dir.Path() + fmt::format("/cut{}", at);
        auto r = test::RunFlumen(file
                                 + fmt::format(" --set simulation.max_time_s={} --set "
                                               "simulation.on_max_time=report --out {}",
                                               at, out));
        ASSERT_EQ(r.exitCode, 0) << r.output;
        EXPECT_NE(r.output.find("UNFINISHED"), std::string::npos) << r.output;
        auto cut = nlohmann::json::parse(test::ReadFile(out + "/summary.json"));
        EXPECT_FALSE(cut["job_finished"].get<bool>());
        EXPECT_LT(cut["iterations_completed"].get<int>(), 3);
        const double bound = cut["iteration_time_lower_bound_s"].get<double>();
        EXPECT_GT(bound, 0.0);
        EXPECT_LE(bound, mean * (1 + 1e-9)) << "cut at " << at;
        const bool inWarmup = at < mean;
        EXPECT_EQ(cut["iteration_time_lower_bound_strict"].get<bool>(), !inWarmup);
        // Cut in the warm-up, no measurement window ever opened: the rates cover the whole
        // run instead of an empty window, so the cross traffic's rate is still measured.
        EXPECT_EQ(cut.value("measurement_window_whole_run", false), inWarmup);
        EXPECT_GT(cut["cross_traffic"]["achieved_gbps"].get<double>(), 1.0) << "cut at " << at;
        if (inWarmup)
        {
            EXPECT_EQ(cut["measurement_window_s"][0].get<double>(), 0.0);
        }
        else
        {
            // Two of the three iterations' worth of time have passed: not a trivial bound.
            EXPECT_GT(bound, 0.5 * mean);
        }
    }
}

TEST(RunnerCli, SameScenarioAndSeedGiveIdenticalIterations)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    auto a = test::RunFlumen(file + " --out " + dir.Path() + "/a");
    auto b = test::RunFlumen(file + " --out " + dir.Path() + "/b");
    ASSERT_EQ(a.exitCode, 0) << a.output;
    ASSERT_EQ(b.exitCode, 0) << b.output;
    std::string csvA = test::ReadFile(dir.Path() + "/a/iterations.csv");
    std::string csvB = test::ReadFile(dir.Path() + "/b/iterations.csv");
    auto rows = ParseIterationsCsv(csvA, "a");
    EXPECT_EQ(rows.size(), 9u); // 3 iterations x 3 workers
    EXPECT_EQ(csvA, csvB);
    // The summary printed for people and the file for programs are both there.
    EXPECT_NE(a.output.find("iteration time"), std::string::npos) << a.output;
    auto summary = nlohmann::json::parse(test::ReadFile(dir.Path() + "/a/summary.json"));
    for (const char* k : { "iterations", "iteration_time_s", "cross_traffic", "dl_goodput_gbps",
                           "bottleneck", "simulated_time_s", "wall_time_s", "scenario" })
    {
        EXPECT_TRUE(summary.contains(k)) << k;
    }
    EXPECT_EQ(summary["iterations"], 2);
    EXPECT_EQ(summary["scenario"]["seed"], 7);
    // A different seed draws different compute jitter.
    auto c = test::RunFlumen(file + " --set seed=8 --out " + dir.Path() + "/c");
    ASSERT_EQ(c.exitCode, 0) << c.output;
    EXPECT_NE(csvA, test::ReadFile(dir.Path() + "/c/iterations.csv"));
}

// The event scheduler is a speed choice only: ns-3's schedulers all order events of equal
// time by insertion, so every one gives the same bytes (calendar and list, slow with TCP's
// many timers, are left out to keep the test short).
TEST(RunnerCli, EverySchedulerGivesTheSameIterations)
{
    test::TempDir dir;
    std::string file = dir.Write("small.json", kSmall);
    std::string reference;
    for (const char* scheduler : { "map", "heap", "priority_queue" })
    {
        std::string out = dir.Path() + "/" + scheduler;
        auto r = test::RunFlumen(
            fmt::format("{} --set simulation.scheduler={} --out {}", file, scheduler, out));
        ASSERT_EQ(r.exitCode, 0) << r.output;
        std::string csv = test::ReadFile(out + "/iterations.csv");
        EXPECT_EQ(ParseIterationsCsv(csv, scheduler).size(), 9u) << scheduler;
        auto summary = nlohmann::json::parse(test::ReadFile(out + "/summary.json"));
        EXPECT_EQ(summary["scenario"]["simulation"]["scheduler"], scheduler);
        if (reference.empty())
        {
            reference = csv;
        }
        EXPECT_EQ(csv, reference) << scheduler;
    }
}

TEST(RunnerCli, UnwritableOutputIsRefusedBeforeSimulating)
{
    // The quickstart would simulate for a minute: the refusal comes first, with no progress
    // line and nothing written.
    test::TempDir dir;
    std::string file = dir.Write("file", "not a folder");
    auto r = test::RunFlumen(std::string(FLUMEN_SOURCE_DIR) + "/scenarios/quickstart.json --out "
                             + file + "/out");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(file + " is not a folder"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("[flumen] simulated"), std::string::npos) << r.output;
    // A number JSON cannot hold, from the command line, is bad input too (it aborted once).
    r = test::RunFlumen(std::string(FLUMEN_SOURCE_DIR) + "/scenarios/quickstart.json --out "
                        + dir.Path() + "/o --set cross_traffic.load_gbps=1e309");
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find("key 'cross_traffic.load_gbps'"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir.Path() + "/o"));
}

TEST(RunnerCli, PcapCapturesTheChosenHostsLinksAndNothingOnBadInput)
{
    // 2 ms of 1 Gbps iperf from S2 to S0 (configuration B), no job: S0 and S2 captured.
    test::TempDir dir;
    const std::string scenario
        = dir.Write("p.json", R"({"job": {"enabled": false}, "simulation": {"duration_s": 0.002},
                     "cross_traffic": {"type": "iperf", "load_gbps": 1, "streams": 1},
                     "outputs": {"pcap_hosts": "S0,S2"}})");
    const std::string out = dir.Path() + "/out";
    auto r = test::RunFlumen(scenario + " --out " + out + " --quiet");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    for (const std::string host : { "S0", "S2" })
    {
        const std::string pcap = test::ReadFile(out + "/" + host + ".pcap");
        ASSERT_GE(pcap.size(), 24u) << host;
        uint32_t magic = 0, linkType = 0;
        std::memcpy(&magic, pcap.data(), 4);
        std::memcpy(&linkType, pcap.data() + 20, 4);
        EXPECT_EQ(magic, 0xa1b2c3d4u) << host; // libpcap, microseconds
        EXPECT_EQ(linkType, 9u) << host;       // PPP, as ns-3's point-to-point links write
        // Walk the records: each header's captured length brings the next one.
        size_t at = 24, records = 0, wire = 0;
        while (at + 16 <= pcap.size())
        {
            uint32_t incl = 0, orig = 0;
            std::memcpy(&incl, pcap.data() + at + 8, 4);
            std::memcpy(&orig, pcap.data() + at + 12, 4);
            at += 16 + incl;
            wire += orig;
            ++records;
        }
        EXPECT_EQ(at, pcap.size()) << host;
        std::cout << "[measure] " << host << ".pcap: " << records << " packets, " << wire
                  << " bytes on the wire\n";
        // 1 Gbps for 2 ms is 250 kB of data, in 1500-byte frames (ACKs the other way).
        EXPECT_GT(wire, 100000u) << host;
    }
    EXPECT_FALSE(fs::exists(out + ".pcap.tmp")); // no staging left beside it
    for (const auto& e : fs::directory_iterator(dir.Path()))
    {
        EXPECT_EQ(e.path().filename().string().find(".pcap.tmp."), std::string::npos);
    }
    // Bad hosts, and the flow engine (no packets): exit 2, nothing written.
    for (const std::string set :
         { "outputs.pcap_hosts=S9", "outputs.pcap_hosts=S0,x", "outputs.pcap_hosts=S0,,S2",
           "outputs.pcap_hosts=S99999999999999999999999", "simulation.engine=flow" })
    {
        r = test::RunFlumen(scenario + " --set " + set + " --out " + dir.Path() + "/bad");
        EXPECT_EQ(r.exitCode, 2) << set << r.output;
        EXPECT_NE(r.output.find("outputs.pcap_hosts"), std::string::npos) << r.output;
        EXPECT_FALSE(fs::exists(dir.Path() + "/bad"));
    }
}
