// flumen-run: runs one JSON scenario. `./flumen run FILE [--set key=value ...] [--out DIR]`.
// Exit codes: 0 done, 2 bad input (nothing written), 1 the run failed (nothing written).
#include "atomic-file.h"
#include "calibration-file.h"
#include "cross-traffic.h"
#include "load-file.h"
#include "run-outputs.h"
#include "run-scenario.h"
#include "scenario.h"

#include "ns3/star-topology-helper.h"

#include "run-plots.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace
{

const char* kUsage
    = "usage: flumen run FILE [--set key=value ...] [--calibration FILE] [--out DIR] [--quiet]\n"
      "                [--plot]\n"
      "       flumen run FILE [--set key=value ...] --write-load-file PATH --duration-s S\n"
      "       flumen keys            list every scenario key\n"
      "A run writes DIR/iterations.csv, DIR/summary.json, DIR/link.csv (the time series of\n"
      "the bottleneck or outputs.link_port) and, for websearch, burst and replay cross\n"
      "traffic, DIR/flows.csv; DIR\n"
      "defaults to out/<file name>. --write-load-file runs nothing: it writes the testbed\n"
      "load file of the scenario's websearch, burst or replay traffic for its first S\n"
      "seconds, the same flows a run with the same seed plays. --calibration takes the model's\n"
      "compute time and jitter from a file written by flumen calibrate (keys set in the\n"
      "scenario or with --set win). --plot draws the run's pictures into DIR/plots (flumen "
      "plot).\n";

int
Usage(const std::string& problem)
{
    std::cerr << "flumen: " << problem << "\n" << kUsage;
    return 2;
}

int
WriteLoadFile(const flumen::Scenario& scenario, const std::string& path, double seconds)
{
    try
    {
        auto flows = flumen::DrawCrossTrafficFlows(scenario, seconds);
        flumen::WriteFileAtomically(path, flumen::FormatLoadFile(flows));
        std::cout << fmt::format("wrote {}: {} flows in the first {} s of {} cross traffic\n", path,
                                 flows.size(), seconds, scenario.crossType);
        return 0;
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n";
        return 2;
    }
}

// Runs the scenario and writes its outputs into outDir; the exit code of main.
int
RunAndWrite(const flumen::Scenario& scenario, const std::string& outDir, bool quiet, bool plot)
{
    namespace fs = std::filesystem;
    // What is written while the run goes (link.csv, flows.csv, pcap captures) goes into a
    // folder and moves in with the other outputs; it goes if the run fails. The folder is in
    // DIR when DIR exists (a sweep's point folder, removed whole if the run is killed), else
    // beside it.
    fs::path target = fs::path(outDir).lexically_normal();
    if (target.filename().empty())
    {
        target = target.parent_path();
    }
    const std::string tmpName = ".staging.tmp." + flumen::ProcessTag();
    std::error_code exists;
    const fs::path staging
        = fs::is_directory(target, exists) ? target / tmpName : fs::path(target.string() + tmpName);
    try
    {
        fs::create_directories(staging);
        flumen::RunOptions options;
        options.progress = quiet ? nullptr : &std::cerr;
        options.pcapDir = staging.string();
        options.streamDir = staging.string();
        flumen::RunOutput out = flumen::RunScenario(scenario, options);
        auto extra = flumen::ExtraOutputFiles(out);
        std::vector<std::pair<std::string, std::string>> staged;
        for (const std::string& name : out.streamed)
        {
            staged.emplace_back(name, (staging / name).string());
        }
        for (uint32_t h : scenario.pcapHosts)
        {
            const std::string name = ns3::StarTopologyHelper::HostName(h) + ".pcap";
            staged.emplace_back(name, (staging / name).string());
        }
        flumen::WriteRunOutputs(outDir, out.rows, flumen::ToJson(out.summary), extra, staged);
        fs::remove_all(staging);
        if (!quiet)
        {
            std::cout << flumen::FormatHumanSummary(out.summary);
            std::vector<std::string> names;
            for (const auto& files : { extra, staged })
            {
                for (const auto& [name, content] : files)
                {
                    names.push_back(name);
                }
            }
            std::sort(names.begin(), names.end());
            std::string files = "iterations.csv";
            for (const std::string& name : names)
            {
                files += ", " + name;
            }
            std::cout << fmt::format("  wrote            {}: {}, summary.json\n", outDir, files);
        }
        if (plot)
        {
            const flumen::PlotResult r = flumen::PlotRunFolder(outDir);
            std::string drawn;
            for (const auto& png : r.drawn)
            {
                drawn += (drawn.empty() ? "" : ", ") + png;
            }
            std::cout << fmt::format("  plots            {}: {}\n", r.folder,
                                     r.problem.empty() ? drawn : r.problem);
            for (const auto& why : r.skipped)
            {
                std::cout << fmt::format("                   left out {}\n", why);
            }
        }
    }
    catch (const std::exception& e)
    {
        std::error_code ec;
        fs::remove_all(staging, ec);
        std::cerr << "flumen: run failed: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    std::string file;
    std::string outDir;
    std::string loadFile;
    std::string durationText;
    std::vector<std::string> sets;
    std::string calibrationFile;
    bool quiet = false;
    bool plot = false;
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
        if (a == "--set" || a == "--out" || a == "--write-load-file" || a == "--duration-s"
            || a == "--calibration")
        {
            if (i + 1 >= args.size())
            {
                return Usage(a + " needs a value");
            }
            const std::string& v = args[++i];
            if (a == "--set")
                sets.push_back(v);
            else if (a == "--out")
                outDir = v;
            else if (a == "--write-load-file")
                loadFile = v;
            else if (a == "--calibration")
                calibrationFile = v;
            else
                durationText = v;
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
        else if (a == "--plot")
        {
            plot = true;
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
    double loadSeconds = 0;
    if (!loadFile.empty() && !flumen::ParseSeconds(durationText, loadSeconds))
    {
        return Usage("--write-load-file needs --duration-s: seconds above 0 (at most 1e6), got '"
                     + durationText + "'");
    }

    flumen::Scenario scenario;
    try
    {
        nlohmann::json user = flumen::LoadScenarioFile(file);
        for (const auto& s : sets)
        {
            flumen::ApplyOverride(user, s);
        }
        if (!calibrationFile.empty())
        {
            nlohmann::json calibration
                = flumen::LoadScenarioFile(calibrationFile, "calibration file");
            if (!flumen::ApplyCalibration(user, calibration, calibrationFile))
            {
                std::cerr << "flumen: note: " << calibrationFile
                          << " has no entry for this scenario's model; its profile is used\n";
            }
        }
        scenario = flumen::ResolveScenario(user, file);
        if (const std::string note = flumen::CrossTrafficOverloadNote(scenario); !note.empty())
        {
            std::cerr << "flumen: note: " << note << "\n";
        }
    }
    catch (const flumen::ScenarioError& e)
    {
        // A value from --set is checked with the file's: say where the one at fault came from.
        const std::string what = e.what();
        std::string given;
        for (const auto& s : sets)
        {
            const std::string key = s.substr(0, s.find('='));
            if (what.rfind("--set", 0) != 0 && what.find("key '" + key + "'") != std::string::npos)
            {
                given = " (given by --set " + s + ")";
            }
        }
        std::cerr << "flumen: scenario error: " << what << given << "\n";
        return 2;
    }
    if (!loadFile.empty())
    {
        return WriteLoadFile(scenario, loadFile, loadSeconds);
    }
    if (outDir.empty())
    {
        outDir = "out/" + std::filesystem::path(file).stem().string();
    }
    try
    {
        flumen::CheckOutputFolder(outDir, "--out"); // before a run that may take an hour
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n";
        return 2;
    }

    return RunAndWrite(scenario, outDir, quiet, plot);
}
