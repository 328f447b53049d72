#include "fluid-link-bins.h"

#include "ns3/fluid-queue.h"

#include <algorithm>
#include <cmath>

namespace flumen
{

void
FluidLinkBins::Add(double from, double to, double jobBytesPerS, double crossBytesPerS,
                   double queueBytes, double queueSlope, double queueFullBytes)
{
    const ns3::LinearLevel level{ queueBytes, queueSlope, from, queueFullBytes };
    double t = std::max(from, m_addedUntil);
    m_addedUntil = std::max(m_addedUntil, to);
    while (t < to)
    {
        const auto bin = static_cast<uint64_t>(t / m_binS);
        const double until = std::min(to, (bin + 1) * m_binS);
        // A stretch split at a bin's end (Take) may restart a hair inside the bin before,
        // as the division rounds: that sliver holds no byte, and the bin is gone.
        if (bin >= m_first)
        {
            while (m_first + m_bins.size() <= bin)
            {
                LinkRow row;
                row.startS = (m_first + m_bins.size()) * m_binS;
                row.widthS = m_binS;
                m_bins.push_back(row);
            }
            LinkRow& row = m_bins[bin - m_first];
            row.jobBytes += static_cast<uint64_t>(jobBytesPerS * (until - t) + 0.5);
            row.crossBytes += static_cast<uint64_t>(crossBytesPerS * (until - t) + 0.5);
            row.queueMeanBytes += level.Integral(t, until);
            // Monotonic, so largest at an end of the stretch.
            const double top = std::max(level.At(t), level.At(until));
            if (top > 0)
            {
                row.queueMaxBytes = std::max(row.queueMaxBytes, static_cast<uint32_t>(top + 0.5));
            }
        }
        t = until > t ? until : std::nextafter(t, to);
    }
}

double
FluidLinkBins::BinStart(double t) const
{
    return static_cast<double>(static_cast<uint64_t>(t / m_binS)) * m_binS;
}

std::vector<LinkRow>
FluidLinkBins::Take(double t, bool all)
{
    size_t n = m_bins.size();
    if (!all)
    {
        const auto open = static_cast<uint64_t>(t / m_binS);
        n = open > m_first ? std::min<size_t>(open - m_first, n) : 0;
    }
    std::vector<LinkRow> rows(m_bins.begin(), m_bins.begin() + n);
    m_bins.erase(m_bins.begin(), m_bins.begin() + n);
    m_first += n;
    for (LinkRow& row : rows)
    {
        row.queueMeanBytes /= m_binS; // byte-seconds over the bin's width
    }
    return rows;
}

} // namespace flumen
