#include "run-plots.h"

#include "atomic-file.h"
#include "child-process.h"
#include "input-file.h"
#include "run-drawings.h"
#include "run-tables.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <stdexcept>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;
using namespace detail;

namespace
{

const char* kHeader = "set terminal pngcairo size 1100,650 font ',11'\nset grid\n";

// gnuplot, tied to this process, in the staging folder; "" when it drew, else why not.
std::string
RunGnuplot(const fs::path& dir)
{
    SpawnOptions options;
    options.searchPath = true;
    options.workingDirectory = dir.string();
    options.outputFile = "gnuplot.log";
    options.dieWithParent = true;
    try
    {
        const ChildExit exit = WaitForChild(StartProgram({ "gnuplot", "plots.gp" }, options)).exit;
        return exit.Succeeded() ? "" : "gnuplot failed (" + exit.Describe() + "; see gnuplot.log)";
    }
    catch (const std::exception& e)
    {
        return std::string("gnuplot is missing: ") + e.what();
    }
}

} // namespace

PlotResult
PlotRunFolder(const std::string& dirName, const std::string& outName)
{
    const fs::path dir(dirName);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
    {
        throw std::invalid_argument(fmt::format("{}: expected a run or sweep folder", dirName));
    }
    const bool sweep = fs::exists(dir / "results.csv", ec);
    const bool run = fs::exists(dir / "iterations.csv", ec);
    if (!sweep && !run)
    {
        throw std::invalid_argument(fmt::format("{}: expected a run folder (iterations.csv, "
                                                "summary.json) or a sweep folder (results.csv)",
                                                dirName));
    }
    const fs::path out = outName.empty() ? dir / "plots" : fs::path(outName);
    CheckOutputFolder(out.string(), "--out");
    // Read everything first: bad input fails before anything is written.
    std::vector<Iteration> iterations;
    std::optional<Table> link, ring, results, comm;
    std::string port = "the bottleneck port";
    if (run)
    {
        iterations = ReadIterations(dir / "iterations.csv");
        if (fs::exists(dir / "link.csv", ec))
        {
            link = ReadTable(dir / "link.csv");
        }
        if (fs::exists(dir / "ring.csv", ec))
        {
            ring = ReadTable(dir / "ring.csv");
        }
        if (fs::exists(dir / "comm.csv", ec))
        {
            comm = ReadTable(dir / "comm.csv");
        }
        if (fs::exists(dir / "summary.json", ec))
        {
            const InputFile summary = ReadInputFile((dir / "summary.json").string());
            json s = json::parse(summary.text, nullptr, false);
            if (!s.is_discarded() && s.contains("bottleneck") && s["bottleneck"].contains("port")
                && s["bottleneck"]["port"].is_string())
            {
                port = s["bottleneck"]["port"].get<std::string>();
            }
            if (!s.is_discarded() && s.contains("scenario") && s["scenario"].contains("outputs")
                && s["scenario"]["outputs"].value("link_port", std::string()) != "")
            {
                port = s["scenario"]["outputs"]["link_port"].get<std::string>();
            }
        }
    }
    if (sweep)
    {
        results = ReadTable(dir / "results.csv");
    }

    Canvas c;
    c.dir = out.parent_path() / fmt::format("{}.tmp.{}", out.filename().string(), ProcessTag());
    fs::remove_all(c.dir, ec);
    fs::create_directories(c.dir);
    try
    {
        c.script = kHeader;
        if (run)
        {
            if (link)
            {
                DrawBottleneck(c, *link, iterations, port);
            }
            else
            {
                c.skipped.push_back("bottleneck.png: no link.csv (outputs.link_bin_us 0)");
            }
            if (ring)
            {
                DrawRingHops(c, *ring, iterations);
            }
            else
            {
                c.skipped.push_back("ring-hops.png: no ring.csv (a ring job's, with "
                                    "outputs.link_bin_us above 0)");
            }
            DrawIterationCdf(c, iterations);
            DrawJobBands(c, iterations, comm ? &*comm : nullptr);
        }
        if (results)
        {
            DrawSweep(c, *results);
        }
        c.Data("plots.gp", c.script);
    }
    catch (...)
    {
        fs::remove_all(c.dir, ec);
        throw;
    }
    PlotResult r;
    r.folder = out.string();
    r.skipped = c.skipped;
    r.problem = c.drawn.empty() ? "" : RunGnuplot(c.dir);
    r.drawn = r.problem.empty() ? c.drawn : std::vector<std::string>();
    fs::remove_all(out, ec);
    fs::rename(c.dir, out, ec);
    if (ec)
    {
        fs::remove_all(c.dir, ec);
        throw std::runtime_error(
            fmt::format("{}: cannot move the plots into place: {}", out.string(), ec.message()));
    }
    return r;
}

} // namespace flumen
