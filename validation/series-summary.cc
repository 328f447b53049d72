#include "series-summary.h"

#include "summary-statistics.h"

#include <fmt/format.h>

#include <map>

namespace flumen
{

std::string
NumberText(double v, int digits)
{
    if (std::isnan(v))
    {
        return "";
    }
    if (std::isinf(v))
    {
        return v > 0 ? "inf" : "-inf";
    }
    return fmt::format("{:.{}f}", v, digits);
}

std::vector<SeriesSummary>
SummariseSeries(const std::vector<ValidatedPoint>& points)
{
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<const ValidatedPoint*>> groups;
    for (const auto& p : points)
    {
        auto key = std::make_pair(p.series, p.model);
        if (!groups.count(key))
        {
            order.push_back(key);
        }
        groups[key].push_back(&p);
    }
    std::vector<SeriesSummary> out;
    for (const auto& key : order)
    {
        const auto& ps = groups[key];
        SeriesSummary s;
        s.series = key.first;
        s.model = key.second;
        s.transport = ps.front()->transport;
        s.configuration = ps.front()->configuration;
        s.traffic = ps.front()->traffic;
        std::vector<double> eMean;
        std::vector<double> eCongested;
        std::vector<double> eP99;
        std::vector<double> eExposed;
        std::vector<double> eHidden;
        std::vector<double> eAchieved;
        std::vector<CurvePoint> testbedCurve;
        std::vector<CurvePoint> simCurve;
        for (const auto* p : ps)
        {
            const bool simulated = IsSimulated(*p);
            if (p->idle && p->testbed)
            {
                s.idleMeasuredS = p->testbedMeanS;
            }
            if (p->idle && simulated)
            {
                s.idleSimulatedS = p->simMeanS;
            }
            // Points without a measured rate (the TCP series' extended runs) have no x.
            if (p->testbed && (p->idle || std::isfinite(p->measuredGbps)))
            {
                testbedCurve.push_back({ p->idle ? 0.0 : p->measuredGbps, p->testbedMeanS });
            }
            if (simulated)
            {
                simCurve.push_back({ p->idle ? 0.0 : p->simAchievedGbps, p->simMeanS });
            }
            if (!IsValidationPoint(*p))
            {
                continue;
            }
            if (p->status == "censored")
            {
                ++s.censored;
                s.censoredOver += p->simMeanLowerBoundS > p->testbedMeanS ? 1 : 0;
                continue;
            }
            if (!simulated)
            {
                ++s.missing;
                continue;
            }
            ++s.validationPoints;
            double e = PercentError(p->simMeanS, p->testbedMeanS);
            eMean.push_back(e);
            if (p->congested)
            {
                ++s.congestedPoints;
                eCongested.push_back(e);
            }
            eP99.push_back(PercentError(p->simP99S, p->testbedP99S));
            eExposed.push_back(PercentError(p->exposedS, p->testbedMeanS));
            eHidden.push_back(PercentError(p->hiddenS, p->testbedMeanS));
            if (p->measuredGbps > 0)
            {
                eAchieved.push_back(PercentError(p->simAchievedGbps, p->measuredGbps));
            }
        }
        s.medianMean = MedianAbs(eMean);
        s.meanMean = MeanAbs(eMean);
        s.medianCongested = MedianAbs(eCongested);
        s.medianP99 = MedianAbs(eP99);
        s.meanP99 = MeanAbs(eP99);
        s.medianExposed = MedianAbs(eExposed);
        s.medianHidden = MedianAbs(eHidden);
        s.medianAchieved = MedianAbs(eAchieved);
        s.testbedKnee = FindCongestionPoint(testbedCurve);
        s.simKnee = FindCongestionPoint(simCurve);
        s.testbedFit = FitExpCurve(testbedCurve);
        s.simFit = FitExpCurve(simCurve);
        out.push_back(s);
    }
    return out;
}

std::string
KneeText(const CongestionPoint& c)
{
    return c.found ? fmt::format("({:.2f}, {:.3f})", c.x, c.t) : "none";
}

std::string
CompletedIterations(const ValidatedPoint& p)
{
    if (p.censoredCompletedIterations == 0)
    {
        return "";
    }
    return fmt::format("{}{}", p.censoredCompletedIterations,
                       p.censoredCompletedWarmup ? " warm-up" : "");
}

std::string
FitText(const ExpFit& f)
{
    return f.ok
               ? fmt::format("{:.4g} | {:.4g} | {:.4g} | {:.3g} | {:.3f}", f.a, f.b, f.c, f.n, f.r2)
               : "no fit | | | |";
}

std::string
FileSafeName(const std::string& s)
{
    std::string o;
    for (char c : s)
    {
        o += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_';
    }
    return o;
}

double
PercentError(double simulated, double measured)
{
    if (std::isnan(simulated) || std::isnan(measured) || measured == 0)
    {
        return kUnknown;
    }
    return 100.0 * (simulated - measured) / measured;
}

std::vector<std::string>
HeadlineLines(const std::vector<ValidatedPoint>& points)
{
    std::vector<std::string> lines;
    for (const auto& s : SummariseSeries(points))
    {
        if (!s.Judged())
        {
            // Blank percentages would read as a result; say there is none.
            lines.push_back(fmt::format("{:<24} {:<12}  no point simulated yet: not judged",
                                        s.series, s.model));
            continue;
        }
        lines.push_back(fmt::format(
            "{:<24} {:<12} {:>2} points{}: median |error| of the mean {:>6}% (congested {} "
            "points: {}%), p99 {}%; baselines exposed {}%, hidden {}%; congestion point testbed {} "
            "simulated {}",
            s.series, s.model, s.validationPoints,
            s.censored
                ? fmt::format(" (+{} censored, {} above the testbed)", s.censored, s.censoredOver)
                : "",
            NumberText(s.medianMean, 1), s.congestedPoints, NumberText(s.medianCongested, 1),
            NumberText(s.medianP99, 1), NumberText(s.medianExposed, 1),
            NumberText(s.medianHidden, 1), KneeText(s.testbedKnee), KneeText(s.simKnee)));
    }
    return lines;
}

} // namespace flumen
