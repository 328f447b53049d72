// MLTCP at flow level on the shipped two-job example (examples/mltcp): two identical
// ResNet-50 jobs whose rings share 8:1 uplinks, started together. Without MLTCP their
// all-reduces stay in step; with it they slide apart within a few iterations and both jobs
// run faster. And the rule that keeps MLTCP to the ring's slices.
#include "comm-phases.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <iostream>

using nlohmann::json;
using namespace flumen;

namespace
{

const std::string kTwoJobs = FLUMEN_SOURCE_DIR "/examples/mltcp/two-jobs.json";

struct TwoJobRun
{
    json summary;
    std::vector<CommPhase> a, b;
};

TwoJobRun
RunTwoJobs(test::TempDir& dir, bool mltcp)
{
    const std::string out = dir.Path() + (mltcp ? "/mltcp" : "/plain");
    auto r = test::RunFlumen(kTwoJobs + " --quiet --set job.mltcp=" + (mltcp ? "true" : "false")
                             + " --out " + out);
    EXPECT_EQ(r.exitCode, 0) << r.output;
    TwoJobRun run;
    run.summary = json::parse(test::ReadFile(out + "/summary.json"));
    for (const auto& row : test::ReadCsvRows(out + "/comm.csv"))
    {
        CommPhase p;
        p.job = row.at("job");
        p.iteration = std::stoul(row.at("iteration"));
        p.startS = std::stod(row.at("start_s"));
        p.endS = std::stod(row.at("end_s"));
        (p.job == "a" ? run.a : run.b).push_back(p);
    }
    return run;
}

// Job a's all-reduce time in iteration i beside job b's, iteration by iteration.
std::vector<double>
OverlapByIteration(const TwoJobRun& run)
{
    std::vector<double> out;
    for (uint32_t i = 0;; ++i)
    {
        std::vector<CommPhase> mine;
        for (const CommPhase& p : run.a)
        {
            if (p.iteration == i)
            {
                mine.push_back(p);
            }
        }
        if (mine.empty())
        {
            return out;
        }
        out.push_back(CommOverlap(mine, run.b));
    }
}

} // namespace

TEST(MltcpJobs, TwoJobsStartedTogetherInterleaveWithinSixIterationsAndRunFaster)
{
    test::TempDir dir;
    const TwoJobRun plain = RunTwoJobs(dir, false);
    const TwoJobRun mltcp = RunTwoJobs(dir, true);
    const std::vector<double> inStep = OverlapByIteration(plain);
    const std::vector<double> apart = OverlapByIteration(mltcp);
    ASSERT_EQ(inStep.size(), 40u);
    ASSERT_EQ(apart.size(), 40u);
    for (size_t i = 0; i < inStep.size(); ++i)
    {
        EXPECT_GT(inStep[i], 0.85) << "without MLTCP, iteration " << i;
        if (i >= 6)
        {
            EXPECT_LT(apart[i], 0.7) << "with MLTCP, iteration " << i;
        }
    }
    for (int j = 0; j < 2; ++j)
    {
        const json& p = plain.summary["jobs"][j];
        const json& m = mltcp.summary["jobs"][j];
        const double speedup
            = double(p["iteration_time_s"]["mean"]) / double(m["iteration_time_s"]["mean"]);
        std::cout << "[measure] job " << p["name"] << ": mean " << p["iteration_time_s"]["mean"]
                  << " s without MLTCP, " << m["iteration_time_s"]["mean"] << " s with (" << speedup
                  << "x); comm overlap " << p["comm_overlap"] << " -> " << m["comm_overlap"]
                  << "\n";
        EXPECT_GT(speedup, 1.08);
        EXPECT_LT(double(m["comm_overlap"]), 0.7);
        EXPECT_GT(double(p["comm_overlap"]), 0.9);
    }
}

TEST(MltcpJobs, IsRefusedWhereItsFactorCannotChangeWithinAnAllReduce)
{
    test::TempDir dir;
    for (const std::string& sets : { std::string(" --set simulation.flow_ring=whole"),
                                     std::string(" --set job.collective=nccl_tree") })
    {
        auto r = test::RunFlumen(kTwoJobs + " --quiet --set job.mltcp=true" + sets + " --out "
                                 + dir.Path() + "/refused");
        EXPECT_EQ(r.exitCode, 2) << r.output;
        // The example lists its jobs, so the key is the first job's.
        EXPECT_NE(r.output.find("key 'jobs[0].mltcp'"), std::string::npos) << r.output;
    }
}
