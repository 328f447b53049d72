// FluidNetwork's queued links (fluid-network.h, fluid-queue.h): the standing queues, the rates
// they leave each kind of flow, the time steps while they change, slow start's end and the
// host buffers it overruns.
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

// Whether link l comes before index `at` on the path.
bool
Upstream(const std::vector<uint32_t>& path, uint32_t l, int at)
{
    for (int i = 0; i < at; ++i)
    {
        if (path[i] == l)
        {
            return true;
        }
    }
    return false;
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
        auto& ports = m_scratch.ports;
        ports.resize(m_links.size());
        for (auto& p : ports)
        {
            p.used = false;
            p.paced = p.backlog = 0;
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
                if (f.spec.paced && !f.PacedByWindow())
                {
                    ports[l].used = true;
                    ports[l].paced += f.spec.capBps * f.spec.wireFactor;
                }
                else if (f.spec.kind == WINDOW || f.PacedByWindow())
                {
                    double others = 0;
                    for (uint32_t o : f.spec.path)
                    {
                        others += o == l ? 0 : m_links[o].queueBits / m_links[o].bps;
                        twoQueues = twoQueues || (o != l && m_links[o].queued);
                    }
                    const WindowAtPort w{ f.Window() * wire, f.spec.baseRttS + others,
                                          f.spec.capBps * f.spec.wireFactor };
                    // Uncapped windows of one round trip add up (window / RTT is linear).
                    ports[l].used = true;
                    auto& windows = ports[l].windows;
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
            }
        }
        for (auto& link : m_links)
        {
            link.queueBits = 0;
        }
        for (size_t l = 0; l < ports.size(); ++l)
        {
            const auto& p = ports[l];
            if (!p.used)
            {
                continue;
            }
            Link& link = m_links[l];
            link.queueBits = FifoQueueBits(link.bps, p.paced, p.windows, p.backlog);
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
            const double queueing = GetQueueDelay(f->spec.path);
            f->rttS = f->spec.baseRttS + queueing;
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
        else if (f->PacedByWindow())
        {
            f->rttS = f->spec.baseRttS + GetQueueDelay(f->spec.path);
            if (f->rttS > 0)
            {
                f->cap = std::min(f->cap, f->cwnd * 8 / f->rttS);
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
    WaterFill(rest, left,
              [](uint32_t l, const Flow& f)
              { return !f.Backlogged() || Upstream(f.spec.path, l, f.queuedAt); });
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
    auto downstream
        = [](uint32_t l, const Flow& f) { return !Upstream(f.spec.path, l, f.queuedAt); };
    WaterFill(draining, left, downstream);
    WaterFill(pushing, left, downstream);
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
FluidNetwork::DropAtFullBuffers()
{
    // Tail drop at a full port: every flow sending into it loses within a round trip (a loss
    // per window in flight), once per round trip (fast recovery). A paced flow's window had
    // covered its pace: what it has in flight falls by the same factor. The round trips are
    // those of the full buffer.
    bool over = false;
    for (uint32_t l : m_dropLinks)
    {
        Link& link = m_links[l];
        link.overflowing = link.queueBits > link.dropBufferBits * (1 + 1e-9);
        if (link.overflowing)
        {
            link.overflows += link.full ? 0 : 1;
            link.queueBits = link.dropBufferBits;
            over = true;
        }
    }
    if (!over)
    {
        for (uint32_t l : m_dropLinks)
        {
            m_links[l].full = false;
        }
        return;
    }
    const double now = Simulator::Now().GetSeconds();
    bool cut = false;
    for (Flow* f : m_active)
    {
        const bool window = f->spec.kind == WINDOW && f->queuedAt >= 0;
        if (!(window || f->spec.paced))
        {
            continue;
        }
        auto at = std::find_if(f->spec.path.begin(), f->spec.path.end(),
                               [this](uint32_t l) { return m_links[l].overflowing; });
        if (at == f->spec.path.end())
        {
            continue;
        }
        const double rtt = f->spec.baseRttS + GetQueueDelay(f->spec.path);
        if (f->lastLossS >= 0 && now - f->lastLossS < rtt)
        {
            continue;
        }
        f->Lose(window || f->PacedByWindow() ? f->Window() : f->spec.capBps * rtt / 8);
        // Losing again within a round trip of its recovery (two round trips of its last loss):
        // without SACK the retransmissions are lost too, and it times out (packet-level traces,
        // docs/flow-engine.md).
        if (f->spec.timeoutS > 0 && f->lastLossS >= 0 && now - f->lastLossS < 2 * rtt)
        {
            f->idleUntilS = now + f->spec.timeoutS;
            if (f->spec.paced)
            {
                // Then slow start from its first segments up to what the loss left.
                f->ssthreshBytes = f->cwnd;
                f->cwnd = 2 * f->spec.segmentBytes;
            }
        }
        f->lastLossS = now;
        ++m_links[*at].windowsCut;
        cut = true;
    }
    if (cut)
    {
        SolveQueues(); // behind the smaller windows
    }
    // What the cuts leave beyond a buffer (unresponsive backlog, windows cut within their round
    // trip) is held at it: the port drops the rest.
    for (uint32_t l : m_dropLinks)
    {
        Link& link = m_links[l];
        link.full = link.queueBits >= link.dropBufferBits * (1 - 1e-9);
        link.queueBits = std::min(link.queueBits, link.dropBufferBits);
    }
}

void
FluidNetwork::HoldAtFullBuffers(const std::vector<Flow*>& pushing)
{
    for (Flow* f : pushing)
    {
        if (m_links[f->spec.path[f->queuedAt]].full)
        {
            f->pushRate = std::min(f->pushRate, f->rate);
        }
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

void
FluidNetwork::Flow::AnswerMarks(double markProbability, double delivered, double dt)
{
    // Deterministic in the mean: the marks its delivered packets carry add up, and once they
    // reach one their echo comes back a round trip later (the marked packet leaves the queue,
    // reaches the receiver, its ACK returns), when the window falls; at most once per round
    // trip (an echo per window, as TCP's CWR).
    const double now = Simulator::Now().GetSeconds();
    if (ecnCutDueS >= 0 && now >= ecnCutDueS)
    {
        if (slowStart)
        {
            EndSlowStart(true); // a congestion signal, as a loss
        }
        record.maxWindowBytes = std::max(record.maxWindowBytes, WindowInBuffers());
        const double keep = spec.ecn == DCTCP ? 1 - alpha / 2 : spec.lossBeta;
        cwnd = std::max(2 * spec.segmentBytes, keep * Window());
        ++record.ecnCuts;
        lastEcnCutS = now;
        ecnCutDueS = -1;
    }
    if (delivered <= 0)
    {
        return;
    }
    const double rtt = rttS > 0 ? rttS : spec.baseRttS;
    if (spec.ecn == DCTCP && rtt > 0)
    {
        // alpha follows the marked fraction, by gain g per round trip.
        alpha += spec.dctcpGain * (markProbability - alpha) * std::min(1.0, dt / rtt);
        alpha = std::clamp(alpha, 0.0, 1.0);
    }
    expectedMarks += markProbability * delivered / spec.segmentBytes;
    if (expectedMarks < 1 || ecnCutDueS >= 0 || (lastEcnCutS >= 0 && now - lastEcnCutS < rtt))
    {
        return;
    }
    expectedMarks = 0;
    ecnCutDueS = now + rtt;
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

void
FluidNetwork::Overflow(double dt)
{
    // What is sent beyond what the link serves fills its buffer; it drains while less is sent.
    // The sending is the interval's, set with its rates (Recompute).
    for (uint32_t l : m_overflowLinks)
    {
        Link& link = m_links[l];
        // The buffer's occupancy is this link's queue in the outputs (not in round trips).
        const LinearLevel level{ link.overrunBits, link.SendingBps() - link.bps, 0,
                                 link.overflowBufferBits };
        link.overrunBits = std::max(0.0, link.overrunBits + level.slope * dt);
        link.queueBitSeconds += level.Integral(0, dt);
        link.maxQueueBits = std::max(link.maxQueueBits, level.At(dt));
        if (link.overrunBits < link.overflowBufferBits * (1 - 1e-9))
        {
            continue;
        }
        // Tail drop costs every window flow sending through the link a loss. The buffer is
        // then taken as drained: the windows it cut send less than the link serves (an
        // approximation, docs/flow-engine.md).
        link.overrunBits = 0;
        // Until the rates are set again, sent no faster than served.
        link.growthBps
            = std::min(link.growthBps, std::max(0.0, link.bps - link.rate[JOB] - link.rate[CROSS]));
        ++link.overflows;
        for (Flow* f : m_active)
        {
            if (f->spec.kind == WINDOW && f->rate > 0
                && std::find(f->spec.path.begin(), f->spec.path.end(), l) != f->spec.path.end())
            {
                f->Lose(f->Window());
                ++link.windowsCut;
            }
        }
    }
}

double
FluidNetwork::UntilOverflow() const
{
    double until = kUnbounded;
    for (uint32_t l : m_overflowLinks)
    {
        const Link& link = m_links[l];
        // (Rates that add up to the link's, rounding apart, fill nothing.)
        if (link.SendingBps() > link.bps * (1 + 1e-9))
        {
            until = std::min(until, (link.overflowBufferBits - link.overrunBits)
                                        / (link.SendingBps() - link.bps));
        }
    }
    return until;
}

Time
FluidNetwork::QueueStep() const
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
        }
        if (f.idleUntilS > nowS)
        {
            changing = true; // a timeout ends
            echoS = std::min(echoS, f.idleUntilS);
        }
        if (f.Backlogged())
        {
            continue;
        }
        if (f.PacedByWindow())
        {
            changing = true; // its window grows back to its pace
        }
        else if (f.spec.kind == WINDOW && f.queuedAt >= 0)
        {
            // A window still growing, behind a queue where it limits the rate; or one that
            // answers the marks its path puts on its packets.
            changing = changing
                       || (f.cwnd < std::min(f.spec.windowBytes, f.spec.bytes)
                           && GetQueueDelay(f.spec.path) > 0)
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
    double delay = 0;
    for (const auto& l : m_links)
    {
        if (l.queueBits > 0)
        {
            const double d = l.queueBits / l.bps;
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

} // namespace ns3
