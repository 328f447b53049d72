// flumen-sweep: `./flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE]`. Runs
// every point of a sweep as its own flumen-run process, N at a time, through the point pool
// (point-pool.h): each point's outputs appear atomically as DIR/points/<id>/, re-running skips
// what is finished, a failed point is recorded in DIR/points/<id>.failed.json and retried by
// the next run. DIR/results.csv has one row per point. Exit: 0 all done, 1 some failed,
// 2 bad input.
#include "point-pool.h"
#include "scenario.h"
#include "sweep.h"

#include "atomic-file.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

const char* kUsage = "usage: flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE]\n"
                     "SWEEP.json: {\"base\": {scenario} | \"base_file\": \"file.json\",\n"
                     "             \"grid\": {\"key\": [values, ...], ...}, \"seeds\": [1, 2]}\n";

} // namespace

int
main(int argc, char** argv)
{
    std::string file;
    std::string out;
    std::string calibration;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if ((a == "--out" || a == "--jobs" || a == "--calibration") && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                out = v;
            else if (a == "--calibration")
                calibration = v;
            else
            {
                try
                {
                    jobs = static_cast<unsigned>(std::stoul(v));
                }
                catch (const std::exception&)
                {
                    jobs = 0;
                }
                if (jobs < 1 || jobs > 1024)
                {
                    std::cerr << "flumen sweep: --jobs: expected 1..1024, got '" << v << "'\n";
                    return 2;
                }
            }
        }
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        else if (!a.empty() && a[0] != '-' && file.empty())
            file = a;
        else
        {
            std::cerr << "flumen sweep: unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    if (file.empty() || out.empty())
    {
        std::cerr << "flumen sweep: need SWEEP.json and --out DIR\n" << kUsage;
        return 2;
    }

    flumen::Sweep sweep;
    try
    {
        sweep = flumen::LoadSweep(file);
    }
    catch (const flumen::ScenarioError& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 2;
    }
    if (!calibration.empty())
    {
        // Checked once here, so that a bad file fails the sweep, not every point.
        try
        {
            flumen::LoadCalibration(calibration);
        }
        catch (const std::exception& e)
        {
            std::cerr << "flumen sweep: " << e.what() << "\n";
            return 2;
        }
        calibration = fs::absolute(calibration).string();
    }
    const fs::path points = fs::path(out) / "points";
    std::vector<flumen::PoolPoint> pool;
    for (const auto& p : sweep.points)
    {
        pool.push_back(
            { p.id, p.scenario, { { "assignments", json(p.assignments) }, { "seed", p.seed } } });
    }
    flumen::PoolOptions options;
    options.jobs = jobs;
    options.label = "sweep";
    if (!calibration.empty())
    {
        options.extraArgs = { "--calibration", calibration };
    }
    flumen::PoolResult run;
    try
    {
        run = flumen::RunPointPool(pool, points, options);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 1;
    }

    // results.csv from every point's state on disk, finished before or now.
    std::vector<std::vector<std::string>> rows;
    size_t doneTotal = 0;
    for (const auto& p : sweep.points)
    {
        if (flumen::PointFinished(points, p.id))
        {
            json s = json::parse(flumen::ReadTextFile(points / p.id / "summary.json"));
            rows.push_back(flumen::ResultRow(p, sweep.keys, &s, "done", ""));
            ++doneTotal;
        }
        else
        {
            std::string error = flumen::PointFailure(points, p.id);
            rows.push_back(flumen::ResultRow(p, sweep.keys, nullptr, "failed",
                                             error.empty() ? "not run" : error));
        }
    }
    flumen::WriteFileAtomically((fs::path(out) / "results.csv").string(),
                                flumen::FormatCsv(flumen::ResultColumns(sweep.keys), rows));
    std::cout << fmt::format("sweep: {} of {} points done ({} this run, {} skipped), {} failed; "
                             "{:.0f} s of simulation wall time this run; wrote {}\n",
                             doneTotal, sweep.points.size(), run.done, run.skipped, run.failed,
                             run.wallSeconds, (fs::path(out) / "results.csv").string());
    return doneTotal == sweep.points.size() ? 0 : 1;
}
