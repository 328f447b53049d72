#include "split-fit.h"

#include "calibration-file.h"
#include "calibration-fit.h"
#include "calibration-plan.h"

#include "ns3/model-profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <stdexcept>

namespace flumen
{

using nlohmann::json;

namespace
{

constexpr int kIdleSteps = 8; //!< corrections of the compute time per candidate, at most

// The compute time a model starts from: the calibration file's, else its built-in profile's.
double
BaseComputeS(const std::string& model, const json* calibration)
{
    if (calibration && (*calibration)["models"].contains(model))
    {
        return (*calibration)["models"][model]["compute_s"].get<double>();
    }
    return ns3::ModelProfile::BuiltIn(model)->ComputeSeconds();
}

// For each share, the compute time (and jitter) that matches the model's idle runs: a secant
// search on the mean idle error. The first step takes the error off the compute time one for one;
// then the slope comes from the last two steps (where the ring is exposed, only the forward pass
// and the step lengthen the iteration, so it is below one). Until every run is within kTolerance.
class IdleHold
{
  public:
    IdleHold(std::vector<IdlePoint> points, double startComputeS, uint32_t iterations,
             unsigned jobs)
        : m_points(std::move(points)), m_start(startComputeS), m_iterations(iterations),
          m_jobs(jobs)
    {
    }

    std::vector<json> operator()(const std::vector<json>& candidates)
    {
        const size_t n = candidates.size();
        std::vector<double> share(n), compute(n, m_start), jitter(n);
        std::vector<double> lastCompute(n, std::nan("")), lastResidual(n, 0);
        std::vector<bool> done(n, false);
        std::vector<std::vector<double>> errors(n);
        for (size_t i = 0; i < n; ++i)
        {
            share[i] = candidates[i]["job.backward_share"].get<double>();
            double sum = 0;
            for (const IdlePoint& p : m_points)
            {
                sum += JitterCvFor(p.spread, share[i]);
            }
            jitter[i] = sum / m_points.size();
        }
        for (int step = 0; step < kIdleSteps; ++step)
        {
            std::vector<IdleRun> runs;
            std::vector<size_t> of;
            for (size_t i = 0; i < n; ++i)
            {
                if (done[i])
                {
                    continue;
                }
                for (const IdlePoint& p : m_points)
                {
                    runs.push_back({ &p, compute[i], share[i], jitter[i], 0 });
                    of.push_back(i);
                }
            }
            if (runs.empty())
            {
                break;
            }
            const std::vector<double> means = SimulateIdleRuns(runs, m_iterations, m_jobs);
            for (size_t i = 0, k = 0; i < n; ++i)
            {
                if (done[i])
                {
                    continue;
                }
                double residual = 0;
                bool matched = true;
                errors[i].clear();
                for (const IdlePoint& p : m_points)
                {
                    const double sim = means[k++];
                    residual += p.measuredMeanS - sim;
                    errors[i].push_back(100 * (sim / p.measuredMeanS - 1));
                    matched = matched && std::abs(sim / p.measuredMeanS - 1) <= kTolerance;
                }
                if (matched || step + 1 == kIdleSteps)
                {
                    done[i] = true;
                    continue;
                }
                residual /= m_points.size();
                double slope = 1;
                if (std::isfinite(lastCompute[i]) && compute[i] != lastCompute[i])
                {
                    // d(simulated)/d(compute) = -d(residual)/d(compute).
                    slope = std::clamp((lastResidual[i] - residual) / (compute[i] - lastCompute[i]),
                                       0.05, 2.0);
                }
                lastCompute[i] = compute[i];
                lastResidual[i] = residual;
                compute[i] = std::max(1e-4, compute[i] + residual / slope);
            }
        }
        std::vector<json> out;
        for (size_t i = 0; i < n; ++i)
        {
            m_errors[candidates[i].dump()] = errors[i];
            out.push_back(
                { { "job.compute_s", compute[i] }, { "job.compute_jitter_cv", jitter[i] } });
        }
        return out;
    }

    /** The idle runs' errors (%) at a candidate worked out before. */
    const std::vector<double>& Errors(const json& candidate) const
    {
        return m_errors.at(candidate.dump());
    }
    const std::vector<IdlePoint>& Points() const { return m_points; }

  private:
    std::vector<IdlePoint> m_points;
    double m_start;
    uint32_t m_iterations;
    unsigned m_jobs;
    std::map<std::string, std::vector<double>> m_errors;
};

} // namespace

SearchDimension
ParseSplitRange(const std::string& text)
{
    const auto colon = text.find(':');
    if (colon == std::string::npos)
    {
        throw std::invalid_argument(
            fmt::format("--fit-split '{}': expected lo:hi, backward shares in (0, 0.98]", text));
    }
    SearchDimension d;
    d.lo = ParseNumber(text.substr(0, colon), "--fit-split lo");
    d.hi = ParseNumber(text.substr(colon + 1), "--fit-split hi");
    if (!(d.lo > 0 && d.lo < d.hi && d.hi <= 0.98))
    {
        throw std::invalid_argument(fmt::format(
            "--fit-split: expected 0 < lo < hi <= 0.98 (backward shares), got {}:{}", d.lo, d.hi));
    }
    return d;
}

SplitFit
FitSplits(const SplitFitRequest& r)
{
    SplitFit out;
    json calibration;
    if (!r.base.calibrationFile.empty())
    {
        calibration = LoadCalibration(r.base.calibrationFile);
    }
    // The models with loaded points in the series fitted on, and runs without cross traffic.
    std::set<std::string> loaded;
    for (const auto& pp : PlanValidation(r.base).points)
    {
        const ValidatedPoint& v = pp.point;
        if (v.testbed && !v.idle && !v.calibration)
        {
            loaded.insert(v.model);
            if (std::find(out.series.begin(), out.series.end(), v.series) == out.series.end())
            {
                out.series.push_back(v.series);
            }
        }
    }
    const CalibrationPoints all = LoadCalibrationPoints(r.base.manifests, r.base.settings);
    for (const std::string& model : loaded)
    {
        std::vector<IdlePoint> idle;
        for (IdlePoint p : all.idle)
        {
            if (p.model == model)
            {
                p.testbedSettings["simulation"]["engine"] = r.base.engine;
                idle.push_back(p);
            }
        }
        if (idle.empty())
        {
            std::cerr << fmt::format("{}: {}: no run without cross traffic to hold; not fitted\n",
                                     r.label, model);
            continue;
        }
        auto hold = std::make_shared<IdleHold>(
            idle, BaseComputeS(model, calibration.is_null() ? nullptr : &calibration),
            r.idleIterations, r.base.jobs);
        TestbedFitRequest t;
        t.base = r.base;
        t.base.models = { model };
        FitParameter share;
        share.key = "job.backward_share";
        share.range = r.share;
        t.parameters = { share };
        t.derive = [hold](const std::vector<json>& c) { return (*hold)(c); };
        // Where no compute time matches every idle run at a share (an exposed ring's volume
        // grows with the workers, the testbed's idle times do not), the mismatch counts as the
        // loaded points' errors do: the mean square of log(simulated / measured), weighted as
        // the mean term.
        const double weight = r.weights.mean;
        t.extraLoss = [hold, weight](const json& values)
        {
            double sum = 0;
            const std::vector<double>& errors = hold->Errors(values);
            for (double e : errors)
            {
                sum += std::pow(std::log1p(e / 100), 2);
            }
            return errors.empty() ? 0.0 : weight * sum / errors.size();
        };
        t.weights = r.weights;
        t.search = r.search;
        t.pointsDir = r.pointsDir;
        t.label = fmt::format("{} {}", r.label, model);
        ModelSplit m;
        m.model = model;
        m.fit = FitTestbed(t);
        m.backwardShare = m.fit.values["job.backward_share"].get<double>();
        m.computeS = m.fit.derived["job.compute_s"].get<double>();
        m.jitterCv = m.fit.derived["job.compute_jitter_cv"].get<double>();
        const std::vector<double>& errors = hold->Errors(m.fit.values);
        for (size_t k = 0; k < idle.size(); ++k)
        {
            m.idleErrors.emplace_back(idle[k].series, errors.at(k));
        }
        out.coreSeconds += m.fit.coreSeconds;
        std::string held;
        for (const auto& [series, e] : m.idleErrors)
        {
            held += fmt::format("{}{} {:+.2f} %", held.empty() ? "" : ", ", series, e);
        }
        std::cerr << fmt::format("{}: {}: backward share {:.4f}, compute {:.6f} s (idle runs: {}), "
                                 "loss {:.5f} (start {:.5f})\n",
                                 r.label, model, m.backwardShare, m.computeS, held,
                                 m.fit.bestTerms.loss, m.fit.startTerms.loss);
        out.models.push_back(std::move(m));
    }
    return out;
}

json
SplitCalibration(const json& base, const SplitFit& fit, const SplitFitRequest& r)
{
    json c = base.is_null() ? json{ { "models", json::object() } } : base;
    for (const ModelSplit& m : fit.models)
    {
        json& entry = c["models"][m.model];
        entry["compute_s"] = m.computeS;
        entry["backward_share"] = m.backwardShare;
        entry["compute_jitter_cv"] = m.jitterCv;
        json idle = json::array();
        for (const auto& [series, error] : m.idleErrors)
        {
            idle.push_back({ { "series", series }, { "error_percent", error } });
        }
        entry["split_fit"] = TestbedFitJson(m.fit,
                                            [&]
                                            {
                                                TestbedFitRequest t;
                                                t.base = r.base;
                                                FitParameter share;
                                                share.key = "job.backward_share";
                                                share.range = r.share;
                                                t.parameters = { share };
                                                t.weights = r.weights;
                                                t.search = r.search;
                                                return t;
                                            }());
        entry["split_fit"]["idle_runs"] = idle;
        entry["split_fit"]["held"] = "compute_s and compute_jitter_cv solved on the model's runs "
                                     "without cross traffic for each candidate share";
    }
    return c;
}

} // namespace flumen
