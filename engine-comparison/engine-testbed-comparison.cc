#include "engine-testbed-comparison.h"

#include "atomic-file.h"
#include "series-summary.h"
#include "validation-collate.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <stdexcept>

namespace flumen
{

namespace fs = std::filesystem;

namespace
{

std::string
Pct(double v)
{
    return NumberText(v, 1);
}

} // namespace

std::vector<std::string>
CompareEnginesWithTestbed(const ValidationPlan& plan, const std::vector<ValidatedPoint>& flow,
                          const fs::path& packetPoints, PacketRunMatch match,
                          const std::string& dir)
{
    // The plan's points, their runs named by their packet runs: read back as the packet
    // validation read them.
    ValidationPlan packetPlan;
    packetPlan.points = plan.points;
    std::map<std::string, std::string> packetId;
    for (const auto& r : plan.runs)
    {
        packetId[r.id] = PacketRunOf(r, packetPoints, match);
    }
    for (auto& pp : packetPlan.points)
    {
        for (auto& id : pp.runIds)
        {
            id = packetId.at(id);
        }
    }
    const std::vector<ValidatedPoint> packet = CollateValidation(packetPlan, packetPoints).points;
    if (packet.size() != flow.size())
    {
        throw std::invalid_argument(fmt::format("CompareEnginesWithTestbed: {} flow points for a "
                                                "plan of {}",
                                                flow.size(), packet.size()));
    }

    // Like for like: the validation points that both engines simulated (idle references stay,
    // whatever their status, as in each engine's own report).
    std::vector<ValidatedPoint> bothPacket;
    std::vector<ValidatedPoint> bothFlow;
    // engine auto, point by point: the flow engine's where all its runs stayed in its domain,
    // the packet level's where one left it (auto decides run by run; a point whose seeds split
    // is taken at packet level).
    std::vector<ValidatedPoint> bothAuto;
    std::map<std::pair<std::string, std::string>, int> leftOut;
    std::string csv = "series,model,transport,index,offered_gbps,testbed_measured_gbps,congested,"
                      "testbed_mean_s,packet_mean_s,flow_mean_s,packet_error_pct,flow_error_pct,"
                      "packet_status,flow_status,compared,flow_out_of_domain_seeds\n";
    for (size_t i = 0; i < flow.size(); ++i)
    {
        const ValidatedPoint& f = flow[i];
        const ValidatedPoint& p = packet[i];
        const bool sameIndex = f.index == p.index || (std::isnan(f.index) && std::isnan(p.index));
        if (f.series != p.series || f.model != p.model || !sameIndex)
        {
            throw std::invalid_argument(fmt::format("CompareEnginesWithTestbed: flow point {} "
                                                    "({} {}) is not the plan's",
                                                    i, f.series, f.model));
        }
        // Like for like: both simulated to the end, over the same seeds.
        const bool counted
            = !IsValidationPoint(f) || (IsSimulated(f) && IsSimulated(p) && f.seeds == p.seeds);
        if (counted)
        {
            bothPacket.push_back(p);
            bothFlow.push_back(f);
            bothAuto.push_back(f.outOfDomainSeeds == 0 ? f : p);
        }
        else
        {
            leftOut[{ f.series, f.model }]++;
        }
        if (!IsValidationPoint(f))
        {
            continue;
        }
        csv += fmt::format(
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", f.series, f.model, f.transport,
            NumberText(f.index, 0), NumberText(f.offeredGbps, 3), NumberText(f.measuredGbps, 3),
            f.congested ? 1 : 0, NumberText(f.testbedMeanS, 6),
            IsSimulated(p) ? NumberText(p.simMeanS, 6) : "",
            IsSimulated(f) ? NumberText(f.simMeanS, 6) : "",
            IsSimulated(p) ? NumberText(PercentError(p.simMeanS, p.testbedMeanS), 2) : "",
            IsSimulated(f) ? NumberText(PercentError(f.simMeanS, f.testbedMeanS), 2) : "",
            p.status.substr(0, p.status.find(':')), f.status.substr(0, f.status.find(':')),
            counted ? 1 : 0, f.outOfDomainSeeds);
    }
    const std::vector<SeriesSummary> sp = SummariseSeries(bothPacket);
    const std::vector<SeriesSummary> sf = SummariseSeries(bothFlow);
    const std::vector<SeriesSummary> sa = SummariseSeries(bothAuto);

    std::vector<std::string> lines;
    lines.push_back("| series | model | points (left out) | mean, packet | mean, flow | mean, auto "
                    "| congested points | congested, packet | congested, flow | congested, auto "
                    "| p99, packet | p99, flow | cross-traffic rate, packet | cross-traffic "
                    "rate, flow |");
    lines.push_back("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (size_t i = 0; i < sp.size() && i < sf.size() && i < sa.size(); ++i)
    {
        const SeriesSummary& a = sp[i];
        const SeriesSummary& b = sf[i];
        const SeriesSummary& c = sa[i];
        const int out = leftOut[{ b.series, b.model }];
        lines.push_back(fmt::format(
            "| {} | {} | {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |", b.series,
            b.model, b.validationPoints, out > 0 ? fmt::format(" ({})", out) : "",
            Pct(a.medianMean), Pct(b.medianMean), Pct(c.medianMean), b.congestedPoints,
            Pct(a.medianCongested), Pct(b.medianCongested), Pct(c.medianCongested),
            Pct(a.medianP99), Pct(b.medianP99), Pct(a.medianAchieved), Pct(b.medianAchieved)));
    }
    std::string md
        = "# Both engines against the testbed\n\n"
          "Median |error| against the testbed, in per cent, per series and model: of "
          "the mean iteration time (over the validation points, and over the "
          "congested ones), of the p99 and of the achieved cross-traffic rate; the "
          "packet level's runs and the flow engine's of the same points, and what engine "
          "auto would give: the flow engine's point where all its runs stayed in its "
          "domain, the packet level's where one left it (engine_domain; auto decides "
          "run by run, so a point whose seeds split is taken at packet level). A point "
          "counts where both engines simulated it to the end over the same seeds; the others "
          "(censored in either, not run, or run with other seeds) are left out, their "
          "number in brackets (each engine's report.md lists its own). Per point: "
          "engines-testbed.csv.\n\n";
    for (const auto& l : lines)
    {
        md += l + "\n";
    }
    WriteFileSetAtomically(dir, { { "engines-testbed.csv", csv }, { "engines-testbed.md", md } });
    return lines;
}

} // namespace flumen
