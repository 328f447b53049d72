// The typed run summary: what ToJson writes FromJson reads back unchanged, a summary.json
// that lacks or mistypes a key is named by file and key, and the shipped validation runs'
// summaries (written before the type existed) read.
#include "run-store.h"
#include "run-summary.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace flumen;
using nlohmann::json;

namespace
{

RunSummary
Sample()
{
    RunSummary s;
    s.name = "sample";
    s.iterations = 3;
    s.warmupIterations = 1;
    s.workers = 3;
    s.iterationTimeS = { 9, 0.25, 0.01, 0.24, 0.27, 0.23, 0.28 };
    s.jobFinished = false;
    s.unfinished = UnfinishedJob{ 2, 0.3, false };
    s.model = ModelSummary{ "m", 1000, 0.1, 0.03, 0.06, 0.01, 2, 0.02, 1333, 0.11 };
    s.crossTraffic.type = "websearch";
    s.crossTraffic.offeredGbps = 10;
    s.crossTraffic.achievedGbps = 9.5;
    s.crossTraffic.scheduledGbps = 9.8;
    s.crossTraffic.flows
        = FlowsSummary{ 10, 8, 1, 1, { 8, 0.001, 0.0005, 0.0009, 0.003, 0.0001, 0.004 } };
    s.phasesS = PhaseSummary{ 0.03, 0.06, 0.15, 0.01 };
    s.allReducesPerIteration = 2;
    s.rdma = RdmaSummary{ 5, 1, 0, 7, 2 };
    s.loss = LossSummary{ 1.0, "S0,S2", 1000, 11 };
    s.bottleneck = { "ToR port towards S0",    0.9, 3, 4, 1000.5, 2000, std::nullopt,
                     BufferLossSummary{ 2, 9 } };
    s.ports = { s.bottleneck,
                { "S0 NIC egress", 0.1, 0, 0, 0, 0, BufferLossSummary{ 3, 40 }, std::nullopt } };
    s.ringHops = { { "S0", "S1", 3.5, 18.9 }, { "S1", "S0", 3.4, 8.9 } };
    s.windowStartS = 0.25;
    s.windowEndS = 1.0;
    s.windowIsWholeRun = true;
    s.simulatedTimeS = 1.0;
    s.wallTimeS = 20;
    s.wallPerSimulatedS = 20;
    s.events = 12345;
    s.packetHops = 100;
    s.torForwardedPackets = 50;
    s.scenario = { { "job", { { "enabled", true } } } };
    return s;
}

std::string
ErrorOf(const json& j)
{
    try
    {
        RunSummaryFromJson(j, "run/summary.json");
    }
    catch (const RunSummaryError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(RunSummary, JsonRoundTripKeepsEveryField)
{
    const json written = ToJson(Sample());
    const RunSummary read = RunSummaryFromJson(written, "sample.json");
    EXPECT_EQ(ToJson(read), written);
    EXPECT_EQ(read.unfinished->iterationsCompleted, 2u);
    EXPECT_FALSE(read.unfinished->strict);
    EXPECT_EQ(read.crossTraffic.flows->openAtEnd, 1u);
    EXPECT_DOUBLE_EQ(read.iterationTimeS.p99, 0.27);
    ASSERT_EQ(read.ringHops.size(), 2u);
    EXPECT_EQ(read.ringHops[1].to, "S0");
    EXPECT_DOUBLE_EQ(read.ringHops[1].injectionGbps, 8.9);
    ASSERT_TRUE(read.loss);
    EXPECT_EQ(read.loss->hosts, "S0,S2");
    EXPECT_DOUBLE_EQ(written["loss"]["applied_percent"].get<double>(), 1.1);
    ASSERT_TRUE(read.ports[1].hostBuffer);
    EXPECT_EQ(read.ports[1].hostBuffer->windowsCut, 40u);
    EXPECT_FALSE(read.ports[1].switchBuffer);
    ASSERT_TRUE(read.ports[0].switchBuffer);
    EXPECT_EQ(read.ports[0].switchBuffer->overflows, 2u);
    EXPECT_EQ(read.ports[0].switchBuffer->windowsCut, 9u);
    EXPECT_EQ(written["ports"][1]["host_buffer"]["overflows"], 3);
    EXPECT_FALSE(written["ports"][0].contains("host_buffer")); // a port without one
    // Optional parts absent stay absent.
    RunSummary bare = Sample();
    bare.jobFinished.reset();
    bare.unfinished.reset();
    bare.rdma.reset();
    bare.loss.reset();
    bare.crossTraffic.flows.reset();
    const json j = ToJson(bare);
    EXPECT_FALSE(j.contains("job_finished"));
    EXPECT_FALSE(j.contains("rdma"));
    EXPECT_FALSE(j.contains("loss"));
    EXPECT_EQ(ToJson(RunSummaryFromJson(j, "bare.json")), j);
}

TEST(RunSummary, MissingOrMistypedKeysAreNamed)
{
    json j = ToJson(Sample());
    j["iteration_time_s"].erase("p99");
    EXPECT_EQ(ErrorOf(j), "run/summary.json: key 'iteration_time_s.p99': expected present");
    j = ToJson(Sample());
    j["cross_traffic"]["flows"]["started"] = "ten";
    EXPECT_EQ(ErrorOf(j),
              "run/summary.json: key 'cross_traffic.flows.started': expected a non-negative "
              "integer");
    j = ToJson(Sample());
    j["ports"][1]["utilization"] = true;
    EXPECT_EQ(ErrorOf(j), "run/summary.json: key 'ports[1].utilization': expected a number");
    EXPECT_EQ(ErrorOf(json::array()), "run/summary.json: key '': expected an object");
}

TEST(RunSummary, ShippedValidationRunsRead)
{
    const std::filesystem::path points = FLUMEN_SOURCE_DIR "/results/validation/points";
    size_t read = 0;
    for (const std::string& id : StoredRunIds(points))
    {
        RunSummary s = ParseRunSummary(ReadRunFile(points, id, "summary.json").value(), id);
        EXPECT_GT(s.simulatedTimeS, 0) << id;
        ++read;
    }
    std::cout << "[measure] " << read << " shipped run summaries read\n";
    EXPECT_GT(read, 100u);
}

TEST(RunSummary, TheEngineTravelsAndTheTextSaysWhatItModels)
{
    RunSummary flow = Sample();
    flow.scenario = test::Resolve(json::object()).resolved; // the text reads a whole scenario
    flow.jobFinished.reset();
    flow.unfinished.reset();
    flow.engine = "flow";
    flow.engineIgnores = { "topology.switch_queue", "dcqcn" };
    flow.wallPerSimulatedS = 0.01;
    flow.bottleneck.meanQueueBytes = 0; // no standing queue
    flow.bottleneck.maxQueueBytes = 0;
    const json j = ToJson(flow);
    EXPECT_EQ(j["engine"], "flow");
    const RunSummary back = RunSummaryFromJson(j, "flow.json");
    EXPECT_EQ(back.engineIgnores, flow.engineIgnores);
    const std::string text = FormatHumanSummary(flow);
    EXPECT_NE(text.find("100x faster than real time"), std::string::npos) << text;
    EXPECT_NE(text.find("no queue here in the flow engine; it counts no packets dropped or marked"),
              std::string::npos)
        << text;
    // A host buffer's overflows are the engine's losses; none, no line.
    EXPECT_NE(text.find("host buffer      S0 NIC egress: 3 overflows cut 40 windows"),
              std::string::npos)
        << text;
    RunSummary calm = flow;
    calm.ports[1].hostBuffer = BufferLossSummary{ 0, 0 };
    EXPECT_EQ(FormatHumanSummary(calm).find("host buffer"), std::string::npos);
    // Behind a standing queue (flow_queues) the flow engine's queue figures are printed.
    RunSummary queued = flow;
    queued.bottleneck.meanQueueBytes = 36e6;
    queued.bottleneck.maxQueueBytes = 90000000;
    const std::string withQueue = FormatHumanSummary(queued);
    EXPECT_NE(withQueue.find("standing queue mean 36000 KB max 90000 KB"), std::string::npos)
        << withQueue;
    // A summary written before engines existed reads as the packet level's.
    json old = ToJson(Sample());
    old.erase("engine");
    EXPECT_EQ(RunSummaryFromJson(old, "old.json").engine, "packet");
    RunSummary packet = flow;
    packet.engine = "packet";
    packet.wallPerSimulatedS = 50;
    const std::string slow = FormatHumanSummary(packet);
    EXPECT_NE(slow.find("50x slower than real time"), std::string::npos) << slow;
    EXPECT_NE(slow.find("packet engine)"), std::string::npos) << slow;
    EXPECT_NE(slow.find("queue mean"), std::string::npos) << slow;
    json bad = j;
    bad["engine_ignores"] = 3;
    EXPECT_THROW(RunSummaryFromJson(bad, "bad.json"), RunSummaryError);
}
