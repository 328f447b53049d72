// flumen-calibrate: derives each model's compute time (forward + backward + step) and
// compute jitter from the testbed runs without cross traffic, by simulation.
// `./flumen calibrate MANIFEST... --out calibration.json [--iterations N]`
//
// For every idle run (index 0) of every manifest, the idle scenario of that series
// (configuration, transport, workers) is simulated and the compute time searched by the
// secant method until the simulated mean iteration time matches the measured one (0.3 %).
// A model measured in several series gets the least-squares compute time over them (each
// point weighted by the local slope of simulated time against compute time), and the
// simulated idle time of every point at that value is reported beside the measurement.
// The jitter CV comes from the same runs: the gap between mean and p99, read as a normal
// distribution of the iteration, divided by 0.745 (three independently jittered phases in
// the 1 : 2 : small split of the profiles).
// Exit codes: 0 done, 2 bad input, 1 a simulation failed. Nothing is written on failure.
#include "atomic-file.h"
#include "scenario-runner.h"
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
#include <string>
#include <vector>

using nlohmann::json;

namespace
{

const char* kUsage
    = "usage: flumen calibrate MANIFEST... --out calibration.json [--iterations N]\n";

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
    double jitterCv = 0;
    double computeS = 0;   //!< compute time at which this point alone matches
    double slope = 1;      //!< d(simulated mean) / d(compute)
    double simulatedS = 0; //!< at the model's combined compute time
};

double
SimulateIdle(const IdlePoint& p, double computeS, uint32_t iterations)
{
    json user = { { "name", "calibrate-" + p.series + "-" + p.model },
                  { "topology", { { "configuration", p.configuration } } },
                  { "job",
                    { { "model", p.model },
                      { "transport", p.transport },
                      { "iterations", iterations },
                      { "warmup_iterations", 1 },
                      { "compute_s", computeS },
                      { "compute_jitter_cv", p.jitterCv } } },
                  { "cross_traffic", { { "type", "none" } } },
                  { "outputs", { { "link_bin_us", 0 } } },
                  { "simulation", { { "progress_interval_s", 0 } } } };
    flumen::Scenario s = flumen::ResolveScenario(user, p.source);
    const size_t workers = ns3::StarTopologyHelper::JobHosts(s.configuration).size();
    if (workers != static_cast<size_t>(p.workers))
    {
        throw std::runtime_error(fmt::format("{}: the series has {} workers; configuration {} "
                                             "runs the job on {}",
                                             p.source, p.workers, p.configuration, workers));
    }
    flumen::RunOutput out = flumen::RunScenario(s);
    return out.summary["iteration_time_s"]["mean"].get<double>();
}

void
FitPoint(IdlePoint& p, uint32_t iterations)
{
    // Start from the model's profile; the secant converges in two or three runs because the
    // simulated time grows almost one for one with the compute time.
    double c0 = ns3::ModelProfile::BuiltIn(p.model)->ComputeSeconds();
    double t0 = SimulateIdle(p, c0, iterations);
    double c1 = std::max(1e-4, c0 + (p.measuredMeanS - t0));
    double t1 = SimulateIdle(p, c1, iterations);
    for (int k = 0; k < 4 && std::abs(t1 - p.measuredMeanS) > 0.003 * p.measuredMeanS; ++k)
    {
        double slope = (t1 - t0) / (c1 - c0);
        if (!(slope > 0.05))
        {
            slope = 1.0;
        }
        double c2 = std::max(1e-4, c1 + (p.measuredMeanS - t1) / slope);
        c0 = c1;
        t0 = t1;
        c1 = c2;
        t1 = SimulateIdle(p, c1, iterations);
    }
    p.slope = std::abs(c1 - c0) > 1e-9 ? (t1 - t0) / (c1 - c0) : 1.0;
    if (!(p.slope > 0.05))
    {
        p.slope = 1.0;
    }
    p.computeS = c1 + (p.measuredMeanS - t1) / p.slope;
    std::cerr << fmt::format("  {} {}: measured {:.4f} s -> compute {:.4f} s (simulated {:.4f} "
                             "at {:.4f})\n",
                             p.series, p.model, p.measuredMeanS, p.computeS, t1, c1);
}

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

} // namespace

int
main(int argc, char** argv)
{
    std::vector<std::string> manifests;
    std::string outPath;
    uint32_t iterations = 4;
    unsigned jobs = std::max(1u, static_cast<unsigned>(sysconf(_SC_NPROCESSORS_ONLN)));
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if ((a == "--out" || a == "--iterations") && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
            {
                outPath = v;
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

    std::vector<IdlePoint> points;
    try
    {
        for (const auto& m : manifests)
        {
            flumen::Series series = flumen::LoadSeries(m);
            bool any = false;
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
                IdlePoint p;
                p.series = series.name;
                p.configuration = series.configuration;
                p.transport = series.transport;
                p.workers = series.workers;
                p.model = sp.model;
                p.measuredMeanS = sp.meanS;
                p.measuredP99S = sp.p99S;
                p.source = sp.source;
                double spread = std::max(0.0, sp.p99S - sp.meanS) / sp.meanS;
                p.jitterCv = std::min(0.3, spread / 2.326 / 0.745);
                points.push_back(p);
                any = true;
            }
            if (!any)
            {
                std::cerr << "flumen: note: " << m
                          << " has no run without cross traffic: nothing to calibrate from it\n";
            }
        }
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen: " << e.what() << "\n";
        return 2;
    }
    if (points.empty())
    {
        std::cerr << "flumen: no run without cross traffic in the manifests given\n";
        return 2;
    }

    json models = json::object();
    try
    {
        std::vector<std::function<json()>> fits;
        for (auto& p : points)
        {
            fits.push_back(
                [p, iterations]() mutable
                {
                    FitPoint(p, iterations);
                    return json{ { "compute_s", p.computeS }, { "slope", p.slope } };
                });
        }
        std::vector<json> fitted = RunInChildren(fits, jobs);
        for (size_t i = 0; i < points.size(); ++i)
        {
            points[i].computeS = fitted[i]["compute_s"].get<double>();
            points[i].slope = fitted[i]["slope"].get<double>();
        }
        std::map<std::string, std::vector<IdlePoint*>> byModel;
        for (auto& p : points)
        {
            byModel[p.model].push_back(&p);
        }
        for (auto& [model, ps] : byModel)
        {
            // Least squares for one compute time c: minimise sum (slope_i (c - c_i))^2.
            Eigen::VectorXd a(ps.size());
            Eigen::VectorXd b(ps.size());
            double cv = 0;
            for (size_t i = 0; i < ps.size(); ++i)
            {
                a(i) = ps[i]->slope;
                b(i) = ps[i]->slope * ps[i]->computeS;
                cv += ps[i]->jitterCv / ps.size();
            }
            double c = a.colPivHouseholderQr().solve(b)(0);
            std::vector<std::function<json()>> checks;
            for (auto* p : ps)
            {
                IdlePoint check = *p;
                check.jitterCv = cv;
                checks.push_back(
                    [check, c, iterations] {
                        return json{ { "mean_s", SimulateIdle(check, c, iterations) } };
                    });
            }
            std::vector<json> checked = RunInChildren(checks, jobs);
            json pts = json::array();
            for (size_t i = 0; i < ps.size(); ++i)
            {
                IdlePoint* p = ps[i];
                p->simulatedS = checked[i]["mean_s"].get<double>();
                pts.push_back({ { "series", p->series },
                                { "configuration", p->configuration },
                                { "transport", p->transport },
                                { "workers", p->workers },
                                { "source", p->source },
                                { "measured_mean_s", p->measuredMeanS },
                                { "measured_p99_s", p->measuredP99S },
                                { "point_compute_s", p->computeS },
                                { "simulated_mean_s", p->simulatedS },
                                { "error_percent", 100.0 * (p->simulatedS - p->measuredMeanS)
                                                       / p->measuredMeanS } });
                std::cerr << fmt::format("  {} {}: compute {:.4f} s gives {:.4f} s vs measured "
                                         "{:.4f} s ({:+.2f} %)\n",
                                         p->series, model, c, p->simulatedS, p->measuredMeanS,
                                         100.0 * (p->simulatedS - p->measuredMeanS)
                                             / p->measuredMeanS);
            }
            models[model] = { { "compute_s", c }, { "compute_jitter_cv", cv }, { "points", pts } };
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
    flumen::WriteFileAtomically(outPath, out.dump(2) + "\n");
    std::cout << "wrote " << outPath << "\n";
    for (auto& [name, m] : models.items())
    {
        std::cout << fmt::format("  {:<12} compute {:.4f} s, jitter CV {:.4f}\n", name,
                                 m["compute_s"].get<double>(),
                                 m["compute_jitter_cv"].get<double>());
    }
    return 0;
}
