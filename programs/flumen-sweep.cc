// flumen-sweep: `./flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE]
// [--compare-engines] [--backend local|slurm ...] [--status] [--collect]`: a grid of scenarios
// (sweep.h), run here N at a time or one SLURM array task per point (sweep-run.h,
// slurm-submit.h), resumable; DIR/results.csv has one row per point (sweep-status.h), and with
// --compare-engines DIR/engines.md sets each point's flow-level run beside its packet-level one
// (sweep-engine-comparison.h). Exit: 0 all done (or submitted), 1 some failed or unfinished,
// 2 bad input.
#include "atomic-file.h"
#include "backend-options.h"
#include "calibration-file.h"
#include "folder-lock.h"
#include "slurm-pool.h"
#include "sweep-engine-comparison.h"
#include "sweep-run.h"
#include "sweep.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <optional>
#include <utility>

namespace fs = std::filesystem;

namespace
{

const char* kUsage
    = "usage: flumen sweep SWEEP.json --out DIR [--jobs N] [--calibration FILE] "
      "[--compare-engines] [--compact]\n"
      "       flumen sweep SWEEP.json --out DIR --backend slurm [--partition P] [--time T]\n"
      "             [--cpus-per-task N] [--throttle N] [--sbatch-arg ARG]... [--dry-run]\n"
      "       flumen sweep SWEEP.json --out DIR --status     (done/running/queued/failed/pending)\n"
      "       flumen sweep SWEEP.json --out DIR --collect    (results.csv from what finished)\n"
      "SWEEP.json: {\"base\": {scenario} | \"base_file\": \"file.json\",\n"
      "             \"grid\": {\"key\": [values, ...], ...}, \"seeds\": [1, 2]}\n"
      "--compare-engines: every point in both engines (simulation.engine packet and flow), "
      "DIR/engines.md\n"
      "             and engines.csv set them side by side (written by the local run and by "
      "--collect)\n"
      "--compact: then the finished points' folders into DIR/points/<SWEEP>.runs.jsonl, a line\n"
      "             each (scenario, summary, iterations; link.csv and flows.csv go): for "
      "shipping\n";

struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

using flumen::ParseWholeNumber;

flumen::SweepOptions
ParseOptions(int argc, char** argv)
{
    flumen::SweepOptions o;
    for (int i = 1; i < argc; ++i)
    {
        if (flumen::ParseBackendOption(argc, argv, i, o.run))
            continue;
        std::string a = argv[i];
        // --option=value works as well as --option value.
        std::optional<std::string> inlineValue;
        if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos)
        {
            inlineValue = a.substr(a.find('=') + 1);
            a = a.substr(0, a.find('='));
        }
        auto value = [&]() -> std::string
        {
            if (inlineValue)
                return *std::exchange(inlineValue, std::nullopt);
            if (i + 1 >= argc)
                throw UsageError(a + ": expected a value");
            return argv[++i];
        };
        if (a == "--out")
            o.out = value();
        else if (a == "--calibration")
            o.calibration = value();
        else if (a == "--jobs")
            o.jobs = ParseWholeNumber(a, value(), 1, 1024);
        else if (a == "--dry-run")
            o.dryRun = true;
        else if (a == "--status")
            o.status = true;
        else if (a == "--collect")
            o.collect = true;
        else if (a == "--compare-engines")
            o.compareEngines = true;
        else if (a == "--compact")
            o.compact = true;
        else if (a == "--task")
            o.task = ParseWholeNumber(a, value(), 0, ~0ul);
        else if (a == "--sweep-id")
            o.sweepId = value();
        else if (a == "--pool")
            o.poolFile = value();
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            std::exit(0);
        }
        else if (!a.empty() && a[0] != '-' && o.file.empty())
            o.file = a;
        else
            throw UsageError("unexpected argument '" + std::string(argv[i]) + "'");
        if (inlineValue)
            throw UsageError(a + ": takes no value");
    }
    if (!o.poolFile.empty())
    {
        // A task of `calibrate`'s or `validate`'s SLURM arrays (slurm-pool.h): nothing else.
        if (!o.task || !o.file.empty() || !o.out.empty())
            throw UsageError("--pool FILE goes with --task I, without SWEEP.json and --out");
        return o;
    }
    if (o.file.empty() || o.out.empty())
        throw UsageError("need SWEEP.json and --out DIR");
    if (!o.status) // (--status only reads: a sweep folder another user owns will do)
        flumen::CheckOutputFolder(o.out, "--out"); // before the lock, whose error says less
    o.run.slurmOptionGiven |= o.dryRun;            // sweep's own SLURM option
    flumen::CheckBackendOptions(o.run, "--dry-run");
    if (o.status + o.collect + o.task.has_value() > 1)
        throw UsageError("--status, --collect and --task exclude each other");
    if (o.compact
        && (o.status || o.task || (o.run.backend == flumen::PoolBackend::Slurm && !o.collect)))
        throw UsageError("--compact goes with a local run or with --collect");
    return o;
}

} // namespace

int
main(int argc, char** argv)
{
    flumen::SweepOptions o;
    try
    {
        o = ParseOptions(argc, argv);
    }
    catch (const std::exception& e) // UsageError, and the shared options' invalid_argument
    {
        std::cerr << "flumen sweep: " << e.what() << "\n" << kUsage;
        return 2;
    }
    if (!o.poolFile.empty())
        return flumen::RunPoolTask(o.poolFile, *o.task);

    flumen::Sweep sweep;
    try
    {
        sweep = flumen::LoadSweep(o.file, o.compareEngines ? flumen::BothEnginesGrid()
                                                           : nlohmann::json::object());
        if (!o.calibration.empty())
        {
            // Checked once here, so that a bad file fails the sweep, not every point.
            flumen::LoadCalibration(o.calibration);
            o.calibration = fs::absolute(o.calibration).string();
        }
        if (!o.task)
        {
            // Last: bad input leaves no folder behind.
            flumen::MarkOrCheckBothEngines(o.out, o.compareEngines);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 2;
    }
    try
    {
        const int status = flumen::RunSweep(o, sweep);
        const bool ranHere = o.run.backend != flumen::PoolBackend::Slurm && !o.status && !o.task;
        if (o.compareEngines && (ranHere || o.collect))
        {
            const flumen::FolderLock lock(o.out, "flumen sweep --compare-engines");
            const flumen::EngineComparison c = flumen::CompareSweepEngines(sweep, o.out);
            for (const auto& line : c.lines)
            {
                std::cout << line << "\n";
            }
            std::cout << "wrote " << (fs::path(o.out) / "engines.md").string() << ", engines.csv\n";
        }
        if (o.compact && (ranHere || o.collect))
        {
            const size_t moved = flumen::CompactSweep(o, sweep);
            std::cout << fmt::format(
                "compacted {} point folders into {}\n", moved,
                (fs::path(o.out) / "points" / (fs::path(o.file).stem().string() + ".runs.jsonl"))
                    .string());
        }
        return status;
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen sweep: " << e.what() << "\n";
        return 1;
    }
}
