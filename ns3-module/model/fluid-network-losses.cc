// FluidNetwork's losses (fluid-network.h): a sender's NIC buffer that slow start overruns
// (SetOverflowBuffer) and a switch port's buffer that its standing queue fills (SetDropBuffer),
// and what a loss does to a window, a paced flow and unresponsive backlog.
#include "fluid-network.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidNetworkLosses");

void
FluidNetwork::Flow::Cut(double keep, double window)
{
    if (spec.kind == WINDOW)
    {
        if (slowStart)
        {
            EndSlowStart(true);
        }
        // The window falls only at losses and echoes: its largest so far is kept before the cut.
        record.maxWindowBytes = std::max(record.maxWindowBytes, WindowInBuffers());
    }
    cwnd = std::max(2 * spec.segmentBytes, keep * window);
}

void
FluidNetwork::Flow::Lose(double window)
{
    Cut(spec.lossBeta, window);
    record.cuts += spec.kind == WINDOW ? 1 : 0;
}

void
FluidNetwork::SetOverflowBuffer(uint32_t link, double bytes)
{
    NS_ABORT_MSG_IF(!(bytes > 0), "FluidNetwork: an overflow buffer needs bytes above 0");
    Link& l = m_links.at(link);
    if (l.overflowBufferBits == 0)
    {
        m_overflowLinks.push_back(link);
    }
    l.overflowBufferBits = bytes * 8;
}

void
FluidNetwork::SetDropBuffer(uint32_t link, double bytes)
{
    NS_ABORT_MSG_IF(!(bytes > 0), "FluidNetwork: a drop buffer needs bytes above 0");
    Link& l = m_links.at(link);
    NS_ABORT_MSG_IF(!l.queued, "FluidNetwork: only a queued link drops");
    if (l.dropBufferBits == 0)
    {
        m_dropLinks.push_back(link);
    }
    l.dropBufferBits = bytes * 8;
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
            link.SetQueue(link.dropBufferBits);
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
        const double rtt = f->spec.kind == WINDOW ? WindowRoundTrip(*f)
                                                  : f->spec.baseRttS + RoundTripQueueing(*f);
        if (f->lastLossS >= 0 && now - f->lastLossS < rtt)
        {
            continue;
        }
        f->Lose(window || f->PacedByWindow() ? f->Window()
                                             : std::min(f->spec.capBps * rtt / 8, f->Window()));
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
        link.SetQueue(std::min(link.queueBits, link.dropBufferBits));
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

} // namespace ns3
