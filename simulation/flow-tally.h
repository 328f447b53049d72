// The figures of summary.json's cross_traffic.flows, gathered from the flows as they are
// handed over: all at once at the end, or in order in pieces while a long run goes (the same
// figures either way, to the bit).
#ifndef FLUMEN_FLOW_TALLY_H
#define FLUMEN_FLOW_TALLY_H

#include "run-outputs.h"

#include <cstdint>
#include <vector>

namespace flumen
{

struct FlowTally
{
    uint64_t started = 0;
    uint64_t failed = 0;
    std::vector<double> fctS; //!< of the completed flows, in order
    double bytes = 0;         //!< sizes with the generator's header, every flow
    double bytesInWindow = 0; //!< of the flows that started in the measurement window

    /** Counts these flows; `windowStartS` is negative while the window is not open. */
    void Add(const std::vector<FlowRow>& rows, uint32_t overheadBytes, double windowStartS)
    {
        started += rows.size();
        for (const auto& r : rows)
        {
            const double b = double(r.sizeBytes) + overheadBytes;
            bytes += b;
            if (windowStartS >= 0 && r.startS >= windowStartS)
            {
                bytesInWindow += b;
            }
            failed += r.failed ? 1 : 0;
            if (r.endS >= 0 && !r.failed)
            {
                fctS.push_back(r.endS - r.startS);
            }
        }
    }
};

} // namespace flumen

#endif
