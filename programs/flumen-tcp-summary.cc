// flumen-tcp-summary: how the TCP flows of one or more runs left slow start, how far their
// windows grew and how often they lost, by flow size, side by side (tcp.csv of either engine;
// traces/tcp-flow-summary.h). `./flumen tcp-summary RUN... [options]`.
#include "atomic-file.h"
#include "run-outputs.h"
#include "run-summary.h"
#include "tcp-flow-summary.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace flumen;

namespace
{

const char* kUsage
    = "usage: flumen tcp-summary RUN... [--from-s S] [--sizes-mb A,B,...] [--segment-bytes N]\n"
      "RUN is a run's output folder (its tcp.csv, from outputs.tcp_csv: true) or a tcp.csv.\n"
      "Prints, per flow size class and run: the flows that started from S seconds on (default\n"
      "0), the shares that never left slow start or left it by HyStart, at a loss or otherwise,\n"
      "the median window slow start ended at and the median largest window (in segments of N\n"
      "bytes, default 1448), the median smallest smoothed round trip, the flows that lost and\n"
      "their fast recoveries and timeouts. Classes cut at A, B, ... MB (default 0.1,1,3).\n";

struct Options
{
    std::vector<std::string> runs;
    double fromS = 0;
    std::vector<uint64_t> edgesBytes = { 100000, 1000000, 3000000 };
    double segmentBytes = 1448;
};

[[noreturn]] void
Usage(const std::string& what)
{
    throw std::invalid_argument(fmt::format("{}\n{}", what, kUsage));
}

double
PositiveNumber(const std::string& option, const std::string& text, bool zeroAllowed)
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
    if (used != text.size() || text.empty() || !std::isfinite(v) || v < 0
        || (!zeroAllowed && v == 0))
    {
        Usage(fmt::format("flumen tcp-summary: {}: expected a number {} 0, got '{}'", option,
                          zeroAllowed ? ">=" : ">", text));
    }
    return v;
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
            Usage(fmt::format("flumen tcp-summary: {} needs a value", a));
        }
        if (a == "--from-s")
        {
            o.fromS = PositiveNumber(a, argv[++i], true);
        }
        else if (a == "--segment-bytes")
        {
            o.segmentBytes = PositiveNumber(a, argv[++i], false);
        }
        else if (a == "--sizes-mb")
        {
            o.edgesBytes.clear();
            std::stringstream list(argv[++i]);
            std::string item;
            while (std::getline(list, item, ','))
            {
                const double mb = PositiveNumber(a, item, false);
                const auto bytes = static_cast<uint64_t>(std::llround(mb * 1e6));
                if (!o.edgesBytes.empty() && bytes <= o.edgesBytes.back())
                {
                    Usage(fmt::format("flumen tcp-summary: --sizes-mb: expected increasing "
                                      "sizes, got '{}' after {:g}",
                                      item, o.edgesBytes.back() / 1e6));
                }
                o.edgesBytes.push_back(bytes);
            }
        }
        else if (!a.empty() && a[0] == '-')
        {
            Usage(fmt::format("flumen tcp-summary: unknown option '{}'", a));
        }
        else
        {
            o.runs.push_back(a);
        }
    }
    if (o.runs.empty())
    {
        Usage("flumen tcp-summary: expected at least one run folder or tcp.csv");
    }
    return o;
}

// A run's flows and its label: the folder's name, with the engine its summary names.
std::pair<std::string, std::vector<TcpFlowRow>>
ReadRun(const std::string& run)
{
    const fs::path given(run);
    const fs::path csv = fs::is_directory(given) ? given / "tcp.csv" : given;
    const fs::path folder = fs::is_directory(given) ? given : given.parent_path();
    if (!fs::is_regular_file(csv))
    {
        throw std::runtime_error(fmt::format(
            "{}: no such file (a run writes tcp.csv with outputs.tcp_csv: true)", csv.string()));
    }
    std::string label = fs::absolute(folder).lexically_normal().filename().string();
    try
    {
        label += fmt::format(" ({})", ReadRunSummary((folder / "summary.json").string()).engine);
    }
    catch (const std::exception&)
    {
        // No summary beside it (a copied tcp.csv): the folder's name alone.
    }
    const std::string text = ReadTextFile(csv.string());
    return { label, ParseTcpCsv(text, csv.string()) };
}

} // namespace

int
main(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
    {
        if (std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
    }
    try
    {
        const Options o = ParseOptions(argc, argv);
        std::vector<std::string> labels;
        std::vector<TcpFlowSummary> summaries;
        for (const std::string& run : o.runs)
        {
            auto [label, rows] = ReadRun(run);
            labels.push_back(label);
            summaries.push_back(SummariseTcpFlows(rows, o.edgesBytes, o.fromS));
        }
        std::cout << fmt::format("TCP flows that started from {:g} s on; windows in segments of "
                                 "{:g} bytes (medians)\n",
                                 o.fromS, o.segmentBytes)
                  << FormatTcpFlowSummaries(labels, summaries, o.segmentBytes);
        return 0;
    }
    catch (const std::exception& e)
    {
        std::cerr << e.what() << (std::string(e.what()).back() == '\n' ? "" : "\n");
        return 2;
    }
}
