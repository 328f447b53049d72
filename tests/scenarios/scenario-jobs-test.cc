// Several jobs in one scenario (`jobs`): each entry over `job`, per-job keys only, hosts in
// one job each, and every error named by its entry and key.
#include "scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

using namespace flumen;
using nlohmann::json;

namespace
{

// Two jobs on a 6-host star; `second` is laid over the second job's entry.
json
TwoJobs(const json& second = json::object())
{
    json b = { { "name", "b" }, { "hosts", "S3,S4,S5" } };
    b.merge_patch(second);
    return { { "topology", { { "hosts", 6 } } },
             { "job",
               { { "model", "resnet50" }, { "iterations", 5 }, { "warmup_iterations", 1 } } },
             { "jobs", json::array({ { { "name", "a" }, { "hosts", "S0,S1" } }, b }) } };
}

void
ExpectError(const json& user, const std::string& key, const std::string& part)
{
    const std::string e = test::ScenarioErrorOf(user);
    EXPECT_NE(e.find("bad.json: key '" + key + "'"), std::string::npos) << e;
    EXPECT_NE(e.find(part), std::string::npos) << e;
}

} // namespace

TEST(ScenarioJobs, EachEntryIsLaidOverJob)
{
    Scenario s = test::Resolve(
        TwoJobs({ { "model", "vgg16" }, { "transport", "rdma" }, { "start_s", 0.25 } }));
    ASSERT_EQ(s.jobs.size(), 2u);
    EXPECT_EQ(s.jobs[0].jobName, "a");
    EXPECT_EQ(s.jobs[0].jobHosts, (std::vector<uint32_t>{ 0, 1 }));
    EXPECT_EQ(s.jobs[0].model.name, "resnet50");
    EXPECT_EQ(s.jobs[0].transport, "tcp");
    EXPECT_EQ(s.jobs[1].jobHosts, (std::vector<uint32_t>{ 3, 4, 5 }));
    EXPECT_EQ(s.jobs[1].model.name, "vgg16");
    EXPECT_EQ(s.jobs[1].transport, "rdma");
    EXPECT_DOUBLE_EQ(s.jobs[1].jobStartS, 0.25);
    EXPECT_EQ(s.jobs[1].iterations, 5u); // from job
    // The scenario's own job fields are the first job's; the resolved JSON lists every job.
    EXPECT_EQ(s.jobName, "a");
    EXPECT_EQ(s.jobHosts, s.jobs[0].jobHosts);
    ASSERT_EQ(s.resolved["jobs"].size(), 2u);
    EXPECT_EQ(s.resolved["jobs"][1]["model"], "vgg16");
    EXPECT_EQ(s.resolved["jobs"][1]["warmup_iterations"], 1);
    EXPECT_EQ(Jobs(s).size(), 2u);
}

TEST(ScenarioJobs, OneJobIsTheScenarioItself)
{
    Scenario s = test::Resolve(json::object());
    ASSERT_EQ(Jobs(s).size(), 1u);
    EXPECT_EQ(Jobs(s)[0], &s);
    EXPECT_EQ(s.jobName, "job");
    EXPECT_EQ(s.jobHosts, (std::vector<uint32_t>{ 0, 1, 3 })); // configuration B
    Scenario a = test::Resolve({ { "topology", { { "configuration", "A" } } } });
    EXPECT_EQ(a.jobHosts, (std::vector<uint32_t>{ 0, 1, 2, 3 }));
    Scenario none
        = test::Resolve({ { "job", { { "enabled", false } } },
                          { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 5 } } },
                          { "simulation", { { "duration_s", 0.01 } } } });
    EXPECT_TRUE(Jobs(none).empty());
}

TEST(ScenarioJobs, BadJobsAreNamedByEntryAndKey)
{
    ExpectError(TwoJobs({ { "hosts", "S1,S2" } }), "jobs[1].hosts",
                "S1 is also a host of jobs[0] (\"a\")");
    ExpectError(TwoJobs({ { "hosts", "S3,S9" } }), "jobs[1].hosts", "host names S0..S5");
    ExpectError(TwoJobs({ { "hosts", "S3" } }), "jobs[1].hosts", "at least 2 hosts");
    ExpectError(TwoJobs({ { "name", "a" } }), "jobs[1].name", "\"a\" is also jobs[0]'s");
    ExpectError(TwoJobs({ { "name", "b,c" } }), "jobs[1].name", "letters, digits");
    ExpectError(TwoJobs({ { "horovod", { { "cycle_time_ms", 2 } } } }),
                "jobs[1].horovod.cycle_time_ms", "set it as job.horovod.cycle_time_ms instead");
    ExpectError(TwoJobs({ { "speed", 1 } }), "jobs[1].speed", "unknown key");
    ExpectError(TwoJobs({ { "iterations", "many" } }), "jobs[1].iterations", "expected an integer");
    ExpectError(TwoJobs({ { "model", "nosuchnet" } }), "jobs[1].model", "nosuchnet");
    ExpectError(TwoJobs({ { "collective", "parameter_server" }, { "ps_servers", 4 } }),
                "jobs[1].ps_servers", "at most the job's 3 workers");
    ExpectError(TwoJobs({ { "warmup_iterations", 5 } }), "jobs[1].warmup_iterations",
                "fewer than job.iterations");
    // Both jobs on the configuration's hosts.
    json same = TwoJobs();
    same["jobs"][0].erase("hosts");
    same["jobs"][1].erase("hosts");
    ExpectError(same, "jobs[1].hosts", "hosts empty: the configuration's");

    json user = TwoJobs();
    user["jobs"] = json::array();
    ExpectError(user, "jobs", "non-empty array");
    user["jobs"] = json::array({ 3 });
    ExpectError(user, "jobs[0]", "expected an object");
    user = TwoJobs();
    user["job"]["enabled"] = false;
    ExpectError(user, "job.enabled", "expected true with `jobs`");
    user = TwoJobs();
    user["topology"]["pfc"] = { { "enabled", true } };
    ExpectError(user, "topology.pfc.enabled", "a job with transport \"rdma\"");
    user["jobs"][1]["transport"] = "rdma";
    EXPECT_EQ(test::ScenarioErrorOf(user), "");
}

TEST(ScenarioJobs, SetReachesAnEntry)
{
    json user = TwoJobs();
    ApplyOverride(user, "jobs.1.start_s=0.5");
    SetKey(user, "jobs.0.model", "vgg16");
    Scenario s = test::Resolve(user);
    EXPECT_DOUBLE_EQ(s.jobs[1].jobStartS, 0.5);
    EXPECT_EQ(s.jobs[0].model.name, "vgg16");
    EXPECT_THROW(ApplyOverride(user, "jobs.2.start_s=0.5"), ScenarioError);
    EXPECT_THROW(ApplyOverride(user, "jobs.1.horovod.cycle_time_ms=2"), ScenarioError);
    EXPECT_THROW(ApplyOverride(user, "jobs.x.model=vgg16"), ScenarioError);
    json one = json::object();
    try
    {
        SetKey(one, "jobs.0.model", "vgg16");
        FAIL() << "expected an error";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("the scenario has 0 jobs"), std::string::npos)
            << e.what();
    }
}
