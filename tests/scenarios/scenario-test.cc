// Scenario keys: defaults, overrides, and every kind of bad input named by its key.
#include "calibration-file.h"
#include "scenario.h"
#include "test-support.h"

#include "ns3/star-topology-helper.h"

#include <gtest/gtest.h>

using namespace flumen;
using nlohmann::json;

TEST(Scenario, EmptyObjectResolvesToDefaults)
{
    Scenario s = test::Resolve(json::object());
    EXPECT_EQ(s.configuration, 'B');
    EXPECT_EQ(s.model.name, "resnet50");
    EXPECT_EQ(s.model.parameters, 25557032u);
    EXPECT_EQ(s.transport, "tcp");
    EXPECT_EQ(s.crossType, "none");
    EXPECT_DOUBLE_EQ(s.linkRateGbps, 25.0);
    // The resolved scenario carries every key.
    EXPECT_EQ(s.resolved["topology"]["switch_queue"]["discipline"], "ecn");
    EXPECT_EQ(s.resolved["job"]["horovod"]["fusion_threshold_bytes"], 134217728);
    EXPECT_EQ(s.model.ReleaseBytes().size(), 54u); // ResNet-50: 53 convolutions + fc
    EXPECT_EQ(s.resolved["job"]["iterations"], 10);
}

TEST(Scenario, UserValuesAndModelsAreTaken)
{
    json user
        = { { "job", { { "model", "tiny" }, { "iterations", 4 }, { "warmup_iterations", 1 } } },
            { "models", { { "tiny", { { "parameters", 1000 }, { "compute_s", 0.01 } } } } },
            { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 12.5 } } } };
    Scenario s = test::Resolve(user);
    EXPECT_EQ(s.model.name, "tiny");
    EXPECT_EQ(s.model.parameters, 1000u);
    EXPECT_DOUBLE_EQ(s.model.ComputeSeconds(), 0.01);
    EXPECT_DOUBLE_EQ(s.model.computeJitterCv, 0.0);
    EXPECT_EQ(s.iterations, 4u);
    EXPECT_DOUBLE_EQ(s.crossLoadGbps, 12.5);
}

TEST(Scenario, OverridesParseJsonOrTakeAString)
{
    json user = json::object();
    ApplyOverride(user, "cross_traffic.load_gbps=7.5");
    ApplyOverride(user, "job.model=vgg16");
    ApplyOverride(user, "topology.configuration=A");
    ApplyOverride(user, "cross_traffic.type=iperf");
    Scenario s = test::Resolve(user);
    EXPECT_DOUBLE_EQ(s.crossLoadGbps, 7.5);
    EXPECT_EQ(s.model.name, "vgg16");
    EXPECT_EQ(s.configuration, 'A');
    EXPECT_THROW(ApplyOverride(user, "cross_traffic.lod_gbps=3"), ScenarioError);
    EXPECT_THROW(ApplyOverride(user, "no-equals-sign"), ScenarioError);
}

TEST(Scenario, UnknownKeyIsNamed)
{
    auto e = test::ScenarioErrorOf({ { "topology", { { "configration", "A" } } } });
    EXPECT_NE(e.find("bad.json: key 'topology.configration': unknown key"), std::string::npos) << e;
    EXPECT_NE(e.find("configuration"), std::string::npos) << e; // lists the known ones
    EXPECT_NE(test::ScenarioErrorOf({ { "bogus", 1 } }).find("key 'bogus'"), std::string::npos);
}

TEST(Scenario, WrongTypeIsNamed)
{
    auto e = test::ScenarioErrorOf({ { "job", { { "iterations", "ten" } } } });
    EXPECT_NE(e.find("key 'job.iterations': expected an integer"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "job", { { "iterations", 2.5 } } } });
    EXPECT_NE(e.find("key 'job.iterations': expected an integer"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "topology", "A" } });
    EXPECT_NE(e.find("key 'topology': expected an object"), std::string::npos) << e;
}

TEST(Scenario, OutOfRangeValuesAreNamed)
{
    auto e = test::ScenarioErrorOf(
        { { "cross_traffic", { { "type", "iperf" }, { "load_gbps", -3 } } } });
    EXPECT_NE(e.find("key 'cross_traffic.load_gbps'"), std::string::npos) << e;
    e = test::ScenarioErrorOf(
        { { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 30 } } } });
    EXPECT_NE(e.find("key 'cross_traffic.load_gbps': expected at most the link rate"),
              std::string::npos)
        << e;
    // A flow generator may overload the link (the testbed's 26 Gbps runs), within 1.5 x.
    EXPECT_EQ(test::ScenarioErrorOf(
                  { { "cross_traffic", { { "type", "websearch" }, { "load_gbps", 26 } } } }),
              "");
    e = test::ScenarioErrorOf(
        { { "cross_traffic", { { "type", "websearch" }, { "load_gbps", 40 } } } });
    EXPECT_NE(e.find("key 'cross_traffic.load_gbps': expected at most 1.5 x the link rate"),
              std::string::npos)
        << e;
    e = test::ScenarioErrorOf({ { "job", { { "iterations", 0 } } } });
    EXPECT_NE(e.find("key 'job.iterations'"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "job", { { "iterations", 3 }, { "warmup_iterations", 3 } } } });
    EXPECT_NE(e.find("key 'job.warmup_iterations'"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "topology", { { "configuration", "C" } } } });
    EXPECT_NE(e.find("key 'topology.configuration': expected one of A, B"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "cross_traffic", { { "type", "iperf" } } } });
    EXPECT_NE(e.find("key 'cross_traffic.load_gbps': expected a load above 0"), std::string::npos)
        << e;
}

// simulation.duration_s ends a run of cross traffic alone; beside a job it would do nothing.
TEST(Scenario, ADurationBesideAJobIsRefused)
{
    auto e = test::ScenarioErrorOf({ { "simulation", { { "duration_s", 10 } } } });
    EXPECT_NE(e.find("key 'simulation.duration_s': expected it only with job.enabled false, got "
                     "10 beside a job"),
              std::string::npos)
        << e;
    EXPECT_EQ(
        test::ScenarioErrorOf({ { "job", { { "enabled", false } } },
                                { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 5 } } },
                                { "simulation", { { "duration_s", 10 } } } }),
        "");
}

TEST(Scenario, UnknownModelIsNamed)
{
    auto e = test::ScenarioErrorOf({ { "job", { { "model", "resnet51" } } } });
    EXPECT_NE(e.find("key 'job.model': unknown model 'resnet51'"), std::string::npos) << e;
    EXPECT_NE(e.find("bert-large"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "models", { { "m", { { "compute_s", 0.1 } } } } } });
    EXPECT_NE(e.find("key 'models.m.parameters': missing"), std::string::npos) << e;
}

TEST(Scenario, JsonSyntaxErrorNamesFileAndLine)
{
    test::TempDir dir;
    std::string f
        = dir.Write("broken.json", "{\n  \"seed\": 1,\n  \"job\": {\"model\" \"x\"}\n}\n");
    try
    {
        LoadScenarioFile(f);
        FAIL() << "expected an error";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find(f + ":3:"), std::string::npos) << e.what();
    }
    EXPECT_THROW(LoadScenarioFile(dir.Path() + "/missing.json"), ScenarioError);
}

TEST(Scenario, RdmaRulesAreChecked)
{
    auto e = test::ScenarioErrorOf({ { "topology", { { "pfc", { { "enabled", true } } } } } });
    EXPECT_NE(e.find("bad.json: key 'topology.pfc.enabled'"), std::string::npos) << e;
    EXPECT_NE(e.find("rdma"), std::string::npos) << e;
    e = test::ScenarioErrorOf(
        { { "job", { { "transport", "rdma" }, { "rdma", { { "mtu_bytes", 2048 } } } } } });
    EXPECT_NE(e.find("key 'job.rdma.mtu_bytes'"), std::string::npos) << e;
    EXPECT_NE(e.find("at most topology.mtu_bytes - 44 (1456"), std::string::npos) << e;
    e = test::ScenarioErrorOf({ { "job", { { "transport", "infiniband" } } } });
    EXPECT_NE(e.find("key 'job.transport'"), std::string::npos) << e;
    Scenario s = test::Resolve({ { "job", { { "transport", "rdma" }, { "compute_s", 0.3 } } } });
    EXPECT_EQ(s.transport, "rdma");
    EXPECT_DOUBLE_EQ(s.model.ComputeSeconds(), 0.3);
    // compute_s alone keeps the model's backward share; job.backward_share re-splits it.
    EXPECT_NEAR(s.model.BackwardShare(), ns3::ModelProfile::BuiltIn("resnet50")->BackwardShare(),
                1e-12);
    s = test::Resolve({ { "job", { { "compute_s", 0.3 }, { "backward_share", 0.8 } } } });
    EXPECT_DOUBLE_EQ(s.model.ComputeSeconds(), 0.3);
    EXPECT_NEAR(s.model.backwardSeconds, 4 * s.model.forwardSeconds, 1e-12);
    e = test::ScenarioErrorOf({ { "job", { { "backward_share", 1.5 } } } });
    EXPECT_NE(e.find("key 'job.backward_share'"), std::string::npos) << e;
}

TEST(Scenario, CalibrationFileSetsComputeUnlessTheScenarioDoes)
{
    json calibration
        = { { "models",
              { { "vgg16", { { "compute_s", 0.31 }, { "compute_jitter_cv", 0.01 } } } } } };
    json user = { { "job", { { "model", "vgg16" } } } };
    EXPECT_TRUE(ApplyCalibration(user, calibration, "cal.json"));
    Scenario s = test::Resolve(user);
    EXPECT_DOUBLE_EQ(s.model.ComputeSeconds(), 0.31);
    EXPECT_DOUBLE_EQ(s.model.computeJitterCv, 0.01);
    json mine = { { "job", { { "model", "vgg16" }, { "compute_s", 0.5 } } } };
    ApplyCalibration(mine, calibration, "cal.json");
    EXPECT_DOUBLE_EQ(test::Resolve(mine).model.ComputeSeconds(), 0.5);
    json other = { { "job", { { "model", "resnet50" } } } };
    EXPECT_FALSE(ApplyCalibration(other, calibration, "cal.json"));
    // A fitted backward share travels with the compute time.
    calibration["models"]["vgg16"]["backward_share"] = 0.85;
    json shared = { { "job", { { "model", "vgg16" } } } };
    ApplyCalibration(shared, calibration, "cal.json");
    s = test::Resolve(shared);
    EXPECT_DOUBLE_EQ(s.model.ComputeSeconds(), 0.31);
    EXPECT_NEAR(s.model.BackwardShare(), 0.85, 1e-12);
    calibration["models"]["vgg16"]["backward_share"] = 1.2;
    json outOfRange = { { "job", { { "model", "vgg16" } } } };
    try
    {
        ApplyCalibration(outOfRange, calibration, "cal.json");
        FAIL() << "expected an error";
    }
    catch (const ScenarioError& err)
    {
        EXPECT_NE(std::string(err.what()).find("cal.json: key 'models.vgg16.backward_share'"),
                  std::string::npos)
            << err.what();
    }
    json bad = { { "models", { { "vgg16", { { "compute_s", "fast" } } } } } };
    try
    {
        ApplyCalibration(user, bad, "cal.json");
        FAIL() << "expected an error";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("cal.json: key 'models.vgg16.compute_s'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Scenario, TheCalibrationsTcpCeilingGoesOnlyToATcpJob)
{
    // It acts only on the TCP ring's sockets; written into an RDMA job it would only change
    // that run's id, so that a refitted ceiling would send every RDMA point to run again.
    const json calibration = { { "models", json::object() },
                               { "transports", { { "tcp", { { "host_ceiling_gbps", 11.5 } } } } } };
    json tcp = { { "job", { { "transport", "tcp" } } } };
    ApplyCalibration(tcp, calibration, "cal.json");
    EXPECT_DOUBLE_EQ(test::Resolve(tcp).hostCeilingGbps, 11.5);
    json byDefault = { { "job", { { "model", "vgg16" } } } }; // job.transport's default: tcp
    ApplyCalibration(byDefault, calibration, "cal.json");
    EXPECT_DOUBLE_EQ(test::Resolve(byDefault).hostCeilingGbps, 11.5);
    json rdma = { { "job", { { "transport", "rdma" } } } };
    ApplyCalibration(rdma, calibration, "cal.json");
    EXPECT_EQ(rdma, (json{ { "job", { { "transport", "rdma" } } } })) << rdma.dump();
}

TEST(Scenario, NumbersBeyondADoubleAreNamedByKey)
{
    // nlohmann's parser throws out_of_range (not parse_error) for these: once uncaught (exit
    // 134), now a ScenarioError naming the key.
    json scenario = json::object();
    try
    {
        ApplyOverride(scenario, "cross_traffic.load_gbps=1e309");
        FAIL() << "1e309 accepted";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("--set: key 'cross_traffic.load_gbps'"),
                  std::string::npos)
            << e.what();
    }
    test::TempDir dir;
    std::string file = dir.Write(
        "huge.json", R"({"name": "x", "grid": {"cross_traffic.load_gbps": [1, -1e400]}})");
    try
    {
        LoadScenarioFile(file);
        FAIL() << "-1e400 accepted";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find(file + ": key 'grid.cross_traffic.load_gbps'"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Scenario, HostsSetTheRingsSize)
{
    EXPECT_EQ(test::Resolve(json{ { "topology", { { "hosts", 8 } } } }).hosts, 8u);
    EXPECT_EQ(ns3::StarTopologyHelper::JobHosts('A', 6),
              (std::vector<uint32_t>{ 0, 1, 2, 3, 4, 5 }));
    EXPECT_EQ(ns3::StarTopologyHelper::JobHosts('B', 6), (std::vector<uint32_t>{ 0, 1, 3, 4, 5 }));
    EXPECT_EQ(ns3::StarTopologyHelper::JobHosts('B'), (std::vector<uint32_t>{ 0, 1, 3 }));
    EXPECT_THROW(test::Resolve(json{ { "topology", { { "hosts", 3 } } } }), ScenarioError);
}

TEST(Scenario, BatchSizeScalesTheModelsCompute)
{
    Scenario base = test::Resolve({ { "job", { { "model", "densenet201" } } } });
    Scenario big
        = test::Resolve({ { "job", { { "model", "densenet201" }, { "batch_size", 128 } } } });
    EXPECT_DOUBLE_EQ(big.model.forwardSeconds + big.model.backwardSeconds,
                     2 * (base.model.forwardSeconds + base.model.backwardSeconds));
    EXPECT_DOUBLE_EQ(big.model.stepSeconds, base.model.stepSeconds);
    // job.compute_s (a calibration's, at the testbed's batch) is scaled too.
    Scenario calibrated = test::Resolve(
        { { "job", { { "model", "resnet50" }, { "compute_s", 0.2 }, { "batch_size", 32 } } } });
    EXPECT_NEAR(calibrated.model.ComputeSeconds(),
                calibrated.model.stepSeconds + (0.2 - calibrated.model.stepSeconds) / 2, 1e-12);
    // A user model must say which batch its compute time is for.
    json user = { { "job", { { "model", "tiny" }, { "batch_size", 128 } } },
                  { "models", { { "tiny", { { "parameters", 1000 }, { "compute_s", 0.01 } } } } } };
    EXPECT_NE(test::ScenarioErrorOf(user).find("job.batch_size': model 'tiny' states no batch"),
              std::string::npos)
        << test::ScenarioErrorOf(user);
    user["models"]["tiny"]["batch_size"] = 32;
    const double step = ns3::ModelProfile::StepSecondsFor(1000);
    EXPECT_NEAR(test::Resolve(user).model.ComputeSeconds(), step + (0.01 - step) * 4, 1e-12);
}

TEST(Scenario, UserModelFromALayersFile)
{
    test::TempDir dir;
    dir.Write("m.csv", "layer,parameters,compute\nin,100,1\nmid,300,2\nout,600,1\n");
    json user
        = { { "job", { { "model", "three" } } },
            { "models", { { "three", { { "layers_file", "m.csv" }, { "compute_s", 0.04 } } } } } };
    const std::string path = dir.Write("s.json", user.dump());
    Scenario s = ResolveScenario(LoadScenarioFile(path), path);
    EXPECT_EQ(s.model.parameters, 1000u);
    EXPECT_EQ(s.model.ReleaseBytes(), (std::vector<uint64_t>{ 2400, 1200, 400 }));
    // Released last layer first, each after its share of the backward compute: 1/4, 3/4, 1.
    auto f = s.model.ReleaseFractions();
    ASSERT_EQ(f.size(), 3u);
    EXPECT_DOUBLE_EQ(f[0], 0.25);
    EXPECT_DOUBLE_EQ(f[1], 0.75);
    EXPECT_DOUBLE_EQ(f[2], 1.0);

    // The shipped GPT-2 example.
    json gpt = { { "job", { { "model", "gpt2" } } },
                 { "models",
                   { { "gpt2",
                       { { "layers_file", FLUMEN_SOURCE_DIR "/scenarios/models/gpt2-small.csv" },
                         { "compute_s", 0.3 } } } } } };
    EXPECT_EQ(test::Resolve(gpt).model.parameters, 124439808u);

    // Errors name the model's key and the file's line.
    user["models"]["three"]["parameters"] = 999;
    std::string e;
    try
    {
        const std::string file = dir.Write("s2.json", user.dump());
        ResolveScenario(LoadScenarioFile(file), file);
    }
    catch (const ScenarioError& x)
    {
        e = x.what();
    }
    EXPECT_NE(e.find("models.three.parameters': expected 0 or the layers' sum 1000"),
              std::string::npos)
        << e;
    dir.Write("broken.csv", "layer,parameters\nin,ten\n");
    user["models"]["three"].erase("parameters");
    user["models"]["three"]["layers_file"] = "broken.csv";
    e.clear();
    try
    {
        const std::string file = dir.Write("s3.json", user.dump());
        ResolveScenario(LoadScenarioFile(file), file);
    }
    catch (const ScenarioError& x)
    {
        e = x.what();
    }
    EXPECT_NE(e.find("models.three.layers_file'"), std::string::npos) << e;
    EXPECT_NE(e.find("broken.csv:2: parameters"), std::string::npos) << e;
    json none
        = { { "job", { { "model", "x" } } }, { "models", { { "x", { { "compute_s", 0.04 } } } } } };
    EXPECT_NE(test::ScenarioErrorOf(none).find("models.x.parameters': missing"), std::string::npos)
        << test::ScenarioErrorOf(none);
}

TEST(Scenario, LossKeysAreChecked)
{
    Scenario s = test::Resolve(
        { { "topology", { { "loss", { { "percent", 0.5 }, { "hosts", "S3,S0,S3" } } } } } });
    EXPECT_DOUBLE_EQ(s.lossPercent, 0.5);
    EXPECT_EQ(s.lossHosts, (std::vector<uint32_t>{ 3, 0 }));
    json bad = { { "topology", { { "loss", { { "percent", 1 }, { "hosts", "S4" } } } } } };
    EXPECT_NE(test::ScenarioErrorOf(bad).find(
                  "topology.loss.hosts': expected host names S0..S3 separated by "
                  "commas, got 'S4'"),
              std::string::npos)
        << test::ScenarioErrorOf(bad);
    EXPECT_NE(test::ScenarioErrorOf({ { "topology", { { "loss", { { "percent", -1 } } } } } })
                  .find("topology.loss.percent"),
              std::string::npos);
}

TEST(Scenario, TcpCsvNeedsWindowsAndFlows)
{
    const json websearch = { { "type", "websearch" }, { "load_gbps", 5 } };
    EXPECT_TRUE(
        test::Resolve({ { "cross_traffic", websearch }, { "outputs", { { "tcp_csv", true } } } })
            .tcpCsv);
    // The flow engine's TCP flows are windows behind standing queues (an RDMA job, a FIFO
    // switch), elsewhere max-min shares; iperf and no cross traffic have no flows.
    const json queued = { { "job", { { "transport", "rdma" } } },
                          { "topology", { { "switch_queue", { { "discipline", "fifo" } } } } },
                          { "cross_traffic", websearch },
                          { "outputs", { { "tcp_csv", true } } } };
    for (const std::string engine : { "flow", "auto" })
    {
        json windows = queued;
        windows["simulation"] = { { "engine", engine } };
        EXPECT_TRUE(test::Resolve(windows).tcpCsv) << engine;
    }
    json maxMin = queued;
    maxMin["simulation"] = { { "engine", "flow" }, { "flow_queues", false } };
    for (const json& bad : { maxMin,
                             json{ { "cross_traffic", websearch },
                                   { "outputs", { { "tcp_csv", true } } },
                                   { "simulation", { { "engine", "flow" } } } },
                             json{ { "cross_traffic", websearch },
                                   { "outputs", { { "tcp_csv", true } } },
                                   { "simulation", { { "engine", "auto" } } } },
                             json{ { "cross_traffic", { { "type", "iperf" }, { "load_gbps", 5 } } },
                                   { "outputs", { { "tcp_csv", true } } } },
                             json{ { "outputs", { { "tcp_csv", true } } } } })
    {
        const std::string error = test::ScenarioErrorOf(bad);
        EXPECT_NE(error.find("outputs.tcp_csv"), std::string::npos) << bad.dump();
        EXPECT_NE(error.find("expected"), std::string::npos) << error;
    }
}

TEST(Scenario, TheFlowEnginesDcqcnNeedsACnpInterval)
{
    // An RDMA job on the marking switch (the default discipline ecn): a CNP per marked packet
    // (interval 0) is the packet level's alone.
    json rdma
        = { { "job", { { "transport", "rdma" }, { "rdma", { { "cnp_interval_us", 0 } } } } } };
    EXPECT_NO_THROW(test::Resolve(rdma));
    for (const std::string engine : { "flow", "auto" })
    {
        json bad = rdma;
        bad["simulation"] = { { "engine", engine } };
        const std::string error = test::ScenarioErrorOf(bad);
        EXPECT_NE(error.find("job.rdma.cnp_interval_us"), std::string::npos) << error;
        EXPECT_NE(error.find("expected above 0"), std::string::npos) << error;
        bad["topology"] = { { "switch_queue", { { "discipline", "fifo" } } } }; // nothing marks
        EXPECT_NO_THROW(test::Resolve(bad)) << engine;
    }
}

TEST(Scenario, LinkPortNamesAHostsNicOrItsTorPort)
{
    auto port = [](const std::string& name) {
        return json{ { "outputs", { { "link_port", name } } } };
    };
    const Scenario nic = test::Resolve(port("S2 NIC egress"));
    EXPECT_EQ(nic.linkPortHost, 2);
    EXPECT_TRUE(nic.linkPortAtNic);
    const Scenario tor = test::Resolve(port("ToR port towards S3"));
    EXPECT_EQ(tor.linkPortHost, 3);
    EXPECT_FALSE(tor.linkPortAtNic);
    EXPECT_EQ(test::Resolve(json::object()).linkPortHost, -1); // the bottleneck
    for (const std::string bad :
         { "S4 NIC egress", "NIC egress", "S1", "ToR port towards ", "ToR port towards S0,S1",
           "s1 NIC egress", "ToR port towards S0 NIC egress", "S1x NIC egress" })
    {
        const std::string error = test::ScenarioErrorOf(port(bad));
        EXPECT_NE(error.find("outputs.link_port"), std::string::npos) << bad << ": " << error;
        EXPECT_NE(error.find("\"S<i> NIC egress\" or \"ToR port towards S<i>\" with i from 0 to 3"),
                  std::string::npos)
            << error;
        EXPECT_NE(error.find("got \"" + bad + "\""), std::string::npos) << error;
    }
    json off = port("S0 NIC egress");
    off["outputs"]["link_bin_us"] = 0;
    EXPECT_NE(test::ScenarioErrorOf(off).find("outputs.link_port"), std::string::npos);
}

TEST(Scenario, CollectiveKeysAreChecked)
{
    Scenario s = test::Resolve(
        { { "job", { { "collective", "parameter_server" }, { "ps_servers", 2 } } } });
    EXPECT_EQ(s.collective, "parameter_server");
    EXPECT_EQ(s.psServers, 2u);
    EXPECT_NE(test::ScenarioErrorOf({ { "job", { { "collective", "butterfly" } } } })
                  .find("job.collective"),
              std::string::npos);
    // Configuration B runs the job on 3 of the 4 hosts.
    EXPECT_NE(test::ScenarioErrorOf(
                  { { "job", { { "collective", "parameter_server" }, { "ps_servers", 4 } } } })
                  .find("job.ps_servers': expected at most the job's 3 workers, got 4"),
              std::string::npos);
    EXPECT_NE(test::ScenarioErrorOf(
                  { { "job", { { "collective", "star" }, { "nccl", { { "channels", 2 } } } } } })
                  .find("job.nccl.channels': channels are the ring's"),
              std::string::npos);
    // A clique over many workers needs more links than the job's ports hold.
    EXPECT_NE(test::ScenarioErrorOf({ { "topology", { { "hosts", 64 } } },
                                      { "job", { { "collective", "clique" } } } })
                  .find("job.collective': clique over 63 workers needs"),
              std::string::npos);
    // NCCL's tree numbers its links per host: six at any size, so 1,024 workers fit; a star's
    // root meets every worker, and beyond the ports a host holds it is refused.
    EXPECT_EQ(test::ScenarioErrorOf({ { "topology", { { "hosts", 1025 } } },
                                      { "job", { { "collective", "nccl_tree" } } } }),
              "");
    EXPECT_NE(test::ScenarioErrorOf({ { "topology", { { "hosts", 2100 } } },
                                      { "job", { { "collective", "star" } } } })
                  .find("job.collective': star over 2099 workers needs 2099 transports on one "
                        "host, more than the 2000 a host's ports hold"),
              std::string::npos);
}

TEST(Scenario, BertLargeRunsAreKeyedOnItsLayers)
{
    // Its parameter count changed (model-layers.cc): a cached run of it must not be reused,
    // while every other model's runs keep their keys.
    const json bert = { { "job", { { "model", "bert-large" } } } };
    const Scenario s = test::Resolve(bert);
    EXPECT_EQ(s.model.parameters, 335143938u);
    const std::string key = ModelVersion(s);
    EXPECT_NE(key.find(kBertLargeModelVersion), std::string::npos);
    EXPECT_EQ(ModelVersion(test::Resolve(json::object())).find(kBertLargeModelVersion),
              std::string::npos);
    // As one of several jobs too.
    const json jobs = {
        { "topology", { { "hosts", 6 } } },
        { "jobs",
          json::array({ { { "name", "a" }, { "hosts", "S0,S1" } },
                        { { "name", "b" }, { "hosts", "S3,S4" }, { "model", "bert-large" } } }) }
    };
    EXPECT_NE(ModelVersion(test::Resolve(jobs)).find(kBertLargeModelVersion), std::string::npos);
}
