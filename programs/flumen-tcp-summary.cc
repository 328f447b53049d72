// flumen-tcp-summary: how the TCP flows of one or more runs left slow start, how far their
// windows grew and how often they lost, by flow size, side by side (tcp.csv of either engine;
// traces/tcp-flow-summary.h). `./flumen tcp-summary RUN... [options]`.
#include "csv-format.h"
#include "run-outputs.h"
#include "run-summary.h"
#include "tcp-flow-summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

struct Options
{
    std::vector<std::string> runs;
    double fromS = 0;
    std::vector<uint64_t> edgesBytes = { 100000, 1000000, 3000000 };
    double segmentBytes = 1448;
};

std::string
Usage()
{
    const Options d;
    std::string edges;
    for (uint64_t e : d.edgesBytes)
    {
        edges += fmt::format("{}{:g}", edges.empty() ? "" : ",", e / 1e6);
    }
    return fmt::format(
        "usage: flumen tcp-summary RUN... [--from-s S] [--sizes-mb A,B,...] [--segment-bytes N]\n"
        "RUN is a run's output folder (its tcp.csv, from outputs.tcp_csv: true) or a tcp.csv.\n"
        "Prints, per flow size class and run: the flows that started from S seconds on (default\n"
        "{:g}), the shares that never left slow start or left it by HyStart, at a loss or\n"
        "otherwise, the median window slow start ended at and the median largest window (in\n"
        "segments of N bytes, default {:g}), the median smallest round trip, the flows that lost\n"
        "and their fast recoveries and timeouts. Classes cut at A, B, ... MB (default {}).\n",
        d.fromS, d.segmentBytes, edges);
}

[[noreturn]] void
Fail(const std::string& what)
{
    throw std::invalid_argument(fmt::format("flumen tcp-summary: {}\n{}", what, Usage()));
}

// An option's number: finite, at least 0 (above 0 unless `zeroAllowed`).
double
OptionNumber(const std::string& option, const std::string& text, bool zeroAllowed)
{
    size_t used = 0;
    double v = 0;
    try
    {
        v = std::stod(text, &used);
    }
    catch (const std::exception&)
    {
        used = 0;
    }
    if (text.empty() || used != text.size() || !std::isfinite(v) || v < 0
        || (!zeroAllowed && v == 0))
    {
        Fail(fmt::format("{}: expected a number {} 0, got '{}'", option, zeroAllowed ? ">=" : ">",
                         text));
    }
    return v;
}

// --sizes-mb: increasing sizes in MB, each at least a byte.
std::vector<uint64_t>
SizeEdges(const std::string& list)
{
    std::vector<uint64_t> edges;
    std::vector<std::string> items = SplitCsvFields(list);
    if (items.empty())
    {
        items.emplace_back(); // an empty list: its one empty item is refused
    }
    for (const std::string& item : items)
    {
        const double mb = OptionNumber("--sizes-mb", item, false);
        if (mb * 1e6 < 1 || mb * 1e6 >= 1.8e19)
        {
            Fail(fmt::format("--sizes-mb: expected sizes from 0.000001 MB (a byte), got '{}'",
                             item));
        }
        const auto bytes = static_cast<uint64_t>(std::llround(mb * 1e6));
        if (!edges.empty() && bytes <= edges.back())
        {
            Fail(fmt::format("--sizes-mb: expected increasing sizes, got '{}' after {:g}", item,
                             edges.back() / 1e6));
        }
        edges.push_back(bytes);
    }
    return edges;
}

Options
ParseOptions(int argc, char** argv)
{
    Options o;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        const bool valued = a == "--from-s" || a == "--sizes-mb" || a == "--segment-bytes";
        if (valued && i + 1 >= argc)
        {
            Fail(a + " needs a value");
        }
        if (a == "--from-s")
        {
            o.fromS = OptionNumber(a, argv[++i], true);
        }
        else if (a == "--segment-bytes")
        {
            o.segmentBytes = OptionNumber(a, argv[++i], false);
        }
        else if (a == "--sizes-mb")
        {
            o.edgesBytes = SizeEdges(argv[++i]);
        }
        else if (!a.empty() && a[0] == '-')
        {
            Fail(fmt::format("unknown option '{}'", a));
        }
        else
        {
            o.runs.push_back(a);
        }
    }
    if (o.runs.empty())
    {
        Fail("expected at least one run folder or tcp.csv");
    }
    return o;
}

struct Run
{
    std::string label;
    std::vector<TcpFlowRow> flows;
};

// A run's flows, labelled by its folder's name (a file not named tcp.csv: by its own) and
// the engine of the summary.json beside it.
Run
ReadRun(const std::string& given)
{
    const fs::path path(given);
    const bool folder = fs::is_directory(path);
    const fs::path csv = folder ? path / "tcp.csv" : path;
    if (!fs::exists(csv))
    {
        throw std::runtime_error(fmt::format(
            "{}: no such file (a run writes tcp.csv with outputs.tcp_csv: true)", csv.string()));
    }
    if (!fs::is_regular_file(csv))
    {
        throw std::runtime_error(fmt::format("{}: not a regular file", csv.string()));
    }
    std::ifstream in(csv, std::ios::binary);
    if (!in)
    {
        throw std::runtime_error(fmt::format("{}: cannot read", csv.string()));
    }
    std::stringstream text;
    text << in.rdbuf(); // (an empty file reads nothing: ParseTcpCsv names it)
    Run run;
    run.flows = ParseTcpCsv(text.str(), csv.string());
    fs::path dir = fs::absolute(csv).lexically_normal().parent_path();
    run.label = csv.filename() == "tcp.csv" ? dir.filename().string() : csv.stem().string();
    try
    {
        run.label += fmt::format(" ({})", ReadRunSummary((dir / "summary.json").string()).engine);
    }
    catch (const std::exception&)
    {
        // No summary beside it (a copied tcp.csv): the name alone.
    }
    return run;
}

} // namespace

int
main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
    {
        if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help")
        {
            std::cout << Usage();
            return 0;
        }
    }
    try
    {
        const Options o = ParseOptions(argc, argv);
        std::vector<std::string> labels;
        std::vector<TcpFlowSummary> summaries;
        for (const std::string& given : o.runs)
        {
            Run run = ReadRun(given);
            // Two runs that would read alike are named as given.
            const bool taken = std::find(labels.begin(), labels.end(), run.label) != labels.end();
            labels.push_back(taken ? given : run.label);
            summaries.push_back(SummariseTcpFlows(run.flows, o.edgesBytes, o.fromS));
        }
        std::cout << fmt::format("TCP flows that started from {:g} s on; windows in segments of "
                                 "{:g} bytes (medians)\n",
                                 o.fromS, o.segmentBytes)
                  << FormatTcpFlowSummaries(labels, summaries, o.segmentBytes);
        return 0;
    }
    catch (const std::exception& e)
    {
        const std::string message = e.what();
        std::cerr << message << (!message.empty() && message.back() == '\n' ? "" : "\n");
        return 2;
    }
}
