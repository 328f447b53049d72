// How a run's TCP flows left slow start, how far their windows grew and how often they lost,
// by flow size: tcp.csv of either engine summarised (`flumen tcp-summary`), so that the
// per-flow evidence behind the flow engine's window model (docs/flow-engine.md) is a command.
#ifndef FLUMEN_TCP_FLOW_SUMMARY_H
#define FLUMEN_TCP_FLOW_SUMMARY_H

#include "run-outputs.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace flumen
{

/** The flows of one size class, sizes in [fromBytes, toBytes). */
struct TcpSizeClass
{
    uint64_t fromBytes = 0;
    uint64_t toBytes = std::numeric_limits<uint64_t>::max();
    uint32_t flows = 0;
    uint32_t neverLeft = 0; //!< still in slow start at their end (or the run's)
    uint32_t byHystart = 0;
    uint32_t byLoss = 0;
    uint32_t byOther = 0; //!< ecn, other
    /** Medians (NaN without a flow to take them over): the window slow start ended at (flows
     * that left it), the largest window, the smallest smoothed round trip (flows with one). */
    double exitWindowMedianBytes = std::numeric_limits<double>::quiet_NaN();
    double maxWindowMedianBytes = std::numeric_limits<double>::quiet_NaN();
    double minSrttMedianS = std::numeric_limits<double>::quiet_NaN();
    uint32_t flowsWithLoss = 0; //!< a recovery or a timeout
    uint64_t recoveries = 0;
    uint64_t timeouts = 0;
};

/** One run's classes in order, then all its flows together. */
struct TcpFlowSummary
{
    std::vector<TcpSizeClass> classes;
    TcpSizeClass all;
};

/**
 * The flows that started at `fromS` or later, in the classes the increasing `edgesBytes` cut
 * (n edges, n + 1 classes: below the first, between each two, from the last on).
 */
TcpFlowSummary SummariseTcpFlows(const std::vector<TcpFlowRow>& rows,
                                 const std::vector<uint64_t>& edgesBytes, double fromS);

/**
 * A table with a row per class and run (runs side by side within each class), windows in
 * segments of `segmentBytes`; `labels` name the runs in the order of `summaries`.
 */
std::string FormatTcpFlowSummaries(const std::vector<std::string>& labels,
                                   const std::vector<TcpFlowSummary>& summaries,
                                   double segmentBytes);

} // namespace flumen

#endif
