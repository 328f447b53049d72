#include "cross-traffic.h"

#include "packet-network.h"
#include "run-scenario.h"
#include "scenario.h"

#include "ns3/core-module.h"
#include "ns3/flow-generator.h"
#include "ns3/websearch-flow-schedule.h"
#include "ns3/windowed-launch-schedule.h"

#include <fmt/format.h>

namespace flumen
{

using namespace ns3;

namespace
{

// Random streams of the cross-traffic schedule (the job's workers use 100 onwards).
constexpr int64_t kCrossTrafficStream = 1000;

} // namespace

Ptr<FlowSchedule>
MakeLoadFileSchedule(const Scenario& s)
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
        b->SetAttribute("SizeBlock", UintegerValue(s.crossSizeBlockFlows));
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

Ptr<FlowSchedule>
MakeCrossSchedule(const Scenario& s)
{
    Ptr<FlowSchedule> schedule = MakeLoadFileSchedule(s);
    if (!schedule || s.crossLaunch != "windows")
    {
        return schedule;
    }
    Ptr<WindowedLaunchSchedule> launched = CreateObject<WindowedLaunchSchedule>();
    launched->SetInner(schedule);
    return launched;
}

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
    Ptr<FlowSchedule> schedule = MakeLoadFileSchedule(s);
    std::vector<LoadFileFlow> out;
    const auto limitUs = static_cast<uint64_t>(std::llround(durationS * 1e6));
    FlowArrival a;
    while (schedule->Next(a) && a.startUs < limitUs)
    {
        out.push_back({ a.startUs, a.sizeBytes, a.destination });
    }
    return out;
}

std::optional<CrossTraffic>
InstallCrossTraffic(const Scenario& s, Network& network)
{
    // Traffic runs until the simulated-time limit; the run stops earlier when the job ends.
    const Time start = Seconds(s.crossStartS);
    const Time stop = Seconds(s.maxTimeS);
    if (s.crossType == "iperf")
    {
        return network.InstallIperf(s.crossLoadGbps, s.crossStreams, start, stop);
    }
    if (IsFlowTraffic(s.crossType))
    {
        return network.InstallFlows(MakeCrossSchedule(s), start, stop);
    }
    return std::nullopt;
}

double
OfferedGbps(const Scenario& s)
{
    if (s.crossType != "replay")
    {
        return s.crossType == "none" ? 0.0 : s.crossLoadGbps;
    }
    // A load file's own rate: its bytes over the span of its start times.
    double bytes = 0;
    uint64_t lastUs = 0;
    for (const auto& f : s.replayFlows)
    {
        bytes += f.sizeBytes + FlowGenerator::kHeaderBytes;
        lastUs = std::max(lastUs, f.startUs);
    }
    return lastUs > 0 ? bytes * 8.0 / (lastUs * 1e-6) / 1e9 : 0.0;
}

std::string
CrossTrafficOverloadNote(const Scenario& s)
{
    if (!IsFlowTraffic(s.crossType))
    {
        return "";
    }
    const double offeredGbps = OfferedGbps(s);
    const double wireGbps = offeredGbps * TcpWireFactor(s);
    if (wireGbps <= s.linkRateGbps)
    {
        return "";
    }
    return fmt::format(
        "{} cross traffic offered at {:.2f} Gbps takes {:.2f} Gbps on the wire with its TCP/IP "
        "headers, more than its sender's {:g} Gbps link: its flows pile up without bound in "
        "either engine, and {} (docs/flow-engine.md, Speed)",
        s.crossType, offeredGbps, wireGbps, s.linkRateGbps,
        s.jobEnabled ? "the job beside it may never finish" : "the run slows as they do");
}

} // namespace flumen
