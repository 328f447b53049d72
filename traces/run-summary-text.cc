// The text `flumen run` prints: a few lines for people.
#include "run-summary.h"

#include <fmt/format.h>

namespace flumen
{

using nlohmann::json;

namespace
{

// A job's figures: iterations, their time, phases, goodput.
std::string
FigureLines(const JobFigures& sm, double maxTimeS)
{
    const SummaryStatistics& it = sm.iterationTimeS;
    const double idle = sm.model ? sm.model->idleEstimateS : 0.0;
    std::string out
        = fmt::format("  iterations       {} measured per worker ({} warm-up left out)\n",
                      sm.iterations, sm.warmupIterations);
    if (sm.jobFinished && !*sm.jobFinished && sm.unfinished)
    {
        out += fmt::format(
            "  UNFINISHED       {} of {} iterations by simulation.max_time_s = {} s; mean "
            "iteration time at least {:.4f} s ({}); the figures below cover the finished ones\n",
            sm.unfinished->iterationsCompleted, sm.iterations + sm.warmupIterations, maxTimeS,
            sm.unfinished->lowerBoundS,
            sm.unfinished->strict ? "strict" : "approximate: a rank was still in its warm-up");
    }
    out += fmt::format("  iteration time   mean {:.4f} s  p50 {:.4f}  p99 {:.4f}  "
                       "(min {:.4f}, max {:.4f}, stdev {:.4f})\n",
                       it.mean, it.p50, it.p99, it.min, it.max, it.stdev);
    out += fmt::format("  vs no contention {:.4f} s (compute + collective at line rate, no "
                       "overlap): {:.2f}x\n",
                       idle, it.mean / idle);
    if (sm.phasesS)
    {
        const PhaseSummary& ph = *sm.phasesS;
        out += fmt::format("  phases (mean)    forward {:.4f}  backward {:.4f}  waiting for "
                           "communication {:.4f}  step {:.4f} s\n",
                           ph.forward, ph.backward, ph.wait, ph.step);
    }
    out += fmt::format("  all-reduces      {:.1f} per iteration (Horovod fusion)\n",
                       sm.allReducesPerIteration.value_or(0.0));
    out += fmt::format("  DL goodput       {:.2f} Gbps per worker\n", sm.dlGoodputGbps);
    return out;
}

// Every job's figures (one job: without a heading), then the transports and ring hops.
std::string
JobLines(const RunSummary& sm)
{
    const double maxTimeS = sm.scenario["simulation"]["max_time_s"].get<double>();
    std::string out;
    if (sm.jobs.size() > 1)
    {
        for (const JobSummary& job : sm.jobs)
        {
            std::string hosts;
            for (const auto& h : job.hosts)
            {
                hosts += (hosts.empty() ? "" : ",") + h;
            }
            out += fmt::format("  job {}: {} over {} ({}), {} workers on {}, from {} s\n", job.name,
                               job.model ? job.model->name : "", job.transport, job.collective,
                               job.workers, hosts, job.startS);
            out += FigureLines(job, maxTimeS);
            if (job.commOverlap)
            {
                out += fmt::format("  comm overlap     {:.1f} % of its all-reduce time beside "
                                   "another job's\n",
                                   100 * *job.commOverlap);
            }
        }
    }
    else
    {
        out += FigureLines(sm, maxTimeS);
    }
    if (sm.rdma && sm.engine == "flow")
    {
        out += fmt::format(
            "  RDMA             {} CNPs, {} PFC pauses (the flow engine's; it has no "
            "NAKs, timeouts or retransmissions)\n",
            sm.rdma->cnps, sm.rdma->pfcPauses);
    }
    else if (sm.rdma)
    {
        const RdmaSummary& r = *sm.rdma;
        out += fmt::format("  RDMA             {} CNPs, {} NAKs, {} timeouts, {} packets "
                           "retransmitted, {} PFC pauses\n",
                           r.cnps, r.naks, r.timeouts, r.packetsRetransmitted, r.pfcPauses);
    }
    if (!sm.ringHops.empty())
    {
        std::string hops;
        for (const auto& h : sm.ringHops)
        {
            hops += fmt::format("{}{}->{} {:.2f} (sent at {:.2f})", hops.empty() ? "" : ", ",
                                h.from, h.to, h.meanGbps, h.injectionGbps);
        }
        out += fmt::format("  ring hops        {} Gbps\n", hops);
    }
    return out;
}

} // namespace

std::string
FormatHumanSummary(const RunSummary& sm)
{
    const auto& sc = sm.scenario;
    const CrossTrafficSummary& c = sm.crossTraffic;
    const bool job = sc["job"]["enabled"].get<bool>();
    std::string cross = c.type == "none" ? "no cross traffic"
                                         : fmt::format("{} {:.1f} Gbps", c.type, c.offeredGbps);
    const json& topology = sc["topology"];
    const int leaves = topology.value("leaves", 1);
    const std::string fabric = leaves > 1 ? fmt::format(" on {} leaves x {} spine{}", leaves,
                                                        topology.value("spines", 1),
                                                        topology.value("spines", 1) == 1 ? "" : "s")
                                          : "";
    std::string out = fmt::format(
        "{}: configuration {}{}, {}{}\n", sm.name, topology["configuration"].get<std::string>(),
        fabric,
        sm.jobs.size() > 1 ? fmt::format("{} jobs, ", sm.jobs.size())
        : job              ? fmt::format("{} over {}, {} workers, ", sm.model ? sm.model->name : "",
                                         sc["job"]["transport"].get<std::string>(), sm.workers)
                           : std::string("no training job, "),
        cross);
    if (job)
    {
        out += JobLines(sm);
    }
    if (c.type != "none")
    {
        out += fmt::format("  cross traffic    offered {:.2f} Gbps, achieved {:.2f} Gbps\n",
                           c.offeredGbps, c.achievedGbps);
        if (c.flows)
        {
            const FlowsSummary& f = *c.flows;
            out += fmt::format("  flows            {} started, {} completed, {} failed; "
                               "scheduled {:.2f} Gbps; FCT p50 {:.3f} ms p99 {:.3f} ms\n",
                               f.started, f.completed, f.failed, c.scheduledGbps.value_or(0.0),
                               f.fctS.p50 * 1e3, f.fctS.p99 * 1e3);
        }
    }
    if (sm.loss)
    {
        const LossSummary& l = *sm.loss;
        out += fmt::format(
            "  packet loss      requested {:.3g} % on {}; applied {:.3f} % ({} of {} "
            "packets)\n",
            l.requestedPercent, l.hosts.empty() ? "every link" : "the links of " + l.hosts,
            l.AppliedPercent(), l.packetsLost, l.packetsArrived);
    }
    if (!sm.engineDomain.empty())
    {
        out += fmt::format("  out of domain    {} (engine auto would)\n", sm.engineDomain);
    }
    if (!sm.engineAuto.empty())
    {
        out += fmt::format("  engine           auto: {}\n", sm.engineAuto);
    }
    const PortSummary& b = sm.bottleneck;
    out += fmt::format("  bottleneck       {}: utilization {:.1f}%", b.port, 100 * b.utilization);
    if (sm.engine == "flow" && b.maxQueueBytes > 0)
    {
        out += fmt::format(", standing queue mean {:.0f} KB max {:.0f} KB (the flow engine counts "
                           "no packets dropped or marked)\n",
                           b.meanQueueBytes / 1e3, b.maxQueueBytes / 1e3);
    }
    else if (sm.engine == "flow")
    {
        out += " (no queue here in the flow engine; it counts no packets dropped or marked)\n";
    }
    else
    {
        out += fmt::format(", drops {}, ECN marks {}, queue mean {:.0f} KB max {:.0f} KB\n",
                           b.drops, b.ecnMarks, b.meanQueueBytes / 1e3, b.maxQueueBytes / 1e3);
    }
    // Where the packet level would drop at a sender's buffer, the flow engine cuts windows.
    for (const auto& p : sm.ports)
    {
        if (p.hostBuffer && p.hostBuffer->overflows > 0)
        {
            out += fmt::format("  host buffer      {}: {} overflows cut {} windows (the flow "
                               "engine's losses), occupancy mean {:.0f} KB max {:.0f} KB\n",
                               p.port, p.hostBuffer->overflows, p.hostBuffer->windowsCut,
                               p.meanQueueBytes / 1e3, p.maxQueueBytes / 1e3);
        }
        if (p.switchBuffer && p.switchBuffer->overflows > 0)
        {
            out += fmt::format("  switch buffer    {}: filled {} times, cut {} windows (the flow "
                               "engine's drops), queue max {:.0f} KB\n",
                               p.port, p.switchBuffer->overflows, p.switchBuffer->windowsCut,
                               p.maxQueueBytes / 1e3);
        }
    }
    // A fabric: its busiest uplink, where jobs meet.
    const PortSummary* uplink = nullptr;
    for (const auto& p : sm.ports)
    {
        const bool isUplink = p.port.find(" uplink to spine ") != std::string::npos
                              || p.port.rfind("spine ", 0) == 0;
        if (isUplink && (!uplink || p.utilization > uplink->utilization))
        {
            uplink = &p;
        }
    }
    if (uplink)
    {
        out += fmt::format("  busiest uplink   {}: utilization {:.1f}%{}\n", uplink->port,
                           100 * uplink->utilization,
                           sm.engine == "flow"
                               ? std::string()
                               : fmt::format(", drops {}, ECN marks {}, queue max {:.0f} KB",
                                             uplink->drops, uplink->ecnMarks,
                                             uplink->maxQueueBytes / 1e3));
    }
    out += fmt::format("  speed            {:.3f} s simulated in {:.3g} s wall ({}, {:.2f} M "
                       "events; {} engine)\n",
                       sm.simulatedTimeS, sm.wallTimeS, RealTimePace(sm.wallPerSimulatedS),
                       sm.events / 1e6, sm.engine);
    return out;
}

std::string
RealTimePace(double wallPerSimulatedS)
{
    return wallPerSimulatedS >= 1 || wallPerSimulatedS <= 0
               ? fmt::format("{:.0f}x slower than real time", wallPerSimulatedS)
               : fmt::format("{:.0f}x faster than real time", 1 / wallPerSimulatedS);
}

} // namespace flumen
