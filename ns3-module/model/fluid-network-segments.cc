// FluidNetwork's window segments (fluid-network.h, FlowSpec::WindowSegment): a window flow
// whose window applies per segment of its path, each over its own cycle (a whole ring behind
// standing queues: NCCL's slots on every hop, fluid-ring-all-reduce.h). Where its windows stand
// at queued ports, the room it has to push into them, and its round trip.
#include "fluid-network.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

void
FluidNetwork::CheckWindowSegments(const FlowSpec& spec) const
{
    for (size_t k = 0; k < spec.windowSegments.size(); ++k)
    {
        const FlowSpec::WindowSegment& seg = spec.windowSegments[k];
        NS_ABORT_MSG_IF(spec.kind != WINDOW || !spec.ackPath.empty(),
                        "FluidNetwork: window segments are a window flow's, without an ACK path");
        NS_ABORT_MSG_IF((k == 0 ? seg.begin != 0 : seg.begin <= spec.windowSegments[k - 1].begin)
                            || seg.begin >= spec.path.size() || !(seg.baseRttS >= 0),
                        "FluidNetwork: window segments begin at 0, in order within the path, "
                        "with round trips of 0 or more");
        for (uint32_t l : seg.cycleLinks)
        {
            NS_ABORT_MSG_IF(l >= m_links.size(), "FluidNetwork: no link " << l);
        }
    }
}

// Segment k of a flow's path: where it ends, `from` plus its queues' delay (its cycle's, then
// its links'), and how many of its links are queued.
double
FluidNetwork::SegmentQueues(const Flow& f, size_t k, double from, uint32_t& end,
                            uint32_t& queued) const
{
    const auto& segments = f.spec.windowSegments;
    end = k + 1 < segments.size() ? segments[k + 1].begin
                                  : static_cast<uint32_t>(f.spec.path.size());
    // (Summed once a segment: a whole ring's path crosses thousands of ports.)
    double queues = from + QueueDelayAlong(segments[k].cycleLinks);
    queued = 0;
    for (uint32_t i = segments[k].begin; i < end; ++i)
    {
        queues += m_links[f.spec.path[i]].queueDelayS;
        queued += m_links[f.spec.path[i]].queued ? 1 : 0;
    }
    return queues;
}

// Visits each queued link of a segmented window flow's path: its segment, its index in the
// path, the segment's summed queueing delay and queued links, and the room the flow has to push
// into it. Every segment of a whole ring moves the same bytes (a hop sends what it receives), so
// that room is the least the other links of the path leave it at the links' current rates, the
// flow itself at `ownRate` (a link it crosses n times: an n-th of what is left).
template <typename Visit>
void
FluidNetwork::ForSegmentPorts(const Flow& f, double ownRate, Visit visit) const
{
    if (f.queuedAt < 0)
    {
        return; // no queued link on its path
    }
    const std::vector<uint32_t>& path = f.spec.path;
    std::vector<uint32_t>& crossings = m_scratch.crossings;
    crossings.resize(m_links.size(), 0);
    for (uint32_t l : path)
    {
        ++crossings[l];
    }
    // The least room along the path, where it is, and the least elsewhere.
    double least = f.spec.capBps * f.spec.wireFactor;
    double second = least;
    uint32_t leastAt = std::numeric_limits<uint32_t>::max();
    for (uint32_t l : path)
    {
        if (crossings[l] == 0)
        {
            continue; // counted already
        }
        const Link& link = m_links[l];
        const double own = ownRate * f.spec.wireFactor * crossings[l];
        const double room
            = std::max(0.0, link.bps - (link.rate[JOB] + link.rate[CROSS] - own)) / crossings[l];
        crossings[l] = 0;
        if (room < least)
        {
            second = least;
            least = room;
            leastAt = l;
        }
        else
        {
            second = std::min(second, room);
        }
    }
    for (size_t k = 0; k < f.spec.windowSegments.size(); ++k)
    {
        uint32_t end = 0;
        uint32_t queued = 0;
        const double queues = SegmentQueues(f, k, 0, end, queued);
        for (uint32_t i = f.spec.windowSegments[k].begin; i < end && queued > 0; ++i)
        {
            if (m_links[path[i]].queued)
            {
                visit(k, i, queues, queued, path[i] == leastAt ? second : least);
            }
        }
    }
}

void
FluidNetwork::AddSegmentWindows(const Flow& f,
                                std::vector<std::pair<uint32_t, WindowAtPort>>& windows,
                                bool& twoQueues) const
{
    f.roomsUsed.clear();
    ForSegmentPorts(f, f.lastRate,
                    [&](size_t k, uint32_t i, double queues, uint32_t queued, double room)
                    {
                        twoQueues = twoQueues || queued > 1;
                        const uint32_t l = f.spec.path[i];
                        const auto& seg = f.spec.windowSegments[k];
                        // A port its cycle crosses m times (its bytes, then the grants it waits
                        // for): W / (rtt + m Q / C) is (W / m) / (rtt / m + Q / C).
                        const double m
                            = 1.0 + std::count(seg.cycleLinks.begin(), seg.cycleLinks.end(), l);
                        const double others = std::max(0.0, queues - m * m_links[l].queueDelayS);
                        windows.push_back({ l,
                                            { f.Window() * f.spec.wireFactor * 8 / m,
                                              (seg.baseRttS + others) / m, room } });
                        f.roomsUsed.push_back(room);
                    });
}

bool
FluidNetwork::SegmentRoomsMoved(const Flow& f) const
{
    // (At the rates just set: the room the queues were solved with came from the rates before.)
    size_t at = 0;
    bool moved = false;
    ForSegmentPorts(f, f.rate,
                    [&](size_t, uint32_t, double, uint32_t, double room)
                    {
                        const double used = at < f.roomsUsed.size() ? f.roomsUsed[at] : -1;
                        ++at;
                        moved = moved || std::abs(room - used) > 1e-9 * std::max(room, 1.0);
                    });
    return moved;
}

double
FluidNetwork::WindowRoundTrip(const Flow& f) const
{
    const auto& segments = f.spec.windowSegments;
    if (segments.empty())
    {
        return f.spec.baseRttS + RoundTripQueueing(f);
    }
    double longest = 0;
    for (size_t k = 0; k < segments.size(); ++k)
    {
        uint32_t end = 0;
        uint32_t queued = 0;
        longest = std::max(longest, SegmentQueues(f, k, segments[k].baseRttS, end, queued));
    }
    return longest;
}

} // namespace ns3
