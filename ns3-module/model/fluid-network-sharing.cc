// FluidNetwork's sharing (fluid-network.h): weighted max-min with per-flow caps by
// water-filling, and the paced flows that keep their pace at FIFO links ahead of the others.
#include "fluid-network.h"

#include <algorithm>

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
    for (uint32_t l : s.touched)
    {
        s.flowsOn[l] = 0; // (weightOn: the last reweigh, over no open flow, left it zero)
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
