#include "scenario-runner.h"

#include "summary-statistics.h"

#include "ns3/core-module.h"
#include "ns3/flow-generator-helper.h"
#include "ns3/internet-module.h"
#include "ns3/iperf-helper.h"
#include "ns3/link-time-series.h"
#include "ns3/queue-monitor.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/roce-header.h"
#include "ns3/star-topology-helper.h"
#include "ns3/tcp-ring-transport.h"
#include "ns3/training-job-helper.h"
#include "ns3/websearch-flow-schedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace flumen
{

using nlohmann::json;
using namespace ns3;

namespace
{

using Clock = std::chrono::steady_clock;

// Bytes of IP and TCP headers per segment: IPv4 20 + TCP 20, plus 12 with the timestamp
// option. The MTU counts them; PPP's 2 bytes come on top, on the wire.
uint32_t
TcpIpHeaderBytes(bool timestamps)
{
    return 20 + 20 + (timestamps ? 12 : 0);
}

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

std::string
CongestionControlType(const std::string& name)
{
    if (name == "newreno")
        return "ns3::TcpNewReno";
    if (name == "dctcp")
        return "ns3::TcpDctcp";
    return "ns3::TcpCubic";
}

json
StatsJson(const SummaryStatistics& s)
{
    return json{ { "mean", s.mean }, { "stdev", s.stdev }, { "p50", s.p50 },
                 { "p99", s.p99 },   { "min", s.min },     { "max", s.max } };
}

// State shared by the event callbacks of one run.
struct RunState
{
    const Scenario* scenario = nullptr;
    std::ostream* progress = nullptr;
    Clock::time_point wallStart;
    Clock::time_point lastProgress;
    Ptr<IterationRecorder> recorder;
    std::vector<Ptr<QueueMonitor>> monitors;
    std::function<uint64_t()> crossRx; //!< bytes the cross traffic's sink(s) received
    TrainingJob job;
    bool windowOpen = false;
    Time windowStart;
    uint64_t crossBytesAtWindow = 0;
    uint64_t jobBytesAtWindow = 0;
    uint32_t iterationsDone = 0;
    uint32_t workers = 0;

    uint64_t JobBytes() const
    {
        uint64_t b = 0;
        for (uint32_t r = 0; r < job.channels.size(); ++r)
        {
            b += job.BytesReceived(r);
        }
        return b;
    }

    void OpenWindow()
    {
        windowOpen = true;
        windowStart = Simulator::Now();
        for (auto& m : monitors)
        {
            m->Reset();
        }
        crossBytesAtWindow = crossRx ? crossRx() : 0;
        jobBytesAtWindow = JobBytes();
    }

    // Per rank: when its first iteration and its first measured iteration began (iterations
    // run back to back, so an unfinished rank's iterations last at least until now).
    std::map<uint32_t, Time> firstStart;
    std::map<uint32_t, Time> measuredStart;

    void OnIterationStart(uint32_t rank, uint32_t iteration, Time at)
    {
        if (iteration == 0)
        {
            firstStart[rank] = at;
        }
        if (iteration == scenario->warmupIterations)
        {
            measuredStart[rank] = at;
            // The measurement window opens when the first worker begins its first measured
            // iteration.
            if (!windowOpen)
            {
                OpenWindow();
            }
        }
    }

    void OnIteration(const IterationRecord& r) { ++iterationsDone; }

    void Stop() { Simulator::Stop(); }

    void Progress()
    {
        auto now = Clock::now();
        double sinceLast = std::chrono::duration<double>(now - lastProgress).count();
        if (progress && sinceLast >= scenario->progressIntervalS)
        {
            lastProgress = now;
            double wall = std::chrono::duration<double>(now - wallStart).count();
            double sim = Simulator::Now().GetSeconds();
            std::string its = workers ? fmt::format("iterations {}/{} per worker",
                                                    iterationsDone / workers, scenario->iterations)
                                      : std::string("cross traffic only");
            *progress << fmt::format("[flumen] simulated {:.4f} s | {} | wall {:.1f} s "
                                     "({:.0f}x real time)\n",
                                     sim, its, wall, sim > 0 ? wall / sim : 0.0)
                      << std::flush;
        }
        Simulator::Schedule(MilliSeconds(1), &RunState::Progress, this);
    }
};

// Random streams of the cross-traffic schedule (the job's workers use 100 onwards).
constexpr int64_t kCrossTrafficStream = 1000;

// The flow schedule of a websearch, burst or replay scenario, its streams fixed; needs the
// seed set first. The same call serves runs and load-file writing, so both draw alike.
Ptr<FlowSchedule>
MakeCrossSchedule(const Scenario& s)
{
    Ptr<FlowSchedule> schedule;
    DataRate load(static_cast<uint64_t>(std::llround(s.crossLoadGbps * 1e9)));
    if (s.crossType == "websearch")
    {
        Ptr<ConsistentWebSearchSchedule> ws = CreateObject<ConsistentWebSearchSchedule>();
        ws->SetAttribute("SizeBlock", UintegerValue(s.crossSizeBlockFlows));
        ws->Setup(s.sizeCdf, load, s.crossArrivals == "exponential", 0);
        schedule = ws;
    }
    else if (s.crossType == "burst")
    {
        Ptr<BurstWebSearchSchedule> b = CreateObject<BurstWebSearchSchedule>();
        b->SetAttribute("BurstWidth", UintegerValue(s.burstWidthUs));
        b->SetAttribute("PeriodMultiple", UintegerValue(s.burstPeriodMultiple));
        b->SetAttribute("BurstShare", DoubleValue(s.burstShare));
        b->SetAttribute("MinFlows", UintegerValue(s.burstMinFlows));
        b->Setup(s.sizeCdf, load, 0);
        schedule = b;
    }
    else if (s.crossType == "replay")
    {
        std::vector<FlowArrival> flows;
        flows.reserve(s.replayFlows.size());
        for (const auto& f : s.replayFlows)
        {
            FlowArrival a;
            a.startUs = f.startUs;
            a.sizeBytes = f.sizeBytes;
            a.destination = f.destination;
            flows.push_back(a);
        }
        schedule = Create<ReplayFlowSchedule>(std::move(flows));
    }
    if (schedule)
    {
        schedule->AssignStreams(kCrossTrafficStream);
    }
    return schedule;
}

bool
IsFlowTraffic(const std::string& type)
{
    return type == "websearch" || type == "burst" || type == "replay";
}

} // namespace

std::vector<LoadFileFlow>
DrawCrossTrafficFlows(const Scenario& s, double durationS)
{
    if (!IsFlowTraffic(s.crossType))
    {
        throw RunError(fmt::format("{}: cross_traffic.type '{}' has no load file (expected "
                                   "websearch, burst or replay)",
                                   s.source, s.crossType));
    }
    RngSeedManager::SetSeed(static_cast<uint32_t>(s.seed));
    RngSeedManager::SetRun(1);
    Ptr<FlowSchedule> schedule = MakeCrossSchedule(s);
    std::vector<LoadFileFlow> out;
    const auto limitUs = static_cast<uint64_t>(std::llround(durationS * 1e6));
    FlowArrival a;
    while (schedule->Next(a) && a.startUs < limitUs)
    {
        out.push_back({ a.startUs, a.sizeBytes, a.destination });
    }
    return out;
}

std::vector<std::pair<std::string, std::string>>
ExtraOutputFiles(const RunOutput& out)
{
    std::vector<std::pair<std::string, std::string>> files;
    if (!out.flows.empty() || IsFlowTraffic(out.summary["cross_traffic"]["type"]))
    {
        files.emplace_back("flows.csv", FormatFlowsCsv(out.flows));
    }
    if (!out.link.empty())
    {
        files.emplace_back("link.csv", FormatLinkCsv(out.link));
    }
    return files;
}

RunOutput
RunScenario(const Scenario& s, const RunOptions& options)
{
    auto wallStart = Clock::now();

    // Each run starts from ns-3's defaults, so runs in one process do not leak settings.
    Config::Reset();
    RngSeedManager::SetSeed(static_cast<uint32_t>(s.seed));
    RngSeedManager::SetRun(1);
    ObjectFactory scheduler;
    scheduler.SetTypeId(SchedulerType(s.scheduler));
    Simulator::SetScheduler(scheduler);

    // Every attribute-backed key (DCQCN, RoCE, NIC, PFC, Horovod, NCCL, ns-3's TCP sockets).
    ApplyAttributeKeys(s.resolved);
    // The TCP settings derived from keys rather than set by them.
    const uint32_t mss = s.mtuBytes - TcpIpHeaderBytes(s.tcpTimestamps);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime",
                       DoubleValue(s.tcpTimeWaitMs / 2.0 / 1000.0));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TypeId::LookupByName("ns3::TcpPrrRecovery")));
    bool ecn = s.tcpEcn || s.tcpCongestionControl == "dctcp";
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(ecn ? TcpSocketState::On : TcpSocketState::Off));

    StarTopologyConfig topo;
    topo.configuration = s.configuration;
    topo.linkRate = DataRate(static_cast<uint64_t>(std::llround(s.linkRateGbps * 1e9)));
    topo.linkDelay = NanoSeconds(std::llround(s.linkDelayUs * 1000));
    topo.mtu = static_cast<uint16_t>(s.mtuBytes);
    topo.hostQueue = s.hostQueue;
    topo.switchQueue = s.switchQueue;
    const bool rdma = s.jobEnabled && s.transport == "rdma";
    topo.rdmaNic = rdma;
    topo.pfc = s.pfcEnabled;
    StarTopology t
        = StarTopologyHelper(topo).Install(CongestionControlType(s.tcpCongestionControl));

    RunState state;
    state.scenario = &s;
    state.progress = s.progressIntervalS > 0 ? options.progress : nullptr;
    state.wallStart = wallStart;
    state.lastProgress = wallStart;

    TrainingJob job;
    if (s.jobEnabled)
    {
        NodeContainer nodes;
        std::vector<Ipv4Address> addresses;
        for (uint32_t h : t.jobHosts)
        {
            nodes.Add(t.hosts.Get(h));
            addresses.push_back(t.hostAddresses[h]);
        }
        TrainingJobHelper helper;
        helper.SetModel(s.model);
        helper.SetIterations(s.iterations);
        helper.SetChannels(s.ncclChannels);
        helper.SetTransport(rdma ? "ns3::RdmaRingTransport" : "ns3::TcpRingTransport");
        job = helper.Install(nodes, addresses);
        TrainingJobHelper::AssignStreams(job, 100);
        state.recorder = job.recorder;
        state.job = job;
        state.workers = nodes.GetN();
        for (uint32_t i = 0; i < job.workers.GetN(); ++i)
        {
            job.workers.Get(i)->TraceConnectWithoutContext(
                "IterationStart", MakeCallback(&RunState::OnIterationStart, &state));
        }
        job.recorder->SetIterationCallback(MakeCallback(&RunState::OnIteration, &state));
        job.recorder->SetAllFinishedCallback(MakeCallback(&RunState::Stop, &state));
    }

    Time crossStop = Seconds(s.maxTimeS);
    if (s.crossType == "iperf")
    {
        IperfHelper iperf(DataRate(static_cast<uint64_t>(std::llround(s.crossLoadGbps * 1e9))),
                          s.crossStreams);
        IperfFlows flows
            = iperf.Install(t.hosts.Get(t.crossSource), t.hosts.Get(t.crossDestination),
                            t.hostAddresses[t.crossDestination], Seconds(s.crossStartS), crossStop);
        Ptr<PacketSink> sink = flows.sink;
        state.crossRx = [sink] { return sink->GetTotalRx(); };
    }
    FlowTraffic flowTraffic;
    if (IsFlowTraffic(s.crossType))
    {
        flowTraffic = FlowGeneratorHelper().Install(
            t.hosts.Get(t.crossSource), { t.hosts.Get(t.crossDestination) },
            { t.hostAddresses[t.crossDestination] }, MakeCrossSchedule(s), Seconds(s.crossStartS),
            crossStop);
        Ptr<FlowSink> sink = flowTraffic.sinks.front();
        state.crossRx = [sink] { return sink->GetTotalRx(); };
    }
    Ptr<LinkTimeSeries> series;
    if (s.linkBinUs > 0)
    {
        series = CreateObject<LinkTimeSeries>();
        series->SetAttribute("BinWidth", TimeValue(NanoSeconds(std::llround(s.linkBinUs * 1e3))));
        // The ring's TCP channels listen on 45000 + channel: their data goes there and their
        // ACKs come from there. RoCE (the RDMA transport) is UDP port 4791 both ways.
        std::set<uint16_t> jobPorts{ RoceHeader::kUdpPort };
        for (uint32_t c = 0; c < s.ncclChannels; ++c)
        {
            jobPorts.insert(TrainingJobHelper::kTcpListenPortBase + c);
        }
        series->SetJobPorts(jobPorts);
        series->Attach(t.GetBottleneckQueueDisc(), t.GetBottleneckDevice());
    }

    // Every egress port is watched; the configuration's bottleneck is reported first.
    Ptr<QueueMonitor> bottleneck = CreateObject<QueueMonitor>();
    bottleneck->Attach(t.GetBottleneckQueueDisc(), t.GetBottleneckDevice(), topo.linkRate);
    state.monitors.push_back(bottleneck);
    std::vector<std::pair<std::string, Ptr<QueueMonitor>>> ports;
    for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
    {
        for (int side = 0; side < 2; ++side)
        {
            Ptr<QueueDisc> disc = side == 0 ? t.hostQueueDiscs[i] : t.torQueueDiscs[i];
            Ptr<NetDevice> dev = side == 0 ? t.hostDevices.Get(i) : t.torDevices.Get(i);
            Ptr<QueueMonitor> m = CreateObject<QueueMonitor>();
            m->Attach(disc, dev, topo.linkRate);
            state.monitors.push_back(m);
            ports.emplace_back(side == 0 ? fmt::format("S{} NIC egress", i)
                                         : fmt::format("ToR port towards S{}", i),
                               m);
        }
    }
    if (!s.jobEnabled || s.warmupIterations == 0)
    {
        Simulator::Schedule(s.jobEnabled ? Seconds(0) : Seconds(s.crossStartS),
                            &RunState::OpenWindow, &state);
    }
    if (state.progress)
    {
        Simulator::Schedule(MilliSeconds(1), &RunState::Progress, &state);
    }

    if (options.beforeRun)
    {
        SimulationHandles handles;
        handles.topology = &t;
        handles.job = s.jobEnabled ? &job : nullptr;
        options.beforeRun(handles);
    }
    const bool fixed = options.fixedDurationS > 0;
    if (fixed)
    {
        // The job's end must not stop a fixed-length run.
        if (state.recorder)
        {
            state.recorder->SetAllFinishedCallback(MakeNullCallback<void>());
        }
        Simulator::Stop(Seconds(options.fixedDurationS));
    }
    else
    {
        Simulator::Stop(s.jobEnabled ? Seconds(s.maxTimeS) : Seconds(s.durationS));
    }
    Simulator::Run();

    const double simEnd = Simulator::Now().GetSeconds();
    const bool jobUnfinished
        = !fixed && s.jobEnabled && state.iterationsDone < state.workers * s.iterations;
    if (jobUnfinished && !s.reportUnfinished)
    {
        uint32_t done = state.iterationsDone / std::max(1u, state.workers);
        std::string ranks;
        for (uint32_t r = 0; r < state.job.channels.size(); ++r)
        {
            ranks += fmt::format("; rank {} sent {} B, received {} B", r, state.job.BytesSent(r),
                                 state.job.BytesReceived(r));
        }
        Simulator::Destroy();
        throw RunError(fmt::format(
            "{}: the job finished {} of {} iterations before simulation.max_time_s = {} s; "
            "raise simulation.max_time_s or lower job.iterations{}",
            s.source, done, s.iterations, s.maxTimeS, ranks));
    }
    // A job cut before any worker began a measured iteration never opened the window: the
    // rates are then measured over the whole run, warm-up included, rather than over an
    // empty window (the monitors have recorded since the start).
    const bool wholeRun = !state.windowOpen;
    if (wholeRun)
    {
        state.windowOpen = true;
        state.windowStart = Seconds(0);
        state.crossBytesAtWindow = 0;
        state.jobBytesAtWindow = 0;
    }
    const double window = simEnd - state.windowStart.GetSeconds();

    RunOutput out;
    std::vector<double> durations;
    if (s.jobEnabled)
    {
        for (const auto& r : state.recorder->GetRecords())
        {
            IterationRow row;
            row.iteration = r.iteration;
            row.worker = r.rank;
            row.startS = r.start.GetSeconds();
            row.endS = r.end.GetSeconds();
            row.forwardS = (r.forwardEnd - r.start).GetSeconds();
            row.backwardS = (r.backwardEnd - r.forwardEnd).GetSeconds();
            row.waitS = r.Waiting().GetSeconds();
            row.stepS = (r.end - r.StepStart()).GetSeconds();
            row.warmup = r.iteration < s.warmupIterations;
            out.rows.push_back(row);
            if (!row.warmup)
            {
                durations.push_back(row.DurationS());
            }
        }
        std::sort(out.rows.begin(), out.rows.end(),
                  [](const auto& a, const auto& b)
                  { return std::tie(a.iteration, a.worker) < std::tie(b.iteration, b.worker); });
    }
    SummaryStatistics stats = Summarize(durations);

    double crossAchieved = 0;
    if (state.crossRx && window > 0)
    {
        crossAchieved = (state.crossRx() - state.crossBytesAtWindow) * 8.0 / window / 1e9;
    }
    double dlGoodput = 0;
    if (state.workers > 0 && window > 0)
    {
        dlGoodput
            = (state.JobBytes() - state.jobBytesAtWindow) * 8.0 / window / 1e9 / state.workers;
    }
    // Flows: every flow started, and what the generator offered inside the window.
    double scheduledBytes = 0;
    std::vector<double> fcts;
    uint64_t flowsCompleted = 0;
    uint64_t flowsFailed = 0;
    if (flowTraffic.generator)
    {
        for (const auto& r : flowTraffic.generator->GetRecords())
        {
            FlowRow row;
            row.id = r.id;
            row.startS = r.start.GetSeconds();
            row.sizeBytes = r.sizeBytes;
            row.endS = r.IsComplete() ? r.end.GetSeconds() : -1.0;
            row.failed = r.failed;
            out.flows.push_back(row);
            if (r.start >= state.windowStart)
            {
                scheduledBytes += r.sizeBytes + FlowGenerator::kHeaderBytes;
            }
            flowsFailed += r.failed ? 1 : 0;
            if (r.IsComplete() && !r.failed)
            {
                ++flowsCompleted;
                fcts.push_back((r.end - r.start).GetSeconds());
            }
        }
    }
    double offered = s.crossType == "none" ? 0.0 : s.crossLoadGbps;
    if (s.crossType == "replay")
    {
        // A load file's own rate: its bytes over the span of its start times.
        double bytes = 0;
        uint64_t lastUs = 0;
        for (const auto& f : s.replayFlows)
        {
            bytes += f.sizeBytes + FlowGenerator::kHeaderBytes;
            lastUs = std::max(lastUs, f.startUs);
        }
        offered = lastUs > 0 ? bytes * 8.0 / (lastUs * 1e-6) / 1e9 : 0.0;
    }
    if (series)
    {
        const auto& bins = series->GetBins();
        const double width = series->GetBinWidth().GetSeconds();
        for (size_t i = 0; i < bins.size(); ++i)
        {
            LinkRow row;
            row.startS = i * width;
            row.widthS = width;
            row.jobBytes = bins[i].jobBytes;
            row.crossBytes = bins[i].crossBytes;
            row.queueMeanBytes = bins[i].queueByteSeconds / width;
            row.queueMaxBytes = bins[i].maxQueueBytes;
            row.drops = bins[i].drops;
            row.ecnMarks = bins[i].ecnMarks;
            out.link.push_back(row);
        }
    }
    const double wall = std::chrono::duration<double>(Clock::now() - wallStart).count();

    json portsJson = json::array();
    for (const auto& [name, m] : ports)
    {
        portsJson.push_back({ { "port", name },
                              { "utilization", m->GetUtilization() },
                              { "max_queue_bytes", m->GetMaxQueueBytes() },
                              { "mean_queue_bytes", m->GetMeanQueueBytes() },
                              { "drops", m->GetDrops() },
                              { "ecn_marks", m->GetEcnMarks() } });
    }

    json summary;
    summary["name"] = s.name;
    summary["iterations"] = s.jobEnabled ? s.iterations - s.warmupIterations : 0;
    summary["warmup_iterations"] = s.jobEnabled ? s.warmupIterations : 0;
    summary["workers"] = state.workers;
    summary["iteration_time_s"] = StatsJson(stats);
    if (s.jobEnabled && !fixed)
    {
        summary["job_finished"] = !jobUnfinished;
    }
    if (jobUnfinished)
    {
        // What an unfinished job still tells: its mean measured iteration time is at least
        // (now - start of the rank's first measured iteration) / measured iterations, as
        // iterations run back to back. A rank still in its warm-up only bounds the mean over
        // all its iterations, warm-up included: approximate for the measured ones.
        const uint32_t measured = s.iterations - s.warmupIterations;
        std::map<uint32_t, std::pair<uint32_t, double>> done; // rank: measured count, sum
        for (const auto& r : state.recorder->GetRecords())
        {
            if (r.iteration >= s.warmupIterations)
            {
                done[r.rank].first++;
                done[r.rank].second += (r.end - r.start).GetSeconds();
            }
        }
        double bound = 0;
        bool strict = true;
        for (uint32_t rank = 0; rank < state.workers; ++rank)
        {
            if (done[rank].first == measured)
            {
                bound += done[rank].second / measured;
            }
            else if (state.measuredStart.count(rank))
            {
                bound += (simEnd - state.measuredStart[rank].GetSeconds()) / measured;
            }
            else
            {
                strict = false;
                double start
                    = state.firstStart.count(rank) ? state.firstStart[rank].GetSeconds() : 0.0;
                bound += (simEnd - start) / s.iterations;
            }
        }
        summary["iterations_completed"] = state.iterationsDone / std::max(1u, state.workers);
        summary["iteration_time_lower_bound_s"] = bound / std::max(1u, state.workers);
        summary["iteration_time_lower_bound_strict"] = strict;
    }
    if (s.jobEnabled)
    {
        // No-contention estimate: compute plus the ring's bytes (with TCP/IP headers) at
        // line rate. A yardstick for the slowdown, not a model.
        double headerShare = rdma ? (RdmaNic::WireBytes(s.rdmaMtuBytes) - s.rdmaMtuBytes)
                                        / static_cast<double>(s.rdmaMtuBytes)
                                  : (2.0 + TcpIpHeaderBytes(s.tcpTimestamps)) / mss;
        double ringBytes = RingAllReduce::BytesSentByRank(s.model.parameters * 4, state.workers, 0)
                           * (1.0 + headerShare);
        double idle = s.model.ComputeSeconds() + ringBytes * 8.0 / (s.linkRateGbps * 1e9);
        summary["model"]
            = { { "name", s.model.name },
                { "parameters", s.model.parameters },
                { "compute_s", s.model.ComputeSeconds() },
                { "forward_s", s.model.forwardSeconds },
                { "backward_s", s.model.backwardSeconds },
                { "step_s", s.model.stepSeconds },
                { "gradient_tensors", s.model.ReleaseBytes().size() },
                { "compute_jitter_cv", s.model.computeJitterCv },
                { "ring_bytes_per_worker",
                  RingAllReduce::BytesSentByRank(s.model.parameters * 4, state.workers, 0) },
                { "idle_estimate_s", idle } };
    }
    summary["cross_traffic"] = { { "type", s.crossType },
                                 { "offered_gbps", offered },
                                 { "achieved_gbps", crossAchieved } };
    if (flowTraffic.generator)
    {
        SummaryStatistics f = Summarize(fcts);
        // Bytes (with the 8-byte headers) of the flows that started in the window: what the
        // generator really offered, which for heavy-tailed sizes differs from the request.
        summary["cross_traffic"]["scheduled_gbps"]
            = window > 0 ? scheduledBytes * 8.0 / window / 1e9 : 0.0;
        summary["cross_traffic"]["flows"]
            = { { "started", out.flows.size() },
                { "completed", flowsCompleted },
                { "failed", flowsFailed },
                { "open_at_end", flowTraffic.sinks.front()->GetConnectionsOpen() },
                { "fct_s", StatsJson(f) } };
    }
    summary["dl_goodput_gbps"] = dlGoodput;
    if (s.jobEnabled)
    {
        // Mean phase times over the measured iterations: how much communication is exposed.
        double f = 0, b = 0, w = 0, st = 0;
        uint32_t n = 0;
        for (const auto& row : out.rows)
        {
            if (!row.warmup)
            {
                f += row.forwardS;
                b += row.backwardS;
                w += row.waitS;
                st += row.stepS;
                ++n;
            }
        }
        if (n > 0)
        {
            summary["phases_s"] = {
                { "forward", f / n }, { "backward", b / n }, { "wait", w / n }, { "step", st / n }
            };
        }
        summary["all_reduces_per_iteration"]
            = state.job.workers.GetN() > 0
                  ? DynamicCast<TrainingWorker>(state.job.workers.Get(0))->GetAllReducesDone()
                        / static_cast<double>(s.iterations)
                  : 0.0;
    }
    if (rdma)
    {
        uint64_t cnps = 0, naks = 0, timeouts = 0, retransmitted = 0;
        for (const auto& channels : state.job.channels)
        {
            for (const auto& t : channels)
            {
                Ptr<RdmaRingTransport> q = DynamicCast<RdmaRingTransport>(t);
                cnps += q->GetCnpsSent();
                naks += q->GetNaksSent();
                timeouts += q->GetTimeouts();
                retransmitted += q->GetPacketsRetransmitted();
            }
        }
        summary["rdma"] = { { "cnps", cnps },
                            { "naks", naks },
                            { "timeouts", timeouts },
                            { "packets_retransmitted", retransmitted },
                            { "pfc_pauses", t.pfc ? t.pfc->GetPausesSent() : 0 } };
    }
    summary["bottleneck"] = { { "port", t.GetBottleneckName() },
                              { "utilization", bottleneck->GetUtilization() },
                              { "drops", bottleneck->GetDrops() },
                              { "ecn_marks", bottleneck->GetEcnMarks() },
                              { "mean_queue_bytes", bottleneck->GetMeanQueueBytes() },
                              { "max_queue_bytes", bottleneck->GetMaxQueueBytes() } };
    summary["ports"] = portsJson;
    summary["measurement_window_s"] = { state.windowStart.GetSeconds(), simEnd };
    if (wholeRun)
    {
        summary["measurement_window_whole_run"] = true;
    }
    summary["simulated_time_s"] = simEnd;
    summary["wall_time_s"] = wall;
    summary["wall_per_simulated_s"] = simEnd > 0 ? wall / simEnd : 0.0;
    summary["events"] = Simulator::GetEventCount();
    uint64_t hops = 0;
    uint64_t torPackets = 0;
    for (size_t i = 1; i < state.monitors.size(); ++i) // [0] is the bottleneck, again
    {
        uint64_t n = state.monitors[i]->GetTxPacketsSinceAttach();
        hops += n;
        torPackets += (i % 2 == 0) ? n : 0; // host NIC, then ToR port, per host
    }
    summary["packets"] = { { "hops", hops }, { "tor_forwarded", torPackets } };
    summary["scenario"] = s.resolved;
    out.summary = summary;

    Simulator::Destroy();
    return out;
}

std::string
FormatHumanSummary(const json& sm)
{
    const json& sc = sm["scenario"];
    std::string out;
    bool job = sc["job"]["enabled"].get<bool>();
    std::string cross
        = sm["cross_traffic"]["type"].get<std::string>() == "none"
              ? "no cross traffic"
              : fmt::format("{} {:.1f} Gbps", sm["cross_traffic"]["type"].get<std::string>(),
                            sm["cross_traffic"]["offered_gbps"].get<double>());
    out += fmt::format(
        "{}: configuration {}, {}{}\n", sm["name"].get<std::string>(),
        sc["topology"]["configuration"].get<std::string>(),
        job ? fmt::format("{} over {}, {} workers, ", sm["model"]["name"].get<std::string>(),
                          sc["job"]["transport"].get<std::string>(), sm["workers"].get<int>())
            : std::string("no training job, "),
        cross);
    if (job)
    {
        const json& it = sm["iteration_time_s"];
        double idle = sm["model"]["idle_estimate_s"].get<double>();
        out += fmt::format("  iterations       {} measured per worker ({} warm-up left out)\n",
                           sm["iterations"].get<int>(), sm["warmup_iterations"].get<int>());
        if (sm.contains("job_finished") && !sm["job_finished"].get<bool>())
        {
            out += fmt::format(
                "  UNFINISHED       {} of {} iterations by simulation.max_time_s = {} s; mean "
                "iteration time at least {:.4f} s ({}); the figures below cover the finished "
                "ones\n",
                sm["iterations_completed"].get<int>(),
                sm["iterations"].get<int>() + sm["warmup_iterations"].get<int>(),
                sc["simulation"]["max_time_s"].get<double>(),
                sm["iteration_time_lower_bound_s"].get<double>(),
                sm["iteration_time_lower_bound_strict"].get<bool>()
                    ? "strict"
                    : "approximate: a rank was still in its warm-up");
        }
        out += fmt::format("  iteration time   mean {:.4f} s  p50 {:.4f}  p99 {:.4f}  "
                           "(min {:.4f}, max {:.4f}, stdev {:.4f})\n",
                           it["mean"].get<double>(), it["p50"].get<double>(),
                           it["p99"].get<double>(), it["min"].get<double>(),
                           it["max"].get<double>(), it["stdev"].get<double>());
        out += fmt::format("  vs no contention {:.4f} s (compute + ring at line rate, no "
                           "overlap): {:.2f}x\n",
                           idle, it["mean"].get<double>() / idle);
        if (sm.contains("phases_s"))
        {
            const json& ph = sm["phases_s"];
            out += fmt::format("  phases (mean)    forward {:.4f}  backward {:.4f}  waiting for "
                               "communication {:.4f}  step {:.4f} s\n",
                               ph["forward"].get<double>(), ph["backward"].get<double>(),
                               ph["wait"].get<double>(), ph["step"].get<double>());
        }
        out += fmt::format("  all-reduces      {:.1f} per iteration (Horovod fusion)\n",
                           sm["all_reduces_per_iteration"].get<double>());
        if (sm.contains("rdma"))
        {
            const json& r = sm["rdma"];
            out += fmt::format(
                "  RDMA             {} CNPs, {} NAKs, {} timeouts, {} packets "
                "retransmitted, {} PFC pauses\n",
                r["cnps"].get<uint64_t>(), r["naks"].get<uint64_t>(), r["timeouts"].get<uint64_t>(),
                r["packets_retransmitted"].get<uint64_t>(), r["pfc_pauses"].get<uint64_t>());
        }
        out += fmt::format("  DL goodput       {:.2f} Gbps per worker\n",
                           sm["dl_goodput_gbps"].get<double>());
    }
    if (sm["cross_traffic"]["type"].get<std::string>() != "none")
    {
        out += fmt::format("  cross traffic    offered {:.2f} Gbps, achieved {:.2f} Gbps\n",
                           sm["cross_traffic"]["offered_gbps"].get<double>(),
                           sm["cross_traffic"]["achieved_gbps"].get<double>());
        if (sm["cross_traffic"].contains("flows"))
        {
            const json& f = sm["cross_traffic"]["flows"];
            out += fmt::format(
                "  flows            {} started, {} completed, {} failed; "
                "scheduled {:.2f} Gbps; FCT p50 {:.3f} ms p99 {:.3f} ms\n",
                f["started"].get<uint64_t>(), f["completed"].get<uint64_t>(),
                f["failed"].get<uint64_t>(), sm["cross_traffic"]["scheduled_gbps"].get<double>(),
                f["fct_s"]["p50"].get<double>() * 1e3, f["fct_s"]["p99"].get<double>() * 1e3);
        }
    }
    const json& b = sm["bottleneck"];
    out += fmt::format("  bottleneck       {}: utilization {:.1f}%, drops {}, ECN marks {}, "
                       "queue mean {:.0f} KB max {:.0f} KB\n",
                       b["port"].get<std::string>(), 100 * b["utilization"].get<double>(),
                       b["drops"].get<uint64_t>(), b["ecn_marks"].get<uint64_t>(),
                       b["mean_queue_bytes"].get<double>() / 1e3,
                       b["max_queue_bytes"].get<double>() / 1e3);
    out += fmt::format("  speed            {:.3f} s simulated in {:.1f} s wall ({:.0f}x slower "
                       "than real time, {:.2f} M events)\n",
                       sm["simulated_time_s"].get<double>(), sm["wall_time_s"].get<double>(),
                       sm["wall_per_simulated_s"].get<double>(),
                       sm["events"].get<uint64_t>() / 1e6);
    return out;
}

} // namespace flumen
