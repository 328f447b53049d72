// flumen-validate: `./flumen validate MANIFEST... --out DIR [--calibration FILE] [--quick]
// [--jobs N] [--iterations N] [--seeds N] [--models a,b] [--max-sim-s S] [--budget-iterations N]
// [--report-only]`.
//
// Simulates every testbed point of the manifests at the testbed's load (the requested load
// where the testbed recorded it, the measured load otherwise), through the same point pool as
// `flumen sweep` (DIR/points/, resumable, a failure recorded and the rest carried on), then
// writes DIR/points.csv, series.csv, cdfs.csv, report.md and plots/ (validation-report.h).
// A point's folder name includes a hash of its scenario: a new calibration or a changed
// setting re-runs it instead of reusing a stale result. Each run simulates at most
// --max-sim-s seconds, or --budget-iterations (and half of one more) at the model's fastest
// testbed pace in the series where that is longer; a job unfinished by then makes the point
// "censored": only a lower bound on its mean is known (the testbed's worst points took minutes per
// iteration).
// Exit: 0 every point simulated, 1 some failed (the report covers the rest), 2 bad input.
#include "atomic-file.h"
#include "point-pool.h"
#include "run-outputs.h"
#include "calibration-file.h"
#include "scenario.h"
#include "series-manifest.h"
#include "summary-statistics.h"
#include "sweep.h"
#include "validation-report.h"

#include "ns3/model-profile.h"
#include "ns3/star-topology-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

const char* kUsage
    = "usage: flumen validate MANIFEST... --out DIR [--calibration FILE] [--quick] [--jobs N]\n"
      "                       [--iterations N] [--seeds N] [--models m1,m2] [--max-sim-s S]\n"
      "                       [--budget-iterations N]\n"
      "                       [--report-only]\n"
      "  --calibration FILE  compute times from `flumen calibrate` (default: the built-in\n"
      "                      profiles, themselves calibrated from the testbed's idle runs)\n"
      "  --quick             a few ResNet-50 points, few iterations (minutes; CI runs it)\n"
      "  --iterations N      iterations per simulated point, 2 warm-up (default 8; quick 3, 1 "
      "warm-up)\n"
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
      "                      (the others are listed as not run), e.g. while a long run goes on\n";

struct Options
{
    std::vector<std::string> manifests;
    std::string out;
    std::string calibrationFile;
    bool quick = false;
    unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
    int iterations = 0; // 0: the mode's default
    int seeds = 0;      // 0: the mode's default (2; quick 1)
    std::set<std::string> models;
    double maxSimS = 30;
    int budgetIterations = 3;
    bool reportOnly = false;
};

// A run's folder name: readable, and a hash of the whole scenario and the simulation model's
// version, so that a changed calibration, setting or model runs again instead of reusing a
// stale result. `version`: flumen::ModelVersion of the resolved scenario.
std::string
RunId(const std::string& label, uint64_t seed, const json& scenario, const std::string& version)
{
    return fmt::format("{}-s{}-{}", flumen::FileSafeName(label), seed,
                       flumen::StableHash(scenario.dump() + version).substr(0, 8));
}

// Workers of the job in configuration "A" or "B".
int
JobWorkers(const std::string& configuration)
{
    return static_cast<int>(ns3::StarTopologyHelper::JobHosts(configuration.at(0)).size());
}

// One simulated setting and the runs (one per seed) that measure it.
struct PlannedPoint
{
    flumen::ValidatedPoint point;
    std::vector<std::string> runIds;
};

struct PlannedCdf
{
    flumen::ValidatedCdf cdf;
    std::string runId;
    double budgetS = 0; //!< simulated seconds the run may take
};

struct Plan
{
    std::vector<flumen::PoolPoint> runs;
    std::vector<PlannedPoint> points;
    std::vector<PlannedCdf> cdfs;
};

// iperf streams (-P) for a load, as the testbed's operator chose them: "the number of parallel
// threads sufficient to reach as close as possible to the requested BW load when competing
// with DL traffic", 1 to 10 (thesis, section 3.2). A NIC serving k busy TCP send queues and
// RDMA round robin gives TCP k/(k+1) of the link, so k = ceil(x / (C - x)), within 1..10.
int
IperfStreamsFor(double loadGbps)
{
    constexpr double kLinkGbps = 25;
    double k = std::ceil(loadGbps / std::max(1e-9, kLinkGbps - loadGbps) - 1e-9);
    return static_cast<int>(std::clamp(k, 1.0, 10.0));
}

class Planner
{
  public:
    Planner(const Options& o, const json* calibration) : m_options(o), m_calibration(calibration)
    {
        m_iterations = o.iterations ? o.iterations : (o.quick ? 3 : 8);
        m_warmup = std::min(2, m_iterations - 1);
        if (o.quick)
        {
            m_warmup = 1;
        }
    }

    int Iterations() const { return m_iterations; }
    int Warmup() const { return m_warmup; }

    // The scenario of one run; resolved here so that a bad setting fails before anything runs.
    std::string AddRun(const std::string& label, const std::string& configuration,
                       const std::string& model, const std::string& transport,
                       const std::string& traffic, double loadGbps, uint64_t seed, int iterations,
                       int warmup, double maxSimS, const std::string& where,
                       const json& testbedSettings)
    {
        json j = { { "name", label },
                   { "seed", seed },
                   { "topology", { { "configuration", configuration } } },
                   { "job",
                     { { "model", model },
                       { "transport", transport },
                       { "iterations", iterations },
                       { "warmup_iterations", warmup } } },
                   { "outputs", { { "link_bin_us", 0 } } },
                   { "simulation",
                     { { "progress_interval_s", 0 },
                       { "max_time_s", maxSimS },
                       { "on_max_time", "report" } } } };
        j["cross_traffic"] = loadGbps > 0 ? json{ { "type", traffic }, { "load_gbps", loadGbps } }
                                          : json{ { "type", "none" } };
        if (traffic == "iperf" && loadGbps > 0)
        {
            j["cross_traffic"]["streams"] = IperfStreamsFor(loadGbps);
        }
        j.merge_patch(testbedSettings);
        if (m_calibration)
        {
            flumen::ApplyCalibration(j, *m_calibration, m_options.calibrationFile);
        }
        // Throws ScenarioError naming `where`.
        std::string version = flumen::ModelVersion(flumen::ResolveScenario(j, where));
        std::string id = RunId(label, seed, j, version);
        if (m_ids.insert(id).second)
        {
            m_plan.runs.push_back(
                { id,
                  j,
                  { { "point", label }, { "testbed", where }, { "model_version", version } } });
        }
        return id;
    }

    void AddSeries(const flumen::Series& s)
    {
        json probe = s.scenario;
        flumen::ResolveScenario(probe, s.manifest + ": scenario"); // names the manifest
        const int expectWorkers = JobWorkers(s.configuration);
        if (s.workers != expectWorkers && !s.points.empty())
        {
            throw flumen::ScenarioError(
                fmt::format("{}: the series has {} workers; configuration {} runs the job on {}",
                            s.manifest, s.workers, s.configuration, expectWorkers));
        }
        std::vector<std::string> models;
        for (const auto& p : s.points)
        {
            if (std::find(models.begin(), models.end(), p.model) == models.end())
            {
                models.push_back(p.model);
            }
        }
        for (const auto& model : models)
        {
            if (!Wanted(model, s.manifest))
            {
                continue;
            }
            std::vector<const flumen::SeriesPoint*> ps;
            for (const auto& p : s.points)
            {
                if (p.model == model)
                {
                    ps.push_back(&p);
                }
            }
            if (m_options.quick)
            {
                ps = QuickSubset(ps);
            }
            const auto references = flumen::NearIdleTcpReferences(s);
            // The testbed's fastest pace for this model: what a simulated-only idle reference
            // is expected to take per iteration.
            double fastest = flumen::kUnknown;
            for (const auto* p : ps)
            {
                if (std::isfinite(p->meanS) && !(p->meanS >= fastest))
                {
                    fastest = p->meanS;
                }
            }
            bool hasIdle = std::any_of(ps.begin(), ps.end(), [](auto* p) { return p->idle; });
            if (!hasIdle)
            {
                // The curve and the baselines need an idle reference: simulated only.
                flumen::SeriesPoint idle;
                idle.model = model;
                idle.idle = true;
                idle.measuredGbps = 0;
                idle.index = kNoIndex;
                idle.source = s.manifest;
                AddPoint(s, idle, false, false, fastest, BudgetS(fastest));
            }
            for (const auto* p : ps)
            {
                // Idle runs calibrate the compute profiles; a TCP series' near-idle points, the
                // hosts' TCP ceiling. Both are reported, never counted as validation.
                bool calibration
                    = p->idle
                      || std::find(references.begin(), references.end(), p) != references.end();
                AddPoint(s, *p, true, calibration, p->meanS, BudgetS(fastest));
            }
        }
        for (const auto& c : s.cdfs)
        {
            if (!Wanted(c.model, s.manifest)
                || (m_options.quick && !(c.model == "resnet50" && c.requestedGbps < 10)))
            {
                continue;
            }
            PlannedCdf pc;
            pc.cdf.model = c.model;
            pc.cdf.transport = c.transport;
            pc.cdf.configuration = s.configuration;
            pc.cdf.requestedGbps = c.requestedGbps;
            pc.cdf.file = c.file;
            pc.cdf.measured = c.points;
            // Enough iterations for a distribution: several times the point runs' count.
            int iterations = m_options.quick ? 6 : std::max(30, m_iterations);
            double sum = 0;
            for (const auto& q : c.points)
            {
                sum += q.seconds;
            }
            // Every CDF row is one iteration, so their mean is the run's pace.
            pc.budgetS = BudgetS(c.points.empty() ? flumen::kUnknown : sum / c.points.size());
            pc.runId = AddRun(
                fmt::format("{}-cdf-{}-{}G-{}", s.name, c.model, c.requestedGbps, c.transport),
                s.configuration, c.model, c.transport, s.crossTraffic, c.requestedGbps, 1,
                iterations, m_warmup, pc.budgetS, c.file, s.scenario);
            m_plan.cdfs.push_back(pc);
        }
    }

    Plan Take() { return std::move(m_plan); }

  private:
    static constexpr double kNoIndex = -1;

    // A run's simulated-time budget: --max-sim-s, or --budget-iterations and a half (for the
    // start-up) at `paceS`, a testbed pace, where that is longer. With the model's fastest
    // pace, a point the simulation does not slow always finishes its 3 iterations (the fewest
    // a point gets): BERT-large over TCP idles at 1.44 s, beyond a 4 s budget's 3 iterations.
    double BudgetS(double paceS) const
    {
        double paced = (m_options.budgetIterations + 0.5) * paceS;
        return m_options.budgetIterations > 0 && paceS > 0 ? std::max(m_options.maxSimS, paced)
                                                           : m_options.maxSimS;
    }

    bool Wanted(const std::string& model, const std::string& manifest)
    {
        if (!m_options.models.empty() && !m_options.models.count(model))
        {
            return false;
        }
        if (m_options.quick && model != "resnet50")
        {
            return false;
        }
        if (!ns3::ModelProfile::BuiltIn(model))
        {
            std::cerr << "flumen validate: " << manifest << ": model '" << model
                      << "' is not built in; skipped\n";
            return false;
        }
        return true;
    }

    // Quick: the idle run and the points nearest 8 and 18 Gbps measured.
    static std::vector<const flumen::SeriesPoint*>
    QuickSubset(const std::vector<const flumen::SeriesPoint*>& ps)
    {
        std::vector<const flumen::SeriesPoint*> out;
        for (auto* p : ps)
        {
            if (p->idle)
            {
                out.push_back(p);
            }
        }
        for (double target : { 8.0, 18.0 })
        {
            const flumen::SeriesPoint* best = nullptr;
            for (auto* p : ps)
            {
                if (!p->idle && std::isfinite(p->measuredGbps)
                    && (!best
                        || std::abs(p->measuredGbps - target)
                               < std::abs(best->measuredGbps - target)))
                {
                    best = p;
                }
            }
            if (best && std::find(out.begin(), out.end(), best) == out.end())
            {
                out.push_back(best);
            }
        }
        return out;
    }

    // `paceS`: the testbed's mean iteration time at this point (or the nearest idle pace),
    // NaN if unknown. A run gets as many iterations as fit in its budget at that pace, at
    // least 3 and at most --iterations, so that slow points still finish (or are censored
    // with a useful bound) instead of running out of budget in their warm-up.
    void AddPoint(const flumen::Series& s, const flumen::SeriesPoint& sp, bool testbed,
                  bool calibration, double paceS, double budgetS)
    {
        PlannedPoint pp;
        flumen::ValidatedPoint& v = pp.point;
        v.series = s.name;
        v.model = sp.model;
        v.transport = s.transport;
        v.configuration = s.configuration;
        v.traffic = s.crossTraffic;
        v.index = sp.index == kNoIndex ? flumen::kUnknown : sp.index;
        v.requestedGbps = sp.requestedGbps;
        v.measuredGbps = sp.idle ? 0.0 : sp.measuredGbps;
        v.idle = sp.idle;
        v.testbed = testbed;
        v.calibration = calibration;
        v.source = sp.source;
        if (testbed)
        {
            v.testbedMeanS = sp.meanS;
            v.testbedP99S = sp.p99S;
        }
        if (!sp.idle)
        {
            v.offeredGbps = flumen::PointLoadGbps(sp);
            if (!(v.offeredGbps > 0))
            {
                throw flumen::ScenarioError(
                    fmt::format("{}: no cross-traffic rate for this point (neither requested "
                                "nor measured)",
                                sp.source));
            }
        }
        std::string label
            = fmt::format("{}-{}-{}", s.name, sp.model,
                          sp.idle ? std::string("idle") : fmt::format("{:.3f}G", v.offeredGbps));
        int iterations = m_iterations;
        if (paceS > 0)
        {
            double fit = std::floor(budgetS / paceS);
            iterations = static_cast<int>(std::clamp(fit, 3.0, double(m_iterations)));
        }
        int warmup = iterations >= 5 ? m_warmup : std::min(m_warmup, 1);
        v.iterations = iterations;
        v.warmup = warmup;
        // Seed 1 here; congested points get more seeds once the whole plan is known.
        pp.runIds.push_back(AddRun(label, s.configuration, sp.model, s.transport, s.crossTraffic,
                                   v.offeredGbps, 1, iterations, warmup, budgetS, sp.source,
                                   s.scenario));
        m_plan.points.push_back(std::move(pp));
    }

    const Options& m_options;
    const json* m_calibration;
    int m_iterations = 8;
    int m_warmup = 2;
    Plan m_plan;
    std::set<std::string> m_ids;
};

bool
ParseOptions(int argc, char** argv, Options& o)
{
    for (int i = 1; i < argc; ++i)
    {
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
             || a == "--budget-iterations")
            && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                o.out = v;
            else if (a == "--calibration")
                o.calibrationFile = v;
            else if (a == "--jobs")
                o.jobs = static_cast<unsigned>(intValue(v, 1, 1024));
            else if (a == "--iterations")
                o.iterations = intValue(v, 3, 100000);
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
                std::stringstream ss(v);
                std::string m;
                while (std::getline(ss, m, ','))
                {
                    if (!m.empty())
                        o.models.insert(m);
                }
            }
        }
        else if (a == "--quick")
            o.quick = true;
        else if (a == "--report-only")
            o.reportOnly = true;
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            std::exit(0);
        }
        else if (!a.empty() && a[0] == '-')
            throw std::invalid_argument("unknown option or missing value: '" + a + "'");
        else
            o.manifests.push_back(a);
    }
    if (o.manifests.empty() || o.out.empty())
    {
        throw std::invalid_argument("expected at least one manifest and --out DIR");
    }
    if (o.seeds == 0)
    {
        o.seeds = o.quick ? 1 : 2;
    }
    for (const auto& m : o.models)
    {
        if (!ns3::ModelProfile::BuiltIn(m))
        {
            throw std::invalid_argument("--models: '" + m + "' is not a built-in model");
        }
    }
    return true;
}

// What one finished simulation run says.
struct RunResult
{
    json summary;
    std::vector<double> warmupDurations; //!< all workers
    bool jobFinished = true;
    double meanS = flumen::kUnknown;       //!< measured iterations, all workers
    double lowerBoundS = flumen::kUnknown; //!< an unfinished job: the mean is at least this
};

// Reads a finished run: its summary and its measured iteration times (all workers), appended
// to `durations`; the warm-up ones go to run.warmupDurations.
bool
ReadRun(const fs::path& dir, RunResult& run, std::vector<double>& durations)
{
    if (!flumen::PointFinished(dir.parent_path(), dir.filename().string()))
    {
        return false;
    }
    json& summary = run.summary;
    summary = json::parse(flumen::ReadTextFile(dir / "summary.json"));
    run.jobFinished = summary.value("job_finished", true);
    run.meanS = summary["iteration_time_s"]["mean"].get<double>();
    if (!run.jobFinished)
    {
        run.lowerBoundS = summary["iteration_time_lower_bound_s"].get<double>();
    }
    for (const auto& r : flumen::ParseIterationsCsv(flumen::ReadTextFile(dir / "iterations.csv"),
                                                    (dir / "iterations.csv").string()))
    {
        (r.warmup ? run.warmupDurations : durations).push_back(r.DurationS());
    }
    return true;
}

} // namespace

int
main(int argc, char** argv)
{
    Options o;
    try
    {
        ParseOptions(argc, argv, o);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n" << kUsage;
        return 2;
    }
    std::string command = "flumen validate";
    for (int i = 1; i < argc; ++i)
    {
        command += std::string(" ") + argv[i];
    }

    json calibration;
    Planner planner(o, o.calibrationFile.empty() ? nullptr : &calibration);
    Plan plan;
    std::vector<std::pair<std::string, std::string>> testbedSettings;
    try
    {
        if (!o.calibrationFile.empty())
        {
            calibration = flumen::LoadCalibration(o.calibrationFile);
        }
        for (const auto& m : o.manifests)
        {
            flumen::Series series = flumen::LoadSeries(m);
            if (!series.scenario.empty())
            {
                testbedSettings.push_back({ series.name, series.scenario.dump() });
            }
            planner.AddSeries(series);
        }
        plan = planner.Take();
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 2;
    }
    if (plan.points.empty() && plan.cdfs.empty())
    {
        std::cerr << "flumen validate: nothing to simulate in the manifests given"
                  << (o.models.empty() ? "" : " for the models asked for") << "\n";
        return 2;
    }

    // Congested points (testbed mean >= 1.2 x the idle reference) get more seeds. The idle
    // reference is the testbed's idle run (load 0), or its lowest-load point where it has none.
    std::map<std::pair<std::string, std::string>, flumen::CurvePoint> idleRef;
    for (const auto& pp : plan.points)
    {
        const auto& v = pp.point;
        auto key = std::make_pair(v.series, v.model);
        auto it = idleRef.find(key);
        if (v.testbed && !std::isnan(v.measuredGbps)
            && (it == idleRef.end() || v.measuredGbps < it->second.x))
        {
            idleRef[key] = { v.measuredGbps, v.testbedMeanS };
        }
    }
    // Two testbed points with the same scenario share its run (the planner runs an id once);
    // their extra seeds are shared the same way.
    std::set<std::string> planned;
    for (const auto& r : plan.runs)
    {
        planned.insert(r.id);
    }
    std::vector<flumen::PoolPoint> extra;
    for (auto& pp : plan.points)
    {
        auto& v = pp.point;
        auto key = std::make_pair(v.series, v.model);
        v.congested
            = v.testbed && !v.idle && idleRef.count(key) && v.testbedMeanS >= 1.2 * idleRef[key].t;
        if (v.congested && o.seeds > 1)
        {
            const auto& first = *std::find_if(plan.runs.begin(), plan.runs.end(),
                                              [&](const auto& r) { return r.id == pp.runIds[0]; });
            for (int seed = 2; seed <= o.seeds; ++seed)
            {
                flumen::PoolPoint r = first;
                r.scenario["seed"] = seed;
                std::string label = r.scenario["name"].get<std::string>();
                r.id = RunId(label, seed, r.scenario, r.about["model_version"].get<std::string>());
                pp.runIds.push_back(r.id);
                if (planned.insert(r.id).second)
                {
                    extra.push_back(r);
                }
            }
        }
        v.seedsPlanned = static_cast<int>(pp.runIds.size());
    }
    plan.runs.insert(plan.runs.end(), extra.begin(), extra.end());

    const fs::path pointsDir = fs::path(o.out) / "points";
    flumen::PoolOptions pool;
    pool.jobs = o.jobs;
    pool.label = "validate";
    flumen::PoolResult ran;
    try
    {
        if (!o.reportOnly)
        {
            ran = flumen::RunPointPool(plan.runs, pointsDir, pool);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen validate: " << e.what() << "\n";
        return 1;
    }

    // Collect: per point, pool the seeds' iterations.
    std::vector<flumen::ValidatedPoint> points;
    size_t incomplete = 0;
    double coreSeconds = 0; // the runs' own wall times, each run once
    // Ids of the runs read: a run shared by two points, or by a point and a CDF, is read twice.
    std::set<std::string> runsRead;
    auto account = [&](const std::string& id, const RunResult& run)
    {
        if (runsRead.insert(id).second)
        {
            coreSeconds += run.summary.value("wall_time_s", 0.0);
        }
    };
    for (auto& pp : plan.points)
    {
        auto v = pp.point;
        std::vector<double> durations;
        double achieved = 0;
        int achievedSeeds = 0;
        std::string failure;
        int unfinished = 0;
        double bound = 0; // mean over seeds of each seed's mean or, if unfinished, lower bound
        std::vector<double> warmups;
        for (const auto& id : pp.runIds)
        {
            RunResult run;
            if (ReadRun(pointsDir / id, run, durations))
            {
                account(id, run);
                ++v.seeds;
                // Runs of older versions cut before any measured iteration began have an
                // empty measurement window and no achieved rate.
                const auto& w = run.summary["measurement_window_s"];
                if (w[1].get<double>() > w[0].get<double>())
                {
                    achieved += run.summary["cross_traffic"]["achieved_gbps"].get<double>();
                    ++achievedSeeds;
                }
                unfinished += run.jobFinished ? 0 : 1;
                if (!run.jobFinished)
                {
                    v.censoredCutS = run.summary["simulated_time_s"].get<double>();
                }
                warmups.insert(warmups.end(), run.warmupDurations.begin(),
                               run.warmupDurations.end());
                bound += run.jobFinished ? run.meanS : run.lowerBoundS;
            }
            else if (failure.empty())
            {
                failure = flumen::PointFailure(pointsDir, id);
            }
        }
        if (v.seeds > 0)
        {
            v.simAchievedGbps = v.idle              ? 0.0
                                : achievedSeeds > 0 ? achieved / achievedSeeds
                                                    : flumen::kUnknown;
        }
        if (v.seeds > 0 && unfinished > 0)
        {
            v.simMeanLowerBoundS = bound / v.seeds;
            const auto& completed = durations.empty() ? warmups : durations;
            if (!completed.empty())
            {
                v.censoredCompletedMeanS = flumen::Summarize(completed).mean;
                v.censoredCompletedIterations = static_cast<int>(completed.size());
                v.censoredCompletedWarmup = durations.empty();
            }
        }
        else if (v.seeds > 0 && !durations.empty())
        {
            auto st = flumen::Summarize(durations);
            v.simMeanS = st.mean;
            v.simP99S = st.p99;
        }
        v.status = unfinished > 0              ? "censored"
                   : v.seeds == v.seedsPlanned ? "done"
                   : v.seeds > 0               ? "partial"
                                 : (failure.empty() ? "not run" : "failed: " + failure);
        if (v.seeds != v.seedsPlanned)
        {
            ++incomplete;
        }
        points.push_back(v);
    }
    // Baselines from the idle time: measured where the testbed has it, simulated otherwise.
    std::map<std::pair<std::string, std::string>, double> idleTime;
    for (const auto& q : points)
    {
        if (q.idle)
        {
            idleTime[{ q.series, q.model }] = q.testbed ? q.testbedMeanS : q.simMeanS;
        }
    }
    for (auto& v : points)
    {
        auto it = idleTime.find({ v.series, v.model });
        double t0 = it == idleTime.end() ? flumen::kUnknown : it->second;
        double bits = 8
                      * ns3::ModelProfile::BuiltIn(v.model)->RingBytesPerWorker(
                          static_cast<uint32_t>(JobWorkers(v.configuration)));
        double x = v.idle ? 0.0 : v.measuredGbps;
        if (!std::isnan(t0) && !std::isnan(x))
        {
            v.exposedS = flumen::BaselineExposed(t0, bits, 25e9, x * 1e9);
            v.hiddenS = flumen::BaselineHidden(t0, bits, 25e9, x * 1e9);
        }
    }
    std::vector<flumen::ValidatedCdf> cdfs;
    for (auto& pc : plan.cdfs)
    {
        auto c = pc.cdf;
        RunResult run;
        if (ReadRun(pointsDir / pc.runId, run, c.simulated))
        {
            account(pc.runId, run);
            // An unfinished run's iterations are its first ones only: the KS distance is
            // computed, and the status says so.
            c.ks = c.simulated.empty() ? flumen::kUnknown
                                       : flumen::KolmogorovSmirnov(c.simulated, c.measured);
            c.status = run.jobFinished
                           ? "done"
                           : fmt::format("censored: {} iterations by {:.3g} s simulated",
                                         c.simulated.size(), pc.budgetS);
        }
        else
        {
            std::string f = flumen::PointFailure(pointsDir, pc.runId);
            c.status = f.empty() ? "not run" : "failed: " + f;
            ++incomplete;
        }
        cdfs.push_back(c);
    }

    flumen::ValidationMeta meta;
    meta.command = command;
    meta.quick = o.quick;
    meta.iterations = planner.Iterations();
    meta.warmup = planner.Warmup();
    meta.coreSecondsNow = ran.wallSeconds;
    meta.maxSimS = o.maxSimS;
    meta.budgetIterations = o.budgetIterations;
    meta.runsDone = runsRead.size();
    meta.runsPlanned = plan.runs.size();
    meta.coreSeconds = coreSeconds;
    meta.testbedSettings = testbedSettings;
    meta.calibration = o.calibrationFile.empty()
                           ? "the built-in model profiles (calibrated with `flumen calibrate` on "
                             "the testbed's idle runs; README, Calibration)"
                           : "the calibration file " + o.calibrationFile;
    try
    {
        flumen::WriteValidationReport(o.out, points, cdfs, meta);
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
                                    points.size() + cdfs.size(), runsRead.size(), plan.runs.size(),
                                    o.out)
                      : fmt::format("validate: {} points ({} simulation runs: {} now, {} earlier, "
                                    "{} failed); wrote {}/report.md, points.csv, series.csv, "
                                    "cdfs.csv\n",
                                    points.size() + cdfs.size(), plan.runs.size(), ran.done,
                                    ran.skipped, ran.failed, o.out));
    for (const auto& line : flumen::HeadlineLines(points))
    {
        std::cout << "  " << line << "\n";
    }
    return incomplete ? 1 : 0;
}
