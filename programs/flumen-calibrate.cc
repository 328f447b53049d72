// flumen-calibrate: derives each model's compute profile from the testbed runs without
// cross traffic, by simulation, and the hosts' TCP ceiling from the TCP series' near-idle
// points (what it simulates: calibration-plan.h; the fits: calibration-fit.h); with --fit,
// then testbed parameters from loaded points (testbed-fit.h).
// `./flumen calibrate MANIFEST... --out calibration.json [--iterations N] [--fit key=lo:hi]...`
// Exit codes: 0 done, 2 bad input, 1 a simulation failed. Nothing is written on failure.
#include "atomic-file.h"
#include "backend-options.h"
#include "calibration-file.h"
#include "calibration-fit.h"
#include "calibration-plan.h"
#include "scenario.h"
#include "series-manifest.h"
#include "slurm-pool.h"
#include "testbed-fit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
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
      "       flumen calibrate MANIFEST... --out calibration.json --fit KEY=LO:HI... \n"
      "                        [--fit-on SERIES,...] [--objective mean=1,cross=1,p99=0]\n"
      "                        [--calibration FILE] [--models a,b] [--runs DIR]\n"
      "                        [--backend slurm [--partition P] [--time T] ...]\n"
      "  --tcp-only          fit only the TCP host ceiling, with the model profiles of\n"
      "                      --calibration FILE (kept in the output) or the built-in ones\n"
      "  --check             fit nothing: simulate every idle point at the built-in profiles\n"
      "                      and write them (with their errors) as a calibration file\n"
      "  --engine E          simulation.engine of every run: packet (default) or flow\n"
      "  --fit KEY=LO:HI     after the profiles, fit this scenario key (a testbed parameter)\n"
      "                      to the loaded testbed points; repeatable (docs/calibration.md)\n"
      "  --fit-on S1,S2      the series whose loaded points the fit uses (default: all)\n"
      "  --objective TERMS   weights of the squared log errors of the mean iteration time,\n"
      "                      the achieved cross-traffic rate and the p99 (default mean=1,cross=1,"
      "p99=0)\n"
      "  --calibration FILE  with --fit: keep FILE's profiles instead of fitting them\n"
      "  --models a,b        with --fit: only these models' points\n"
      "  --runs DIR          with --fit: the runs' folder (default OUT.runs; resumable)\n"
      "  with --fit, where its runs go (each batch of candidates waits for its SLURM array):\n";

struct CalibrateOptions
{
    std::vector<std::string> manifests;
    std::string out;
    std::string profilesPath; //!< --calibration: the profiles --tcp-only or --fit keeps
    bool tcpOnly = false;
    bool checkOnly = false;
    std::string engine = "packet";
    uint32_t iterations = 4;
    unsigned jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
    std::vector<std::string> fits; //!< --fit, parsed once the engine is known
    std::string fitOn;
    std::string objective;
    std::string models;
    std::string runs;
    flumen::BackendOptions run;
};

// Throws std::invalid_argument with what is wrong; exits 0 on --help.
CalibrateOptions
ParseOptions(int argc, char** argv)
{
    CalibrateOptions o;
    for (int i = 1; i < argc; ++i)
    {
        if (flumen::ParseBackendOption(argc, argv, i, o.run))
            continue;
        std::string a = argv[i];
        bool valued = a == "--out" || a == "--iterations" || a == "--calibration" || a == "--engine"
                      || a == "--fit" || a == "--fit-on" || a == "--objective" || a == "--models"
                      || a == "--runs";
        if (valued && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                o.out = v;
            else if (a == "--calibration")
                o.profilesPath = v;
            else if (a == "--fit")
                o.fits.push_back(v);
            else if (a == "--fit-on")
                o.fitOn = v;
            else if (a == "--objective")
                o.objective = v;
            else if (a == "--models")
                o.models = v;
            else if (a == "--runs")
                o.runs = v;
            else if (a == "--engine")
            {
                if (v != "packet" && v != "flow")
                    throw std::invalid_argument("--engine: expected packet or flow, got '" + v
                                                + "'");
                o.engine = v;
            }
            else
            {
                long n = 0;
                try
                {
                    n = std::stol(v);
                }
                catch (const std::exception&)
                {
                }
                if (n < 2 || n > 1000)
                    throw std::invalid_argument("--iterations: expected 2..1000, got '" + v + "'");
                o.iterations = static_cast<uint32_t>(n);
            }
        }
        else if (a == "--tcp-only")
            o.tcpOnly = true;
        else if (a == "--check")
            o.checkOnly = true;
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage << flumen::kBackendUsage;
            std::exit(0);
        }
        else if (!a.empty() && a[0] == '-')
            throw std::invalid_argument("unknown option or missing value: '" + a + "'");
        else
            o.manifests.push_back(a);
    }
    if (o.manifests.empty() || o.out.empty())
        throw std::invalid_argument("expected at least one manifest and --out FILE");
    if (o.checkOnly && o.tcpOnly)
        throw std::invalid_argument("--check and --tcp-only exclude each other");
    if (!o.fits.empty() && (o.checkOnly || o.tcpOnly))
        throw std::invalid_argument("--fit goes without --check and --tcp-only");
    if (o.fits.empty()
        && (!o.fitOn.empty() || !o.objective.empty() || !o.models.empty() || !o.runs.empty()))
        throw std::invalid_argument("--fit-on, --objective, --models and --runs go with --fit");
    flumen::CheckBackendOptions(o.run);
    if (o.run.backend == flumen::PoolBackend::Slurm && o.fits.empty())
        throw std::invalid_argument("--backend slurm goes with --fit (the compute profiles and the "
                                    "TCP ceiling are fitted here, in child processes)");
    if (!o.profilesPath.empty() && !o.tcpOnly && o.fits.empty())
        throw std::invalid_argument(
            "--calibration FILE goes with --tcp-only or --fit (the profiles to keep)");
    return o;
}

// The testbed fit's request; throws std::invalid_argument on a bad --fit, --objective or
// --models (before anything runs).
flumen::TestbedFitRequest
FitRequestOf(const CalibrateOptions& o)
{
    flumen::TestbedFitRequest r;
    for (const auto& text : o.fits)
        r.parameters.push_back(flumen::ParseFitParameter(text, o.engine));
    if (!o.objective.empty())
        r.weights = flumen::ParseObjective(o.objective);
    r.base.manifests = o.manifests;
    r.base.out = o.runs.empty() ? o.out + ".runs" : o.runs;
    r.base.engine = o.engine;
    r.base.jobs = o.jobs;
    r.base.run = o.run;
    for (const auto& s : flumen::SplitList(o.fitOn))
        r.base.series.insert(s);
    for (const auto& m : flumen::SplitList(o.models))
        r.base.models.insert(m);
    flumen::CompleteValidationOptions(r.base);
    flumen::PlanValidation(r.base); // names a bad manifest or series before the profiles' fit
    r.pointsDir = fs::path(r.base.out) / "points";
    r.label = "calibrate --fit";
    if (o.run.backend == flumen::PoolBackend::Slurm)
        flumen::CheckSlurmFolder(o.runs.empty() ? "--out (its runs' folder)" : "--runs",
                                 fs::absolute(r.pointsDir).lexically_normal());
    return r;
}

} // namespace

int
main(int argc, char** argv)
{
    CalibrateOptions o;
    flumen::TestbedFitRequest fitRequest;
    json models = json::object();
    json transports = json::object();
    flumen::CalibrationPoints found;
    try
    {
        o = ParseOptions(argc, argv);
        if (!o.fits.empty())
            fitRequest = FitRequestOf(o);
        // Before a fit that may take hours: the file must be writable.
        flumen::CheckOutputFile(o.out, "--out");
        if (!o.profilesPath.empty())
        {
            json kept = flumen::LoadCalibration(o.profilesPath);
            models = kept["models"];
            if (!o.fits.empty() && kept.contains("transports"))
                transports = kept["transports"];
        }
        found = flumen::LoadCalibrationPoints(o.manifests);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen calibrate: " << e.what() << "\n" << kUsage << flumen::kBackendUsage;
        return 2;
    }
    // Before the profiles' fit, which may take hours: SLURM must answer.
    if (o.run.backend == flumen::PoolBackend::Slurm)
    {
        const std::string why = flumen::SlurmUnavailableReason();
        if (!why.empty())
        {
            std::cerr << "flumen calibrate: --backend slurm: " << why << "\n";
            return 2;
        }
    }
    for (auto* list : { &found.idle, &found.tcpReferences })
        for (auto& p : *list)
            p.testbedSettings["simulation"]["engine"] = o.engine;
    const bool keepProfiles = o.tcpOnly || (!o.fits.empty() && !o.profilesPath.empty());
    if (keepProfiles)
        found.idle.clear(); // the profiles stay: the built-in ones or --calibration's
    if (o.tcpOnly && found.tcpReferences.empty())
    {
        std::cerr << "flumen calibrate: --tcp-only: no TCP series without idle runs (with a "
                     "point at most "
                  << flumen::kNearIdleGbps << " Gbps) in the manifests given\n";
        return 2;
    }
    if (!keepProfiles && found.idle.empty() && found.tcpReferences.empty())
    {
        std::cerr << "flumen calibrate: no run without cross traffic in the manifests given\n";
        return 2;
    }

    json testbed;
    try
    {
        flumen::FitModelProfiles(found.idle, models, o.iterations, o.jobs, o.checkOnly);
        if (!found.tcpReferences.empty() && !o.checkOnly && !(keepProfiles && !o.tcpOnly))
            transports["tcp"]
                = flumen::FitHostCeiling(found.tcpReferences, models, o.iterations, o.jobs);
        if (!o.fits.empty())
        {
            // The testbed fit's runs read the profiles from a file, as validate's do.
            fs::create_directories(fitRequest.base.out);
            fitRequest.base.calibrationFile
                = (fs::path(fitRequest.base.out) / "profiles.json").string();
            flumen::WriteCalibrationFile(fitRequest.base.calibrationFile, o.iterations, o.manifests,
                                         models, transports, o.engine);
            flumen::TestbedFit fit = flumen::FitTestbed(fitRequest);
            testbed = flumen::TestbedFitJson(fit, fitRequest);
        }
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "flumen calibrate: " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen calibrate: calibration failed: " << e.what() << "\n";
        return 1;
    }
    try
    {
        flumen::WriteCalibrationFile(o.out, o.iterations, o.manifests, models, transports, o.engine,
                                     testbed);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen calibrate: " << e.what() << "\n"; // atomic: nothing is left
        return 1;
    }
    std::cout << "wrote " << o.out << "\n" << flumen::DescribeCalibration(models, transports);
    if (!testbed.is_null())
        std::cout << "  testbed      " << flumen::DescribeValues(testbed["values"])
                  << " (fitted to the loaded points of "
                  << fmt::format(
                         "{}",
                         fmt::join(testbed["fitted_on"].get<std::vector<std::string>>(), ", "))
                  << ")\n";
    return 0;
}
