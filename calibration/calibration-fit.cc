#include "calibration-fit.h"

#include "atomic-file.h"

#include "ns3/model-profile.h"

#include <Eigen/Dense>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <set>

namespace flumen
{

using nlohmann::json;

namespace
{

// Bounds of the backward share: the backward pass is at least as long as the forward (it
// does about twice its FLOPs) and the forward pass is not negligible.
constexpr double kMinShare = 0.5;
constexpr double kMaxShare = 0.95;
constexpr double kTestbedLinkBps = 25e9; //!< for the second start's guess only

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

} // namespace

void
FitModelProfiles(std::vector<IdlePoint>& points, json& models, uint32_t iterations, unsigned jobs,
                 bool checkOnly)
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
        f.theta = f.fitShare
                      ? Eigen::Vector2d(profile.ComputeSeconds(),
                                        std::clamp(profile.BackwardShare(), kMinShare, kMaxShare))
                      : Eigen::VectorXd::Constant(1, profile.ComputeSeconds());
    }

    // Simulates every point of each requested (fit, parameters) in parallel children and
    // returns the relative errors, one vector per request.
    using Request = std::pair<ModelFit*, Eigen::VectorXd>;
    auto evaluate = [&](const std::vector<Request>& requests)
    {
        std::vector<IdleRun> runs;
        for (const auto& [f, t] : requests)
        {
            for (const IdlePoint* p : f->points)
            {
                runs.push_back({ p, t(0), f->Share(t), f->JitterCv(t) });
            }
            f->simulations += static_cast<int>(f->points.size());
        }
        std::vector<double> means = SimulateIdleRuns(runs, iterations, jobs);
        std::vector<Eigen::VectorXd> out;
        size_t k = 0;
        for (const auto& [f, t] : requests)
        {
            Eigen::VectorXd r(f->points.size());
            for (size_t i = 0; i < f->points.size(); ++i, ++k)
            {
                double m = f->points[i]->measuredMeanS;
                r(i) = (means[k] - m) / m;
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
            std::cerr << fmt::format("  {} step {}: {}{}\n", f.model, step, describe(f, t, rt[i]),
                                     better ? "" : " (rejected)");
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
}

void
WriteCalibrationFile(const std::string& path, uint32_t iterations,
                     const std::vector<std::string>& manifests, const json& models,
                     const json& transports, const std::string& engine, const json& testbed)
{
    json out = { { "written_by", "flumen calibrate" },
                 { "engine", engine },
                 { "iterations_per_run", iterations },
                 { "manifests", manifests },
                 { "models", models } };
    if (!transports.empty())
    {
        out["transports"] = transports;
    }
    if (!testbed.empty())
    {
        out["testbed"] = testbed;
    }
    WriteFileAtomically(path, out.dump(2) + "\n");
}

std::string
DescribeCalibration(const json& models, const json& transports)
{
    std::string text;
    for (const auto& [name, m] : models.items())
    {
        text
            += fmt::format("  {:<12} compute {:.4f} s, backward share {:.4f}{}, jitter CV {:.4f}\n",
                           name, m["compute_s"].get<double>(),
                           m.value("backward_share", ns3::ModelProfile::kDefaultBackwardShare),
                           m.contains("fitted") && m["fitted"].size() > 1 ? " (fitted)" : "",
                           m["compute_jitter_cv"].get<double>());
    }
    if (transports.contains("tcp"))
    {
        text += fmt::format("  tcp          host ceiling {:.3f} Gbps (fitted to near-idle "
                            "TCP points, not idle runs)\n",
                            transports["tcp"]["host_ceiling_gbps"].get<double>());
    }
    return text;
}

} // namespace flumen
