// flumen-validate: `./flumen validate MANIFEST... --out DIR [--calibration FILE] [--quick]
// [--jobs N] [--iterations N] [--seeds N] [--models a,b] [--max-sim-s S] [--budget-iterations N]
// [--report-only] [--set KEY=VALUE ...] [--runs REGEX]`.
//
// Simulates every testbed point of the manifests at the testbed's load (the requested load
// where the testbed recorded it, the measured load otherwise), through the same point pool as
// `flumen sweep` (DIR/points/, resumable, a failure recorded and the rest carried on), then
// writes DIR/points.csv, series.csv, cdfs.csv, report.md and plots/ (validation-report.h).
// What runs, and with what simulated-time budget: validation-plan.h; how the runs become
// points (censored ones included): validation-collate.h.
// Exit: 0 every point simulated (with --runs: every run it picked), 1 some failed (the report
// covers the rest), 2 bad input.
#include "atomic-file.h"
#include "backend-options.h"
#include "cross-validation.h"
#include "engine-comparison.h"
#include "engine-testbed-comparison.h"
#include "folder-lock.h"
#include "point-pool.h"
#include "run-store.h"
#include "scenario.h"
#include "slurm-pool.h"
#include "validation-collate.h"
#include "validation-plan.h"
#include "validation-report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <iostream>
#include <memory>

namespace fs = std::filesystem;

namespace
{

const char* kUsage
    = "usage: flumen validate MANIFEST... --out DIR [--calibration FILE] [--quick] [--jobs N]\n"
      "                       [--iterations N] [--seeds N] [--cdf-iterations N] [--models m1,m2]\n"
      "                       [--max-sim-s S]\n"
      "                       [--budget-iterations N]\n"
      "                       [--report-only] [--engine packet|flow]\n"
      "                       [--compare-engines PACKET_POINTS] [--set KEY=VALUE ...]\n"
      "                       [--runs REGEX]\n"
      "                       [--cross-validate | --fit-on S1,S2] --fit KEY=LO:HI...\n"
      "                       [--cross-validate [--folds configuration]] --fit-split LO:HI\n"
      "                       [--fit-engine flow]\n"
      "                       [--objective mean=1,cross=1,p99=0]\n"
      "                       [--backend slurm [--partition P] [--time T] ...]\n"
      "       flumen validate --unpack POINTS_DIR RUN_ID --out DIR\n"
      "  --unpack            a stored run's scenario.json, summary.json and iterations.csv\n"
      "                      into DIR (its folder or a line of DIR/points/<series>.runs.jsonl)\n"
      "  --calibration FILE  compute times from `flumen calibrate` (default: the built-in\n"
      "                      profiles, themselves calibrated from the testbed's idle runs)\n"
      "  --calibration-for C=FILE  configuration C's runs take their profiles from FILE (e.g.\n"
      "                      a --fit-split fold's, fitted on the other configuration: every\n"
      "                      point then judged out of sample; repeatable)\n"
      "  --quick             a few ResNet-50 points, few iterations (minutes; CI runs it)\n"
      "  --iterations N      iterations per simulated point, 2 warm-up (default 8; quick 3, 1 "
      "warm-up)\n"
      "  --cdf-iterations N  iterations of a per-iteration CDF's run (default 30; 300 with the\n"
      "                      flow engine), with room for them at twice the testbed's pace\n"
      "  --seeds N           seeds for congested points, where variance matters (default 2;\n"
      "                      quick 1)\n"
      "  --models a,b        only these models\n"
      "  --max-sim-s S       simulated seconds per run at most (default 30), unless\n"
      "                      --budget-iterations need more; a job unfinished by then is\n"
      "                      reported as censored, with a lower bound on its mean\n"
      "  --budget-iterations N  a run may always simulate N and a half iterations at the\n"
      "                      model's fastest testbed pace in the series (a CDF run: at its own\n"
      "                      mean), so that a point the simulation does not slow finishes\n"
      "                      (default 3, the fewest a point runs; 0: --max-sim-s alone)\n"
      "  --report-only       simulate nothing: the report from the runs already in DIR/points\n"
      "                      (the others are listed as not run), e.g. while a long run goes on\n"
      "  --engine E          simulation.engine of every run: packet (default), flow, or auto\n"
      "                      (flow, re-run at packet level out of the flow engine's domain)\n"
      "  --compare-engines PACKET_POINTS\n"
      "                      with --engine flow or auto: set each run beside the packet level's "
      "run of\n"
      "                      the same point in PACKET_POINTS (e.g. results/validation/points);\n"
      "                      writes DIR/engines.csv and engines.md\n"
      "  --runs REGEX        simulate only the runs whose name (their folder in DIR/points)\n"
      "                      matches REGEX (ECMAScript, anywhere in the name; a|b for several),\n"
      "                      e.g. some points first; the report reads the plan's other runs\n"
      "                      where DIR/points has them\n"
      "  --set KEY=VALUE     a scenario key set in every run (repeatable), over the manifests'\n"
      "                      settings: a mechanism tried on the whole validation; with\n"
      "                      --compare-engines only packet runs given the same --set compare\n"
      "  --cross-validate    leave one series out: fit the --fit keys on the other series'\n"
      "                      loaded points, predict the series left out; the report judges\n"
      "                      every point out of sample (DIR/in-sample/: in sample, labelled)\n"
      "  --fit-on S1,S2      one split instead: fit on these series, predict the others\n"
      "  --fit KEY=LO:HI     a testbed parameter to fit (repeatable; docs/calibration.md)\n"
      "  --objective TERMS   the fit's weights (default mean=1,cross=1,p99=0)\n"
      "  --fit-split LO:HI   fit each model's compute/communication split instead: its\n"
      "                      backward share in [LO, HI] on the loaded points, the compute time\n"
      "                      solved on its idle runs for each share; each fold's profiles go\n"
      "                      to DIR/folds/<fold>.calibration.json\n"
      "  --folds configuration  leave a configuration out (all its series) instead of a series\n"
      "  --fit-transport T   --fit-split fits on the series of transport T only (rdma or tcp)\n"
      "  --fit-engine E      the engine of the fits and of the in-sample runs (packet or flow;\n"
      "                      default: --engine's): the flow engine searches, --engine judges\n"
      "  where the runs go (each batch, a fit's candidates included, waits for its SLURM array):\n";

struct FitOptions
{
    bool crossValidate = false;
    std::vector<std::string> fits;
    std::string fitOn;
    std::string objective;
    std::string split;        //!< --fit-split LO:HI
    std::string folds;        //!< --folds series|configuration
    std::string fitEngine;    //!< --fit-engine
    std::string fitTransport; //!< --fit-transport
    bool Wanted() const { return crossValidate || !fitOn.empty(); }
};

void
ParseOptions(int argc, char** argv, flumen::ValidationOptions& o, FitOptions& f)
{
    for (int i = 1; i < argc; ++i)
    {
        if (flumen::ParseBackendOption(argc, argv, i, o.run))
            continue;
        std::string a = argv[i];
        auto intValue = [&](const std::string& v, int lo, int hi)
        {
            int n = -1;
            try
            {
                size_t used = 0;
                n = std::stoi(v, &used);
                if (used != v.size())
                    n = -1;
            }
            catch (const std::exception&)
            {
            }
            if (n < lo || n > hi)
            {
                throw std::invalid_argument(
                    fmt::format("{}: expected an integer {}..{}, got '{}'", a, lo, hi, v));
            }
            return n;
        };
        if ((a == "--out" || a == "--calibration" || a == "--jobs" || a == "--iterations"
             || a == "--seeds" || a == "--models" || a == "--max-sim-s"
             || a == "--budget-iterations" || a == "--engine" || a == "--compare-engines"
             || a == "--fit" || a == "--fit-on" || a == "--objective" || a == "--cdf-iterations"
             || a == "--set" || a == "--runs" || a == "--fit-split" || a == "--folds"
             || a == "--fit-engine" || a == "--fit-transport" || a == "--calibration-for")
            && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--fit")
                f.fits.push_back(v);
            else if (a == "--set")
                o.settings.push_back(v); // checked as the plan applies it, before any run
            else if (a == "--runs")
            {
                if (v.empty() || !o.runsPattern.empty())
                    throw std::invalid_argument("--runs: expected one non-empty pattern (several "
                                                "runs: one pattern, a|b)");
                o.runsPattern = v;
            }
            else if (a == "--fit-on")
                f.fitOn = v;
            else if (a == "--fit-split")
                f.split = v;
            else if (a == "--folds")
            {
                if (v != "series" && v != "configuration")
                    throw std::invalid_argument("--folds: expected series or configuration, got '"
                                                + v + "'");
                f.folds = v;
            }
            else if (a == "--calibration-for")
            {
                const auto eq = v.find('=');
                const std::string c = v.substr(0, eq);
                if (eq == std::string::npos || (c != "A" && c != "B") || eq + 1 == v.size())
                    throw std::invalid_argument(
                        "--calibration-for: expected A=FILE or B=FILE, got '" + v + "'");
                o.configurationCalibration[c] = v.substr(eq + 1);
            }
            else if (a == "--fit-transport")
            {
                if (v != "rdma" && v != "tcp")
                    throw std::invalid_argument("--fit-transport: expected rdma or tcp, got '" + v
                                                + "'");
                f.fitTransport = v;
            }
            else if (a == "--fit-engine")
            {
                if (v != "packet" && v != "flow")
                    throw std::invalid_argument("--fit-engine: expected packet or flow, got '" + v
                                                + "'");
                f.fitEngine = v;
            }
            else if (a == "--objective")
                f.objective = v;
            else if (a == "--out")
                o.out = v;
            else if (a == "--calibration")
                o.calibrationFile = v;
            else if (a == "--engine")
                o.engine = v;
            else if (a == "--compare-engines")
                o.comparePacketRuns = v;
            else if (a == "--jobs")
                o.jobs = static_cast<unsigned>(intValue(v, 1, 1024));
            else if (a == "--iterations")
                o.iterations = intValue(v, 3, 100000);
            else if (a == "--cdf-iterations")
                o.cdfIterations = intValue(v, 3, 100000);
            else if (a == "--seeds")
                o.seeds = intValue(v, 1, 100);
            else if (a == "--budget-iterations")
                o.budgetIterations = intValue(v, 0, 1000);
            else if (a == "--max-sim-s")
            {
                if (!flumen::ParseSeconds(v, o.maxSimS))
                {
                    throw std::invalid_argument(fmt::format(
                        "--max-sim-s: expected simulated seconds above 0 (at most 1e6), got '{}'",
                        v));
                }
            }
            else
            {
                for (const auto& m : flumen::SplitList(v))
                    o.models.insert(m);
            }
        }
        else if (a == "--quick")
            o.quick = true;
        else if (a == "--cross-validate")
            f.crossValidate = true;
        else if (a == "--report-only")
            o.reportOnly = true;
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
    flumen::CompleteValidationOptions(o);
    flumen::CheckOutputFolder(o.out, "--out"); // before the lock, whose error would say less
    flumen::CheckBackendOptions(o.run);
    if (o.run.backend == flumen::PoolBackend::Slurm)
        flumen::CheckSlurmFolder("--out", fs::absolute(o.out).lexically_normal());
    for (const auto& fit : f.fits)
    {
        const std::string key = fit.substr(0, fit.find('=') + 1); // "key="
        for (const auto& set : o.settings)
            if (set.rfind(key, 0) == 0)
                throw std::invalid_argument("--set and --fit of the same key: " + fit);
    }
    if (f.crossValidate && !f.fitOn.empty())
        throw std::invalid_argument("--cross-validate and --fit-on exclude each other");
    if (!f.Wanted() && (!f.fits.empty() || !f.objective.empty()))
        throw std::invalid_argument("--fit and --objective go with --cross-validate or --fit-on "
                                    "(or use flumen calibrate --fit)");
    if (!o.runsPattern.empty() && (o.reportOnly || f.Wanted()))
        throw std::invalid_argument("--runs picks runs to simulate: it goes without --report-only, "
                                    "--cross-validate and --fit-on");
    if (f.Wanted()
        && ((f.fits.empty() && f.split.empty()) || o.reportOnly || !o.comparePacketRuns.empty()))
        throw std::invalid_argument("--cross-validate and --fit-on need --fit KEY=LO:HI or "
                                    "--fit-split LO:HI, and go without --report-only and "
                                    "--compare-engines");
    if (!f.split.empty() && !f.fits.empty())
        throw std::invalid_argument("--fit-split fits each model's split alone: it goes without "
                                    "--fit");
    if (!f.Wanted()
        && (!f.split.empty() || !f.folds.empty() || !f.fitEngine.empty()
            || !f.fitTransport.empty()))
        throw std::invalid_argument("--fit-split, --folds, --fit-engine and --fit-transport go "
                                    "with --cross-validate or --fit-on");
    if (!f.fitTransport.empty() && f.split.empty())
        throw std::invalid_argument("--fit-transport goes with --fit-split");
    if (!f.folds.empty() && !f.fitOn.empty())
        throw std::invalid_argument(
            "--folds goes with --cross-validate (--fit-on names one split)");
}

flumen::CrossValidationOptions
CrossValidationOf(const flumen::ValidationOptions& o, const FitOptions& f)
{
    flumen::CrossValidationOptions cv;
    for (const auto& text : f.fits)
        cv.parameters.push_back(flumen::ParseFitParameter(text, o.engine));
    if (!f.objective.empty())
        cv.weights = flumen::ParseObjective(f.objective);
    for (const auto& s : flumen::SplitList(f.fitOn))
        cv.fitOn.insert(s);
    if (!f.split.empty())
    {
        cv.split = true;
        cv.splitRange = flumen::ParseSplitRange(f.split);
    }
    if (!f.folds.empty())
        cv.foldBy = f.folds;
    cv.fitEngine = f.fitEngine;
    cv.fitTransport = f.fitTransport;
    return cv;
}

// --cross-validate / --fit-on: the out-of-sample report in DIR, the in-sample one in
// DIR/in-sample, the folds' fitted values in DIR/folds.md. Exit code as main's.
int
CrossValidate(const flumen::ValidationOptions& o, const flumen::CrossValidationOptions& cv,
              const std::vector<flumen::SeriesSplit>& splits, const std::string& command)
{
    flumen::CrossValidation r = flumen::RunCrossValidation(o, cv, splits);
    flumen::WriteCrossValidationReports(o, cv, r, command);
    std::cout << fmt::format("validate --{}: {} folds; wrote {}/report.md (out of sample), "
                             "in-sample/report.md, folds.md\n",
                             cv.fitOn.empty() ? "cross-validate" : "fit-on", r.folds.size(), o.out);
    for (const auto& fold : r.folds)
        std::cout << fmt::format("  fold {}: {}\n", fmt::join(fold.predicted, "+"),
                                 flumen::DescribeFold(fold, cv));
    std::cout << "  out of sample:\n";
    for (const auto& line : flumen::HeadlineLines(r.outOfSample.points))
        std::cout << "    " << line << "\n";
    return r.outOfSample.incomplete || r.inSamplePoints.incomplete ? 1 : 0;
}

const char* kUnpackUsage = "usage: flumen validate --unpack POINTS_DIR RUN_ID --out DIR\n";

/**
 * flumen validate --unpack POINTS_DIR RUN_ID --out DIR: a stored run's scenario.json,
 * summary.json and iterations.csv into DIR, from its folder or its series' runs file (e.g. to
 * re-run a shipped point with ./flumen run DIR/scenario.json --set ...). Exit 2 when the run
 * is not there or DIR cannot be written.
 */
int
Unpack(int argc, char** argv)
{
    if (argc != 6 || std::string(argv[4]) != "--out")
    {
        std::cerr << "flumen validate: --unpack takes a points folder, a run id and --out DIR\n"
                  << kUnpackUsage;
        return 2;
    }
    const std::string points = argv[2], id = argv[3], out = argv[5];
    try
    {
        flumen::CheckOutputFolder(out, "--out");
        std::vector<std::pair<std::string, std::string>> files;
        for (const char* name : { "scenario.json", "iterations.csv", "summary.json" })
        {
            std::optional<std::string> text = flumen::ReadRunFile(points, id, name);
            if (!text)
            {
                throw std::runtime_error(fmt::format(
                    "{}: no finished run {} (neither a folder nor a line of a *{} file)", points,
                    id, flumen::kRunsFileSuffix));
            }
            files.emplace_back(name, *text);
        }
        flumen::WriteFileSetAtomically(out, files);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 2;
    }
    std::cout << "flumen validate: run " << id << " in " << out << "\n";
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    if (argc > 1 && std::string(argv[1]) == "--unpack")
        return Unpack(argc, argv);
    flumen::ValidationOptions o;
    FitOptions fitOptions;
    flumen::CrossValidationOptions cv;
    std::vector<flumen::SeriesSplit> splits;
    try
    {
        ParseOptions(argc, argv, o, fitOptions);
        if (fitOptions.Wanted())
            cv = CrossValidationOf(o, fitOptions);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n" << kUsage << flumen::kBackendUsage;
        return 2;
    }
    std::string command = "flumen validate";
    for (int i = 1; i < argc; ++i)
        command += std::string(" ") + argv[i];

    flumen::ValidationPlan plan;
    std::vector<flumen::PoolPoint> toRun; // the plan's runs, or those --runs picks
    try
    {
        plan = flumen::PlanValidation(o);
        toRun = o.runsPattern.empty() ? plan.runs : flumen::RunsMatching(plan.runs, o.runsPattern);
        if (fitOptions.Wanted())
            splits = flumen::SplitSeries(o, cv);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 2;
    }

    if (o.run.backend == flumen::PoolBackend::Slurm && !o.reportOnly)
    {
        const std::string why = flumen::SlurmUnavailableReason();
        if (!why.empty())
        {
            std::cerr << "flumen validate: --backend slurm: " << why << "\n";
            return 2;
        }
    }

    std::unique_ptr<flumen::FolderLock> lock; // one validate per folder, report-only included
    try
    {
        lock = std::make_unique<flumen::FolderLock>(o.out, "flumen validate");
        // A killed validate's, now that the folder is ours; and its runs' where they ran here
        // (they die with it; a SLURM task of an interrupted validate may still be writing).
        flumen::RemoveStaleTemporaries(o.out);
        if (o.run.backend != flumen::PoolBackend::Slurm)
        {
            flumen::RemoveStaleTemporaries((fs::path(o.out) / "points").string());
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 1;
    }
    if (fitOptions.Wanted())
    {
        try
        {
            return CrossValidate(o, cv, splits, command);
        }
        catch (const std::exception& e)
        {
            std::cerr << "flumen validate: " << e.what() << "\n";
            return 1;
        }
    }
    const fs::path pointsDir = fs::path(o.out) / "points";
    const flumen::PoolOptions pool = flumen::ValidationPool(o, "validate");
    flumen::PoolResult ran;
    try
    {
        if (!o.reportOnly)
            ran = flumen::RunPointPool(toRun, pointsDir, pool);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 1;
    }
    // The finished runs into one file per series (batch/run-store.h), here where no other
    // process writes them; they still resume point by point.
    if (o.run.backend != flumen::PoolBackend::Slurm)
    {
        try
        {
            flumen::CompactRuns(pointsDir, flumen::RunsBySeries(plan));
        }
        catch (const std::exception& e)
        {
            std::cerr << "flumen validate: compacting the runs: " << e.what() << "\n";
            return 1;
        }
    }
    flumen::CollatedValidation got = flumen::CollateValidation(plan, pointsDir);

    flumen::ValidationMeta meta = flumen::MetaOf(o, plan, got, command, ran.wallSeconds);
    try
    {
        flumen::WriteValidationReport(o.out, got.points, got.cdfs, meta, got.rings);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: writing the report: " << e.what() << "\n";
        return 1;
    }
    std::cout << (o.reportOnly
                      ? fmt::format("validate (report only): {} points, {} of {} simulation runs "
                                    "finished; wrote {}/report.md, points.csv, series.csv, "
                                    "cdfs.csv\n",
                                    got.points.size() + got.cdfs.size(), got.runsRead,
                                    plan.runs.size(), o.out)
                      : fmt::format("validate: {} points ({} simulation runs{}: {} now, {} "
                                    "earlier, {} failed); wrote {}/report.md, points.csv, "
                                    "series.csv, cdfs.csv\n",
                                    got.points.size() + got.cdfs.size(), toRun.size(),
                                    o.runsPattern.empty()
                                        ? ""
                                        : fmt::format(" of {}, picked by --runs", plan.runs.size()),
                                    ran.done, ran.skipped, ran.failed, o.out));
    for (const auto& line : flumen::HeadlineLines(got.points))
        std::cout << "  " << line << "\n";
    if (!o.comparePacketRuns.empty())
    {
        try
        {
            // With --set, only packet runs of the very same scenarios (a packet validation
            // given the same settings) stand beside these.
            flumen::ComparedRuns what{ o.settings.empty() ? flumen::PacketRunMatch::SamePointAndSeed
                                                          : flumen::PacketRunMatch::ExactId,
                                       "" };
            if (!plan.rings.empty())
            {
                what.note = "The validation's ring-bandwidth runs (`-ring-` in the name) simulate "
                            "a point's scenario again with fine link bins and count as runs of "
                            "their own.";
            }
            flumen::EngineComparison c
                = flumen::CompareEngines(plan.runs, pointsDir, o.comparePacketRuns, o.out, what);
            for (const auto& line : c.lines)
                std::cout << line << "\n";
            std::cout << "both engines against the testbed, median |error| % over the points "
                         "both simulated ("
                      << o.out << "/engines-testbed.md):\n";
            for (const auto& line : flumen::CompareEnginesWithTestbed(
                     plan, got.points, o.comparePacketRuns, what.match, o.out))
                std::cout << "  " << line << "\n";
        }
        catch (const std::exception& e)
        {
            std::cerr << "flumen validate: comparing the engines: " << e.what() << "\n";
            return 1;
        }
    }
    // With --runs the runs asked for decide: the others may not have run yet.
    return (o.runsPattern.empty() ? got.incomplete : ran.failed > 0) ? 1 : 0;
}
