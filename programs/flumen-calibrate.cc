// flumen-calibrate: derives each model's compute profile from the testbed runs without
// cross traffic, by simulation, and the hosts' TCP ceiling from the TCP series' near-idle
// points (what it simulates: calibration-plan.h; the fits: calibration-fit.h).
// `./flumen calibrate MANIFEST... --out calibration.json [--iterations N]`
// Exit codes: 0 done, 2 bad input, 1 a simulation failed. Nothing is written on failure.
#include "atomic-file.h"
#include "calibration-file.h"
#include "calibration-fit.h"
#include "calibration-plan.h"
#include "series-manifest.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

using nlohmann::json;

namespace fs = std::filesystem;

namespace
{

const char* kUsage
    = "usage: flumen calibrate MANIFEST... --out calibration.json [--iterations N]\n"
      "       flumen calibrate MANIFEST... --out calibration.json --tcp-only "
      "[--calibration FILE]\n"
      "       flumen calibrate MANIFEST... --out calibration.json --check\n"
      "  --tcp-only          fit only the TCP host ceiling, with the model profiles of\n"
      "                      --calibration FILE (kept in the output) or the built-in ones\n"
      "  --check             fit nothing: simulate every idle point at the built-in profiles\n"
      "                      and write them (with their errors) as a calibration file\n"
      "  --engine E          simulation.engine of every run: packet (default) or flow\n";

} // namespace

int
main(int argc, char** argv)
{
    std::vector<std::string> manifests;
    std::string outPath;
    std::string profilesPath; //!< --calibration: the model profiles a --tcp-only fit uses
    bool tcpOnly = false;
    bool checkOnly = false; //!< simulate at the built-in profiles, fit nothing
    std::string engine = "packet";
    uint32_t iterations = 4;
    unsigned jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if ((a == "--out" || a == "--iterations" || a == "--calibration" || a == "--engine")
            && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
            {
                outPath = v;
            }
            else if (a == "--engine")
            {
                if (v != "packet" && v != "flow")
                {
                    std::cerr << "flumen: --engine: expected packet or flow, got '" << v << "'\n"
                              << kUsage;
                    return 2;
                }
                engine = v;
            }
            else if (a == "--calibration")
            {
                profilesPath = v;
            }
            else
            {
                try
                {
                    iterations = static_cast<uint32_t>(std::stoul(v));
                }
                catch (const std::exception&)
                {
                    iterations = 0;
                }
                if (iterations < 2 || iterations > 1000)
                {
                    std::cerr << "flumen: --iterations: expected 2..1000, got '" << v << "'\n"
                              << kUsage;
                    return 2;
                }
            }
        }
        else if (a == "--tcp-only")
        {
            tcpOnly = true;
        }
        else if (a == "--check")
        {
            checkOnly = true;
        }
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        else if (!a.empty() && a[0] == '-')
        {
            std::cerr << "flumen: unknown option or missing value: '" << a << "'\n" << kUsage;
            return 2;
        }
        else
        {
            manifests.push_back(a);
        }
    }
    if (manifests.empty() || outPath.empty())
    {
        std::cerr << "flumen: expected at least one manifest and --out FILE\n" << kUsage;
        return 2;
    }
    if (checkOnly && tcpOnly)
    {
        std::cerr << "flumen: --check and --tcp-only exclude each other\n" << kUsage;
        return 2;
    }
    if (!profilesPath.empty() && !tcpOnly)
    {
        std::cerr << "flumen: --calibration FILE goes with --tcp-only (the profiles to keep)\n"
                  << kUsage;
        return 2;
    }
    try
    {
        // Before a fit that may take hours: the file's folder must be writable.
        flumen::CheckOutputFolder(fs::path(outPath).parent_path().string());
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: --out " << outPath << ": " << e.what() << "\n";
        return 2;
    }
    json keptModels = json::object();
    if (!profilesPath.empty())
    {
        try
        {
            keptModels = flumen::LoadCalibration(profilesPath)["models"];
        }
        catch (const std::exception& e)
        {
            std::cerr << "flumen: " << e.what() << "\n";
            return 2;
        }
    }

    flumen::CalibrationPoints found;
    try
    {
        found = flumen::LoadCalibrationPoints(manifests);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n";
        return 2;
    }
    std::vector<flumen::IdlePoint>& points = found.idle;
    std::vector<flumen::IdlePoint>& tcpReferences = found.tcpReferences;
    for (auto* list : { &points, &tcpReferences })
    {
        for (auto& p : *list)
        {
            p.testbedSettings["simulation"]["engine"] = engine;
        }
    }
    if (tcpOnly)
    {
        points.clear(); // the profiles stay: the built-in ones or --calibration's
        if (tcpReferences.empty())
        {
            std::cerr << "flumen: --tcp-only: no TCP series without idle runs (with a point at "
                         "most "
                      << flumen::kNearIdleGbps << " Gbps) in the manifests given\n";
            return 2;
        }
    }
    if (points.empty() && tcpReferences.empty())
    {
        std::cerr << "flumen: no run without cross traffic in the manifests given\n";
        return 2;
    }

    json models = keptModels;
    json transports = json::object();
    try
    {
        flumen::FitModelProfiles(points, models, iterations, jobs, checkOnly);
        if (!tcpReferences.empty() && !checkOnly)
        {
            transports["tcp"] = flumen::FitHostCeiling(tcpReferences, models, iterations, jobs);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: calibration failed: " << e.what() << "\n";
        return 1;
    }
    try
    {
        flumen::WriteCalibrationFile(outPath, iterations, manifests, models, transports, engine);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n"; // written atomically: nothing is left
        return 1;
    }
    std::cout << "wrote " << outPath << "\n" << flumen::DescribeCalibration(models, transports);
    return 0;
}
