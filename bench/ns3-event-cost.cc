#include "ns3-event-cost.h"

#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <chrono>

namespace flumen
{

namespace
{

// Chains of events, each scheduling its successor: the pending set stays the size of a
// flow-level run's (its completions, flow starts, timers and output ticks).
constexpr uint64_t kChains = 32;
uint64_t g_left = 0;

void
Tick(uint32_t chain)
{
    if (g_left > 0)
    {
        --g_left;
        ns3::Simulator::Schedule(ns3::NanoSeconds(1000 + chain), &Tick, chain);
    }
}

} // namespace

nlohmann::json
MeasureNs3EmptyEvents(uint64_t events)
{
    using Clock = std::chrono::steady_clock;
    g_left = events > kChains ? events - kChains : 0;
    auto t0 = Clock::now();
    for (uint32_t c = 0; c < kChains; ++c)
    {
        ns3::Simulator::Schedule(ns3::NanoSeconds(c), &Tick, c);
    }
    ns3::Simulator::Run();
    const double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    const uint64_t ran = ns3::Simulator::GetEventCount();
    ns3::Simulator::Destroy();
    return { { "events", ran },
             { "wall_s", wall },
             { "wall_us_per_event", ran > 0 ? wall * 1e6 / static_cast<double>(ran) : 0.0 } };
}

} // namespace flumen
