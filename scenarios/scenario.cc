#include "scenario.h"

#include "embedded-files.h"
#include "scenario-checks.h"
#include "scenario-jobs.h"
#include "scenario-models.h"
#include "scenario-placement.h"

#include "load-file.h"

#include "ns3/collective-trees.h"
#include "ns3/flow-size-cdf.h"
#include "ns3/model-profile.h"
#include "ns3/star-topology-helper.h"
#include "ns3/training-job-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace flumen
{

using nlohmann::json;
using namespace detail;

namespace
{

void
CheckQueue(const std::string& source, const ns3::EgressQueueConfig& q, const std::string& prefix)
{
    if (q.discipline != "fifo" && q.ecnKminBytes >= q.ecnKmaxBytes)
    {
        Fail(source, prefix + ".ecn_kmin_bytes",
             fmt::format("expected below ecn_kmax_bytes ({}), got {}", q.ecnKmaxBytes,
                         q.ecnKminBytes));
    }
}

// The testbed generator's web-search CDF, compiled in from scenarios/websearch_cdf.txt.
ns3::FlowSizeCdf
TestbedWebSearchCdf()
{
    return ns3::FlowSizeCdf::Parse(kWebSearchCdfText, "scenarios/websearch_cdf.txt");
}

// Reads the CDF and the replay file now, so that bad files fail before anything runs.
void
LoadCrossTrafficFiles(Scenario& s, const std::string& cdfPath, const std::string& replayPath)
{
    if (cdfPath.empty())
    {
        s.sizeCdf = TestbedWebSearchCdf();
    }
    else
    {
        try
        {
            s.sizeCdf = ns3::FlowSizeCdf::Load(ScenarioRelative(s.source, cdfPath));
        }
        catch (const ns3::FlowSizeCdfError& e)
        {
            Fail(s.source, "cross_traffic.size_cdf", e.what());
        }
    }
    s.replayFlows.clear();
    if (s.crossType != "replay")
    {
        return;
    }
    if (replayPath.empty())
    {
        Fail(s.source, "cross_traffic.file",
             "expected the path of a load file for cross_traffic.type 'replay'");
    }
    std::string path = ScenarioRelative(s.source, replayPath);
    try
    {
        s.replayFlows = ReadLoadFile(path);
    }
    catch (const LoadFileError& e)
    {
        Fail(s.source, "cross_traffic.file", e.what());
    }
    for (size_t i = 0; i < s.replayFlows.size(); ++i)
    {
        const auto& f = s.replayFlows[i];
        // Configurations A and B each have one cross-traffic destination: index 0.
        if (f.destination != 0)
        {
            Fail(s.source, "cross_traffic.file",
                 fmt::format("{}:{}: destination index {}, but configuration {} has one "
                             "cross-traffic destination (index 0)",
                             path, i + 2, f.destination, s.configuration));
        }
        if (f.sizeBytes >= (1ULL << 32))
        {
            Fail(s.source, "cross_traffic.file",
                 fmt::format("{}:{}: flow size {} B, expected below 4 GiB", path, i + 2,
                             f.sizeBytes));
        }
    }
}

// The collective's own rules: parameter servers among the workers, NCCL channels for the
// ring only, and the tree links' transport ports within their range.
void
CheckCollective(const Scenario& s, const json& r)
{
    const auto workers = static_cast<uint32_t>(s.jobHosts.size());
    if (s.collective == "parameter_server" && s.psServers > workers)
    {
        Fail(s.source, "job.ps_servers",
             fmt::format("expected at most the job's {} workers, got {}", workers, s.psServers));
    }
    if (s.collective == "ring")
    {
        if (s.mltcp && s.engine != "packet" && s.flowRing == "whole")
        {
            Fail(s.source, "job.mltcp",
                 "MLTCP's F changes within an all-reduce, which the whole ring moves as one "
                 "flow: expected simulation.flow_ring \"slices\"");
        }
        return;
    }
    if (s.mltcp)
    {
        Fail(s.source, "job.mltcp",
             fmt::format("MLTCP is modelled on the ring's flows: expected job.collective "
                         "\"ring\" with it, got \"{}\"",
                         s.collective));
    }
    if (s.ncclChannels > 1)
    {
        Fail(s.source, "job.nccl.channels",
             fmt::format("channels are the ring's: expected 1 with job.collective \"{}\", got {}",
                         s.collective, s.ncclChannels));
    }
    // (Numbered per host: a double binary tree needs 6 at any size, a star one per worker.)
    const uint64_t links
        = ns3::NumberTreeLinks(ns3::CollectiveTrees(s.collective, workers, s.psServers)).count;
    using Helper = ns3::TrainingJobHelper;
    // A TCP link's connections each bind a local port below the listening ports.
    const auto sockets = ValueAt(r, "job.tcp.sockets_per_peer").get<uint64_t>();
    const bool tcpPortsFit
        = s.transport != "tcp"
          || Helper::kTcpLocalPortBase + (Helper::kFirstLinkIndex + links) * sockets
                 <= Helper::kTcpListenPortBase;
    if (links > Helper::kMaxLinks || !tcpPortsFit)
    {
        Fail(s.source, "job.collective",
             links > Helper::kMaxLinks
                 ? fmt::format("{} over {} workers needs {} transports on one host, more than "
                               "the {} a host's ports hold: use fewer workers",
                               s.collective, workers, links, Helper::kMaxLinks)
                 : fmt::format("{} over {} workers needs {} transports on one host of {} TCP "
                               "connections each, more than the job's port range holds: use "
                               "fewer workers or job.tcp.sockets_per_peer",
                               s.collective, workers, links, sockets));
    }
}

// Rules between keys, checked once every key holds a valid value of its own. A job of `jobs`
// (`jobView`) leaves the scenario-wide rules to the scenario: the cross traffic's files, PFC.
void
CheckRules(Scenario& s, const json& r, const std::map<std::string, ModelSettings>& userModels,
           bool jobView)
{
    const std::string& source = s.source;
    CheckFabric(s);
    CheckQueue(source, s.hostQueue, "topology.host_queue");
    CheckQueue(source, s.switchQueue, "topology.switch_queue");
    ResolveModel(s, userModels);
    if (s.warmupIterations >= s.iterations)
    {
        Fail(source, "job.warmup_iterations",
             fmt::format("expected fewer than job.iterations ({}) so that some iterations "
                         "are measured, got {}",
                         s.iterations, s.warmupIterations));
    }
    if (s.rdmaMtuBytes + 44 > s.mtuBytes)
    {
        Fail(source, "job.rdma.mtu_bytes",
             fmt::format("expected at most topology.mtu_bytes - 44 ({}: IPv4, UDP and RoCE "
                         "headers must fit), got {}",
                         s.mtuBytes - 44, s.rdmaMtuBytes));
    }
    const auto xoff = ValueAt(r, "topology.pfc.xoff_bytes").get<uint64_t>();
    const auto xon = ValueAt(r, "topology.pfc.xon_bytes").get<uint64_t>();
    if (xon > xoff)
    {
        Fail(source, "topology.pfc.xon_bytes",
             fmt::format("expected at most topology.pfc.xoff_bytes ({}), got {}", xoff, xon));
    }
    s.pcapHosts = HostList(s, "outputs.pcap_hosts", s.pcapHostsText);
    s.lossHosts = HostList(s, "topology.loss.hosts", s.lossHostsText);
    ResolveCrossTrafficHosts(s);
    ResolveLinkPort(s);
    if (s.lossPercent > 0 && s.engine == "flow")
    {
        Fail(source, "topology.loss.percent",
             "the flow engine does not model packet loss (its recovery at these round-trip "
             "times is timeouts and go-back-N, not a rate): expected simulation.engine "
             "\"packet\" or \"auto\" (which runs lossy scenarios at packet level)");
    }
    if (!s.pcapHosts.empty() && s.engine != "packet")
    {
        Fail(source, "outputs.pcap_hosts",
             fmt::format("a pcap capture needs simulation.engine \"packet\" (the {} engine has "
                         "no packets)",
                         s.engine));
    }
    ResolveJobNameAndHosts(s);
    CheckCollective(s, r);
    if (jobView)
    {
        return;
    }
    LoadCrossTrafficFiles(s, s.sizeCdfFile, s.replayFile);
    // iperf paces each stream; beyond the link rate that means nothing. A flow generator may
    // offer more than the link carries (flows then pile up at the sender), as the testbed's
    // extended TCP runs did at 25.5 and 26 Gbps.
    const bool flows = s.crossType == "websearch" || s.crossType == "burst";
    const double maxLoad = flows ? 1.5 * s.linkRateGbps : s.linkRateGbps;
    if (s.crossLoadGbps > maxLoad)
    {
        Fail(source, "cross_traffic.load_gbps",
             fmt::format("expected at most {}the link rate (topology.link_rate_gbps = {}){}, "
                         "got {}",
                         flows ? "1.5 x " : "", s.linkRateGbps,
                         flows ? " for a flow generator" : "", s.crossLoadGbps));
    }
    if (s.crossType != "none" && s.crossType != "replay" && s.crossLoadGbps <= 0)
    {
        Fail(source, "cross_traffic.load_gbps",
             fmt::format("expected a load above 0 for cross_traffic.type '{}', got {}", s.crossType,
                         s.crossLoadGbps));
    }
    if (!s.jobEnabled && s.durationS <= 0)
    {
        Fail(source, "simulation.duration_s",
             "expected a duration above 0 when job.enabled is false (nothing else ends the "
             "run)");
    }
    if (s.jobEnabled && s.durationS > 0)
    {
        Fail(source, "simulation.duration_s",
             fmt::format("expected it only with job.enabled false, got {} beside a job: a job's "
                         "run ends when its iterations are done (simulation.max_time_s with "
                         "simulation.on_max_time report bounds it)",
                         s.durationS));
    }
    if (!s.jobEnabled && s.crossType == "none")
    {
        Fail(source, "job.enabled", "expected true, or some cross_traffic: nothing to simulate");
    }
    if (s.durationS > s.maxTimeS)
    {
        Fail(source, "simulation.duration_s",
             fmt::format("expected at most simulation.max_time_s ({}), got {}", s.maxTimeS,
                         s.durationS));
    }
}

/** Whether the scenario's own job keys or any of its jobs' satisfy `pred`. */
template <typename Pred>
bool
ScenarioOrAnyJob(const Scenario& s, Pred pred)
{
    return pred(s) || std::any_of(s.jobs.begin(), s.jobs.end(), pred);
}

} // namespace

bool
TcpNegotiatesEcn(const Scenario& s)
{
    return s.tcpEcn || s.tcpCongestionControl == "dctcp";
}

std::string
ModelVersion(const Scenario& s)
{
    std::string v = kSimulationModelVersion;
    if (s.crossType == "websearch")
    {
        v = fmt::format("{}; web-search {}", v, kWebSearchModelVersion);
    }
    else if (s.crossType == "burst")
    {
        v = fmt::format("{}; burst {}", v, kBurstModelVersion);
    }
    if (ScenarioOrAnyJob(s, [](const Scenario& j) { return j.mltcp; }))
    {
        v = fmt::format("{}; MLTCP {}", v, kMltcpModelVersion);
    }
    if (TcpNegotiatesEcn(s))
    {
        v = fmt::format("{}; TCP ECN {}", v, kTcpEcnModelVersion);
    }
    const auto marks = [](const ns3::EgressQueueConfig& q)
    { return q.discipline == "ecn" || q.discipline == "red"; };
    if (marks(s.switchQueue) || marks(s.hostQueue))
    {
        v = fmt::format("{}; {}", v, kMarkingStreamsModelVersion);
    }
    // Such a run went by slices before auto was the default.
    if (ScenarioOrAnyJob(s, [](const Scenario& j) { return j.flowRingWholeByAuto; }))
    {
        v = fmt::format("{}; {}", v, kAutoWholeRingModelVersion);
    }
    if (ScenarioOrAnyJob(s, [](const Scenario& j) { return j.modelName == "bert-large"; }))
    {
        v = fmt::format("{}; {}", v, kBertLargeModelVersion);
    }
    if (s.engine != "packet")
    {
        v = fmt::format("{}; flow engine {}", v, kFlowEngineModelVersion);
    }
    return v;
}

bool
IsFlowTraffic(const std::string& type)
{
    return type == "websearch" || type == "burst" || type == "replay";
}

bool
FlowEngineHasStandingQueues(const Scenario& s)
{
    bool rdma = false;
    for (const Scenario* job : Jobs(s))
    {
        rdma = rdma || job->transport == "rdma";
    }
    const std::string& d = s.switchQueue.discipline;
    return s.flowQueues && rdma && (d == "fifo" || d == "ecn");
}

bool
HostRunsRdmaJob(const Scenario& s, uint32_t host)
{
    for (const Scenario* job : Jobs(s))
    {
        const auto& hosts = job->jobHosts;
        if (job->transport == "rdma" && std::find(hosts.begin(), hosts.end(), host) != hosts.end())
        {
            return true;
        }
    }
    return false;
}

std::vector<const Scenario*>
Jobs(const Scenario& s)
{
    std::vector<const Scenario*> jobs;
    for (const Scenario& job : s.jobs)
    {
        jobs.push_back(&job);
    }
    if (jobs.empty() && s.jobEnabled)
    {
        jobs.push_back(&s);
    }
    return jobs;
}

namespace
{

// One scenario with one job (checked by CheckTree already): defaults, the user's values,
// the rules between keys.
Scenario
ResolveOneJob(const json& user, const std::string& source, bool jobView)
{
    const auto& keys = ScenarioKeys();
    const UserModels userModels = ParseUserModels(source, user);

    // Defaults, then the user's values on top.
    json r = json::object();
    for (const auto& spec : keys)
    {
        SetAtPath(r, spec.path, spec.defaultValue);
    }
    for (const auto& spec : keys)
    {
        json::json_pointer ptr("/" +
                               [&]
                               {
                                   std::string p = spec.path;
                                   std::replace(p.begin(), p.end(), '.', '/');
                                   return p;
                               }());
        if (user.contains(ptr))
        {
            SetAtPath(r, spec.path, user.at(ptr));
        }
    }
    r["models"] = userModels.resolved;

    Scenario s;
    s.source = source;
    for (const auto& spec : keys)
    {
        if (spec.store)
        {
            spec.store(s, ValueAt(r, spec.path));
        }
    }
    CheckRules(s, r, userModels.models, jobView);
    s.resolved = r;
    return s;
}

// tcp.csv follows each flow's TCP window: ns-3's sockets, or the flow engine's window flows.
void
CheckTcpCsv(const Scenario& s)
{
    if (!s.tcpCsv)
    {
        return;
    }
    if (!IsFlowTraffic(s.crossType))
    {
        Fail(s.source, "outputs.tcp_csv",
             fmt::format("tcp.csv traces the cross traffic's flows: expected cross_traffic.type "
                         "websearch, burst or replay, got \"{}\"",
                         s.crossType));
    }
    if (s.engine != "packet" && !FlowEngineHasStandingQueues(s))
    {
        Fail(s.source, "outputs.tcp_csv",
             fmt::format("tcp.csv follows TCP windows, which the flow engine has only behind "
                         "standing queues (simulation.flow_queues with an RDMA job and "
                         "topology.switch_queue.discipline \"fifo\" or \"ecn\"); here it shares "
                         "by max-min: expected simulation.engine \"packet\", got \"{}\"",
                         s.engine));
    }
}

// The flow engine samples DCQCN's notification point once per CNP interval: it needs one.
void
CheckFlowDcqcn(const Scenario& s)
{
    if (s.engine == "packet" || !FlowEngineHasStandingQueues(s) || s.switchQueue.discipline != "ecn"
        || s.resolved.at("job").at("rdma").at("cnp_interval_us").get<double>() > 0)
    {
        return;
    }
    Fail(s.source, "job.rdma.cnp_interval_us",
         fmt::format("the flow engine's DCQCN (a switch that marks) returns at most one CNP per "
                     "interval, which 0 (a CNP per marked packet) does not give: expected above "
                     "0 with simulation.engine \"{}\", or the packet engine",
                     s.engine));
}

// Behind standing queues a whole ring is a window flow with NCCL's window on every hop
// (FluidRingAllReduce): a ring of RoCE queue pairs under NCCL's flow control at FIFO ports. Not
// a tree (its edges' windows are not modelled whole), not DCQCN (it reacts per queue pair), not
// TCP (its connections' windows are the slices').
bool
WholeRingBehindQueues(const Scenario& s, const Scenario& job)
{
    return job.collective == "ring" && job.transport == "rdma"
           && job.resolved.at("job").at("nccl").at("flow_control").get<bool>()
           && s.switchQueue.discipline == "fifo";
}

// The whole ring (or tree) runs its hops in step, which holds where nothing queues (its window
// never binds); behind standing queues the slices give way as NCCL's window makes them, and so
// does a whole ring of queue pairs (WholeRingBehindQueues).
bool
WholeMayRun(const Scenario& s, const Scenario& job)
{
    return !FlowEngineHasStandingQueues(s) || WholeRingBehindQueues(s, job);
}

void
CheckFlowRing(const Scenario& s)
{
    if (s.engine == "packet")
    {
        return;
    }
    for (const Scenario* job : Jobs(s))
    {
        if (job->flowRing == "whole" && !WholeMayRun(s, *job))
        {
            Fail(s.source, "simulation.flow_ring",
                 "\"whole\" runs the collective's hops (a ring's, a tree's edges) in step, "
                 "which holds only where no standing queue forms, or for a ring of RoCE queue "
                 "pairs under NCCL's flow control (job.nccl.flow_control) at a fifo switch; with "
                 "an RDMA job and a fifo or ecn switch the flow engine keeps standing queues: "
                 "expected \"slices\" or \"auto\", or simulation.flow_queues false");
        }
    }
}

// flow_ring auto: each job's ring or trees whole where the rules above would let them, and its
// slices would cost (from flow_ring_whole_from ranks), slices otherwise. The packet engine
// keeps "auto": it has no such choice.
void
ResolveAutoFlowRing(Scenario& s)
{
    if (s.engine == "packet")
    {
        return;
    }
    auto resolve = [&s](Scenario& job)
    {
        if (job.flowRing == "auto")
        {
            const bool whole
                = WholeMayRun(s, job) && !job.mltcp && job.jobHosts.size() >= job.flowRingWholeFrom;
            job.flowRing = whole ? "whole" : "slices";
            job.flowRingWholeByAuto = whole;
        }
    };
    for (Scenario& job : s.jobs)
    {
        resolve(job);
    }
    resolve(s);
}

} // namespace

Scenario
ResolveScenario(const json& user, const std::string& source)
{
    if (!user.is_object())
    {
        throw ScenarioError(fmt::format("{}: expected a JSON object at the top level", source));
    }
    if (std::string bad = NotUtf8(user, ""); !bad.empty())
    {
        // Named with U+FFFD for the bad bytes: the message itself must stay UTF-8.
        std::string shown = json(bad).dump(-1, ' ', false, json::error_handler_t::replace);
        Fail(source, shown.substr(1, shown.size() - 2), "expected UTF-8 text");
    }
    CheckTree(source, user, "", ScenarioKeys());
    if (!user.contains("jobs"))
    {
        Scenario s = ResolveOneJob(user, source, false);
        if (s.pfcEnabled && s.transport != "rdma")
        {
            Fail(source, "topology.pfc.enabled",
                 "PFC protects the RoCE class: expected job.transport \"rdma\" with it");
        }
        CheckTcpCsv(s);
        CheckFlowDcqcn(s);
        CheckFlowRing(s);
        ResolveAutoFlowRing(s);
        return s;
    }
    // Several jobs: each as a scenario of its own, then the scenario as its first job's.
    CheckJobEntries(source, user);
    std::vector<Scenario> jobs;
    json resolvedJobs = json::array();
    for (size_t i = 0; i < user.at("jobs").size(); ++i)
    {
        jobs.push_back(
            NameJobErrors(i, [&] { return ResolveOneJob(JobView(user, i), source, true); }));
        resolvedJobs.push_back(jobs.back().resolved.at("job"));
    }
    Scenario s = NameJobErrors(0, [&] { return ResolveOneJob(JobView(user, 0), source, false); });
    s.jobs = std::move(jobs);
    CheckJobsTogether(s);
    CheckTcpCsv(s);
    CheckFlowDcqcn(s);
    CheckFlowRing(s);
    ResolveAutoFlowRing(s);
    s.resolved["jobs"] = resolvedJobs;
    return s;
}

const json&
ValueAt(const json& resolved, const std::string& path)
{
    const json* node = &resolved;
    std::stringstream ss(path);
    std::string part;
    while (std::getline(ss, part, '.'))
    {
        node = &node->at(part);
    }
    return *node;
}

} // namespace flumen
