// The RDMA transport through the scenario runner: both configurations, every kind of cross
// traffic, a small model so that each run takes seconds.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

namespace
{

json
SmallRdmaJob(const std::string& configuration, const std::string& cross, double gbps)
{
    return { { "topology", { { "configuration", configuration } } },
             { "job",
               { { "model", "small" },
                 { "transport", "rdma" },
                 { "iterations", 4 },
                 { "warmup_iterations", 1 } } },
             { "models", { { "small", { { "parameters", 1000000 }, { "compute_s", 0.004 } } } } },
             { "cross_traffic", { { "type", cross }, { "load_gbps", gbps } } },
             { "simulation", { { "progress_interval_s", 0 } } } };
}

} // namespace

TEST(RdmaScenario, EveryCrossTrafficTypeInBothConfigurations)
{
    for (std::string configuration : { "A", "B" })
    {
        RunOutput idle = RunScenario(test::Resolve(SmallRdmaJob(configuration, "none", 0)));
        double idleMean = ToJson(idle.summary)["iteration_time_s"]["mean"].get<double>();
        EXPECT_EQ(ToJson(idle.summary)["rdma"]["packets_retransmitted"], 0u);
        for (std::string cross : { "iperf", "websearch", "burst" })
        {
            RunOutput out = RunScenario(test::Resolve(SmallRdmaJob(configuration, cross, 18)));
            const json sm = ToJson(out.summary);
            double mean = sm["iteration_time_s"]["mean"].get<double>();
            double achieved = sm["cross_traffic"]["achieved_gbps"].get<double>();
            std::cout << "[measure] RDMA configuration " << configuration << ", " << cross
                      << " 18 Gbps: mean iteration " << mean * 1e3 << " ms (idle " << idleMean * 1e3
                      << "), cross achieved " << achieved << " Gbps, CNPs " << sm["rdma"]["cnps"]
                      << ", NAKs " << sm["rdma"]["naks"] << ", timeouts " << sm["rdma"]["timeouts"]
                      << ", wait " << sm["phases_s"]["wait"] << " s\n";
            EXPECT_EQ(sm["iterations"], 3);
            EXPECT_GT(mean, 1.05 * idleMean) << configuration << " " << cross;
            EXPECT_GT(achieved, 5.0) << configuration << " " << cross;
            EXPECT_GT(sm["phases_s"]["wait"].get<double>(),
                      ToJson(idle.summary)["phases_s"]["wait"].get<double>());
        }
    }
}
