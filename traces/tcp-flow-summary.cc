#include "tcp-flow-summary.h"

#include "summary-statistics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace flumen
{

namespace
{

// A class's counts and the samples its medians are taken over.
struct ClassTally
{
    TcpSizeClass c;
    std::vector<double> exitWindows;
    std::vector<double> maxWindows;
    std::vector<double> minSrtts;

    void Add(const TcpFlowRow& r)
    {
        ++c.flows;
        if (r.slowStartEndS < 0)
        {
            ++c.neverLeft;
        }
        else
        {
            ++(r.slowStartEndCause == "hystart" ? c.byHystart
               : r.slowStartEndCause == "loss"  ? c.byLoss
                                                : c.byOther);
            exitWindows.push_back(r.slowStartEndCwndBytes);
        }
        maxWindows.push_back(r.maxCwndBytes);
        if (r.minSrttS >= 0)
        {
            minSrtts.push_back(r.minSrttS);
        }
        c.flowsWithLoss += r.recoveries > 0 || r.timeouts > 0 ? 1 : 0;
        c.recoveries += r.recoveries;
        c.timeouts += r.timeouts;
    }

    TcpSizeClass Done()
    {
        auto median = [](const std::vector<double>& v)
        { return v.empty() ? std::numeric_limits<double>::quiet_NaN() : Summarize(v).p50; };
        c.exitWindowMedianBytes = median(exitWindows);
        c.maxWindowMedianBytes = median(maxWindows);
        c.minSrttMedianS = median(minSrtts);
        return c;
    }
};

std::string
SizeLabel(const TcpSizeClass& c)
{
    auto mb = [](uint64_t b) { return fmt::format("{:g}", b / 1e6); };
    if (c.toBytes == std::numeric_limits<uint64_t>::max())
    {
        return c.fromBytes == 0 ? "any" : fmt::format(">= {} MB", mb(c.fromBytes));
    }
    return c.fromBytes == 0 ? fmt::format("< {} MB", mb(c.toBytes))
                            : fmt::format("{}-{} MB", mb(c.fromBytes), mb(c.toBytes));
}

std::string
Share(uint32_t part, uint32_t whole)
{
    return whole == 0 ? "-" : fmt::format("{:.1f}%", 100.0 * part / whole);
}

std::string
Number(double v, const char* format)
{
    return std::isnan(v) ? "-" : fmt::format(fmt::runtime(format), v);
}

} // namespace

TcpFlowSummary
SummariseTcpFlows(const std::vector<TcpFlowRow>& rows, const std::vector<uint64_t>& edgesBytes,
                  double fromS)
{
    if (!std::is_sorted(edgesBytes.begin(), edgesBytes.end())
        || std::adjacent_find(edgesBytes.begin(), edgesBytes.end()) != edgesBytes.end())
    {
        throw std::invalid_argument("SummariseTcpFlows: size edges must increase");
    }
    std::vector<ClassTally> tallies(edgesBytes.size() + 1);
    for (size_t i = 0; i < tallies.size(); ++i)
    {
        tallies[i].c.fromBytes = i == 0 ? 0 : edgesBytes[i - 1];
        tallies[i].c.toBytes
            = i < edgesBytes.size() ? edgesBytes[i] : std::numeric_limits<uint64_t>::max();
    }
    ClassTally all;
    for (const TcpFlowRow& r : rows)
    {
        if (r.startS < fromS)
        {
            continue;
        }
        const size_t k = std::upper_bound(edgesBytes.begin(), edgesBytes.end(), r.sizeBytes)
                         - edgesBytes.begin();
        tallies[k].Add(r);
        all.Add(r);
    }
    TcpFlowSummary s;
    for (ClassTally& t : tallies)
    {
        s.classes.push_back(t.Done());
    }
    s.all = all.Done();
    return s;
}

std::string
FormatTcpFlowSummaries(const std::vector<std::string>& labels,
                       const std::vector<TcpFlowSummary>& summaries, double segmentBytes)
{
    if (labels.size() != summaries.size() || !(segmentBytes > 0))
    {
        throw std::invalid_argument("FormatTcpFlowSummaries: a label per summary, segments > 0");
    }
    size_t width = 3;
    for (const std::string& l : labels)
    {
        width = std::max(width, l.size());
    }
    // One layout for the header and the rows: size, run, then the figures.
    constexpr const char* kRow
        = "{:<12} {:<{}} {:>7} {:>7} {:>7} {:>7} {:>7} {:>8} {:>8} {:>10} {:>7} {:>8} {:>6}\n";
    std::string out
        = fmt::format(kRow, "size", "run", width, "flows", "never", "hystart", "loss", "other",
                      "exit win", "max win", "min srtt", "lossy", "recov", "RTOs");
    auto row = [&](const std::string& size, const std::string& label, const TcpSizeClass& c)
    {
        out += fmt::format(
            kRow, size, label, width, c.flows, Share(c.neverLeft, c.flows),
            Share(c.byHystart, c.flows), Share(c.byLoss, c.flows), Share(c.byOther, c.flows),
            Number(c.exitWindowMedianBytes / segmentBytes, "{:.0f}"),
            Number(c.maxWindowMedianBytes / segmentBytes, "{:.0f}"),
            Number(c.minSrttMedianS * 1e3, "{:.3g} ms"), c.flowsWithLoss, c.recoveries, c.timeouts);
    };
    const size_t classes = summaries.empty() ? 0 : summaries.front().classes.size();
    for (size_t k = 0; k <= classes; ++k)
    {
        for (size_t i = 0; i < summaries.size(); ++i)
        {
            const TcpSizeClass& c = k < classes ? summaries[i].classes.at(k) : summaries[i].all;
            row(i > 0 ? "" : k < classes ? SizeLabel(c) : "all", labels[i], c);
        }
    }
    return out;
}

} // namespace flumen
