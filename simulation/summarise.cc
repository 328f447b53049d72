#include "summarise.h"

#include "flow-network.h"

#include "cross-traffic.h"
#include "packet-network.h"

#include "ns3/core-module.h"
#include "ns3/flow-ring-transport.h"
#include "ns3/rdma-ring-transport.h"
#include "ns3/ring-allreduce.h"
#include "ns3/training-worker.h"
#include "ns3/tree-all-reduce.h"

#include <algorithm>
#include <map>

namespace flumen
{

using namespace ns3;

namespace
{

std::vector<IterationRow>
IterationRows(const MeasuredJob& job)
{
    std::vector<IterationRow> rows;
    for (const auto& r : job.job.recorder->GetRecords())
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
        row.warmup = r.iteration < job.spec->warmupIterations;
        row.job = job.spec->jobName;
        rows.push_back(row);
    }
    std::sort(rows.begin(), rows.end(),
              [](const auto& a, const auto& b)
              { return std::tie(a.iteration, a.worker) < std::tie(b.iteration, b.worker); });
    return rows;
}

// What an unfinished job still tells: its mean measured iteration time is at least (now -
// start of the rank's first measured iteration) / measured iterations, as iterations run
// back to back. A rank still in its warm-up only bounds the mean over all its iterations,
// warm-up included: approximate for the measured ones.
UnfinishedJob
LowerBound(const MeasuredJob& job, double simulatedS)
{
    const Scenario& s = *job.spec;
    const uint32_t measured = s.iterations - s.warmupIterations;
    std::map<uint32_t, std::pair<uint32_t, double>> done; // rank: measured count, sum
    for (const auto& r : job.job.recorder->GetRecords())
    {
        if (r.iteration >= s.warmupIterations)
        {
            done[r.rank].first++;
            done[r.rank].second += (r.end - r.start).GetSeconds();
        }
    }
    UnfinishedJob u;
    double bound = 0;
    for (uint32_t rank = 0; rank < job.workers; ++rank)
    {
        if (done[rank].first == measured)
        {
            bound += done[rank].second / measured;
        }
        else if (job.measuredStart.count(rank))
        {
            bound += (simulatedS - job.measuredStart.at(rank).GetSeconds()) / measured;
        }
        else
        {
            u.strict = false;
            double start = job.firstStart.count(rank) ? job.firstStart.at(rank).GetSeconds() : 0.0;
            bound += (simulatedS - start) / s.iterations;
        }
    }
    u.iterationsCompleted = job.iterationsDone / std::max(1u, job.workers);
    u.lowerBoundS = bound / std::max(1u, job.workers);
    return u;
}

// Bytes the busiest worker sends per iteration under the job's collective (every worker the
// same in the ring).
uint64_t
BusiestWorkerBytes(const Scenario& s, uint32_t workers)
{
    const uint64_t gradientBytes = s.model.GradientBytes();
    if (s.collective == "ring" || workers < 2)
    {
        return RingAllReduce::BytesSentByRank(gradientBytes, workers, 0);
    }
    const auto trees = CollectiveTrees(s.collective, workers, s.psServers);
    uint64_t busiest = 0;
    for (uint32_t r = 0; r < workers; ++r)
    {
        busiest = std::max(busiest, TreeAllReduce::BytesSentByRank(gradientBytes, trees, r));
    }
    return busiest;
}

ModelSummary
Model(const Scenario& s, uint32_t workers)
{
    // No-contention estimate: compute plus the busiest worker's collective bytes (with
    // headers) at line rate. A yardstick for the slowdown, not a model.
    const bool rdma = s.transport == "rdma";
    const uint32_t mss = TcpMss(s);
    const double headerShare
        = rdma ? (RoceFrameBytes(s) - s.rdmaMtuBytes) / static_cast<double>(s.rdmaMtuBytes)
               : static_cast<double>(TcpFrameBytes(s) - mss) / mss;
    const uint64_t busiestBytes = BusiestWorkerBytes(s, workers);
    ModelSummary m;
    m.name = s.model.name;
    m.parameters = s.model.parameters;
    m.computeS = s.model.ComputeSeconds();
    m.forwardS = s.model.forwardSeconds;
    m.backwardS = s.model.backwardSeconds;
    m.stepS = s.model.stepSeconds;
    m.gradientTensors = s.model.ReleaseBytes().size();
    m.computeJitterCv = s.model.computeJitterCv;
    m.ringBytesPerWorker = busiestBytes;
    m.idleEstimateS = s.model.ComputeSeconds()
                      + busiestBytes * (1.0 + headerShare) * 8.0 / (s.linkRateGbps * 1e9);
    return m;
}

std::optional<PhaseSummary>
Phases(const std::vector<IterationRow>& rows)
{
    PhaseSummary p;
    uint32_t n = 0;
    for (const auto& row : rows)
    {
        if (!row.warmup)
        {
            p.forward += row.forwardS;
            p.backward += row.backwardS;
            p.wait += row.waitS;
            p.step += row.stepS;
            ++n;
        }
    }
    if (n == 0)
    {
        return std::nullopt;
    }
    return PhaseSummary{ p.forward / n, p.backward / n, p.wait / n, p.step / n };
}

// Every RDMA job's transports, summed; nothing without one (at flow level: without DCQCN or
// PFC pauses, and only its CNPs and pauses).
std::optional<RdmaSummary>
Rdma(const FinishedRun& run)
{
    RdmaSummary r;
    bool any = false;
    for (const MeasuredJob& job : run.measurement.Jobs())
    {
        for (const auto& channels : job.job.channels)
        {
            for (const auto& t : channels)
            {
                if (Ptr<RdmaRingTransport> q = DynamicCast<RdmaRingTransport>(t))
                {
                    any = true;
                    r.cnps += q->GetCnpsSent();
                    r.naks += q->GetNaksSent();
                    r.timeouts += q->GetTimeouts();
                    r.packetsRetransmitted += q->GetPacketsRetransmitted();
                }
                else if (Ptr<FlowRingTransport> f = DynamicCast<FlowRingTransport>(t);
                         f && f->GetRateControl())
                {
                    any = true;
                    r.cnps += f->GetCnps();
                }
            }
        }
    }
    r.pfcPauses = run.network.PfcPauses();
    return any || r.pfcPauses > 0 ? std::optional<RdmaSummary>(r) : std::nullopt;
}

// One job over its own window; its rows go to `rows`.
JobSummary
SummariseJob(const FinishedRun& run, const MeasuredJob& m, std::vector<IterationRow>& rows)
{
    const Scenario& s = *m.spec;
    JobSummary j;
    j.name = s.jobName;
    for (uint32_t h : s.jobHosts)
    {
        j.hosts.push_back(StarTopologyHelper::HostName(h));
    }
    j.transport = s.transport;
    j.collective = s.collective;
    if (run.scenario.engine == "flow")
    {
        j.flowRing = s.flowRing; // the ring's, or a tree collective's trees
    }
    j.startS = s.jobStartS;
    j.windowStartS = m.windowStart.GetSeconds();
    j.windowEndS = m.windowEnd.GetSeconds();
    const std::vector<IterationRow> own = IterationRows(m);
    std::vector<double> durations;
    for (const auto& row : own)
    {
        if (!row.warmup)
        {
            durations.push_back(row.DurationS());
        }
    }
    j.iterations = s.iterations - s.warmupIterations;
    j.warmupIterations = s.warmupIterations;
    j.workers = m.workers;
    j.iterationTimeS = Summarize(durations);
    if (!run.fixedDuration)
    {
        j.jobFinished = m.Done();
        if (!m.Done())
        {
            j.unfinished = LowerBound(m, run.simulatedS);
        }
    }
    j.model = Model(s, m.workers);
    const double window = j.windowEndS - j.windowStartS;
    if (m.workers > 0 && window > 0)
    {
        j.dlGoodputGbps = m.BytesInWindow() * 8.0 / window / 1e9 / m.workers;
    }
    j.phasesS = Phases(own);
    j.allReducesPerIteration
        = m.job.workers.GetN() > 0
              ? DynamicCast<TrainingWorker>(m.job.workers.Get(0))->GetAllReducesDone()
                    / static_cast<double>(s.iterations)
              : 0.0;
    rows.insert(rows.end(), own.begin(), own.end());
    return j;
}

// The cross traffic over the window; `flows` receives every flow started.
CrossTrafficSummary
Cross(const FinishedRun& run, double window, std::vector<FlowRow>& flows)
{
    const Scenario& s = run.scenario;
    CrossTrafficSummary c;
    c.type = s.crossType;
    c.offeredGbps = OfferedGbps(s);
    if (run.cross && window > 0)
    {
        c.achievedGbps = run.measurement.CrossBytesInWindow() * 8.0 / window / 1e9;
    }
    if (!run.cross || !run.cross->takeFlows)
    {
        return c;
    }
    FlowTally atTheEnd;
    const FlowTally* tally = run.streamedFlows;
    if (!tally)
    {
        flows = run.cross->takeFlows(false);
        atTheEnd.Add(flows, run.cross->flowOverheadBytes,
                     run.measurement.WindowStart().GetSeconds());
        tally = &atTheEnd;
    }
    FlowsSummary f;
    f.started = tally->started;
    f.failed = tally->failed;
    f.completed = tally->fctS.size();
    f.openAtEnd = run.cross->connectionsOpen();
    f.fctS = Summarize(tally->fctS);
    // Bytes (with the generator's headers) of the flows that started in the window: what the
    // generator really offered, which for heavy-tailed sizes differs from the request.
    const double scheduledBytes
        = run.measurement.WindowIsWholeRun() ? tally->bytes : tally->bytesInWindow;
    c.scheduledGbps = window > 0 ? scheduledBytes * 8.0 / window / 1e9 : 0.0;
    c.flows = f;
    return c;
}

// Each hop over the window [from, to): its mean rate, and the rate its bytes were sent at
// (bins weighted by their bytes). Bins cut by the window's edges count in proportion.
std::vector<RingHopSummary>
RingHopSummaries(const std::vector<RingHopSeries>& hops, double from, double to)
{
    std::vector<RingHopSummary> out;
    for (const auto& h : hops)
    {
        RingHopSummary s{ h.from, h.to, 0, 0 };
        double bytes = 0, weighted = 0;
        for (size_t b = 0; b < h.jobBytes.size() && h.binS > 0; ++b)
        {
            const double start = b * h.binS;
            const double inside
                = std::clamp(std::min(to, start + h.binS) - std::max(from, start), 0.0, h.binS)
                  / h.binS;
            const double rate = h.jobBytes[b] * 8.0 / h.binS / 1e9;
            bytes += inside * h.jobBytes[b];
            weighted += inside * h.jobBytes[b] * rate;
        }
        s.meanGbps = to > from ? bytes * 8 / (to - from) / 1e9 : 0;
        s.injectionGbps = bytes > 0 ? weighted / bytes : 0;
        out.push_back(s);
    }
    return out;
}

// With several jobs, each one's measured all-reduce time beside the others' (jobs[i] is
// m.Jobs()[i]'s); `rows`, if given, receives every job's rank-0 all-reduces in time order.
void
CommPhases(const Measurement& m, std::vector<JobSummary>& jobs, std::vector<CommPhase>* rows)
{
    const std::vector<MeasuredJob>& measured = m.Jobs();
    for (size_t i = 0; measured.size() > 1 && i < measured.size(); ++i)
    {
        std::vector<CommPhase> mine;
        std::vector<CommPhase> others;
        for (size_t k = 0; k < measured.size(); ++k)
        {
            for (const CommPhase& p : measured[k].comm)
            {
                if (k != i)
                {
                    others.push_back(p);
                }
                else if (!p.warmup)
                {
                    mine.push_back(p);
                }
            }
        }
        jobs[i].commOverlap = CommOverlap(mine, others);
    }
    if (rows)
    {
        for (const MeasuredJob& job : measured)
        {
            rows->insert(rows->end(), job.comm.begin(), job.comm.end());
        }
        std::stable_sort(rows->begin(), rows->end(),
                         [](const CommPhase& a, const CommPhase& b)
                         { return a.startS < b.startS; });
    }
}

} // namespace

RunOutput
Summarise(const FinishedRun& run)
{
    const Scenario& s = run.scenario;
    const Measurement& m = run.measurement;
    const double window = run.simulatedS - m.WindowStart().GetSeconds();
    RunOutput out;
    RunSummary& sm = out.summary;
    for (const MeasuredJob& job : m.Jobs())
    {
        sm.jobs.push_back(SummariseJob(run, job, out.rows));
    }
    CommPhases(m, sm.jobs, s.commCsv ? &out.comm : nullptr);
    sm.name = s.name;
    sm.engine = s.engine;
    if (s.engine == "flow")
    {
        sm.engineIgnores = FlowEngineIgnoredKeys();
    }
    // The run's job figures are its first job's.
    static_cast<JobFigures&>(sm) = sm.jobs.empty() ? JobFigures{} : sm.jobs.front();
    if (sm.jobs.empty())
    {
        sm.iterationTimeS = Summarize({});
    }
    sm.crossTraffic = Cross(run, window, out.flows);
    if (run.cross && run.cross->takeTcpFlows)
    {
        out.tcpFlows = run.cross->takeTcpFlows();
    }
    sm.rdma = Rdma(run);
    if (s.lossPercent > 0)
    {
        const LossCounts loss = run.network.Loss();
        sm.loss = LossSummary{ s.lossPercent, s.lossHostsText, loss.arrived, loss.lost };
    }
    out.link = run.network.TakeLinkSeries(false);
    out.ringHops = run.network.RingHops();
    sm.ringHops = RingHopSummaries(out.ringHops, m.WindowStart().GetSeconds(), run.simulatedS);
    sm.bottleneck = run.network.Bottleneck();
    sm.ports = run.network.Ports();
    sm.windowStartS = m.WindowStart().GetSeconds();
    sm.windowEndS = run.simulatedS;
    sm.windowIsWholeRun = m.WindowIsWholeRun();
    sm.simulatedTimeS = run.simulatedS;
    sm.events = Simulator::GetEventCount();
    const PacketCounts packets = run.network.Packets();
    sm.packetHops = packets.hops;
    sm.torForwardedPackets = packets.torForwarded;
    sm.scenario = s.resolved;
    return out;
}

} // namespace flumen
