// flumen-calibrate: derives each model's compute profile from the testbed runs without
// cross traffic, by simulation.
// `./flumen calibrate MANIFEST... --out calibration.json [--iterations N]`
//
// Parameters per model: the compute time (forward + backward + step) and, where the model was
// measured with two or more worker counts, the backward share (backward / (forward +
// backward)), which decides how much of the ring all-reduce hides behind the backward pass:
// the ring's volume grows with the workers as 2 (N-1)/N, so idle runs with different worker
// counts tell how much of it is exposed. With one worker count only the compute time is
// fitted and the share stays the profile's.
//
// Fit: Levenberg-Marquardt (Eigen) on the relative errors of the simulated idle means of the
// model's points, from the profile's parameters or, where the worker counts disagree there,
// from a second start derived from the start run (communication hidden behind the smallest
// backward share that covers it; the better start goes on). The Jacobian comes from finite
// differences once, then Broyden updates, so each step costs one simulation per point (all
// models and points run in parallel child processes). It stops when every point is within 0.3 %,
// when a step gains less than 0.1 % of RMS error or becomes negligible, or after 8 steps, and
// reports every point simulated at the final parameters. The jitter CV comes from the same runs:
// the gap between mean and p99, read as a normal distribution of the iteration, divided by the
// spread factor of independently jittered forward and backward phases (sqrt((1-s)^2 + s^2) for
// backward share s). Exit codes: 0 done, 2 bad input, 1 a simulation failed. Nothing is written on
// failure.
#include "atomic-file.h"
#include "run-scenario.h"
#include "calibration-file.h"
#include "scenario.h"
#include "series-manifest.h"

#include "ns3/star-topology-helper.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

using nlohmann::json;

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
      "                      and write them (with their errors) as a calibration file\n";

struct IdlePoint
{
    std::string series;
    std::string configuration;
    std::string transport;
    int workers = 0;
    std::string model;
    double measuredMeanS = 0;
    double measuredP99S = 0;
    std::string source;
    json testbedSettings
        = json::object();     //!< the manifest's "scenario" (the testbed's non-default settings)
    double loadGbps = 0;      //!< 0 for an idle run; a near-idle TCP reference's load
    std::string crossTraffic; //!< the series' cross-traffic type
    double spread = 0;        //!< (p99 - mean) / mean of the measured run
    double simulatedS = 0;    //!< at the model's fitted parameters
};

// A testbed point to simulate, with its series' experiment and settings.
IdlePoint
PointOf(const flumen::Series& series, const flumen::SeriesPoint& sp)
{
    IdlePoint p;
    p.series = series.name;
    p.configuration = series.configuration;
    p.transport = series.transport;
    p.workers = series.workers;
    p.model = sp.model;
    p.measuredMeanS = sp.meanS;
    p.measuredP99S = sp.p99S;
    p.source = sp.source;
    p.testbedSettings = series.scenario;
    return p;
}

// The per-phase jitter CV that gives an iteration spread like the measured one: p99 - mean
// read as a normal tail (2.326 sigma) of the sum of independently jittered forward and
// backward phases.
double
JitterCvFor(double spread, double backwardShare)
{
    double s = backwardShare;
    return std::min(0.3, spread / 2.326 / std::sqrt((1 - s) * (1 - s) + s * s));
}

double
SimulateIdle(const IdlePoint& p, double computeS, double backwardShare, double jitterCv,
             uint32_t iterations, double hostCeilingGbps = 0)
{
    json user = { { "name", "calibrate-" + p.series + "-" + p.model },
                  { "topology", { { "configuration", p.configuration } } },
                  { "job",
                    { { "model", p.model },
                      { "transport", p.transport },
                      { "iterations", iterations },
                      { "warmup_iterations", 1 },
                      { "compute_s", computeS },
                      { "backward_share", backwardShare },
                      { "compute_jitter_cv", jitterCv } } },
                  { "cross_traffic", { { "type", "none" } } },
                  { "outputs", { { "link_bin_us", 0 } } },
                  { "simulation", { { "progress_interval_s", 0 } } } };
    if (p.loadGbps > 0)
    {
        user["cross_traffic"] = { { "type", p.crossTraffic }, { "load_gbps", p.loadGbps } };
    }
    if (hostCeilingGbps > 0)
    {
        user["job"]["tcp"] = { { "host_ceiling_gbps", hostCeilingGbps } };
    }
    user.merge_patch(p.testbedSettings);
    flumen::Scenario s = flumen::ResolveScenario(user, p.source);
    const size_t workers = ns3::StarTopologyHelper::JobHosts(s.configuration).size();
    if (workers != static_cast<size_t>(p.workers))
    {
        throw std::runtime_error(fmt::format("{}: the series has {} workers; configuration {} "
                                             "runs the job on {}",
                                             p.source, p.workers, p.configuration, workers));
    }
    flumen::RunOutput out = flumen::RunScenario(s);
    return out.summary.iterationTimeS.mean;
}

// Bounds of the backward share: the backward pass is at least as long as the forward (it
// does about twice its FLOPs) and the forward pass is not negligible.
constexpr double kMinShare = 0.5;
constexpr double kMaxShare = 0.95;
constexpr double kTolerance = 0.003; //!< relative error at which a point counts as matched
constexpr int kMaxSteps = 8;
constexpr double kMinGain = 0.001;       //!< least RMS improvement of a step worth another
constexpr double kTestbedLinkBps = 25e9; //!< for the second start's guess only
constexpr double kStartCeilingGbps = 10; //!< "roughly 10 Gbps" (DESIGN.md): the start only

/** The least-squares fit of one model's parameters: theta = (compute_s [, backward_share]). */
struct ModelFit
{
    std::string model;
    std::vector<IdlePoint*> points;
    bool fitShare = false;
    double fixedShare = ns3::ModelProfile::kDefaultBackwardShare;
    double meanSpread = 0;
    Eigen::VectorXd theta;
    Eigen::VectorXd residual; //!< relative error of each point at theta
    Eigen::MatrixXd jacobian;
    double lambda = 1e-2;
    int steps = 0;
    int simulations = 0;
    std::string stop;

    double Share(const Eigen::VectorXd& t) const { return fitShare ? t(1) : fixedShare; }
    double JitterCv(const Eigen::VectorXd& t) const { return JitterCvFor(meanSpread, Share(t)); }
    bool Matched() const
    {
        return residual.size() > 0 && residual.cwiseAbs().maxCoeff() <= kTolerance;
    }
    bool Done() const { return !stop.empty(); }

    Eigen::VectorXd Clamp(Eigen::VectorXd t) const
    {
        t(0) = std::clamp(t(0), 1e-4, 1e5);
        if (fitShare)
        {
            t(1) = std::clamp(t(1), kMinShare, kMaxShare);
        }
        return t;
    }
};

// Runs the tasks in child processes, `jobs` at a time (a simulation owns ns-3's global
// simulator, so parallel runs need processes); each child sends back its JSON.
std::vector<json>
RunInChildren(const std::vector<std::function<json()>>& tasks, unsigned jobs)
{
    std::vector<json> results(tasks.size());
    struct Child
    {
        pid_t pid;
        int fd;
        size_t task;
    };
    std::vector<Child> running;
    size_t next = 0;
    auto collect = [&](const Child& c)
    {
        std::string text;
        char buf[4096];
        ssize_t n;
        while ((n = read(c.fd, buf, sizeof buf)) > 0)
        {
            text.append(buf, n);
        }
        close(c.fd);
        results[c.task]
            = text.empty() ? json{ { "error", "the simulation process died" } } : json::parse(text);
    };
    while (next < tasks.size() || !running.empty())
    {
        while (next < tasks.size() && running.size() < jobs)
        {
            int fd[2];
            if (pipe(fd) != 0)
            {
                throw std::runtime_error("pipe failed");
            }
            std::cout.flush();
            std::cerr.flush();
            pid_t pid = fork();
            if (pid == 0)
            {
                close(fd[0]);
                std::string text;
                try
                {
                    text = tasks[next]().dump();
                }
                catch (const std::exception& e)
                {
                    text = json{ { "error", e.what() } }.dump();
                }
                size_t off = 0;
                while (off < text.size())
                {
                    ssize_t n = write(fd[1], text.data() + off, text.size() - off);
                    if (n <= 0)
                    {
                        break;
                    }
                    off += static_cast<size_t>(n);
                }
                close(fd[1]);
                _exit(0);
            }
            close(fd[1]);
            running.push_back({ pid, fd[0], next++ });
        }
        // Children finish in any order: wait for whichever ends first, so that a long fit
        // never keeps a core idle (a child's answer is small, it never blocks on the pipe).
        int status = 0;
        pid_t done = waitpid(-1, &status, 0);
        auto it = std::find_if(running.begin(), running.end(),
                               [done](const Child& c) { return c.pid == done; });
        if (it == running.end())
        {
            if (done < 0)
            {
                throw std::runtime_error("waitpid failed");
            }
            continue;
        }
        collect(*it);
        running.erase(it);
    }
    for (const auto& r : results)
    {
        if (r.contains("error"))
        {
            throw std::runtime_error(r["error"].get<std::string>());
        }
    }
    return results;
}

// The host-side ceiling of NCCL's socket path (job.tcp.host_ceiling_gbps), one value for all
// models (it is the hosts' property), fitted to the near-idle TCP references with each model's
// calibrated compute profile: Gauss-Newton in one parameter with a finite-difference slope,
// then secant updates, damped like the model fits. These references carry cross traffic (the
// TCP series has no idle run), so the result is declared as fitted beyond the idle runs.
json
FitHostCeiling(std::vector<IdlePoint>& refs, const json& models, uint32_t iterations, unsigned jobs)
{
    struct Setting
    {
        double c, share, cv;
    };
    std::vector<Setting> settings;
    for (const auto& p : refs)
    {
        if (models.contains(p.model))
        {
            const json& m = models[p.model];
            settings.push_back({ m["compute_s"].get<double>(), m["backward_share"].get<double>(),
                                 m["compute_jitter_cv"].get<double>() });
        }
        else
        {
            ns3::ModelProfile prof = *ns3::ModelProfile::BuiltIn(p.model);
            settings.push_back(
                { prof.ComputeSeconds(), prof.BackwardShare(), prof.computeJitterCv });
        }
    }
    auto evaluate = [&](const std::vector<double>& ceilings)
    {
        std::vector<std::function<json()>> tasks;
        for (double h : ceilings)
        {
            for (size_t i = 0; i < refs.size(); ++i)
            {
                const IdlePoint* p = &refs[i];
                Setting st = settings[i];
                tasks.push_back(
                    [p, st, h, iterations] {
                        return json{ { "mean_s",
                                       SimulateIdle(*p, st.c, st.share, st.cv, iterations, h) } };
                    });
            }
        }
        std::vector<json> results = RunInChildren(tasks, jobs);
        std::vector<Eigen::VectorXd> out;
        for (size_t k = 0; k < ceilings.size(); ++k)
        {
            Eigen::VectorXd r(refs.size());
            for (size_t i = 0; i < refs.size(); ++i)
            {
                double m = refs[i].measuredMeanS;
                r(i) = (results[k * refs.size() + i]["mean_s"].get<double>() - m) / m;
            }
            out.push_back(r);
        }
        return out;
    };
    auto describe = [&](double h, const Eigen::VectorXd& r)
    {
        std::string line = fmt::format("ceiling {:.3f} Gbps", h);
        for (size_t i = 0; i < refs.size(); ++i)
        {
            line += fmt::format("; {} {:+.2f} %", refs[i].model, 100 * r(i));
        }
        return line;
    };
    double h = kStartCeilingGbps;
    const double dh = 0.05 * h;
    std::vector<Eigen::VectorXd> r0 = evaluate({ h, h + dh });
    Eigen::VectorXd residual = r0[0];
    Eigen::VectorXd slope = (r0[1] - r0[0]) / dh;
    std::cerr << fmt::format("  tcp start: {}\n", describe(h, residual));
    double lambda = 1e-2;
    int steps = 0;
    int simulations = 2 * static_cast<int>(refs.size());
    std::string stop;
    auto matched = [&] { return residual.cwiseAbs().maxCoeff() <= kTolerance; };
    if (matched())
    {
        stop = "matched at the start";
    }
    for (int step = 1; step <= kMaxSteps && stop.empty(); ++step)
    {
        double a = slope.squaredNorm();
        if (!(a > 0))
        {
            stop = "the iteration time does not depend on the ceiling here";
            break;
        }
        double ht = std::clamp(h - slope.dot(residual) / (a * (1 + lambda)), 1.0, 100.0);
        if (std::abs(ht - h) < 1e-3)
        {
            stop = "the step became negligible";
            break;
        }
        Eigen::VectorXd rt = evaluate({ ht })[0];
        simulations += static_cast<int>(refs.size());
        steps = step;
        slope = (rt - residual) / (ht - h); // secant: the one-parameter Broyden update
        bool better = rt.squaredNorm() < residual.squaredNorm();
        std::cerr << fmt::format("  tcp step {}: {}{}\n", step, describe(ht, rt),
                                 better ? "" : " (rejected)");
        if (!better)
        {
            lambda *= 4;
            continue;
        }
        double gain = std::sqrt(residual.squaredNorm() / residual.size())
                      - std::sqrt(rt.squaredNorm() / rt.size());
        h = ht;
        residual = rt;
        lambda = std::max(1e-6, lambda / 3);
        if (matched())
        {
            stop = "every point within 0.3 %";
        }
        else if (gain < kMinGain)
        {
            stop = "a step improved the RMS error by less than 0.1 %";
        }
    }
    if (stop.empty())
    {
        stop = fmt::format("{} steps done", kMaxSteps);
    }
    json pts = json::array();
    for (size_t i = 0; i < refs.size(); ++i)
    {
        const IdlePoint& p = refs[i];
        pts.push_back({ { "series", p.series },
                        { "model", p.model },
                        { "configuration", p.configuration },
                        { "workers", p.workers },
                        { "source", p.source },
                        { "cross_traffic_gbps", p.loadGbps },
                        { "measured_mean_s", p.measuredMeanS },
                        { "simulated_mean_s", p.measuredMeanS * (1 + residual(i)) },
                        { "error_percent", 100.0 * residual(i) } });
    }
    std::cerr << fmt::format("  tcp fitted ({}): {}\n", stop, describe(h, residual));
    return { { "host_ceiling_gbps", h },
             { "fitted_beyond_idle_runs", true },
             { "fit", { { "steps", steps }, { "simulations", simulations }, { "stopped", stop } } },
             { "points", pts } };
}

} // namespace

int
main(int argc, char** argv)
{
    std::vector<std::string> manifests;
    std::string outPath;
    std::string profilesPath; //!< --calibration: the model profiles a --tcp-only fit uses
    bool tcpOnly = false;
    bool checkOnly = false; //!< simulate at the built-in profiles, fit nothing
    uint32_t iterations = 4;
    unsigned jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if ((a == "--out" || a == "--iterations" || a == "--calibration") && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
            {
                outPath = v;
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

    std::vector<IdlePoint> points;
    std::vector<IdlePoint> tcpReferences; //!< near-idle TCP points of series with no idle run
    try
    {
        for (const auto& m : manifests)
        {
            flumen::Series series = flumen::LoadSeries(m);
            bool any = false;
            // No idle run in a TCP series: each model's near-idle point serves as the
            // reference for the hosts' TCP ceiling (declared as fitted beyond idle runs).
            for (const flumen::SeriesPoint* sp : flumen::NearIdleTcpReferences(series))
            {
                if (ns3::ModelProfile::BuiltIn(sp->model))
                {
                    IdlePoint p = PointOf(series, *sp);
                    p.loadGbps = flumen::PointLoadGbps(*sp);
                    p.crossTraffic = series.crossTraffic;
                    tcpReferences.push_back(p);
                    any = true;
                }
            }
            for (const auto& sp : series.points)
            {
                if (!sp.idle)
                {
                    continue;
                }
                if (!ns3::ModelProfile::BuiltIn(sp.model))
                {
                    std::cerr << "flumen: " << sp.source << ": model '" << sp.model
                              << "' is not built in; skipped\n";
                    continue;
                }
                IdlePoint p = PointOf(series, sp);
                p.spread = std::max(0.0, sp.p99S - sp.meanS) / sp.meanS;
                points.push_back(p);
                any = true;
            }
            if (!any)
            {
                std::cerr << "flumen: note: " << m
                          << " has no run without cross traffic (nor a TCP point at most "
                          << flumen::kNearIdleGbps << " Gbps): nothing to calibrate from it\n";
            }
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n";
        return 2;
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
        std::map<std::string, ModelFit> fits;
        for (auto& p : points)
        {
            ModelFit& f = fits[p.model];
            f.model = p.model;
            f.points.push_back(&p);
        }
        for (auto& [model, f] : fits)
        {
            const ns3::ModelProfile profile = *ns3::ModelProfile::BuiltIn(model);
            std::set<int> workerCounts;
            for (const auto* p : f.points)
            {
                workerCounts.insert(p->workers);
                f.meanSpread += p->spread / f.points.size();
            }
            f.fitShare = workerCounts.size() >= 2;
            f.fixedShare = profile.BackwardShare();
            f.theta
                = f.fitShare
                      ? Eigen::Vector2d(profile.ComputeSeconds(),
                                        std::clamp(profile.BackwardShare(), kMinShare, kMaxShare))
                      : Eigen::VectorXd::Constant(1, profile.ComputeSeconds());
        }

        // Simulates every point of each requested (fit, parameters) in parallel children and
        // returns the relative errors, one vector per request.
        using Request = std::pair<ModelFit*, Eigen::VectorXd>;
        auto evaluate = [&](const std::vector<Request>& requests)
        {
            std::vector<std::function<json()>> tasks;
            for (const auto& [f, t] : requests)
            {
                for (const IdlePoint* p : f->points)
                {
                    const double c = t(0), share = f->Share(t), cv = f->JitterCv(t);
                    tasks.push_back(
                        [p, c, share, cv, iterations] {
                            return json{ { "mean_s", SimulateIdle(*p, c, share, cv, iterations) } };
                        });
                }
                f->simulations += static_cast<int>(f->points.size());
            }
            std::vector<json> results = RunInChildren(tasks, jobs);
            std::vector<Eigen::VectorXd> out;
            size_t k = 0;
            for (const auto& [f, t] : requests)
            {
                Eigen::VectorXd r(f->points.size());
                for (size_t i = 0; i < f->points.size(); ++i, ++k)
                {
                    double m = f->points[i]->measuredMeanS;
                    r(i) = (results[k]["mean_s"].get<double>() - m) / m;
                }
                out.push_back(r);
            }
            return out;
        };
        auto describe = [](const ModelFit& f, const Eigen::VectorXd& t, const Eigen::VectorXd& r)
        {
            std::string line = fmt::format("compute {:.4f} s", t(0));
            if (f.fitShare)
            {
                line += fmt::format(", backward share {:.4f}", t(1));
            }
            for (size_t i = 0; i < f.points.size(); ++i)
            {
                line += fmt::format("; {} {:+.2f} %", f.points[i]->configuration, 100 * r(i));
            }
            return line;
        };

        // The start: every model at its profile's parameters.
        std::vector<Request> start;
        for (auto& [model, f] : fits)
        {
            start.push_back({ &f, f.theta });
        }
        std::vector<Eigen::VectorXd> r0 = evaluate(start);
        for (size_t i = 0; i < start.size(); ++i)
        {
            ModelFit& f = *start[i].first;
            f.residual = r0[i];
            std::cerr << fmt::format("  {} start: {}\n", f.model, describe(f, f.theta, f.residual));
            if (f.Matched())
            {
                f.stop = "matched at the start";
            }
            else if (checkOnly)
            {
                f.stop = "checked only (--check): the built-in parameters, not fitted in this run";
            }
        }

        // Where the worker counts disagree at the start, the communication is exposed
        // differently, and near the start the two parameters act alike (both move only the
        // exposed time), so a local step goes nowhere. A second start from the physics: the
        // communication of point i ends E_i after the backward pass starts (read off the start
        // run: E_i = t_i - forward - step); the testbed's near-equal times say it hides behind
        // the backward pass, so take the compute time as the measured time less the ring time
        // of the last tensor released (which cannot hide) and the smallest backward share
        // whose backward pass covers every E_i. The better of the two starts goes on.
        std::vector<Request> second;
        for (auto& [model, f] : fits)
        {
            if (f.Done() || !f.fitShare || f.theta(1) >= kMaxShare)
            {
                continue;
            }
            ns3::ModelProfile p = *ns3::ModelProfile::BuiltIn(model);
            p.SetComputeSeconds(f.theta(0), f.theta(1));
            const double lastTensorBits = 8.0 * p.ReleaseBytes().back();
            double c1 = 0;
            for (const IdlePoint* q : f.points)
            {
                double ringFactor = 2.0 * (q->workers - 1) / q->workers;
                c1 += (q->measuredMeanS - lastTensorBits * ringFactor / kTestbedLinkBps)
                      / f.points.size();
            }
            ns3::ModelProfile p1 = p;
            p1.SetComputeSeconds(std::max(1e-4, c1));
            double s1 = f.theta(1);
            for (size_t i = 0; i < f.points.size(); ++i)
            {
                const IdlePoint* q = f.points[i];
                double t = q->measuredMeanS * (1 + f.residual(i));
                double exposedEnd = t - p.forwardSeconds - p.stepSeconds;
                double pass = p1.forwardSeconds + p1.backwardSeconds;
                double forwardRoom = q->measuredMeanS - p1.stepSeconds - exposedEnd;
                s1 = std::max(s1, 1 - forwardRoom / pass + 0.02);
            }
            Eigen::VectorXd t1 = f.Clamp(Eigen::Vector2d(p1.ComputeSeconds(), s1));
            second.push_back({ &f, t1 });
        }
        if (!second.empty())
        {
            std::vector<Eigen::VectorXd> r1 = evaluate(second);
            for (size_t i = 0; i < second.size(); ++i)
            {
                ModelFit& f = *second[i].first;
                bool better = r1[i].squaredNorm() < f.residual.squaredNorm();
                std::cerr << fmt::format("  {} second start: {}{}\n", f.model,
                                         describe(f, second[i].second, r1[i]),
                                         better ? "" : " (worse: kept the first)");
                if (better)
                {
                    f.theta = second[i].second;
                    f.residual = r1[i];
                    if (f.Matched())
                    {
                        f.stop = "matched at the second start";
                    }
                }
            }
        }

        // The Jacobian by forward differences, once: 3 % of the compute time, 0.03 of share.
        std::vector<Request> probes;
        std::vector<std::pair<ModelFit*, int>> probed;
        for (auto& [model, f] : fits)
        {
            if (f.Done())
            {
                continue;
            }
            f.jacobian.resize(f.points.size(), f.theta.size());
            for (int j = 0; j < f.theta.size(); ++j)
            {
                Eigen::VectorXd t = f.theta;
                t(j) += j == 0 ? 0.03 * t(0) : (t(1) + 0.03 <= kMaxShare ? 0.03 : -0.03);
                probes.push_back({ &f, t });
                probed.push_back({ &f, j });
            }
        }
        std::vector<Eigen::VectorXd> rp = evaluate(probes);
        for (size_t i = 0; i < probes.size(); ++i)
        {
            auto [f, j] = probed[i];
            f->jacobian.col(j) = (rp[i] - f->residual) / (probes[i].second(j) - f->theta(j));
        }

        // Levenberg-Marquardt steps with Broyden updates of the Jacobian.
        for (int step = 1; step <= kMaxSteps; ++step)
        {
            std::vector<Request> trials;
            for (auto& [model, f] : fits)
            {
                if (f.Done())
                {
                    continue;
                }
                const Eigen::MatrixXd& J = f.jacobian;
                Eigen::MatrixXd A = J.transpose() * J;
                Eigen::VectorXd d
                    = A.diagonal().cwiseMax(1e-9 * std::max(1e-12, A.diagonal().maxCoeff()));
                Eigen::VectorXd delta = (A + f.lambda * Eigen::MatrixXd(d.asDiagonal()))
                                            .ldlt()
                                            .solve(-J.transpose() * f.residual);
                Eigen::VectorXd t = f.Clamp(f.theta + delta);
                if ((t - f.theta).cwiseAbs().maxCoeff() < 1e-5)
                {
                    f.stop = "the step became negligible";
                    continue;
                }
                trials.push_back({ &f, t });
            }
            if (trials.empty())
            {
                break;
            }
            std::vector<Eigen::VectorXd> rt = evaluate(trials);
            for (size_t i = 0; i < trials.size(); ++i)
            {
                ModelFit& f = *trials[i].first;
                const Eigen::VectorXd& t = trials[i].second;
                Eigen::VectorXd dt = t - f.theta;
                f.jacobian
                    += (rt[i] - f.residual - f.jacobian * dt) * dt.transpose() / dt.squaredNorm();
                f.steps = step;
                bool better = rt[i].squaredNorm() < f.residual.squaredNorm();
                std::cerr << fmt::format("  {} step {}: {}{}\n", f.model, step,
                                         describe(f, t, rt[i]), better ? "" : " (rejected)");
                if (better)
                {
                    double rmsBefore = std::sqrt(f.residual.squaredNorm() / f.residual.size());
                    double rmsAfter = std::sqrt(rt[i].squaredNorm() / rt[i].size());
                    f.theta = t;
                    f.residual = rt[i];
                    f.lambda = std::max(1e-6, f.lambda / 3);
                    if (f.Matched())
                    {
                        f.stop = "every point within 0.3 %";
                    }
                    else if (rmsBefore - rmsAfter < kMinGain)
                    {
                        // The points cannot all match (e.g. the share at its bound): each
                        // simulation costs minutes, so stop once a step gains next to nothing.
                        f.stop = "a step improved the RMS error by less than 0.1 %";
                    }
                }
                else
                {
                    f.lambda *= 4;
                }
            }
        }

        for (auto& [model, f] : fits)
        {
            if (f.stop.empty())
            {
                f.stop = fmt::format("{} steps done", kMaxSteps);
            }
            json pts = json::array();
            for (size_t i = 0; i < f.points.size(); ++i)
            {
                IdlePoint* p = f.points[i];
                p->simulatedS = p->measuredMeanS * (1 + f.residual(i));
                pts.push_back({ { "series", p->series },
                                { "configuration", p->configuration },
                                { "transport", p->transport },
                                { "workers", p->workers },
                                { "source", p->source },
                                { "measured_mean_s", p->measuredMeanS },
                                { "measured_p99_s", p->measuredP99S },
                                { "simulated_mean_s", p->simulatedS },
                                { "error_percent", 100.0 * f.residual(i) } });
            }
            json fitted = json::array({ "compute_s" });
            if (f.fitShare)
            {
                fitted.push_back("backward_share");
            }
            bool atBound = f.fitShare && (f.theta(1) <= kMinShare || f.theta(1) >= kMaxShare);
            models[model] = { { "compute_s", f.theta(0) },
                              { "backward_share", f.Share(f.theta) },
                              { "compute_jitter_cv", f.JitterCv(f.theta) },
                              { "fitted", fitted },
                              { "fit",
                                { { "steps", f.steps },
                                  { "simulations", f.simulations },
                                  { "stopped", f.stop },
                                  { "backward_share_at_bound", atBound } } },
                              { "points", pts } };
            std::cerr << fmt::format("  {} fitted ({}): {}\n", model, f.stop,
                                     describe(f, f.theta, f.residual));
        }

        if (!tcpReferences.empty() && !checkOnly)
        {
            transports["tcp"] = FitHostCeiling(tcpReferences, models, iterations, jobs);
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: calibration failed: " << e.what() << "\n";
        return 1;
    }
    json out = { { "written_by", "flumen calibrate" },
                 { "iterations_per_run", iterations },
                 { "manifests", manifests },
                 { "models", models } };
    if (!transports.empty())
    {
        out["transports"] = transports;
    }
    flumen::WriteFileAtomically(outPath, out.dump(2) + "\n");
    std::cout << "wrote " << outPath << "\n";
    for (auto& [name, m] : models.items())
    {
        std::cout << fmt::format(
            "  {:<12} compute {:.4f} s, backward share {:.4f}{}, jitter CV {:.4f}\n", name,
            m["compute_s"].get<double>(),
            m.value("backward_share", ns3::ModelProfile::kDefaultBackwardShare),
            m.contains("fitted") && m["fitted"].size() > 1 ? " (fitted)" : "",
            m["compute_jitter_cv"].get<double>());
    }
    if (transports.contains("tcp"))
    {
        std::cout << fmt::format("  tcp          host ceiling {:.3f} Gbps (fitted to near-idle "
                                 "TCP points, not idle runs)\n",
                                 transports["tcp"]["host_ceiling_gbps"].get<double>());
    }
    return 0;
}
