// The central effect: iteration time does not fall as iperf load rises, and rises clearly
// once the spare capacity of the bottleneck is below what the job's ring needs.
#include "run-scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <iostream>

using namespace flumen;
using nlohmann::json;

TEST(LoadResponse, IterationTimeRisesWithIperfLoad)
{
    // 4 MB of gradients, 5 ms of compute, 3 workers: 5.3 MB per worker per iteration, about
    // 1.8 ms at 25 Gbps, so the job needs about 6 Gbps of the link on average.
    std::vector<double> loads{ 0, 8, 16, 20, 24 };
    std::vector<double> means;
    for (double load : loads)
    {
        json user = {
            // Horovod's 1 ms cycle would quantise these 7 ms iterations; 0.1 ms keeps the
            // test about the network.
            { "job",
              { { "model", "small" },
                { "iterations", 5 },
                { "warmup_iterations", 1 },
                { "horovod", { { "cycle_time_ms", 0.1 } } } } },
            { "models", { { "small", { { "parameters", 1000000 }, { "compute_s", 0.005 } } } } },
            { "cross_traffic",
              { { "type", load > 0 ? "iperf" : "none" },
                { "load_gbps", load },
                { "streams", 4 } } },
            { "simulation", { { "progress_interval_s", 0 } } }
        };
        RunOutput out = RunScenario(test::Resolve(user));
        means.push_back(ToJson(out.summary)["iteration_time_s"]["mean"].get<double>());
        std::cout << "[measure] iperf " << load << " Gbps: mean iteration " << means.back() * 1e3
                  << " ms, cross achieved " << ToJson(out.summary)["cross_traffic"]["achieved_gbps"]
                  << " Gbps\n";
    }
    // Does not fall while the spare capacity covers the job (2% allowance for TCP's own
    // variation). Past that, 20 and 24 Gbps are not ordered: over 4 measured iterations the
    // losses split differently between iperf and the job (iperf reaches 22.3 of 24 Gbps).
    for (size_t i = 1; i < 4; ++i)
    {
        EXPECT_GE(means[i], 0.98 * means[i - 1]) << loads[i] << " vs " << loads[i - 1];
    }
    EXPECT_GE(means[4], means[2]);
    // Spare capacity 5 Gbps (< the job's ~6 Gbps need at line rate), then 1 Gbps.
    EXPECT_GT(means[3], 1.3 * means[0]);
    EXPECT_GT(means[4], 2.0 * means[0]);
}
