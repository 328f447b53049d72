// FluidNetwork's sharing (fluid-network.h): weighted max-min with per-flow caps by
// water-filling, and the paced flows that keep their pace at FIFO links ahead of the others.
#include "fluid-network.h"

#include <algorithm>
#include <limits>

namespace ns3
{

// Weighted max-min with caps, by water-filling: raise a common level x (a flow's wire rate is
// x * weight) until a link is full or a flow reaches its cap; fix those flows and go on. A
// flow takes part on the links where `counts` says so; `left` is each link's capacity left.
inline bool
FluidNetwork::CountsOn(Counts counts, uint32_t i, const Flow& f) const
{
    // (A path holds a link once: the links before its queue are those before its index.)
    switch (counts)
    {
    case Counts::ALL:
        return true;
    case Counts::PACED_AT_FIFO:
        return f.spec.paced || !m_links[f.spec.path[i]].fifo;
    case Counts::BEFORE_QUEUE:
        return !f.Backlogged() || int(i) < f.queuedAt;
    case Counts::AFTER_QUEUE:
        return int(i) >= f.queuedAt;
    }
    return true;
}

void
FluidNetwork::WaterFill(const std::vector<Flow*>& flows, std::vector<double>& left, Counts counts)
{
    Scratch& s = m_scratch;
    std::vector<Flow*>& open = s.open;
    open.assign(flows.begin(), flows.end());
    // The links each flow counts on (asked once), the weights on each link, and how many
    // flows they are (so that rounding residue of subtracted weights never stands for a flow).
    // Only those links are scanned below (a ToR of many hosts has links that no flow uses).
    s.counted.clear();
    s.touched.clear();
    s.weightOn.resize(m_links.size(), 0.0);
    s.flowsOn.resize(m_links.size(), 0);
    s.full.resize(m_links.size(), 0);
    for (Flow* f : open)
    {
        f->countedBegin = static_cast<uint32_t>(s.counted.size());
        const std::vector<uint32_t>& path = f->spec.path;
        for (uint32_t i = 0; i < path.size(); ++i)
        {
            const uint32_t l = path[i];
            if (counts == Counts::ALL || CountsOn(counts, i, *f))
            {
                if (s.flowsOn[l] == 0)
                {
                    s.touched.push_back(l);
                }
                s.counted.push_back(l);
                s.weightOn[l] += f->weight;
                s.flowsOn[l]++;
            }
        }
        f->countedEnd = static_cast<uint32_t>(s.counted.size());
    }
    // (The method is the whole's, so that each group's rates are those the whole would get, to
    // the bit.)
    const bool byHeap = open.size() >= m_waterFillHeapFrom;
    if (open.size() >= m_componentsFrom && SplitComponents())
    {
        // Flows that share no link, directly or through others, do not affect each other's
        // rates: each group is filled alone (a level's pass then scans its group only).
        m_filledGroups += s.compFlowBegin.size() - 1;
        for (size_t k = 0; k + 1 < s.compFlowBegin.size(); ++k)
        {
            if (s.compFlowBegin[k + 1] - s.compFlowBegin[k] == 1)
            {
                WaterFillOne(s.compFlows[s.compFlowBegin[k]], left);
                continue;
            }
            open.assign(s.compFlows.begin() + s.compFlowBegin[k],
                        s.compFlows.begin() + s.compFlowBegin[k + 1]);
            s.touched.assign(s.compLinks.begin() + s.compLinkBegin[k],
                             s.compLinks.begin() + s.compLinkBegin[k + 1]);
            WaterFillOpen(left, byHeap);
        }
        s.touched.swap(s.compLinks); // every link counted on, for the reset below
    }
    else
    {
        ++m_filledGroups;
        WaterFillOpen(left, byHeap);
    }
    for (uint32_t l : s.touched)
    {
        s.flowsOn[l] = 0;
        s.weightOn[l] = 0;
    }
}

void
FluidNetwork::WaterFillOpen(std::vector<double>& left, bool byHeap)
{
    if (m_scratch.open.size() == 1)
    {
        WaterFillOne(m_scratch.open.front(), left);
    }
    else if (byHeap)
    {
        WaterFillByHeap(left);
    }
    else
    {
        WaterFillByLevels(left);
    }
}

// A lone flow (a group of one): what both methods give it, operation for operation: its cap
// where that is below its links' lowest level, else that level.
void
FluidNetwork::WaterFillOne(Flow* f, std::vector<double>& left)
{
    const Scratch& s = m_scratch;
    double level = kUnbounded;
    for (uint32_t k = f->countedBegin; k < f->countedEnd; ++k)
    {
        const uint32_t l = s.counted[k];
        level = std::min(level, std::max(0.0, left[l]) / s.weightOn[l]);
    }
    const double capWire = f->cap * f->spec.wireFactor;
    double wire = capWire;
    if (capWire / f->weight < level)
    {
        f->rate = f->cap;
    }
    else
    {
        wire = std::min(capWire, level * f->weight);
        f->rate = wire / f->spec.wireFactor;
    }
    for (uint32_t k = f->countedBegin; k < f->countedEnd; ++k)
    {
        left[s.counted[k]] -= wire;
    }
}

// Components by a union-find over the touched links (a flow joins the links it counts on),
// numbered in the order of the open flows, so that the groups and their order are
// deterministic. Flows that count on no link form one group of their own.
bool
FluidNetwork::SplitComponents()
{
    Scratch& s = m_scratch;
    constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
    s.linkParent.resize(m_links.size());
    s.compOfRoot.resize(m_links.size());
    for (uint32_t l : s.touched)
    {
        s.linkParent[l] = l;
        s.compOfRoot[l] = kNone;
    }
    auto root = [&s](uint32_t l)
    {
        while (s.linkParent[l] != l)
        {
            s.linkParent[l] = s.linkParent[s.linkParent[l]]; // path halving
            l = s.linkParent[l];
        }
        return l;
    };
    for (const Flow* f : s.open)
    {
        if (f->countedEnd == f->countedBegin)
        {
            continue;
        }
        // (Its first link's root stays the root: only other roots are hung under it.)
        const uint32_t a = root(s.counted[f->countedBegin]);
        for (uint32_t k = f->countedBegin + 1; k < f->countedEnd; ++k)
        {
            const uint32_t b = root(s.counted[k]);
            if (a != b)
            {
                s.linkParent[b] = a;
            }
        }
    }
    uint32_t comps = 0;
    uint32_t linkless = kNone;
    s.compOfFlow.clear();
    for (const Flow* f : s.open)
    {
        uint32_t& c = f->countedEnd > f->countedBegin
                          ? s.compOfRoot[root(s.counted[f->countedBegin])]
                          : linkless;
        if (c == kNone)
        {
            c = comps++;
        }
        s.compOfFlow.push_back(c);
    }
    if (comps < 2)
    {
        return false;
    }
    // Counting sort, stable: each group's flows and links in their order.
    s.compFlowBegin.assign(comps + 1, 0);
    s.compLinkBegin.assign(comps + 1, 0);
    for (uint32_t c : s.compOfFlow)
    {
        ++s.compFlowBegin[c + 1];
    }
    for (uint32_t l : s.touched)
    {
        ++s.compLinkBegin[s.compOfRoot[root(l)] + 1];
    }
    for (uint32_t c = 0; c < comps; ++c)
    {
        s.compFlowBegin[c + 1] += s.compFlowBegin[c];
        s.compLinkBegin[c + 1] += s.compLinkBegin[c];
    }
    s.compFlows.resize(s.open.size());
    s.compLinks.resize(s.touched.size());
    std::vector<uint32_t>& at = s.compAt;
    at.assign(s.compFlowBegin.begin(), s.compFlowBegin.end() - 1);
    for (size_t i = 0; i < s.open.size(); ++i)
    {
        s.compFlows[at[s.compOfFlow[i]]++] = s.open[i];
    }
    at.assign(s.compLinkBegin.begin(), s.compLinkBegin.end() - 1);
    for (uint32_t l : s.touched)
    {
        s.compLinks[at[s.compOfRoot[root(l)]]++] = l;
    }
    return true;
}

// One pass over the open flows and their links per level: cheap for the few flows of a
// testbed's scenarios (the heap's bookkeeping costs more there).
void
FluidNetwork::WaterFillByLevels(std::vector<double>& left)
{
    Scratch& s = m_scratch;
    std::vector<Flow*>& open = s.open;
    // Takes a fixed flow's wire rate off the links it counts on.
    auto fix = [&s, &left](Flow* f, double wire)
    {
        for (uint32_t i = f->countedBegin; i < f->countedEnd; ++i)
        {
            const uint32_t l = s.counted[i];
            left[l] -= wire;
            s.flowsOn[l]--;
        }
    };
    // The open flows' weights on each link, summed afresh once some are fixed: subtracting the
    // fixed ones' would leave rounding residue, and beside a much heavier flow that residue is
    // a share of a light one's weight (a backlog of 2e7 bytes beside an empty one of 1: 2e-9),
    // which the light flow would then take beyond what the link has left (found by fuzzing).
    auto reweigh = [&s, &open]
    {
        for (uint32_t l : s.touched)
        {
            s.weightOn[l] = 0;
        }
        for (const Flow* f : open)
        {
            for (uint32_t i = f->countedBegin; i < f->countedEnd; ++i)
            {
                s.weightOn[s.counted[i]] += f->weight;
            }
        }
    };
    bool stuck = false;
    while (!open.empty())
    {
        double level = kUnbounded;
        for (uint32_t l : s.touched)
        {
            if (s.flowsOn[l] > 0 && s.weightOn[l] > 0)
            {
                level = std::min(level, std::max(0.0, left[l]) / s.weightOn[l]);
            }
        }
        // Flows that their own cap holds below every link's level are fixed at their caps all
        // at once (fixing them only raises the links' levels).
        std::vector<Flow*>& uncapped = s.next;
        uncapped.clear();
        for (Flow* f : open)
        {
            const double capWire = f->cap * f->spec.wireFactor;
            if (capWire / f->weight >= level)
            {
                uncapped.push_back(f);
                continue;
            }
            f->rate = f->cap;
            fix(f, capWire);
        }
        if (uncapped.size() < open.size())
        {
            open.swap(uncapped);
            reweigh();
            continue;
        }
        for (const Flow* f : open)
        {
            level = std::min(level, f->cap * f->spec.wireFactor / f->weight);
        }
        // Fix every flow that a full link or its own cap holds at this level.
        for (uint32_t l : s.touched)
        {
            s.full[l] = s.flowsOn[l] > 0 && s.weightOn[l] > 0
                        && std::max(0.0, left[l]) / s.weightOn[l] <= level * (1 + 1e-12);
        }
        std::vector<Flow*>& still = s.next;
        still.clear();
        for (Flow* f : open)
        {
            const double capWire = f->cap * f->spec.wireFactor;
            // (No progress otherwise, which rounding could cause: fix them all.)
            bool fixed = capWire / f->weight <= level * (1 + 1e-12) || stuck;
            for (uint32_t i = f->countedBegin; i < f->countedEnd && !fixed; ++i)
            {
                fixed = s.full[s.counted[i]];
            }
            if (!fixed)
            {
                still.push_back(f);
                continue;
            }
            const double wire = std::min(capWire, level * f->weight);
            f->rate = wire / f->spec.wireFactor;
            fix(f, wire);
        }
        stuck = still.size() == open.size();
        open.swap(still);
        reweigh();
    }
}

// The same levels from a heap: the links wait by the level at which they fill and the capped
// flows in the order of their caps, so that fixing a flow costs its own links' updates (and a
// link's way back into the heap when it comes up with a stale level), not a pass over every
// open flow and link. Many thousand flows (a large cluster's ring or tree
// beside web-search) fill in O(flows x path x log links) where the passes take O(levels x
// (flows + links)). Flows are fixed one link at a time, so rates may differ from the passes'
// in the last bits of rounding.
void
FluidNetwork::WaterFillByHeap(std::vector<double>& left)
{
    Scratch& s = m_scratch;
    const std::vector<Flow*>& open = s.open;
    const uint32_t n = static_cast<uint32_t>(open.size());
    // Each link's flows (indices into open), grouped by link.
    s.linkBegin.resize(m_links.size(), 0);
    s.linkEnd.resize(m_links.size(), 0);
    s.freshWeight.resize(m_links.size(), 0.0);
    uint32_t at = 0;
    for (uint32_t l : s.touched)
    {
        s.linkBegin[l] = s.linkEnd[l] = at;
        at += s.flowsOn[l];
        s.freshWeight[l] = s.weightOn[l];
    }
    s.onLink.resize(at);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t k = open[i]->countedBegin; k < open[i]->countedEnd; ++k)
        {
            s.onLink[s.linkEnd[s.counted[k]]++] = i;
        }
    }
    s.fixed.assign(n, 0);
    // A link's level: the rate per unit of weight at which its open flows would fill it.
    auto levelOf = [&s, &left](uint32_t l) { return std::max(0.0, left[l]) / s.weightOn[l]; };
    auto live = [&s](uint32_t l) { return s.flowsOn[l] > 0 && s.weightOn[l] > 0; };
    std::vector<LinkLevel>& heap = s.heap;
    heap.clear();
    for (uint32_t l : s.touched)
    {
        if (live(l))
        {
            heap.push_back({ levelOf(l), l });
        }
    }
    std::make_heap(heap.begin(), heap.end());
    auto capLevel
        = [&open](uint32_t i) { return open[i]->cap * open[i]->spec.wireFactor / open[i]->weight; };
    std::vector<uint32_t>& byCap = s.byCap;
    byCap.clear();
    for (uint32_t i = 0; i < n; ++i)
    {
        if (capLevel(i) < kUnbounded)
        {
            byCap.push_back(i);
        }
    }
    std::sort(byCap.begin(), byCap.end(),
              [&capLevel](uint32_t a, uint32_t b)
              {
                  const double la = capLevel(a), lb = capLevel(b);
                  return la < lb || (la == lb && a < b);
              });
    // Fixes flow i at this wire rate: off its links (their levels rise; the heap learns when
    // they come up).
    uint32_t openLeft = n;
    auto fix = [&](uint32_t i, double wire)
    {
        s.fixed[i] = 1;
        --openLeft;
        const Flow* f = open[i];
        for (uint32_t k = f->countedBegin; k < f->countedEnd; ++k)
        {
            const uint32_t l = s.counted[k];
            left[l] -= wire;
            s.flowsOn[l]--;
            s.weightOn[l] -= f->weight;
            if (s.flowsOn[l] == 0)
            {
                continue;
            }
            // Summed afresh once half of it is gone: the residue of subtracted weights must not
            // stand for a light flow's share (see WaterFillByLevels' reweigh).
            if (s.weightOn[l] < 0.5 * s.freshWeight[l])
            {
                double w = 0;
                for (uint32_t j = s.linkBegin[l]; j < s.linkEnd[l]; ++j)
                {
                    w += s.fixed[s.onLink[j]] ? 0.0 : open[s.onLink[j]]->weight;
                }
                s.weightOn[l] = s.freshWeight[l] = w;
            }
        }
    };
    uint32_t nextCap = 0;
    while (openLeft > 0)
    {
        // A link's level only rises as flows are fixed (each below it), so a key in the heap is
        // a lower bound of its link's level: the top is the lowest once its key is current.
        while (!heap.empty())
        {
            const uint32_t top = heap.front().link;
            const double level = live(top) ? levelOf(top) : kUnbounded;
            if (level <= heap.front().level)
            {
                heap.front().level = level; // (below only by rounding)
                break;
            }
            std::pop_heap(heap.begin(), heap.end());
            heap.pop_back();
            if (level < kUnbounded)
            {
                heap.push_back({ level, top });
                std::push_heap(heap.begin(), heap.end());
            }
        }
        while (nextCap < byCap.size() && s.fixed[byCap[nextCap]])
        {
            ++nextCap;
        }
        const double linkLevel = heap.empty() ? kUnbounded : heap.front().level;
        const double cappedAt = nextCap < byCap.size() ? capLevel(byCap[nextCap]) : kUnbounded;
        if (linkLevel == kUnbounded && cappedAt == kUnbounded)
        {
            break;
        }
        if (cappedAt < linkLevel)
        {
            // Its own cap holds it below every link's level.
            const uint32_t i = byCap[nextCap];
            open[i]->rate = open[i]->cap;
            fix(i, open[i]->cap * open[i]->spec.wireFactor);
            continue;
        }
        const uint32_t l = heap.front().link;
        std::pop_heap(heap.begin(), heap.end());
        heap.pop_back();
        for (uint32_t j = s.linkBegin[l]; j < s.linkEnd[l]; ++j)
        {
            const uint32_t i = s.onLink[j];
            if (s.fixed[i])
            {
                continue;
            }
            Flow* f = open[i];
            const double wire = std::min(f->cap * f->spec.wireFactor, linkLevel * f->weight);
            f->rate = wire / f->spec.wireFactor;
            fix(i, wire);
        }
    }
    // Flows that neither a link nor a cap holds (they count on no link): their caps.
    for (uint32_t i = 0; i < n && openLeft > 0; ++i)
    {
        if (!s.fixed[i])
        {
            open[i]->rate = open[i]->cap;
            --openLeft;
        }
    }
}

// Paced flows' rates, as if the others were not on the FIFO links (there they keep their pace
// while the others' windows take what is left); `left` loses what they take.
void
FluidNetwork::FixPacedFlows(const std::vector<Flow*>& all, const std::vector<Flow*>& paced,
                            std::vector<double>& left)
{
    std::vector<double>& probe = m_scratch.probe;
    probe.assign(left.begin(), left.end());
    WaterFill(all, probe, Counts::PACED_AT_FIFO);
    for (const Flow* f : paced)
    {
        for (uint32_t l : f->spec.path)
        {
            left[l] -= f->rate * f->spec.wireFactor;
        }
    }
}

} // namespace ns3
