#include "run-outputs.h"

#include "atomic-file.h"
#include "csv-format.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace flumen
{

namespace
{
// Runs before the job column (2026-11-26) wrote the header without it: still read.
const char* kHeaderWithoutJob
    = "iteration,worker,start_s,end_s,duration_s,forward_s,backward_s,wait_s,step_s,warmup";
const std::string kHeader = std::string(kHeaderWithoutJob) + ",job";
constexpr const char* kTcpCsvHeader
    = "flow_id,start_s,size_bytes,slow_start_end_s,slow_start_end_cwnd_bytes,"
      "slow_start_end_cause,max_cwnd_bytes,min_srtt_s,max_srtt_s,recoveries,"
      "timeouts";
} // namespace

bool
IterationRow::operator==(const IterationRow& o) const
{
    return iteration == o.iteration && worker == o.worker && startS == o.startS && endS == o.endS
           && forwardS == o.forwardS && backwardS == o.backwardS && waitS == o.waitS
           && stepS == o.stepS && warmup == o.warmup && job == o.job;
}

std::string
FormatIterationsCsv(const std::vector<IterationRow>& rows)
{
    std::string out = kHeader + "\n";
    for (const auto& r : rows)
    {
        // Nanosecond resolution: ns-3's time step.
        out += fmt::format("{},{},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f},{:.9f},{},{}\n",
                           r.iteration, r.worker, r.startS, r.endS, r.endS - r.startS, r.forwardS,
                           r.backwardS, r.waitS, r.stepS, r.warmup ? 1 : 0, r.job);
    }
    return out;
}

std::vector<IterationRow>
ParseIterationsCsv(const std::string& text, const std::string& source)
{
    std::vector<IterationRow> rows;
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0;
    size_t fields = 11;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (lineNo == 1)
        {
            if (line != kHeader && line != kHeaderWithoutJob)
            {
                throw std::runtime_error(
                    fmt::format("{}:1: expected header '{}'", source, kHeader));
            }
            fields = line == kHeader ? 11 : 10;
            continue;
        }
        if (line.empty())
        {
            continue;
        }
        const std::vector<std::string> f = SplitCsvFields(line); // (an empty job: a last comma)
        if (f.size() != fields)
        {
            throw std::runtime_error(
                fmt::format("{}:{}: expected {} comma-separated fields, got {}", source, lineNo,
                            fields, f.size()));
        }
        try
        {
            IterationRow r;
            r.iteration = static_cast<uint32_t>(std::stoul(f[0]));
            r.worker = static_cast<uint32_t>(std::stoul(f[1]));
            r.startS = std::stod(f[2]);
            r.endS = std::stod(f[3]);
            r.forwardS = std::stod(f[5]);
            r.backwardS = std::stod(f[6]);
            r.waitS = std::stod(f[7]);
            r.stepS = std::stod(f[8]);
            r.warmup = f[9] == "1";
            r.job = fields == 11 ? f[10] : "";
            rows.push_back(r);
        }
        catch (const std::exception&)
        {
            throw std::runtime_error(
                fmt::format("{}:{}: expected numbers, got '{}'", source, lineNo, line));
        }
    }
    return rows;
}

std::string
FormatFlowsCsv(const std::vector<FlowRow>& rows)
{
    std::string out = "flow_id,start_s,size_bytes,end_s,fct_s,completed\n";
    AppendFlowsCsvRows(out, rows);
    return out;
}

void
AppendFlowsCsvRows(std::string& out, const std::vector<FlowRow>& rows)
{
    for (const auto& r : rows)
    {
        bool done = r.endS >= 0 && !r.failed;
        if (done)
        {
            fmt::format_to(std::back_inserter(out), FMT_COMPILE("{},{:.9f},{},{:.9f},{:.9f},1\n"),
                           r.id, r.startS, r.sizeBytes, r.endS, r.endS - r.startS);
        }
        else
        {
            fmt::format_to(std::back_inserter(out), FMT_COMPILE("{},{:.9f},{},,,0\n"), r.id,
                           r.startS, r.sizeBytes);
        }
    }
}

std::string
FormatTcpCsv(const std::vector<TcpFlowRow>& rows)
{
    std::string out = std::string(kTcpCsvHeader) + "\n";
    auto it = std::back_inserter(out);
    for (const auto& r : rows)
    {
        fmt::format_to(it, FMT_COMPILE("{},{:.9f},{},"), r.id, r.startS, r.sizeBytes);
        if (r.slowStartEndS >= 0)
        {
            fmt::format_to(it, FMT_COMPILE("{:.9f},{},{},"), r.slowStartEndS,
                           r.slowStartEndCwndBytes, r.slowStartEndCause);
        }
        else
        {
            out += ",,,";
        }
        fmt::format_to(it, FMT_COMPILE("{},"), r.maxCwndBytes);
        if (r.minSrttS >= 0)
        {
            fmt::format_to(it, FMT_COMPILE("{:.9f},{:.9f},"), r.minSrttS, r.maxSrttS);
        }
        else
        {
            out += ",,";
        }
        fmt::format_to(it, FMT_COMPILE("{},{}\n"), r.recoveries, r.timeouts);
    }
    return out;
}

namespace
{

// One tcp.csv row's cells, each read strictly (whole cell, finite, in range); errors name the
// line and the column.
class TcpCsvCells
{
  public:
    TcpCsvCells(const std::string& line, const std::string& where)
        : m_where(where), m_cells(SplitCsvFields(line))
    {
        if (m_cells.size() != 11)
        {
            throw std::runtime_error(fmt::format("{}: expected 11 comma-separated fields, got {}",
                                                 where, m_cells.size()));
        }
    }

    bool Empty(size_t i) const { return m_cells[i].empty(); }

    double Seconds(size_t i, const char* column) const
    {
        const std::string& c = m_cells[i];
        double v = -1;
        const auto [end, error]
            = std::from_chars(c.data(), c.data() + c.size(), v, std::chars_format::general);
        if (c.empty() || end != c.data() + c.size() || error != std::errc() || !std::isfinite(v)
            || v < 0 || std::signbit(v))
        {
            Bad(column, c, "seconds (a number >= 0)");
        }
        return v;
    }

    uint64_t Count(size_t i, const char* column, uint64_t most) const
    {
        const std::string& c = m_cells[i];
        uint64_t v = 0;
        const auto [end, error] = std::from_chars(c.data(), c.data() + c.size(), v);
        if (c.empty() || end != c.data() + c.size() || error != std::errc() || v > most)
        {
            Bad(column, c, fmt::format("a whole number from 0 to {}", most));
        }
        return v;
    }

    const std::string& Text(size_t i) const { return m_cells[i]; }

  private:
    [[noreturn]] void Bad(const char* column, const std::string& got, const std::string& what) const
    {
        throw std::runtime_error(
            fmt::format("{}: {}: expected {}, got '{}'", m_where, column, what, got));
    }

    std::string m_where;
    std::vector<std::string> m_cells;
};

bool
KnownCause(const std::string& cause)
{
    return cause == "hystart" || cause == "loss" || cause == "ecn" || cause == "other";
}

} // namespace

std::vector<TcpFlowRow>
ParseTcpCsv(const std::string& text, const std::string& source)
{
    std::vector<TcpFlowRow> rows;
    std::istringstream in(text);
    std::string line;
    size_t lineNo = 0;
    constexpr uint64_t kMax32 = 0xffffffffu;
    while (std::getline(in, line))
    {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (lineNo == 1)
        {
            if (line != kTcpCsvHeader)
            {
                throw std::runtime_error(fmt::format("{}:1: expected header '{}', got '{}'", source,
                                                     kTcpCsvHeader, line.substr(0, 60)));
            }
            continue;
        }
        if (line.empty())
        {
            continue;
        }
        const TcpCsvCells c(line, fmt::format("{}:{}", source, lineNo));
        TcpFlowRow r;
        r.id = static_cast<uint32_t>(c.Count(0, "flow_id", kMax32));
        r.startS = c.Seconds(1, "start_s");
        r.sizeBytes = c.Count(2, "size_bytes", std::numeric_limits<uint64_t>::max());
        // The end of slow start, its window and its cause are all there or all empty.
        if (!(c.Empty(3) && c.Empty(4) && c.Empty(5)))
        {
            r.slowStartEndS = c.Seconds(3, "slow_start_end_s");
            r.slowStartEndCwndBytes
                = static_cast<uint32_t>(c.Count(4, "slow_start_end_cwnd_bytes", kMax32));
            r.slowStartEndCause = c.Text(5);
            if (!KnownCause(r.slowStartEndCause))
            {
                throw std::runtime_error(fmt::format(
                    "{}:{}: slow_start_end_cause: expected hystart, loss, ecn or other beside "
                    "slow_start_end_s, got '{}'",
                    source, lineNo, r.slowStartEndCause));
            }
        }
        r.maxCwndBytes = static_cast<uint32_t>(c.Count(6, "max_cwnd_bytes", kMax32));
        if (!(c.Empty(7) && c.Empty(8)))
        {
            r.minSrttS = c.Seconds(7, "min_srtt_s");
            r.maxSrttS = c.Seconds(8, "max_srtt_s");
        }
        r.recoveries = static_cast<uint32_t>(c.Count(9, "recoveries", kMax32));
        r.timeouts = static_cast<uint32_t>(c.Count(10, "timeouts", kMax32));
        rows.push_back(r);
    }
    if (lineNo == 0)
    {
        throw std::runtime_error(
            fmt::format("{}: empty, expected header '{}'", source, kTcpCsvHeader));
    }
    return rows;
}

std::string
FormatLinkCsv(const std::vector<LinkRow>& rows)
{
    std::string out = "time_s,job_bytes,cross_bytes,job_gbps,cross_gbps,queue_mean_bytes,"
                      "queue_max_bytes,drops,ecn_marks\n";
    AppendLinkCsvRows(out, rows);
    return out;
}

namespace
{

// Writes v as fmt's "{:.Nf}" does, N = decimals (0 to 6). Where v * 10^N lies clear of a
// rounding tie (by far more than that product's own rounding error) its nearest integer is
// fmt's correctly rounded result, and integers format several times faster than doubles.
void
AppendFixed(std::string& out, double v, int decimals)
{
    static constexpr double kScale[] = { 1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6 };
    static constexpr uint64_t kDivisor[] = { 1, 10, 100, 1000, 10000, 100000, 1000000 };
    const double x = v * kScale[decimals];
    const double below = std::floor(x);
    // Below 1e12 the product is within 1.2e-4 of v * 10^N.
    if (!std::signbit(v) && x < 1e12 && std::abs(x - below - 0.5) > 1e-3)
    {
        const auto n = static_cast<uint64_t>(x - below < 0.5 ? below : below + 1);
        const fmt::format_int whole(n / kDivisor[decimals]);
        out.append(whole.data(), whole.size());
        if (decimals > 0)
        {
            const fmt::format_int part(n % kDivisor[decimals]);
            out += '.';
            out.append(decimals - part.size(), '0');
            out.append(part.data(), part.size());
        }
        return;
    }
    fmt::format_to(std::back_inserter(out), "{:.{}f}", v, decimals);
}

} // namespace

void
AppendLinkCsvRows(std::string& out, const std::vector<LinkRow>& rows)
{
    // A flow-level link keeps its rates for many bins in a row: such a row repeats the last
    // one's fields after the time, formatted once.
    std::string fields;
    const LinkRow* last = nullptr;
    for (const auto& r : rows)
    {
        AppendFixed(out, r.startS, 6);
        const bool same = last != nullptr && r.widthS == last->widthS
                          && r.jobBytes == last->jobBytes && r.crossBytes == last->crossBytes
                          && r.queueMeanBytes == last->queueMeanBytes
                          && r.queueMaxBytes == last->queueMaxBytes && r.drops == last->drops
                          && r.ecnMarks == last->ecnMarks;
        if (!same)
        {
            double toGbps = r.widthS > 0 ? 8.0 / r.widthS / 1e9 : 0.0;
            fields.clear();
            fmt::format_to(std::back_inserter(fields), FMT_COMPILE(",{},{},"), r.jobBytes,
                           r.crossBytes);
            AppendFixed(fields, r.jobBytes * toGbps, 4);
            fields += ',';
            AppendFixed(fields, r.crossBytes * toGbps, 4);
            fields += ',';
            AppendFixed(fields, r.queueMeanBytes, 0);
            fmt::format_to(std::back_inserter(fields), FMT_COMPILE(",{},{},{}\n"), r.queueMaxBytes,
                           r.drops, r.ecnMarks);
        }
        out += fields;
        last = &r;
    }
}

std::string
FormatRingCsv(const std::vector<RingHopSeries>& hops)
{
    std::string out = "time_s";
    size_t bins = 0;
    for (const auto& h : hops)
    {
        out += fmt::format(",{}_to_{}_gbps", h.from, h.to);
        bins = std::max(bins, h.jobBytes.size());
    }
    out += "\n";
    const double width = hops.empty() ? 0 : hops.front().binS;
    for (size_t b = 0; b < bins; ++b)
    {
        out += fmt::format("{:.6f}", b * width);
        for (const auto& h : hops)
        {
            uint64_t bytes = b < h.jobBytes.size() ? h.jobBytes[b] : 0;
            out += fmt::format(",{:.4f}", width > 0 ? bytes * 8.0 / width / 1e9 : 0.0);
        }
        out += "\n";
    }
    return out;
}

void
WriteRunOutputs(const std::string& dir, const std::vector<IterationRow>& rows,
                const nlohmann::json& summary,
                const std::vector<std::pair<std::string, std::string>>& extraFiles,
                const std::vector<std::pair<std::string, std::string>>& stagedFiles)
{
    // summary.json last: it marks a complete run (what sweep and validate look for).
    std::vector<std::pair<std::string, std::string>> files;
    files.emplace_back("iterations.csv", FormatIterationsCsv(rows));
    files.insert(files.end(), extraFiles.begin(), extraFiles.end());
    files.emplace_back("summary.json", summary.dump(2) + "\n");
    WriteFileSetAtomically(dir, files, stagedFiles);
}

} // namespace flumen
