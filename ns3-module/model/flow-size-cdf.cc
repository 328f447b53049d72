#include "flow-size-cdf.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ns3
{

namespace
{

std::string
Where(const std::string& source, size_t line)
{
    return source + ":" + std::to_string(line) + ": ";
}

bool
ParseNumber(const std::string& s, double& out)
{
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && std::isfinite(out);
}

} // namespace

FlowSizeCdf::FlowSizeCdf(std::vector<Point> points, uint32_t packetBytes)
    : m_points(std::move(points)), m_packetBytes(packetBytes)
{
}

FlowSizeCdf
FlowSizeCdf::Parse(const std::string& text, const std::string& source, uint32_t packetBytes)
{
    std::vector<Point> points;
    std::stringstream in(text);
    std::string line;
    size_t lineNo = 0;
    size_t lastPointLine = 0; // trailing blank or comment lines must not move the blame
    while (std::getline(in, line))
    {
        ++lineNo;
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        std::stringstream fields(line);
        std::vector<std::string> f;
        std::string w;
        while (fields >> w)
        {
            f.push_back(w);
        }
        if (f.empty() || f[0][0] == '#')
        {
            continue;
        }
        if (f.size() != 3)
        {
            throw FlowSizeCdfError(Where(source, lineNo)
                                   + "expected 3 fields 'size_in_packets 1 "
                                     "cumulative_probability', got '"
                                   + line + "'");
        }
        Point p;
        double one = 0;
        if (!ParseNumber(f[0], p.packets) || !ParseNumber(f[1], one)
            || !ParseNumber(f[2], p.cumulative))
        {
            throw FlowSizeCdfError(Where(source, lineNo) + "expected three numbers, got '" + line
                                   + "'");
        }
        if (p.packets <= 0 || (!points.empty() && p.packets <= points.back().packets))
        {
            throw FlowSizeCdfError(Where(source, lineNo)
                                   + "expected a size above 0 and above the previous line's, got "
                                   + f[0]);
        }
        if (p.cumulative < 0 || p.cumulative > 1
            || (!points.empty() && p.cumulative < points.back().cumulative))
        {
            throw FlowSizeCdfError(Where(source, lineNo)
                                   + "expected a cumulative probability in [0, 1], not below the "
                                     "previous line's, got "
                                   + f[2]);
        }
        points.push_back(p);
        lastPointLine = lineNo;
    }
    if (points.empty())
    {
        throw FlowSizeCdfError(source
                               + ": expected CDF lines 'size_in_packets 1 "
                                 "cumulative_probability', found none");
    }
    if (std::abs(points.back().cumulative - 1.0) > 1e-9)
    {
        throw FlowSizeCdfError(Where(source, lastPointLine)
                               + "expected the last cumulative probability to be 1, got "
                               + std::to_string(points.back().cumulative));
    }
    points.back().cumulative = 1.0;
    return FlowSizeCdf(std::move(points), packetBytes);
}

FlowSizeCdf
FlowSizeCdf::Load(const std::string& path, uint32_t packetBytes)
{
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) // a stream would throw, naming no path
    {
        throw FlowSizeCdfError(path
                               + ": cannot open the flow-size CDF file: is a folder, not a file");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        throw FlowSizeCdfError(path + ": cannot open the flow-size CDF file");
    }
    std::stringstream ss;
    ss << in.rdbuf();
    return Parse(ss.str(), path, packetBytes);
}

uint64_t
FlowSizeCdf::SampleBytes(double u) const
{
    // Weighted choice: point i has weight cumulative[i] - cumulative[i-1].
    auto it = std::upper_bound(m_points.begin(), m_points.end(), u,
                               [](double x, const Point& p) { return x < p.cumulative; });
    if (it == m_points.end())
    {
        it = std::prev(m_points.end());
    }
    return static_cast<uint64_t>(std::llround(it->packets * m_packetBytes));
}

double
FlowSizeCdf::MeanBytes() const
{
    double mean = 0;
    double previous = 0;
    for (const auto& p : m_points)
    {
        mean += (p.cumulative - previous) * p.packets * m_packetBytes;
        previous = p.cumulative;
    }
    return mean;
}

double
FlowSizeCdf::CdfAtBytes(double bytes) const
{
    double c = 0;
    for (const auto& p : m_points)
    {
        if (p.packets * m_packetBytes <= bytes)
        {
            c = p.cumulative;
        }
    }
    return c;
}

} // namespace ns3
