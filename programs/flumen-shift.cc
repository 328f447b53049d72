// flumen-shift: CASSINI's time shifts for a scenario's jobs (scheduling/time-shift-search.h).
// `./flumen shift FILE [--set key=value ...] [--steps N] [--passes N] [--out DIR] [--quiet]`.
#include "atomic-file.h"
#include "backend-options.h"
#include "run-scenario.h"
#include "scenario.h"
#include "time-shift-search.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace
{

const char* kUsage
    = "usage: flumen shift FILE [--set key=value ...] [--steps N] [--passes N] [--out DIR]\n"
      "                    [--quiet]\n"
      "Searches the start offsets (jobs[i].start_s) of FILE's jobs that minimise their mean\n"
      "iteration time, CASSINI's time shifts: job 0 at 0, each other job tried at N points\n"
      "(default 12) of one iteration period, one job at a time (at most --passes passes,\n"
      "default 2). Every candidate is a whole run of the scenario (use simulation.engine flow\n"
      "for speed). Writes DIR (default out/<file>-shift): shifts.csv (every run), report.md\n"
      "(the best offsets against no shift), best.json (the scenario with them).\n";

int
Usage(const std::string& why)
{
    std::cerr << "flumen shift: " << why << "\n" << kUsage;
    return 2;
}

} // namespace

int
main(int argc, char** argv)
{
    std::string file, outDir;
    std::vector<std::string> sets;
    flumen::ShiftSearchOptions options;
    bool quiet = false;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        if (a == "--quiet")
        {
            quiet = true;
        }
        else if (a == "--set" || a == "--steps" || a == "--passes" || a == "--out")
        {
            if (i + 1 >= argc)
            {
                return Usage(a + " needs a value");
            }
            const std::string v = argv[++i];
            if (a == "--set")
                sets.push_back(v);
            else if (a == "--out")
                outDir = v;
            else
            {
                try
                {
                    (a == "--steps" ? options.steps : options.passes)
                        = static_cast<uint32_t>(flumen::ParseWholeNumber(a, v, 1, 1000));
                }
                catch (const std::invalid_argument& e)
                {
                    return Usage(e.what());
                }
            }
        }
        else if (!a.empty() && a[0] != '-' && file.empty())
        {
            file = a;
        }
        else
        {
            return Usage("unexpected argument '" + a + "'");
        }
    }
    if (file.empty())
    {
        return Usage("no scenario file given");
    }
    if (outDir.empty())
    {
        outDir = "out/" + std::filesystem::path(file).stem().string() + "-shift";
    }
    options.progress = quiet ? nullptr : &std::cerr;
    try
    {
        flumen::CheckOutputFolder(outDir, "--out"); // before runs that may take long
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen shift: " << e.what() << "\n";
        return 2;
    }
    try
    {
        nlohmann::json user = flumen::LoadScenarioFile(file);
        for (const auto& s : sets)
        {
            flumen::ApplyOverride(user, s);
        }
        const flumen::ShiftSearchResult r = flumen::SearchTimeShifts(user, file, options);
        const std::string report = flumen::FormatShiftReport(r, file);
        flumen::WriteFileSetAtomically(
            outDir, { { "shifts.csv", flumen::FormatShiftCsv(r) },
                      { "report.md", report },
                      { "best.json", flumen::WithShifts(user, r.best.startS).dump(2) + "\n" } });
        std::cout << report << fmt::format("wrote {}: shifts.csv, report.md, best.json\n", outDir);
        return 0;
    }
    catch (const flumen::ScenarioError& e)
    {
        std::cerr << "flumen shift: scenario error: " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen shift: " << e.what() << "\n";
        return 1;
    }
}
