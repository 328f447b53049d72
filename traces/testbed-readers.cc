#include "testbed-readers.h"

#include "input-file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace flumen
{

namespace
{

struct Line
{
    size_t number;
    std::string text;
};

std::vector<Line>
ReadLines(const std::string& path)
{
    const InputFile file = ReadInputFile(path);
    if (!file.problem.empty())
    {
        throw TraceError(fmt::format("{}: cannot open the file: {}", path, file.problem));
    }
    std::istringstream in(file.text);
    std::vector<Line> lines;
    std::string text;
    size_t n = 0;
    while (std::getline(in, text))
    {
        ++n;
        if (!text.empty() && text.back() == '\r')
        {
            text.pop_back();
        }
        lines.push_back({ n, text });
    }
    return lines;
}

std::string
Trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
    {
        return "";
    }
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

std::string
Lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

// Cells separated by commas and/or tabs. The extended TCP files write ",\t" between values,
// so empty cells are dropped; a missing value then shows as a wrong column count.
std::vector<std::string>
Cells(const std::string& text)
{
    std::vector<std::string> cells;
    std::string cur;
    for (char c : text + ",")
    {
        if (c == ',' || c == '\t')
        {
            std::string cell = Trim(cur);
            if (!cell.empty())
            {
                cells.push_back(cell);
            }
            cur.clear();
        }
        else
        {
            cur += c;
        }
    }
    return cells;
}

bool
IsNumber(const std::string& s, double& out)
{
    if (s.empty())
    {
        return false;
    }
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out);
}

[[noreturn]] void
Fail(const std::string& path, size_t line, const std::string& what)
{
    throw TraceError(fmt::format("{}:{}: {}", path, line, what));
}

// Reads `expected` numeric cells from a data line; names the column on failure.
std::vector<double>
Numbers(const std::string& path, const Line& line, const std::vector<std::string>& names)
{
    std::vector<std::string> cells = Cells(line.text);
    if (cells.size() != names.size())
    {
        std::string list;
        for (const auto& n : names)
        {
            list += (list.empty() ? "" : ", ") + n;
        }
        Fail(path, line.number,
             fmt::format("expected {} columns ({}), got {} in '{}'", names.size(), list,
                         cells.size(), line.text));
    }
    std::vector<double> v(cells.size());
    for (size_t i = 0; i < cells.size(); ++i)
    {
        if (!IsNumber(cells[i], v[i]))
        {
            Fail(path, line.number,
                 fmt::format("{}: expected a number, got '{}'", names[i], cells[i]));
        }
    }
    return v;
}

// A header line: its cells, lower-cased, must be these names (the files' own spelling).
bool
IsHeader(const Line& line, const std::vector<std::string>& names)
{
    std::vector<std::string> cells = Cells(line.text);
    if (cells.size() != names.size())
    {
        return false;
    }
    for (size_t i = 0; i < cells.size(); ++i)
    {
        if (Lower(cells[i]) != names[i])
        {
            return false;
        }
    }
    return true;
}

// A line of column names in whatever spelling: two or more cells, none a number. (A section
// title of the reference file is one cell.)
bool
LooksLikeHeader(const Line& line)
{
    std::vector<std::string> cells = Cells(line.text);
    double ignored = 0;
    return cells.size() >= 2
           && std::none_of(cells.begin(), cells.end(),
                           [&](const std::string& c) { return IsNumber(c, ignored); });
}

// The data lines: blank lines (or only separators) anywhere are skipped, and a first line of
// column names, in any spelling, is a header (the testbed's files carry one or not, and users'
// copies name the columns their own way). Rows are then checked against `names`.
std::vector<Line>
DataLines(const std::string& path)
{
    std::vector<Line> lines;
    for (auto& l : ReadLines(path))
    {
        if (!Cells(l.text).empty())
        {
            lines.push_back(l);
        }
    }
    if (lines.empty())
    {
        throw TraceError(fmt::format("{}: expected data lines, the file is empty", path));
    }
    if (LooksLikeHeader(lines.front()))
    {
        lines.erase(lines.begin());
    }
    return lines;
}

} // namespace

std::vector<IterationSummaryRow>
ReadIterationSummary(const std::string& path, const std::string& format)
{
    std::vector<IterationSummaryRow> rows;
    if (format == "index-mean-stdev-p99")
    {
        std::vector<std::string> names = { "index", "mean", "stdev", "tail99" };
        for (const auto& l : DataLines(path))
        {
            auto v = Numbers(path, l, names);
            rows.push_back({ v[0], v[1], v[2], v[3], kUnknown, l.number });
        }
    }
    else if (format == "index-mean-samples-stdev-p99")
    {
        std::vector<std::string> names = { "index", "mean", "samples", "stdev", "tail99" };
        for (const auto& l : DataLines(path))
        {
            auto v = Numbers(path, l, names);
            rows.push_back({ v[0], v[1], v[3], v[4], v[2], l.number });
        }
    }
    else
    {
        throw TraceError(fmt::format("{}: unknown iteration-summary format '{}' (expected "
                                     "index-mean-stdev-p99 or index-mean-samples-stdev-p99)",
                                     path, format));
    }
    for (const auto& r : rows)
    {
        if (r.meanS <= 0 || r.stdevS < 0 || r.p99S <= 0)
        {
            Fail(path, r.line, "expected positive iteration times and a non-negative stdev");
        }
    }
    return rows;
}

std::vector<CrossTrafficRow>
ReadCrossTraffic(const std::string& path, const std::string& format, const std::string& unit)
{
    double scale = 0;
    if (unit == "Gbps")
        scale = 1.0;
    else if (unit == "Mbps")
        scale = 1e-3;
    else
        throw TraceError(fmt::format("{}: unknown unit '{}' (expected Gbps or Mbps)", path, unit));
    std::vector<CrossTrafficRow> rows;
    if (format == "index-mean-stdev")
    {
        std::vector<std::string> names = { "index", "mean", "stdev" };
        for (const auto& l : DataLines(path))
        {
            auto v = Numbers(path, l, names);
            CrossTrafficRow r;
            r.index = v[0];
            r.gbps = v[1] * scale;
            r.stdevGbps = v[2] * scale;
            r.line = l.number;
            rows.push_back(r);
        }
    }
    else if (format == "index-gbps-runtime-stdev")
    {
        std::vector<std::string> names = { "index", "measured_gbps", "run_time_s", "stdev" };
        for (const auto& l : DataLines(path))
        {
            auto v = Numbers(path, l, names);
            CrossTrafficRow r;
            r.index = v[0];
            r.gbps = v[1] * scale;
            r.runTimeS = v[2];
            r.stdevGbps = v[3] * scale;
            r.line = l.number;
            rows.push_back(r);
        }
    }
    else if (format == "reference")
    {
        std::vector<std::string> names
            = { "index", "mean", "mean_truncated", "num_samples", "run_time", "stdev" };
        std::string section;
        for (const auto& l : DataLines(path))
        {
            double first = 0;
            std::vector<std::string> cells = Cells(l.text);
            if (cells.size() == 1 && !IsNumber(cells[0], first))
            {
                section = cells[0]; // a section title such as "SHORT (3min) Runs"
                continue;
            }
            auto v = Numbers(path, l, names);
            CrossTrafficRow r;
            r.index = v[0];
            r.gbps = v[1] * scale;
            r.samples = v[3];
            r.runTimeS = v[4];
            r.stdevGbps = v[5] * scale;
            r.section = section;
            r.line = l.number;
            rows.push_back(r);
        }
    }
    else
    {
        throw TraceError(fmt::format("{}: unknown cross-traffic format '{}' (expected "
                                     "index-mean-stdev, index-gbps-runtime-stdev or reference)",
                                     path, format));
    }
    for (const auto& r : rows)
    {
        if (r.gbps < 0)
        {
            Fail(path, r.line, "expected a non-negative rate");
        }
    }
    return rows;
}

std::vector<CdfPoint>
ReadIterationCdf(const std::string& path)
{
    std::vector<CdfPoint> points;
    std::vector<std::string> names = { "iteration_time_s", "cumulative_fraction" };
    for (const auto& l : DataLines(path))
    {
        auto v = Numbers(path, l, names);
        if (v[1] < 0 || v[1] > 1
            || (!points.empty() && (v[1] < points.back().fraction || v[0] < points.back().seconds)))
        {
            Fail(path, l.number,
                 fmt::format("expected time and fraction (0..1) not below the previous "
                             "line's, got '{}'",
                             l.text));
        }
        points.push_back({ v[0], v[1] });
    }
    return points;
}

std::vector<IterationSample>
ReadPyTorchLog(const std::string& path)
{
    // [rank tag] Epoch: [e][ i/N] ... Time  0.158 ( 0.160)
    static const std::regex tag(R"(^\s*\[(\d+),(\d+)\]<std(?:out|err)>:)");
    static const std::regex progress(
        R"(Epoch:\s*\[(\d+)\]\s*\[\s*(\d+)\s*/\s*(\d+)\s*\].*?\bTime\s+([0-9.eE+-]+)\s*\(\s*([0-9.eE+-]+)\s*\))");
    std::vector<IterationSample> samples;
    for (const auto& l : ReadLines(path))
    {
        if (l.text.find("Epoch:") == std::string::npos)
        {
            continue;
        }
        // std::regex recurses per character: a line of ~40,000 overflowed the stack (SIGSEGV).
        // A progress line has about 200.
        constexpr size_t kMaxProgressLine = 4096;
        if (l.text.size() > kMaxProgressLine)
        {
            Fail(path, l.number,
                 fmt::format("expected a progress line of at most {} characters, got {}",
                             kMaxProgressLine, l.text.size()));
        }
        std::smatch m;
        if (!std::regex_search(l.text, m, progress))
        {
            if (l.text.find("Time") != std::string::npos)
            {
                Fail(path, l.number,
                     fmt::format("expected a progress line 'Epoch: [e][ i/N] ... Time t ( "
                                 "avg)', got '{}'",
                                 l.text));
            }
            continue; // e.g. an "Epoch: [0] summary" line without batch times
        }
        IterationSample s;
        uint64_t epoch = 0;
        uint64_t batch = 0;
        uint64_t perEpoch = 0;
        try
        {
            epoch = std::stoull(m[1]);
            batch = std::stoull(m[2]);
            perEpoch = std::stoull(m[3]);
        }
        catch (const std::out_of_range&)
        {
            Fail(path, l.number,
                 fmt::format("expected an epoch and a batch that fit 64 bits, got '{}'", l.text));
        }
        double t = 0;
        if (!IsNumber(m[4], t) || t < 0)
        {
            Fail(path, l.number, fmt::format("Time: expected seconds, got '{}'", m[4].str()));
        }
        s.iteration = epoch * perEpoch + batch;
        s.durationS = t;
        std::smatch tm;
        if (std::regex_search(l.text, tm, tag))
        {
            try
            {
                s.worker = std::stoi(tm[2]);
            }
            catch (const std::out_of_range&)
            {
                Fail(path, l.number,
                     fmt::format(
                         "expected a rank tag '[n,rank]' with a rank that fits an int, got '{}'",
                         l.text));
            }
        }
        s.line = l.number;
        samples.push_back(s);
    }
    if (samples.empty())
    {
        throw TraceError(
            fmt::format("{}: expected PyTorch progress lines 'Epoch: [e][ i/N] ... Time t ( "
                        "avg)', found none",
                        path));
    }
    return samples;
}

std::vector<IterationSample>
ReadGenericIterationCsv(const std::string& path)
{
    std::vector<Line> lines;
    for (auto& l : ReadLines(path))
    {
        if (!Trim(l.text).empty())
        {
            lines.push_back(l);
        }
    }
    if (lines.empty())
    {
        throw TraceError(fmt::format("{}: expected a header 'iteration, duration_s', the file "
                                     "is empty",
                                     path));
    }
    std::vector<std::string> two = { "iteration", "duration_s" };
    std::vector<std::string> three = { "iteration", "duration_s", "cross_traffic_gbps" };
    bool withCross = IsHeader(lines.front(), three);
    if (!withCross && !IsHeader(lines.front(), two))
    {
        Fail(path, lines.front().number,
             fmt::format("expected the header 'iteration, duration_s' or 'iteration, "
                         "duration_s, cross_traffic_gbps', got '{}'",
                         lines.front().text));
    }
    std::vector<IterationSample> samples;
    for (size_t i = 1; i < lines.size(); ++i)
    {
        auto v = Numbers(path, lines[i], withCross ? three : two);
        // 2^64: larger iteration numbers do not fit the sample (converting them is undefined).
        if (v[0] < 0 || v[0] != std::floor(v[0]) || v[0] >= 18446744073709551616.0 || v[1] < 0)
        {
            Fail(path, lines[i].number,
                 "expected a whole iteration number and a non-negative duration");
        }
        IterationSample s;
        s.iteration = static_cast<uint64_t>(v[0]);
        s.durationS = v[1];
        s.crossTrafficGbps = withCross ? v[2] : kUnknown;
        s.line = lines[i].number;
        samples.push_back(s);
    }
    return samples;
}

} // namespace flumen
