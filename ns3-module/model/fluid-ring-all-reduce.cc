#include "fluid-ring-all-reduce.h"

#include "flow-ring-transport.h"
#include "ring-allreduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidRingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(FluidRingAllReduce);

TypeId
FluidRingAllReduce::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FluidRingAllReduce")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<FluidRingAllReduce>()
              .AddTraceSource("AllReduceDone",
                              "A whole ring all-reduce is done at every rank: the bytes each "
                              "rank sent, and the seconds from the last rank's join.",
                              MakeTraceSourceAccessor(&FluidRingAllReduce::m_doneTrace),
                              "ns3::FluidRingAllReduce::DoneTracedCallback");
    return tid;
}

Time
FluidRingAllReduce::StepLatency(double chunkBytes, double sliceBytes, double bps,
                                const std::vector<Time>& hopDelays)
{
    const double n = static_cast<double>(hopDelays.size());
    const double steps = 2 * (n - 1);
    // A step's first slice can leave once the previous step's has arrived; the hop idles for
    // what that takes beyond sending its own chunk.
    double stalls = 0;
    double delays = 0;
    for (const Time& d : hopDelays)
    {
        stalls += std::max(0.0, (sliceBytes - chunkBytes) * 8 / bps + d.GetSeconds());
        delays += d.GetSeconds();
    }
    return Seconds((steps - 1) / n * stalls + delays / n);
}

void
FluidRingAllReduce::Setup(const std::vector<Ptr<FlowRingTransport>>& hops)
{
    NS_ABORT_MSG_IF(hops.size() < 2, "FluidRingAllReduce: a ring needs at least 2 ranks");
    m_hops.clear();
    for (const auto& hop : hops)
    {
        m_hops.push_back(PeekPointer(hop));
    }
    m_all.Reset(static_cast<uint32_t>(hops.size()), "FluidRingAllReduce");
}

void
FluidRingAllReduce::Join(uint32_t rank, uint64_t bytes, const RingPacing& pacing,
                         Callback<void> done)
{
    AllReduce& a = m_all.Join(rank, bytes, done);
    std::tie(a.stepBytes, a.sliceBytes) = pacing.StepAndSlice(bytes, m_hops.size());
    a.flowControl = pacing.flowControl;
    a.windowBytes = pacing.flowControl ? pacing.slicing.SlotsInSlices() * a.sliceBytes : 0;
    if (!m_running && m_all.FrontReady())
    {
        Begin();
    }
}

void
FluidRingAllReduce::Begin()
{
    m_running = true;
    AllReduce& a = m_all.Front();
    a.start = Simulator::Now();
    const auto n = static_cast<uint32_t>(m_hops.size());
    // The hops' paths in rank order: one flow over all of them (a link two hops share carries
    // it twice). Routes and caps do not change (DCQCN is refused here): made at the first.
    FluidNetwork::FlowSpec spec = m_hops.front()->WholeRingHop();
    if (m_path.empty())
    {
        m_lineBps = FluidNetwork::kUnbounded;
        for (const FlowRingTransport* hop : m_hops)
        {
            const FluidNetwork::FlowSpec one = hop->WholeRingHop();
            m_hopBegins.push_back(static_cast<uint32_t>(m_path.size()));
            m_path.insert(m_path.end(), one.path.begin(), one.path.end());
            m_capBps = std::min(m_capBps, one.capBps);
            m_hopDelays.push_back(hop->HopDelay());
            m_lineBps = std::min(
                { m_lineBps, one.capBps,
                  hop->GetNetwork()->GetLinkCapacity(one.path.front()) / one.wireFactor });
        }
        if (m_hops.front()->IsQueuePair())
        {
            MakeWindowSegments();
        }
    }
    spec.path = m_path;
    spec.capBps = m_capBps;
    uint64_t most = 0;
    for (uint32_t r = 0; r < n; ++r)
    {
        most = std::max(most, RingAllReduce::BytesSentByRank(a.bytes, n, r));
    }
    if (most == 0)
    {
        HandleFlowDone(0);
        return;
    }
    spec.bytes = static_cast<double>(most);
    spec.done = MakeCallback(&FluidRingAllReduce::HandleFlowDone, this);
    if (a.windowBytes > 0 && m_hops.front()->IsQueuePair())
    {
        // NCCL's window on every connection: it binds only behind a standing queue (a flow of
        // another kind crosses no queued link and shares as before).
        spec.kind = FluidNetwork::WINDOW;
        spec.windowBytes = spec.initialWindowBytes = a.windowBytes;
        spec.lossBeta = 1;
        // With a slice a step, the step's data comes round the ring before the receiving rank's
        // send slots fill (measured against the slices: docs/flow-engine.md).
        const bool waitsForSendSlots = a.stepBytes >= 2 * a.sliceBytes;
        spec.windowSegments = m_segments[waitsForSendSlots ? 1 : 0];
    }
    // A queue pair's first slice waits for its receiver's clear to send, a hop back (each hop
    // its own: the mean, as the steps take them).
    Time grant(0);
    if (a.flowControl && m_hops.front()->IsQueuePair())
    {
        for (const Time& d : m_hopDelays)
        {
            grant += d;
        }
        grant = grant / static_cast<int64_t>(n);
    }
    a.flowStart = Simulator::Now() + grant;
    a.flowBytes = spec.bytes;
    Simulator::Schedule(grant, &FluidRingAllReduce::StartFlow, this, spec);
}

void
FluidRingAllReduce::MakeWindowSegments()
{
    // Hop r's slots at rank r + 1 turn over once its grant has come back to rank r and its
    // slice has crossed to rank r + 1 (a round trip), and, where a step spans slices, once rank
    // r + 1 has a send slot for it: then hop r + 1 always has slices to send, and its send
    // slots wait for its grants, behind the queues on their way (ring-allreduce.h). NCCL's
    // window binds over that cycle: [0] without the next hop's grants, [1] with them.
    const auto n = static_cast<uint32_t>(m_hops.size());
    for (uint32_t r = 0; r < n; ++r)
    {
        FluidNetwork::FlowSpec::WindowSegment seg;
        seg.begin = m_hopBegins[r];
        seg.baseRttS = (m_hops[r]->GrantDelay() + m_hopDelays[r]).GetSeconds();
        seg.cycleLinks = m_hops[r]->GrantPath();
        m_segments[0].push_back(seg);
        const std::vector<uint32_t>& next = m_hops[(r + 1) % n]->GrantPath();
        seg.cycleLinks.insert(seg.cycleLinks.end(), next.begin(), next.end());
        m_segments[1].push_back(std::move(seg));
    }
}

void
FluidRingAllReduce::StartFlow(FluidNetwork::FlowSpec spec)
{
    AllReduce& a = m_all.Front();
    // (Only a window flow runs behind standing queues: other rings cross no queue.)
    a.queueingAtStart.assign(spec.kind == FluidNetwork::WINDOW ? m_hops.size() : 0, 0.0);
    for (uint32_t h = 0; h < a.queueingAtStart.size(); ++h)
    {
        a.queueingAtStart[h] = HopQueueing(h);
    }
    m_hops.front()->GetNetwork()->StartFlow(spec);
}

double
FluidRingAllReduce::HopQueueing(uint32_t hop) const
{
    const Ptr<FluidNetwork> net = m_hops.front()->GetNetwork();
    const uint32_t end = hop + 1 < m_hopBegins.size() ? m_hopBegins[hop + 1]
                                                      : static_cast<uint32_t>(m_path.size());
    double queueing = 0;
    for (uint32_t i = m_hopBegins[hop]; i < end; ++i)
    {
        queueing += net->GetQueueByteSeconds(m_path[i]) * 8 / net->GetLinkCapacity(m_path[i]);
    }
    return queueing;
}

void
FluidRingAllReduce::HandleFlowDone(uint64_t)
{
    const AllReduce& a = m_all.Front();
    // The steps' pace: the rate the ring kept (a hop slowed by other flows sends its chunks for
    // longer, which hides more of the other hops' latency), else the line's.
    const double took = (Simulator::Now() - a.flowStart).GetSeconds();
    const double bps = a.flowBytes > 0 && took > 0 ? a.flowBytes * 8 / took : m_lineBps;
    // Each hop's latency: its propagation and the mean of the queues it crossed meanwhile.
    std::vector<Time> delays = m_hopDelays;
    for (uint32_t h = 0; h < a.queueingAtStart.size() && took > 0; ++h)
    {
        const double queueing = HopQueueing(h) - a.queueingAtStart[h];
        delays[h] += queueing > 0 ? Seconds(queueing / took) : Time(0);
    }
    Simulator::Schedule(StepLatency(a.stepBytes, a.sliceBytes, bps, delays),
                        &FluidRingAllReduce::Finish, this);
}

void
FluidRingAllReduce::Finish()
{
    AllReduce a = m_all.Pop();
    ++m_allReduces;
    m_running = false;
    const auto n = static_cast<uint32_t>(m_hops.size());
    for (uint32_t r = 0; r < n; ++r)
    {
        const uint64_t sent = RingAllReduce::BytesSentByRank(a.bytes, n, r);
        m_hops[r]->CountWholeRing(sent, 0);
        m_hops[(r + 1) % n]->CountWholeRing(0, sent);
    }
    m_doneTrace(RingAllReduce::BytesSentByRank(a.bytes, n, 0),
                (Simulator::Now() - a.start).GetSeconds());
    // (A rank's callback may join the next all-reduce: it begins once the last has.)
    for (uint32_t r = 0; r < n; ++r)
    {
        a.done[r]();
    }
    if (!m_running && m_all.FrontReady())
    {
        Begin();
    }
}

void
FluidRingAllReduce::DoDispose()
{
    m_hops.clear();
    m_all.Clear();
    Object::DoDispose();
}

} // namespace ns3
