// Where the flow engine agrees with the packet level, judged from a flow-level run's summary:
// what engine auto and every flow run's engine_domain go by (docs/flow-engine.md, engine auto).
#include "flow-network.h"
#include "packet-network.h"
#include "scenario.h"

#include <fmt/format.h>

#include <algorithm>

namespace flumen
{

namespace
{

// Over TCP alone the engine shares a FIFO port by max-min, each flow its share at once, no
// window: flow cross traffic goes through in bursts, taking the port from the ring while its
// flows are open and leaving what the ring's ceiling does not use idle once they are done,
// where the packet level's windows spread it over the ring's periods. Where that traffic (with
// its headers) and the ceiling ask more than the port carries, the ring's rate turns on that
// difference (docs/flow-engine.md, "Where to trust it"). Empty when they do not.
std::string
CeilingMeetsFlowTraffic(const Scenario& s, const RunSummary& flowRun)
{
    if (FlowEngineHasStandingQueues(s) || !IsFlowTraffic(s.crossType))
    {
        return "";
    }
    double ceilingGbps = 0;
    for (const Scenario* job : Jobs(s))
    {
        if (job->transport == "tcp" && job->hostCeilingGbps < s.linkRateGbps)
        {
            ceilingGbps = std::max(ceilingGbps, job->hostCeilingGbps);
        }
    }
    const double crossGbps = flowRun.crossTraffic.achievedGbps * TcpWireFactor(s);
    if (ceilingGbps <= 0 || crossGbps + ceilingGbps <= s.linkRateGbps)
    {
        return "";
    }
    return fmt::format(
        "the ring's TCP ceiling (job.tcp.host_ceiling_gbps = {:.2f}) and the {} "
        "beside it ({:.2f} Gbps with its headers) ask more than the {:g} Gbps of {}, "
        "where the flow engine's max-min (a share per flow at once, no windows) "
        "sets the ring's rate; re-run at packet level",
        ceilingGbps, s.crossType, crossGbps, s.linkRateGbps, flowRun.bottleneck.port);
}

} // namespace

bool
FlowEngineInDomain(const Scenario& s, const RunSummary& flowRun, std::string& why)
{
    const ns3::StarRoles roles = CrossTrafficRoles(s);
    const bool roundRobin = roles.bottleneckAtNic && HostRunsRdmaJob(s, roles.crossSource);
    // The configuration's bottleneck, and in a fabric the busiest uplink (FIFO switch ports
    // where jobs meet).
    PortSummary busiest = flowRun.bottleneck;
    bool fifo = !roundRobin;
    const size_t hostPorts = 2 * static_cast<size_t>(s.hosts);
    for (size_t p = hostPorts; p < flowRun.ports.size(); ++p)
    {
        if (flowRun.ports[p].utilization > (fifo ? busiest.utilization : 0.0))
        {
            busiest = flowRun.ports[p];
            fifo = true;
        }
    }
    // A switch port whose queue reached its buffer: there both engines drop, the engine only
    // approximately (its flows lose in step, RoCE's go-back-N is not modelled:
    // docs/flow-engine.md, "Drops at switch ports").
    for (size_t p = 0; p < flowRun.ports.size(); ++p)
    {
        const PortSummary& port = flowRun.ports[p];
        const bool filled = port.maxQueueBytes >= s.switchQueue.bufferBytes
                            || (port.switchBuffer && port.switchBuffer->overflows > 0);
        if ((p >= hostPorts || p % 2 == 1) && filled)
        {
            why = fmt::format("the flow engine's queue at {} reached "
                              "topology.switch_queue.buffer_bytes ({:.2f} MB), where its drops are "
                              "approximate; re-run at packet level",
                              port.port, s.switchQueue.bufferBytes / 1e6);
            return false;
        }
    }
    const double busy = busiest.utilization;
    const bool in = !fifo || busy < s.autoMaxUtilization;
    if (in && fifo && busiest.port == flowRun.bottleneck.port)
    {
        std::string ceiling = CeilingMeetsFlowTraffic(s, flowRun);
        if (!ceiling.empty())
        {
            why = std::move(ceiling);
            return false;
        }
    }
    why = fmt::format(
        "the flow engine's bottleneck ({}, {}) was {:.1f} % busy{}", busiest.port,
        fifo ? "FIFO" : "round robin", 100 * busy,
        in ? fmt::format(", below simulation.auto_max_utilization = {}: inside the domain where "
                         "it follows the packet level (docs/flow-engine.md, where to trust it)",
                         s.autoMaxUtilization)
           : fmt::format(", above simulation.auto_max_utilization = {}; re-run at packet level",
                         s.autoMaxUtilization));
    return in;
}

} // namespace flumen
