// The flow engine's link.csv: a link's bytes per class (and its standing queue) spread over
// fixed bins from its rates, which are constant between two rate changes. The bins that time has
// closed are handed over and forgotten, so that a long run's series need not be held.
#ifndef FLUMEN_FLUID_LINK_BINS_H
#define FLUMEN_FLUID_LINK_BINS_H

#include "run-outputs.h"

#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

namespace flumen
{

class FluidLinkBins
{
  public:
    explicit FluidLinkBins(double binS) : m_binS(binS) {}

    /**
     * The link carried these rates (bytes per second) over [from, to), with this queue (bytes)
     * at `from`, changing by `queueSlope` bytes per second between empty and `queueFullBytes`
     * (a host buffer fills or drains; a standing queue holds). What was added already (before
     * AddedUntil()) is not added again.
     */
    void Add(double from, double to, double jobBytesPerS, double crossBytesPerS,
             double queueBytes = 0, double queueSlope = 0,
             double queueFullBytes = std::numeric_limits<double>::infinity());
    /** The end of what was added so far. */
    double AddedUntil() const { return m_addedUntil; }
    /** The start of the bin that `t` falls in (the bins before it end by `t`). */
    double BinStart(double t) const;
    /** Hands over the bins before the one `t` falls in, or every bin when `all`. */
    std::vector<LinkRow> Take(double t, bool all);

  private:
    double m_binS;
    double m_addedUntil = 0;
    std::deque<LinkRow> m_bins; //!< from bin m_first on (queueMeanBytes: byte-seconds so far)
    uint64_t m_first = 0;
};

} // namespace flumen

#endif
