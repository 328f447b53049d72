#include "layers-file.h"

#include "csv-format.h"
#include "input-file.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace flumen
{

namespace
{

[[noreturn]] void
Fail(const std::string& source, size_t line, const std::string& what)
{
    throw LayersFileError(fmt::format("{}:{}: {}", source, line, what));
}

std::string
Trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string>
Cells(const std::string& line)
{
    std::vector<std::string> out = SplitCsvFields(line);
    for (std::string& cell : out)
    {
        cell = Trim(cell);
    }
    return out;
}

// At most 10^13 parameters in one layer: beyond any model, and far from overflow when summed.
constexpr uint64_t kMaxLayerParameters = 10'000'000'000'000ULL;

bool
ParseParameters(const std::string& s, uint64_t& out)
{
    if (s.empty() || s.size() > 14 || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    out = std::stoull(s);
    return out <= kMaxLayerParameters;
}

bool
ParseCompute(const std::string& s, double& out)
{
    if (s.empty() || s[0] == '-' || s[0] == '+')
    {
        return false;
    }
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && std::isfinite(out) && out >= 0;
}

} // namespace

std::vector<FileLayer>
ParseLayersFile(const std::string& text, const std::string& source)
{
    std::stringstream in(text);
    std::string line;
    size_t lineNo = 0;
    size_t columns = 0; // 0 until the header is read
    std::vector<FileLayer> layers;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::string t = Trim(line);
        if (t.empty() || t[0] == '#')
        {
            continue;
        }
        std::vector<std::string> c = Cells(t);
        if (columns == 0)
        {
            if (c == std::vector<std::string>{ "layer", "parameters" }
                || c == std::vector<std::string>{ "layer", "parameters", "compute" })
            {
                columns = c.size();
                continue;
            }
            Fail(source, lineNo,
                 fmt::format("expected the header 'layer,parameters' or "
                             "'layer,parameters,compute', got '{}'",
                             t));
        }
        if (c.size() != columns)
        {
            Fail(source, lineNo,
                 fmt::format("expected {} comma-separated fields as the header says, got {} in "
                             "'{}'",
                             columns, c.size(), t));
        }
        FileLayer l;
        l.name = c[0];
        if (l.name.empty())
        {
            Fail(source, lineNo, "layer: expected a name, got an empty field");
        }
        if (!ParseParameters(c[1], l.parameters))
        {
            Fail(source, lineNo,
                 fmt::format("parameters: expected an integer from 0 to {}, got '{}'",
                             kMaxLayerParameters, c[1]));
        }
        if (columns == 3 && !ParseCompute(c[2], l.compute))
        {
            Fail(source, lineNo,
                 fmt::format("compute: expected a non-negative number, got '{}'", c[2]));
        }
        if (columns == 2)
        {
            l.compute = static_cast<double>(l.parameters);
        }
        layers.push_back(l);
    }
    if (columns == 0)
    {
        Fail(source, lineNo + 1,
             "expected the header 'layer,parameters[,compute]', got the end "
             "of the file");
    }
    uint64_t total = 0;
    double compute = 0;
    for (const auto& l : layers)
    {
        total += l.parameters;
        compute += l.compute;
    }
    if (total == 0)
    {
        Fail(source, lineNo + 1, "expected layers with at least one parameter in all, got none");
    }
    if (!(compute > 0))
    {
        Fail(source, lineNo + 1, "compute: expected a positive total over the layers, got 0");
    }
    return layers;
}

std::vector<FileLayer>
ReadLayersFile(const std::string& path)
{
    const InputFile file = ReadInputFile(path);
    if (!file.problem.empty())
    {
        throw LayersFileError(
            fmt::format("{}: cannot open the layers file: {}", path, file.problem));
    }
    return ParseLayersFile(file.text, path);
}

} // namespace flumen
