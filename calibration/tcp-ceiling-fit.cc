#include "calibration-fit.h"

#include "ns3/model-profile.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>

namespace flumen
{

using nlohmann::json;

namespace
{

constexpr double kStartCeilingGbps = 10; //!< "roughly 10 Gbps" (DESIGN.md): the start only

} // namespace

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
        std::vector<IdleRun> runs;
        for (double h : ceilings)
        {
            for (size_t i = 0; i < refs.size(); ++i)
            {
                Setting st = settings[i];
                runs.push_back({ &refs[i], st.c, st.share, st.cv, h });
            }
        }
        std::vector<double> means = SimulateIdleRuns(runs, iterations, jobs);
        std::vector<Eigen::VectorXd> out;
        for (size_t k = 0; k < ceilings.size(); ++k)
        {
            Eigen::VectorXd r(refs.size());
            for (size_t i = 0; i < refs.size(); ++i)
            {
                double m = refs[i].measuredMeanS;
                r(i) = (means[k * refs.size() + i] - m) / m;
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

} // namespace flumen
