// flumen-run: runs one JSON scenario. `./flumen run FILE [--set key=value ...] [--out DIR]`.
// Exit codes: 0 done, 2 bad input (nothing written), 1 the run failed (nothing written).
#include "run-outputs.h"
#include "scenario-runner.h"
#include "scenario.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace
{

const char* kUsage
    = "usage: flumen run FILE [--set key=value ...] [--out DIR] [--quiet]\n"
      "       flumen keys            list every scenario key\n"
      "Writes DIR/iterations.csv and DIR/summary.json (DIR defaults to out/<file name>).\n";

int
Usage(const std::string& problem)
{
    std::cerr << "flumen: " << problem << "\n" << kUsage;
    return 2;
}

} // namespace

int
main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string file;
    std::string outDir;
    std::vector<std::string> sets;
    bool quiet = false;
    for (size_t i = 0; i < args.size(); ++i)
    {
        const std::string& a = args[i];
        if (a == "--keys")
        {
            std::cout << flumen::DescribeKeys();
            return 0;
        }
        if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        if (a == "--set" || a == "--out")
        {
            if (i + 1 >= args.size())
            {
                return Usage(a + " needs a value");
            }
            (a == "--set" ? sets.push_back(args[i + 1]) : void(outDir = args[i + 1]));
            ++i;
        }
        else if (a.rfind("--set=", 0) == 0)
        {
            sets.push_back(a.substr(6));
        }
        else if (a.rfind("--out=", 0) == 0)
        {
            outDir = a.substr(6);
        }
        else if (a == "--quiet")
        {
            quiet = true;
        }
        else if (!a.empty() && a[0] == '-')
        {
            return Usage("unknown option '" + a + "'");
        }
        else if (file.empty())
        {
            file = a;
        }
        else
        {
            return Usage("one scenario file at a time (got '" + file + "' and '" + a + "')");
        }
    }
    if (file.empty())
    {
        return Usage("no scenario file given");
    }

    flumen::Scenario scenario;
    try
    {
        nlohmann::json user = flumen::LoadScenarioFile(file);
        for (const auto& s : sets)
        {
            flumen::ApplyOverride(user, s);
        }
        scenario = flumen::ResolveScenario(user, file);
    }
    catch (const flumen::ScenarioError& e)
    {
        std::cerr << "flumen: scenario error: " << e.what() << "\n";
        return 2;
    }
    if (outDir.empty())
    {
        outDir = "out/" + std::filesystem::path(file).stem().string();
    }

    try
    {
        flumen::RunOptions options;
        options.progress = quiet ? nullptr : &std::cerr;
        flumen::RunOutput out = flumen::RunScenario(scenario, options);
        flumen::WriteRunOutputs(outDir, out.rows, out.summary);
        if (!quiet)
        {
            std::cout << flumen::FormatHumanSummary(out.summary);
            std::cout << fmt::format("  wrote            {0}/iterations.csv, {0}/summary.json\n",
                                     outDir);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: run failed: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
