// Random loss end to end: the loss applied over a run is the rate asked for, it slows the
// job, links not on the job's paths leave it bit for bit as without loss, and the flow
// engine refuses it (auto runs it at packet level).
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

namespace
{

// A small job (4 MB of gradients, 5 ms of compute) on configuration B, no cross traffic.
json
SmallJob(double lossPercent, const std::string& hosts = "")
{
    return { { "job", { { "model", "small" }, { "iterations", 5 }, { "warmup_iterations", 1 } } },
             { "models", { { "small", { { "parameters", 1000000 }, { "compute_s", 0.005 } } } } },
             { "topology", { { "loss", { { "percent", lossPercent }, { "hosts", hosts } } } } },
             { "simulation", { { "progress_interval_s", 0 } } } };
}

} // namespace

TEST(Loss, AppliedLossIsTheRateAskedForAndSlowsTheJob)
{
    // iperf at 20 Gbps beside the job, so that enough packets cross the lossy links.
    json lossy = SmallJob(1.0);
    lossy["cross_traffic"] = { { "type", "iperf" }, { "load_gbps", 20 } };
    json clean = lossy;
    clean["topology"]["loss"]["percent"] = 0;
    RunOutput out = RunScenario(test::Resolve(lossy));
    RunOutput base = RunScenario(test::Resolve(clean));
    ASSERT_TRUE(out.summary.loss);
    EXPECT_FALSE(base.summary.loss);
    const LossSummary& l = *out.summary.loss;
    std::cout << "[measure] 1 % loss on every link: applied " << l.AppliedPercent() << " % ("
              << l.packetsLost << " of " << l.packetsArrived << "); mean iteration "
              << out.summary.iterationTimeS.mean << " s against "
              << base.summary.iterationTimeS.mean << " s without loss\n";
    // Binomial: at 1 % over 100,000 arrivals the applied rate's standard deviation is 3 % of
    // it, so within 10 % is over 3 of them.
    ASSERT_GT(l.packetsArrived, 100000u);
    EXPECT_NEAR(l.AppliedPercent(), 1.0, 0.1);
    EXPECT_GT(out.summary.iterationTimeS.mean, 1.2 * base.summary.iterationTimeS.mean);
    EXPECT_NE(FormatHumanSummary(out.summary).find("packet loss      requested 1 % on every link"),
              std::string::npos);
}

TEST(Loss, LinksOffTheJobsPathsLeaveItBitForBit)
{
    // Configuration B's job runs on S0, S1, S3: S2's link carries none of it.
    RunOutput lossy = RunScenario(test::Resolve(SmallJob(2.0, "S2")));
    RunOutput clean = RunScenario(test::Resolve(SmallJob(0.0)));
    ASSERT_TRUE(lossy.summary.loss);
    EXPECT_EQ(lossy.summary.loss->packetsArrived, 0u);
    EXPECT_EQ(FormatIterationsCsv(lossy.rows), FormatIterationsCsv(clean.rows));
    // On S1's link the ring loses packets and slows.
    RunOutput ring = RunScenario(test::Resolve(SmallJob(2.0, "S1")));
    EXPECT_GT(ring.summary.loss->packetsLost, 0u);
    EXPECT_GT(ring.summary.iterationTimeS.mean, clean.summary.iterationTimeS.mean);
}

TEST(Loss, FlowEngineRefusesItAndAutoRunsItAtPacketLevel)
{
    json flow = SmallJob(0.5);
    flow["simulation"]["engine"] = "flow";
    try
    {
        test::Resolve(flow);
        FAIL() << "expected the flow engine to refuse loss";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("topology.loss.percent': the flow engine does not "
                                             "model packet loss"),
                  std::string::npos)
            << e.what();
    }
    json automatic = SmallJob(0.5);
    automatic["simulation"]["engine"] = "auto";
    RunOutput out = RunScenario(test::Resolve(automatic));
    EXPECT_EQ(out.summary.engine, "packet");
    EXPECT_NE(out.summary.engineAuto.find("does not model packet loss"), std::string::npos);
}
