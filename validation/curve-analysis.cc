#include "curve-analysis.h"

#include "summary-statistics.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace flumen
{

namespace
{

struct Line
{
    double slope = 0;
    double intercept = 0;
    double At(double x) const { return intercept + slope * x; }
};

// Least squares through the points [from, to); a horizontal line through one point.
Line
FitLine(const std::vector<CurvePoint>& c, size_t from, size_t to)
{
    size_t n = to - from;
    if (n == 1)
    {
        return { 0, c[from].t };
    }
    double sx = 0;
    double st = 0;
    for (size_t i = from; i < to; ++i)
    {
        sx += c[i].x;
        st += c[i].t;
    }
    double mx = sx / n;
    double mt = st / n;
    double sxx = 0;
    double sxt = 0;
    for (size_t i = from; i < to; ++i)
    {
        sxx += (c[i].x - mx) * (c[i].x - mx);
        sxt += (c[i].x - mx) * (c[i].t - mt);
    }
    double slope = sxx > 0 ? sxt / sxx : 0;
    return { slope, mt - slope * mx };
}

constexpr double kMaxExponent = 700; // exp() overflows a double just above 709

// Parameters of the exponential curve, kept in a space without constraints:
// p = (ln A, B, ln(C - max x), ln n).
struct ExpParams
{
    double lnA;
    double b;
    double lnGap;
    double lnN;
};

double
ExpModel(const ExpParams& p, double xMax, double x)
{
    double c = xMax + std::exp(p.lnGap);
    double u = std::pow(c - x, -std::exp(p.lnN));
    return std::exp(std::min(kMaxExponent, p.lnA + p.b * u));
}

double
Sse(const ExpParams& p, double xMax, const std::vector<CurvePoint>& curve)
{
    double s = 0;
    for (const auto& q : curve)
    {
        double r = ExpModel(p, xMax, q.x) - q.t;
        s += r * r;
    }
    return std::isfinite(s) ? s : std::numeric_limits<double>::infinity();
}

ExpParams
FromVector(const Eigen::Vector4d& v)
{
    return { v(0), v(1), v(2), v(3) };
}

Eigen::Vector4d
ToVector(const ExpParams& p)
{
    return { p.lnA, p.b, p.lnGap, p.lnN };
}

// Levenberg-Marquardt with a forward-difference Jacobian; returns the refined parameters.
ExpParams
Refine(ExpParams start, double xMax, const std::vector<CurvePoint>& curve)
{
    Eigen::Vector4d p = ToVector(start);
    double sse = Sse(start, xMax, curve);
    double lambda = 1e-3;
    const size_t m = curve.size();
    for (int iter = 0; iter < 200 && std::isfinite(sse); ++iter)
    {
        Eigen::MatrixXd j(m, 4);
        Eigen::VectorXd r(m);
        ExpParams here = FromVector(p);
        for (size_t i = 0; i < m; ++i)
        {
            r(i) = ExpModel(here, xMax, curve[i].x) - curve[i].t;
        }
        for (int k = 0; k < 4; ++k)
        {
            Eigen::Vector4d q = p;
            double h = 1e-6 * std::max(1.0, std::abs(p(k)));
            q(k) += h;
            ExpParams there = FromVector(q);
            for (size_t i = 0; i < m; ++i)
            {
                j(i, k) = (ExpModel(there, xMax, curve[i].x) - curve[i].t - r(i)) / h;
            }
        }
        Eigen::Matrix4d jtj = j.transpose() * j;
        Eigen::Vector4d g = j.transpose() * r;
        bool improved = false;
        for (int tries = 0; tries < 12; ++tries)
        {
            Eigen::Matrix4d a = jtj;
            a.diagonal() += lambda * jtj.diagonal().cwiseMax(1e-12);
            Eigen::Vector4d step = a.ldlt().solve(-g);
            if (!step.allFinite())
            {
                lambda *= 10;
                continue;
            }
            double candidate = Sse(FromVector(p + step), xMax, curve);
            if (candidate < sse)
            {
                double gain = (sse - candidate) / std::max(sse, 1e-300);
                p += step;
                sse = candidate;
                lambda = std::max(1e-12, lambda / 3);
                improved = true;
                if (gain < 1e-12)
                {
                    return FromVector(p);
                }
                break;
            }
            lambda *= 10;
        }
        if (!improved)
        {
            break;
        }
    }
    return FromVector(p);
}

} // namespace

CongestionPoint
FindCongestionPoint(std::vector<CurvePoint> curve, double tolerance, size_t tangentPoints)
{
    CongestionPoint cp;
    std::sort(curve.begin(), curve.end(),
              [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
    if (curve.size() < 3 || tangentPoints < 1)
    {
        return cp;
    }
    // Grow the flat region while the next point lies on the line through those before it.
    size_t flat = 2;
    while (flat < curve.size())
    {
        Line l = FitLine(curve, 0, flat);
        double predicted = l.At(curve[flat].x);
        if (curve[flat].t > predicted * (1 + tolerance))
        {
            break;
        }
        ++flat;
    }
    cp.flatPoints = flat;
    if (flat >= curve.size())
    {
        return cp;
    }
    Line flatLine = FitLine(curve, 0, flat);
    size_t end = std::min(curve.size(), flat + tangentPoints);
    Line tangent
        = end - flat >= 2
              ? FitLine(curve, flat, end)
              : Line{ (curve[flat].t - curve[flat - 1].t) / (curve[flat].x - curve[flat - 1].x),
                      0 };
    if (end - flat < 2)
    {
        tangent.intercept = curve[flat].t - tangent.slope * curve[flat].x;
    }
    if (!(tangent.slope > flatLine.slope))
    {
        return cp;
    }
    double x = (flatLine.intercept - tangent.intercept) / (tangent.slope - flatLine.slope);
    if (!std::isfinite(x) || x < curve.front().x)
    {
        return cp;
    }
    cp.found = true;
    cp.x = x;
    cp.t = flatLine.At(x);
    return cp;
}

double
ExpFit::Evaluate(double x) const
{
    if (!ok || x >= c)
    {
        return std::numeric_limits<double>::infinity();
    }
    return a * std::exp(b / std::pow(c - x, n));
}

ExpFit
FitExpCurve(const std::vector<CurvePoint>& curve)
{
    ExpFit fit;
    if (curve.size() < 4)
    {
        return fit;
    }
    double xMax = curve.front().x;
    double mean = 0;
    for (const auto& q : curve)
    {
        if (!(q.t > 0) || !std::isfinite(q.x))
        {
            return fit;
        }
        xMax = std::max(xMax, q.x);
        mean += q.t / curve.size();
    }
    double sst = 0;
    for (const auto& q : curve)
    {
        sst += (q.t - mean) * (q.t - mean);
    }
    // Starting points: for a fixed C and n, ln t = ln A + B u with u = (C - x)^-n is linear.
    ExpParams best{ std::log(mean), 0, 0, 0 };
    double bestSse = Sse(best, xMax, curve);
    for (double gap : { 0.1, 0.3, 1.0, 3.0, 10.0, 30.0 })
    {
        for (double n : { 0.5, 1.0, 2.0, 4.0 })
        {
            Eigen::MatrixXd a(curve.size(), 2);
            Eigen::VectorXd y(curve.size());
            for (size_t i = 0; i < curve.size(); ++i)
            {
                a(i, 0) = 1;
                a(i, 1) = std::pow(xMax + gap - curve[i].x, -n);
                y(i) = std::log(curve[i].t);
            }
            Eigen::Vector2d s = a.colPivHouseholderQr().solve(y);
            ExpParams start{ s(0), s(1), std::log(gap), std::log(n) };
            ExpParams refined = Refine(start, xMax, curve);
            double sse = Sse(refined, xMax, curve);
            if (sse < bestSse)
            {
                bestSse = sse;
                best = refined;
            }
        }
    }
    if (!std::isfinite(bestSse))
    {
        return fit;
    }
    fit.ok = true;
    fit.a = std::exp(best.lnA);
    fit.b = best.b;
    fit.c = xMax + std::exp(best.lnGap);
    fit.n = std::exp(best.lnN);
    fit.r2 = sst > 0 ? 1 - bestSse / sst : kUnknown;
    return fit;
}

double
KolmogorovSmirnov(std::vector<double> samples, std::vector<CdfPoint> cdf)
{
    if (samples.empty() || cdf.empty())
    {
        return kUnknown;
    }
    std::sort(samples.begin(), samples.end());
    std::sort(cdf.begin(), cdf.end(),
              [](const CdfPoint& a, const CdfPoint& b) { return a.seconds < b.seconds; });
    // Both are step functions, right-continuous; the supremum is reached at a jump of one of
    // them, either at the jump or just before it.
    auto measured = [&](double x, bool before)
    {
        // The fraction of the last step at or before x (strictly before when `before`).
        auto it = before
                      ? std::lower_bound(cdf.begin(), cdf.end(), x,
                                         [](const CdfPoint& c, double v) { return c.seconds < v; })
                      : std::upper_bound(cdf.begin(), cdf.end(), x,
                                         [](double v, const CdfPoint& c) { return v < c.seconds; });
        return it == cdf.begin() ? 0.0 : std::prev(it)->fraction;
    };
    auto simulated = [&](double x, bool before)
    {
        auto it = before ? std::lower_bound(samples.begin(), samples.end(), x)
                         : std::upper_bound(samples.begin(), samples.end(), x);
        return static_cast<double>(it - samples.begin()) / samples.size();
    };
    double d = 0;
    std::vector<double> jumps = samples;
    for (const auto& c : cdf)
    {
        jumps.push_back(c.seconds);
    }
    for (double x : jumps)
    {
        d = std::max(d, std::abs(measured(x, false) - simulated(x, false)));
        d = std::max(d, std::abs(measured(x, true) - simulated(x, true)));
    }
    return d;
}

double
BaselineExposed(double t0, double bits, double linkBps, double crossBps)
{
    if (crossBps >= linkBps)
    {
        return std::numeric_limits<double>::infinity();
    }
    return (t0 - bits / linkBps) + bits / (linkBps - crossBps);
}

double
BaselineHidden(double t0, double bits, double linkBps, double crossBps)
{
    if (crossBps >= linkBps)
    {
        return std::numeric_limits<double>::infinity();
    }
    return std::max(t0, bits / (linkBps - crossBps));
}

namespace
{

SummaryStatistics
SummarizeAbs(std::vector<double> values)
{
    for (auto& v : values)
    {
        v = std::abs(v);
    }
    return Summarize(std::move(values));
}

} // namespace

double
MedianAbs(std::vector<double> values)
{
    return values.empty() ? kUnknown : SummarizeAbs(std::move(values)).p50;
}

double
MeanAbs(const std::vector<double>& values)
{
    return values.empty() ? kUnknown : SummarizeAbs(values).mean;
}

} // namespace flumen
