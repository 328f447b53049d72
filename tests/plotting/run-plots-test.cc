// flumen plot: each picture is drawn from a short run's own files and carries their data; a
// sweep folder gets its key against the mean and p99; a folder that is neither is refused.
#include "run-plots.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

bool
HaveGnuplot()
{
    return std::system("command -v gnuplot > /dev/null 2>&1") == 0;
}

// Data lines of a .dat file (its # comments left out).
std::vector<std::string>
DataLines(const fs::path& path)
{
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
    {
        if (!line.empty() && line[0] != '#')
        {
            lines.push_back(line);
        }
    }
    return lines;
}

void
ExpectPicture(const PlotResult& r, const std::string& png)
{
    if (!HaveGnuplot())
    {
        return; // the data and script are checked; the PNG needs gnuplot
    }
    EXPECT_NE(std::find(r.drawn.begin(), r.drawn.end(), png), r.drawn.end()) << png;
    std::error_code ec;
    EXPECT_GT(fs::file_size(fs::path(r.folder) / png, ec), 2000u) << png;
}

// A short packet run of a small model beside iperf in configuration B: link.csv and ring.csv.
const char* kRun = R"({
  "topology": {"configuration": "B"},
  "job": {"model": "small", "iterations": 4, "warmup_iterations": 1},
  "models": {"small": {"parameters": 2000000, "compute_s": 0.01}},
  "cross_traffic": {"type": "iperf", "load_gbps": 10, "streams": 2},
  "outputs": {"link_bin_us": 200},
  "simulation": {"progress_interval_s": 0}})";

} // namespace

TEST(Plot, ARunsPicturesCarryItsOwnData)
{
    test::TempDir dir;
    const std::string out = dir.Path() + "/run";
    auto run = test::RunFlumen(dir.Write("run.json", kRun) + " --quiet --out " + out);
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const PlotResult r = PlotRunFolder(out);
    EXPECT_TRUE(r.problem.empty() || !HaveGnuplot()) << r.problem;
    const fs::path plots = fs::path(out) / "plots";
    ASSERT_EQ(r.folder, plots.string());
    // The bottleneck: one row per bin of link.csv.
    const auto link = test::ReadCsvRows(out + "/link.csv");
    const auto bottleneck = DataLines(plots / "bottleneck.dat");
    EXPECT_EQ(bottleneck.size(), link.size());
    ASSERT_FALSE(link.empty());
    EXPECT_EQ(bottleneck.front().substr(0, bottleneck.front().find(' ')),
              link.front().at("time_s"));
    // Each ring hop over one measured iteration: its bins, three hops each.
    const auto hops = DataLines(plots / "ring-hops.dat");
    ASSERT_GT(hops.size(), 10u);
    std::istringstream first(hops.front());
    double t = -1, a = -1, b = -1, c = -1;
    first >> t >> a >> b >> c;
    EXPECT_GE(t, 0);
    EXPECT_GE(c, 0) << hops.front();
    // The CDF: every measured iteration of every worker (3 measured x 3 workers).
    const auto cdf = DataLines(plots / "iteration-cdf.0.dat");
    EXPECT_EQ(cdf.size(), 9u);
    EXPECT_EQ(cdf.back().substr(cdf.back().find(' ') + 1), "1.000000");
    // The script draws each from its data; one job: no bands.
    std::ifstream gp(plots / "plots.gp");
    std::stringstream script;
    script << gp.rdbuf();
    for (const char* name : { "bottleneck.dat", "ring-hops.dat", "iteration-cdf.0.dat" })
    {
        EXPECT_NE(script.str().find(name), std::string::npos) << name;
    }
    EXPECT_NE(std::find_if(r.skipped.begin(), r.skipped.end(),
                           [](const std::string& s) { return s.rfind("jobs.png", 0) == 0; }),
              r.skipped.end());
    for (const char* png : { "bottleneck.png", "ring-hops.png", "iteration-cdf.png" })
    {
        ExpectPicture(r, png);
    }
}

TEST(Plot, SeveralJobsGetABandEachAtFlowLevelToo)
{
    test::TempDir dir;
    const std::string scenario = dir.Write("jobs.json", R"({
      "topology": {"hosts": 4, "leaves": 2, "spines": 1, "oversubscription": 2},
      "job": {"model": "resnet50", "iterations": 4, "warmup_iterations": 1},
      "jobs": [{"name": "a", "hosts": "S0,S2"}, {"name": "b", "hosts": "S1,S3", "start_s": 0.05}],
      "simulation": {"engine": "flow", "progress_interval_s": 0}})");
    const std::string out = dir.Path() + "/run";
    auto run = test::RunFlumen(scenario + " --quiet --out " + out + " --plot");
    ASSERT_EQ(run.exitCode, 0) << run.output;
    const fs::path plots = fs::path(out) / "plots";
    // Each job's worker 0: a compute box per iteration, 4 each.
    const auto compute = DataLines(plots / "jobs-compute.dat");
    ASSERT_EQ(compute.size(), 8u);
    EXPECT_EQ(compute.front().substr(0, 2), "0 ");
    EXPECT_EQ(compute.back().substr(0, 2), "1 ");
    EXPECT_TRUE(fs::exists(plots / "iteration-cdf.1.dat"));
    // The flow engine's ring.csv: both jobs' hops (two of each 2-rank ring).
    const auto ring = test::ReadCsvRows(out + "/ring.csv");
    ASSERT_FALSE(ring.empty());
    EXPECT_EQ(ring.front().size(), 5u); // time_s and four hops
    EXPECT_FALSE(DataLines(plots / "ring-hops.dat").empty());
    if (HaveGnuplot())
    {
        EXPECT_TRUE(fs::exists(plots / "jobs.png"));
    }
}

TEST(Plot, ASweepsKeyAgainstItsMeanAndP99)
{
    test::TempDir dir;
    const std::string base = dir.Write("base.json", R"({
      "job": {"model": "resnet50", "iterations": 4, "warmup_iterations": 1},
      "cross_traffic": {"type": "iperf"},
      "simulation": {"engine": "flow", "progress_interval_s": 0}})");
    const std::string sweep = dir.Write("sweep.json", R"({"base_file": "base.json",
      "grid": {"cross_traffic.load_gbps": [5, 15, 22]}})");
    const std::string out = dir.Path() + "/sweep";
    auto r = test::RunSweep(sweep + " --out " + out + " --jobs 2");
    ASSERT_EQ(r.exitCode, 0) << r.output;
    const PlotResult p = PlotRunFolder(out);
    const auto points = DataLines(fs::path(out) / "plots" / "sweep.0.dat");
    ASSERT_EQ(points.size(), 3u);
    const auto rows = test::ReadCsvRows(out + "/results.csv");
    double mean22 = 0;
    for (const auto& row : rows)
    {
        if (row.at("cross_traffic.load_gbps") == "22")
        {
            mean22 = std::stod(row.at("iteration_mean_s"));
        }
    }
    std::istringstream last(points.back());
    double x = 0, mean = 0, p99 = 0;
    last >> x >> mean >> p99;
    EXPECT_EQ(x, 22);
    EXPECT_NEAR(mean, mean22, 1e-9);
    EXPECT_GE(p99, mean);
    ExpectPicture(p, "sweep.png");
}

TEST(Plot, AFolderThatIsNeitherIsRefusedNamingIt)
{
    test::TempDir dir;
    EXPECT_THROW(PlotRunFolder(dir.Path()), std::invalid_argument);
    dir.Write("iterations.csv", "iteration,worker\n0,zero\n");
    try
    {
        PlotRunFolder(dir.Path());
        FAIL() << "a broken iterations.csv was read";
    }
    catch (const std::invalid_argument& e)
    {
        EXPECT_NE(std::string(e.what()).find("iterations.csv"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(fs::path(dir.Path()) / "plots"));
}
