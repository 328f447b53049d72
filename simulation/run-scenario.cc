#include "run-scenario.h"

#include "cross-traffic.h"
#include "flow-network.h"
#include "measurement.h"
#include "network.h"
#include "streamed-outputs.h"
#include "summarise.h"

#include "ns3/core-module.h"

#include <fmt/format.h>

#include <algorithm>

namespace flumen
{

using namespace ns3;

namespace
{

std::string
SchedulerType(const std::string& name)
{
    if (name == "map")
        return "ns3::MapScheduler";
    if (name == "heap")
        return "ns3::HeapScheduler";
    if (name == "calendar")
        return "ns3::CalendarScheduler";
    if (name == "priority_queue")
        return "ns3::PriorityQueueScheduler";
    return "ns3::ListScheduler";
}

// Each run starts from ns-3's defaults, so runs in one process do not leak settings.
void
PrepareSimulator(const Scenario& s)
{
    Config::Reset();
    RngSeedManager::SetSeed(static_cast<uint32_t>(s.seed));
    RngSeedManager::SetRun(1);
    ObjectFactory scheduler;
    scheduler.SetTypeId(SchedulerType(s.scheduler));
    Simulator::SetScheduler(scheduler);
    // Every attribute-backed key (DCQCN, RoCE, NIC, PFC, Horovod, NCCL, ns-3's TCP sockets).
    ApplyAttributeKeys(s.resolved);
}

// A training job on its hosts, over the network's transport for it. Random streams: the
// first job's from 100 (as a one-job run), the others' from 10000 on, apart from the cross
// traffic's (1000) and the loss draws' (2000).
TrainingJob
InstallTrainingJob(const Scenario& job, const Network& network, int64_t& stream)
{
    TrainingJobHelper helper;
    helper.SetModel(job.model);
    helper.SetIterations(job.iterations);
    helper.SetChannels(job.ncclChannels);
    helper.SetCollective(job.collective, job.psServers);
    network.SetJobTransport(helper, job);
    if (job.mltcp)
    {
        helper.SetTransportAttribute("Mltcp", BooleanValue(true));
    }
    TrainingJob installed = helper.Install(network.Nodes(job.jobHosts),
                                           network.Addresses(job.jobHosts), Seconds(job.jobStartS));
    stream += TrainingJobHelper::AssignStreams(installed, stream);
    stream = std::max<int64_t>(stream, 10000);
    return installed;
}

[[noreturn]] void
FailUnfinished(const Scenario& s, const Measurement& m)
{
    std::string what;
    for (const MeasuredJob& job : m.Jobs())
    {
        if (job.Done())
        {
            continue;
        }
        std::string ranks;
        for (uint32_t r = 0; r < job.job.channels.size(); ++r)
        {
            ranks += fmt::format("; rank {} sent {} B, received {} B", r, job.job.BytesSent(r),
                                 job.job.BytesReceived(r));
        }
        what += fmt::format("{}{} finished {} of {} iterations{}", what.empty() ? "" : "; ",
                            m.Jobs().size() > 1 ? "job " + job.spec->jobName : "the job",
                            job.iterationsDone / std::max(1u, job.workers), job.spec->iterations,
                            ranks);
    }
    const double simulatedS = Simulator::Now().GetSeconds();
    Simulator::Destroy();
    if (m.WallBudgetHit())
    {
        throw RunError(fmt::format("{}: {} within the wall-time budget (stopped at {} s "
                                   "simulated)",
                                   s.source, what, simulatedS));
    }
    throw RunError(fmt::format("{}: {} before simulation.max_time_s = {} s; raise "
                               "simulation.max_time_s or lower job.iterations",
                               s.source, what, s.maxTimeS));
}

// One run in one engine (packet or flow).
RunOutput
RunInOneEngine(const Scenario& s, const RunOptions& options)
{
    const auto wallStart = Measurement::Clock::now();

    // Build: network, job, cross traffic, what is measured.
    PrepareSimulator(s);
    std::unique_ptr<Network> network = BuildNetwork(s);
    Measurement measurement(s, *network, options.progress, wallStart);
    std::vector<TrainingJob> jobs;
    int64_t stream = 100;
    for (const Scenario* job : Jobs(s))
    {
        jobs.push_back(InstallTrainingJob(*job, *network, stream));
        measurement.WatchJob(*job, jobs.back());
    }
    std::optional<CrossTraffic> cross = InstallCrossTraffic(s, *network);
    measurement.WatchCrossTraffic(cross);
    network->Observe(s);
    std::optional<StreamedOutputs> streamed;
    if (!options.streamDir.empty())
    {
        streamed.emplace(s, *network, cross, measurement, options.streamDir);
    }
    if (!s.pcapHosts.empty())
    {
        if (options.pcapDir.empty())
        {
            throw std::invalid_argument(
                "outputs.pcap_hosts: no folder for the capture (RunOptions::pcapDir)");
        }
        network->CapturePcap(s.pcapHosts, options.pcapDir);
    }
    measurement.Schedule();
    measurement.StopAfterWallSeconds(options.wallBudgetS);
    if (options.beforeRun)
    {
        SimulationHandles handles{ network->Topology(), jobs.empty() ? nullptr : &jobs[0], {} };
        for (const TrainingJob& job : jobs)
        {
            handles.jobs.push_back(&job);
        }
        options.beforeRun(handles);
    }

    // Run: until the job is done (or the time limit), or for a fixed duration.
    const bool fixed = options.fixedDurationS > 0;
    if (fixed)
    {
        measurement.KeepRunningAfterTheJob();
        Simulator::Stop(Seconds(options.fixedDurationS));
    }
    else
    {
        Simulator::Stop(s.jobEnabled ? Seconds(s.maxTimeS) : Seconds(s.durationS));
    }
    Simulator::Run();

    // Summarise.
    const bool jobUnfinished = !fixed && !measurement.AllJobsDone();
    if (jobUnfinished && !s.reportUnfinished)
    {
        FailUnfinished(s, measurement);
    }
    measurement.CloseWindow();
    if (streamed)
    {
        streamed->Finish();
    }
    FinishedRun finished{ s,
                          *network,
                          measurement,
                          cross,
                          fixed,
                          Simulator::Now().GetSeconds(),
                          streamed ? streamed->Flows() : nullptr };
    RunOutput out = Summarise(finished);
    out.streamed = streamed ? streamed->Files() : std::vector<std::string>{};
    out.summary.wallTimeS
        = std::chrono::duration<double>(Measurement::Clock::now() - wallStart).count();
    out.summary.wallPerSimulatedS
        = out.summary.simulatedTimeS > 0 ? out.summary.wallTimeS / out.summary.simulatedTimeS : 0.0;
    Simulator::Destroy();
    return out;
}

} // namespace

RunOutput
RunScenario(const Scenario& s, const RunOptions& options)
{
    if (s.engine == "flow")
    {
        // Said, not acted on: where auto would re-run it at packet level.
        RunOutput out = RunInOneEngine(s, options);
        std::string why;
        if (!FlowEngineInDomain(s, out.summary, why))
        {
            out.summary.engineDomain = why;
        }
        return out;
    }
    if (s.engine != "auto")
    {
        return RunInOneEngine(s, options);
    }
    // auto: the flow engine first; out of its domain, the packet level.
    std::string why;
    double flowWallS = 0;
    if (s.lossPercent > 0)
    {
        why = "packet: the flow engine does not model packet loss (topology.loss.percent)";
    }
    else
    {
        Scenario flow = s;
        flow.engine = "flow";
        try
        {
            RunOutput out = RunInOneEngine(flow, options);
            flowWallS = out.summary.wallTimeS;
            const bool in = FlowEngineInDomain(s, out.summary, why);
            why = fmt::format("{}: {}", in ? "flow" : "packet", why);
            if (in)
            {
                out.summary.engineAuto = why;
                return out;
            }
        }
        catch (const RunError& e)
        {
            why = fmt::format("packet: the flow-level run failed ({}); re-run at packet level",
                              e.what());
        }
    }
    Scenario packet = s;
    packet.engine = "packet";
    RunOutput out = RunInOneEngine(packet, options);
    out.summary.engineAuto = why;
    out.summary.wallTimeS += flowWallS;
    return out;
}

std::vector<std::pair<std::string, std::string>>
ExtraOutputFiles(const RunOutput& out)
{
    std::vector<std::pair<std::string, std::string>> files;
    if (!out.flows.empty() || IsFlowTraffic(out.summary.crossTraffic.type))
    {
        files.emplace_back("flows.csv", FormatFlowsCsv(out.flows));
    }
    if (!out.link.empty())
    {
        files.emplace_back("link.csv", FormatLinkCsv(out.link));
    }
    if (!out.ringHops.empty())
    {
        files.emplace_back("ring.csv", FormatRingCsv(out.ringHops));
    }
    if (out.tcpFlows)
    {
        files.emplace_back("tcp.csv", FormatTcpCsv(*out.tcpFlows));
    }
    if (!out.comm.empty())
    {
        files.emplace_back("comm.csv", FormatCommCsv(out.comm));
    }
    // What was written while the run went (RunOptions::streamDir) is not written again.
    files.erase(std::remove_if(files.begin(), files.end(),
                               [&](const auto& file) {
                                   return std::find(out.streamed.begin(), out.streamed.end(),
                                                    file.first)
                                          != out.streamed.end();
                               }),
                files.end());
    return files;
}

} // namespace flumen
