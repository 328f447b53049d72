#include "load-file.h"

#include "input-file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace flumen
{

namespace
{

// Splits on spaces and tabs; a trailing '\r' (CRLF files) is whitespace too.
std::vector<std::string>
Fields(const std::string& line)
{
    std::vector<std::string> out;
    std::string cur;
    for (char c : line)
    {
        if (c == ' ' || c == '\t' || c == '\r')
        {
            if (!cur.empty())
            {
                out.push_back(cur);
                cur.clear();
            }
        }
        else
        {
            cur += c;
        }
    }
    if (!cur.empty())
    {
        out.push_back(cur);
    }
    return out;
}

// A non-negative decimal integer that fits 64 bits, and nothing else.
bool
ParseUnsigned(const std::string& s, uint64_t& out)
{
    if (s.empty())
    {
        return false;
    }
    uint64_t v = 0;
    for (char c : s)
    {
        if (c < '0' || c > '9')
        {
            return false;
        }
        uint64_t d = static_cast<uint64_t>(c - '0');
        if (v > (UINT64_MAX - d) / 10)
        {
            return false;
        }
        v = v * 10 + d;
    }
    out = v;
    return true;
}

// A non-negative finite number (the testbed's generator may write decimals, e.g. scaled burst
// sizes), rounded to the nearest integer.
bool
ParseRounded(const std::string& s, uint64_t& out)
{
    uint64_t whole = 0;
    if (ParseUnsigned(s, whole))
    {
        out = whole;
        return true;
    }
    if (s.empty() || s[0] == '-' || s[0] == '+')
    {
        return false;
    }
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size() || !std::isfinite(v) || v < 0 || v >= 1.8e19)
    {
        return false;
    }
    out = static_cast<uint64_t>(std::llround(v));
    return true;
}

[[noreturn]] void
Fail(const std::string& source, size_t line, const std::string& what)
{
    throw LoadFileError(fmt::format("{}:{}: {}", source, line, what));
}

} // namespace

std::vector<LoadFileFlow>
ParseLoadFile(const std::string& text, const std::string& source)
{
    std::vector<std::string> lines;
    {
        std::stringstream ss(text);
        std::string l;
        while (std::getline(ss, l))
        {
            lines.push_back(l);
        }
    }
    if (lines.empty() || Fields(lines[0]).empty())
    {
        Fail(source, 1, "expected the flow count on the first line, got an empty line");
    }
    std::vector<std::string> head = Fields(lines[0]);
    uint64_t count = 0;
    if (head.size() != 1 || !ParseUnsigned(head[0], count))
    {
        Fail(source, 1,
             fmt::format("expected the flow count (one non-negative integer), got '{}'", lines[0]));
    }
    std::vector<LoadFileFlow> flows;
    flows.reserve(static_cast<size_t>(std::min<uint64_t>(count, 10000000)));
    for (uint64_t i = 0; i < count; ++i)
    {
        size_t lineNo = static_cast<size_t>(i) + 2;
        if (lineNo > lines.size())
        {
            Fail(source, lines.size() + 1,
                 fmt::format("the file ended after {} of the {} flows the first line announces", i,
                             count));
        }
        std::vector<std::string> f = Fields(lines[lineNo - 1]);
        if (f.size() != 3)
        {
            Fail(source, lineNo,
                 fmt::format("expected 3 fields 'start_us size_bytes dest_index', got {} in '{}'",
                             f.size(), lines[lineNo - 1]));
        }
        uint64_t v[3];
        const char* names[3] = { "start_us", "size_bytes", "dest_index" };
        for (int k = 0; k < 3; ++k)
        {
            bool ok = k < 2 ? ParseRounded(f[k], v[k]) : ParseUnsigned(f[k], v[k]);
            if (!ok)
            {
                Fail(source, lineNo,
                     fmt::format("{}: expected a non-negative {}, got '{}'", names[k],
                                 k < 2 ? "number" : "integer", f[k]));
            }
        }
        if (v[1] == 0)
        {
            Fail(source, lineNo, "size_bytes: expected at least 1 byte, got 0");
        }
        if (v[2] > UINT32_MAX)
        {
            Fail(source, lineNo, fmt::format("dest_index: expected a small index, got {}", v[2]));
        }
        if (!flows.empty() && v[0] < flows.back().startUs)
        {
            Fail(source, lineNo,
                 fmt::format("start_us: expected at least the previous start ({}), got {}",
                             flows.back().startUs, v[0]));
        }
        flows.push_back({ v[0], v[1], static_cast<uint32_t>(v[2]) });
    }
    for (size_t l = count + 1; l < lines.size(); ++l)
    {
        if (!Fields(lines[l]).empty())
        {
            Fail(source, l + 1,
                 fmt::format("expected the end of the file after the {} flows the first line "
                             "announces, got '{}'",
                             count, lines[l]));
        }
    }
    return flows;
}

std::vector<LoadFileFlow>
ReadLoadFile(const std::string& path)
{
    const InputFile file = ReadInputFile(path);
    if (!file.problem.empty())
    {
        throw LoadFileError(fmt::format("{}: cannot open the load file: {}", path, file.problem));
    }
    return ParseLoadFile(file.text, path);
}

std::string
FormatLoadFile(const std::vector<LoadFileFlow>& flows)
{
    std::string out = fmt::format("{}\n", flows.size());
    for (const auto& f : flows)
    {
        out += fmt::format("{} {} {}\n", f.startUs, f.sizeBytes, f.destination);
    }
    return out;
}

} // namespace flumen
