// FluidNetwork's queued links (fluid-network.h, fluid-queue.h): the standing queues, the rates
// they leave each kind of flow, the time steps while they change, slow start's end, PFC's
// pauses, and the getters of the queues (losses: fluid-network-losses.cc; ECN marks:
// fluid-network-marks.cc).
#include "fluid-network.h"
#include "fluid-queue.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidNetworkQueues");

namespace
{

// A window at a port: uncapped windows of one round trip add up (window / RTT is linear).
void
AddWindowAtPort(std::vector<WindowAtPort>& windows, const WindowAtPort& w)
{
    auto same = std::find_if(windows.begin(), windows.end(),
                             [&w](const WindowAtPort& o) {
                                 return std::isinf(w.capBps) && std::isinf(o.capBps)
                                        && o.baseRttS == w.baseRttS;
                             });
    if (same == windows.end())
    {
        windows.push_back(w);
    }
    else
    {
        same->windowBits += w.windowBits;
    }
}

} // namespace

void
FluidNetwork::SolveQueues()
{
    // Twice where a window flow crosses two queued links (a fabric): each sees the other's
    // queue in its round trip. (Flows are idle only behind drop buffers: the clock is read
    // only where there are some.)
    const double now = m_dropLinks.empty() ? 0 : Simulator::Now().GetSeconds();
    bool twoQueues = false;
    for (int pass = 0; pass < (twoQueues ? 2 : 1); ++pass)
    {
        // By link id; only queued links hold anything (and a queue).
        auto& ports = m_scratch.ports;
        ports.resize(m_links.size());
        for (uint32_t l : m_queuedLinks)
        {
            // ACKs keep their pace: they are what the flows' receivers send back.
            auto& p = ports[l];
            p.paced = m_links[l].ackBps[JOB] + m_links[l].ackBps[CROSS];
            p.used = p.paced > 0;
            p.backlog = 0;
            p.windows.clear();
        }
        for (const Flow* flow : m_active)
        {
            const Flow& f = *flow;
            if (f.idleUntilS > now)
            {
                continue; // a timeout: nothing in flight
            }
            const double wire = f.spec.wireFactor * 8;
            if (f.spec.kind == WINDOW && !f.spec.windowSegments.empty())
            {
                AddSegmentWindows(f, m_scratch.segmentWindows, twoQueues);
                continue;
            }
            if (f.Backlogged())
            {
                auto& p = ports[f.spec.path[f.queuedAt]];
                p.used = true;
                p.backlog += (f.pushed - f.moved) * wire;
                continue;
            }
            for (uint32_t l : f.spec.path)
            {
                if (!m_links[l].queued)
                {
                    continue;
                }
                // A paced flow within a window is a window flow capped at its pace.
                if (f.spec.paced && !f.PacedWithinWindow())
                {
                    ports[l].used = true;
                    ports[l].paced += f.spec.capBps * f.spec.wireFactor;
                }
                else if (f.spec.kind == WINDOW || f.PacedWithinWindow())
                {
                    double others = 0;
                    for (uint32_t o : f.spec.path)
                    {
                        others += o == l ? 0 : m_links[o].queueDelayS;
                        twoQueues = twoQueues || (o != l && m_links[o].queued);
                    }
                    // Its ACKs' queues as they were (paced ACKs and backlogs build them, not
                    // its window): no second pass for them.
                    for (uint32_t o : f.spec.ackPath)
                    {
                        others += m_links[o].queueDelayS;
                    }
                    const WindowAtPort w{ f.Window() * wire, f.spec.baseRttS + others,
                                          f.spec.capBps * f.spec.wireFactor };
                    ports[l].used = true;
                    AddWindowAtPort(ports[l].windows, w);
                }
            }
        }
        // A segment's window stands in a port's queue only where other windows or backlogs
        // hold one: beside paced flows and ACKs alone, a hop sends what it receives (the room
        // above), and its excess over the port, if any, builds no faster than the others' share
        // of the port (left out: no queue of its own). Two whole rings alone at a port do not
        // count each other's windows either: they share it by max-min.
        for (const auto& [l, w] : m_scratch.segmentWindows)
        {
            if (!ports[l].windows.empty() || ports[l].backlog > 0)
            {
                ports[l].used = true;
                AddWindowAtPort(ports[l].windows, w);
            }
        }
        m_scratch.segmentWindows.clear();
        for (uint32_t l : m_queuedLinks)
        {
            const auto& p = ports[l];
            Link& link = m_links[l];
            link.SetQueue(0);
            if (!p.used)
            {
                continue;
            }
            link.SetQueue(FifoQueueBits(link.bps, p.paced, p.windows, p.backlog));
            // (A queue beyond a drop buffer is held at it: DropAtFullBuffers.)
            link.maxQueueBits
                = std::max(link.maxQueueBits, link.dropBufferBits > 0
                                                  ? std::min(link.queueBits, link.dropBufferBits)
                                                  : link.queueBits);
        }
    }
}

void
FluidNetwork::RecomputeQueued(const std::vector<Flow*>& all, const std::vector<Flow*>& paced,
                              const std::vector<Flow*>& rest, std::vector<double>& left)
{
    SolveQueues();
    if (!m_dropLinks.empty())
    {
        DropAtFullBuffers();
    }
    std::vector<Flow*>& backlogged = m_scratch.backlogged;
    backlogged.clear();
    const double now = Simulator::Now().GetSeconds();
    for (Flow* f : all)
    {
        if (f->idleUntilS > now)
        {
            f->cap = 0; // a retransmission timeout
        }
        if (f->spec.kind == WINDOW && f->queuedAt >= 0)
        {
            f->rttS = WindowRoundTrip(*f);
            f->minRttS = std::min(f->minRttS, f->rttS);
            f->record.maxRttS = std::max(f->record.maxRttS, f->rttS);
            // HyStart (ns-3's CUBIC): the ACK train, or the delay rule once the queue has
            // grown by the smallest round trip (clamped) since the flow saw it.
            if (f->slowStart && f->cwnd >= f->spec.hystartWindowBytes)
            {
                // ns-3's threshold: the round trip, capped at max, else raised to min.
                const double rise = f->minRttS > f->spec.hystartDelayMaxS
                                        ? f->spec.hystartDelayMaxS
                                        : std::max(f->minRttS, f->spec.hystartDelayMinS);
                if (TrainEndsSlowStart(*f, f->cwnd) || f->rttS > f->minRttS + rise)
                {
                    f->EndSlowStart(false);
                }
            }
            if (f->rttS > 0)
            {
                f->cap = std::min(f->cap, f->Window() * 8 / f->rttS);
            }
        }
        else if (f->PacedWithinWindow())
        {
            f->rttS = f->spec.baseRttS + RoundTripQueueing(*f);
            if (f->rttS > 0)
            {
                f->cap = std::min(f->cap, f->WindowInBuffers() * 8 / f->rttS);
            }
            else
            {
                f->cwnd = kUnbounded; // no round trip: any window covers its pace
            }
        }
        if (f->Backlogged())
        {
            backlogged.push_back(f);
            f->cap = f->sentCalled ? 0 : f->cap; // all pushed: nothing more upstream
        }
    }
    if (!paced.empty())
    {
        FixPacedFlows(all, paced, left); // they keep their pace, as without queues
    }
    // Window and share flows take their rates (window flows behind the queue); unresponsive
    // ones are held only before their queue: what they push.
    WaterFill(rest, left, Counts::BEFORE_QUEUE);
    // Then the unresponsive flows are served what the others leave at their queue (their share
    // of it): first those whose bytes have all been pushed, each by the time its last byte
    // reaches the head (FIFO within the class), then the others in proportion to their
    // backlogs (an empty backlog is served at most what arrives).
    std::vector<Flow*>& draining = m_scratch.draining;
    std::vector<Flow*>& pushing = m_scratch.pushing;
    draining.clear();
    pushing.clear();
    for (Flow* f : backlogged)
    {
        f->pushRate = f->rate;
        f->rate = 0;
        const double backlog = f->pushed - f->moved;
        if (f->sentCalled)
        {
            f->weight = 1;
            f->cap = backlog * 8 / std::max(f->drainByS - now, m_minStep.GetSeconds());
            draining.push_back(f);
            continue;
        }
        // Its cap holds its sender (pushRate); the port serves its backlog at whatever share.
        f->weight = std::max(backlog, kEmptyBacklogBytes);
        f->cap = backlog > kEmptyBacklogBytes ? kUnbounded : f->pushRate;
        pushing.push_back(f);
    }
    WaterFill(draining, left, Counts::AFTER_QUEUE);
    WaterFill(pushing, left, Counts::AFTER_QUEUE);
    if (!m_dropLinks.empty())
    {
        HoldAtFullBuffers(pushing);
    }
    if (m_anyPause)
    {
        Pause(pushing);
    }
}

void
FluidNetwork::Pause(const std::vector<Flow*>& pushing)
{
    // Each NIC's unresponsive bytes waiting at queued links (the ToR's ingress count).
    std::vector<double>& held = m_scratch.probe;
    std::vector<double>& growth = m_scratch.heldGrowth;
    held.assign(m_links.size(), 0);
    growth.assign(m_links.size(), 0);
    for (const Flow* f : m_active)
    {
        if (f->Backlogged())
        {
            held[f->spec.path[0]] += (f->pushed - f->moved) * f->spec.wireFactor * 8;
        }
    }
    for (uint32_t l = 0; l < m_links.size(); ++l)
    {
        Link& nic = m_links[l];
        const bool paused = nic.pauseBits > 0 && held[l] >= nic.pauseBits * (1 - 1e-9);
        m_pauses += paused && !nic.paused ? 1 : 0;
        nic.paused = paused;
    }
    for (Flow* f : pushing)
    {
        if (m_links[f->spec.path[0]].paused)
        {
            f->pushRate = std::min(f->pushRate, f->rate);
        }
    }
    // Under these rates, when the next NIC reaches its threshold (QueueStep ends there).
    for (const Flow* f : m_active)
    {
        if (f->Backlogged())
        {
            growth[f->spec.path[0]] += (f->pushRate - f->rate) * f->spec.wireFactor;
        }
    }
    m_untilPauseS = kUnbounded;
    for (uint32_t l = 0; l < m_links.size(); ++l)
    {
        const Link& nic = m_links[l];
        if (nic.pauseBits > 0 && !nic.paused && growth[l] > 0)
        {
            m_untilPauseS = std::min(m_untilPauseS, (nic.pauseBits - held[l]) / growth[l]);
        }
    }
}

bool
FluidNetwork::TrainEndsSlowStart(const Flow& f, double windowBytes) const
{
    // A window's ACKs come back in bursts, spaced as its packets left the port. The train
    // runs while they come within the ACK spacing of each other and ends slow start once it
    // is longer than the smallest round trip: at once when that round trip is within the
    // spacing, otherwise only when the window sent at line rate spans it (packet-level
    // traces, docs/flow-engine.md). Before a round trip is seen (unbounded) neither holds.
    if (f.queuedAt < 0)
    {
        return false;
    }
    const double bps = m_links[f.spec.path[f.queuedAt]].bps;
    return f.minRttS <= f.spec.hystartAckDeltaS || windowBytes * 8 / bps > f.minRttS;
}

Time
FluidNetwork::QueueStep()
{
    // A host buffer filling up: the step ends when it would overflow.
    const double untilOverflow = m_overflowLinks.empty() ? kUnbounded : UntilOverflow();
    bool changing = untilOverflow < kUnbounded;
    double echoS = kUnbounded; // when the next ECN echo cuts a window or a timeout ends
    // (The clock is read only where timeouts can be: flows idle only behind drop buffers.)
    const double nowS = m_dropLinks.empty() ? 0 : Simulator::Now().GetSeconds();
    for (const Flow* flow : m_active)
    {
        const Flow& f = *flow;
        if (f.Backlogged())
        {
            const double backlog = f.pushed - f.moved;
            changing = changing || backlog > kEmptyBacklogBytes || f.pushRate > f.rate * (1 + 1e-9);
            continue;
        }
        if (f.idleUntilS > nowS)
        {
            changing = true; // a timeout ends
            echoS = std::min(echoS, f.idleUntilS);
        }
        if (f.PacedByWindow())
        {
            changing = true; // its window grows back to its pace
        }
        else if (f.spec.kind == WINDOW && f.queuedAt >= 0)
        {
            // A window still growing, behind a queue where it limits the rate; or one that
            // answers the marks its path puts on its packets; or window segments whose room
            // before their ports moved with these rates.
            changing = changing || (!f.spec.windowSegments.empty() && SegmentRoomsMoved(f))
                       || (f.cwnd < std::min(f.spec.windowBytes, f.spec.bytes)
                           && RoundTripQueueing(f) > 0)
                       || (f.spec.ecn != NO_ECN && GetMarkProbability(f.spec.path) > 0);
            if (f.ecnCutDueS >= 0)
            {
                changing = true;
                echoS = std::min(echoS, f.ecnCutDueS);
            }
        }
    }
    if (!changing)
    {
        return Time(-1);
    }
    // Window flows answer their queue within a round trip: a step is a fraction of its delay.
    // A queue without them, of unresponsive backlog that builds or drains at g bits per second,
    // changes by that fraction of itself in that fraction of Q / g: no shorter steps there (a
    // trickle, such as ACKs behind line-rate RoCE, is followed in a few steps per doubling).
    std::vector<double>& growth = m_scratch.backlogGrowth;
    growth.assign(m_links.size(), 0);
    const bool windowless
        = std::any_of(m_queuedLinks.begin(), m_queuedLinks.end(),
                      [this](uint32_t id)
                      { return m_links[id].queueBits > 0 && m_scratch.ports[id].windows.empty(); });
    for (const Flow* f : m_active)
    {
        if (windowless && f->Backlogged())
        {
            growth[f->spec.path[f->queuedAt]]
                += std::abs(f->pushRate - f->rate) * f->spec.wireFactor;
        }
    }
    double delay = 0;
    for (uint32_t id : m_queuedLinks)
    {
        const Link& l = m_links[id];
        if (l.queueBits > 0)
        {
            const bool windows = !m_scratch.ports[id].windows.empty();
            const double g = growth[id] > 0 && !windows ? std::min(growth[id], l.bps) : l.bps;
            const double d = l.queueBits / g;
            delay = delay > 0 ? std::min(delay, d) : d;
        }
    }
    // (A queue so deep that its step is far beyond the longest is held at the longest before it
    // becomes an ns-3 Time.)
    const double stepS = m_stepFraction * delay;
    Time step = stepS < 1e6 ? Seconds(stepS) : m_maxStep;
    if (untilOverflow < kUnbounded)
    {
        const Time overflow = NanoSecondsAtMost(std::ceil(untilOverflow * 1e9), m_maxStep);
        step = delay > 0 ? std::min(step, overflow) : overflow;
    }
    step = std::min(m_maxStep, std::max(m_minStep, step));
    // The step ends, shorter than the shortest if need be, where an ECN echo cuts a window or
    // PFC pauses a NIC whose queued backlog grows (it must not pass XOFF).
    const double untilS = std::min(
        echoS < kUnbounded ? echoS - Simulator::Now().GetSeconds() : kUnbounded, m_untilPauseS);
    if (untilS < kUnbounded)
    {
        step = std::min(
            step, std::max(NanoSeconds(1), NanoSecondsAtMost(std::ceil(untilS * 1e9), m_maxStep)));
    }
    return step;
}

double
FluidNetwork::GetQueueBytes(uint32_t link) const
{
    Settled();
    const Link& l = m_links.at(link);
    return (l.queueBits + l.overrunBits) / 8;
}

double
FluidNetwork::GetQueueBytesAtRates(uint32_t link) const
{
    Settled();
    const Link& l = m_links.at(link);
    return (l.queueBits + l.overrunAtRatesBits) / 8;
}

double
FluidNetwork::GetQueueSlope(uint32_t link) const
{
    Settled();
    return m_links.at(link).overrunSlopeBps / 8;
}

double
FluidNetwork::QueueDelayAlong(const std::vector<uint32_t>& links) const
{
    double delay = 0;
    for (uint32_t l : links)
    {
        delay += m_links[l].queueDelayS;
    }
    return delay;
}

double
FluidNetwork::GetQueueDelay(const std::vector<uint32_t>& path) const
{
    Settled();
    double delay = 0;
    for (uint32_t l : path)
    {
        delay += m_links.at(l).queueDelayS;
    }
    return delay;
}

double
FluidNetwork::GetQueueByteSeconds(uint32_t link)
{
    Advance();
    return m_links.at(link).queueBitSeconds / 8;
}

void
FluidNetwork::ResetMaxQueues()
{
    Settled();
    for (auto& l : m_links)
    {
        l.maxQueueBits = l.queueBits + l.overrunBits;
    }
}

} // namespace ns3
