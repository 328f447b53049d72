// Analysis of an iteration-time curve t(x) against cross traffic x, as the validation report
// needs it: the thesis's congestion point, the fit t = A exp(B / (C - x)^n), the
// Kolmogorov-Smirnov distance between two iteration-time distributions, and the two
// closed-form baselines a user would otherwise reach for.
#ifndef FLUMEN_CURVE_ANALYSIS_H
#define FLUMEN_CURVE_ANALYSIS_H

#include "testbed-readers.h"

#include <string>
#include <vector>

namespace flumen
{

struct CurvePoint
{
    double x = 0; //!< cross traffic, Gbps
    double t = 0; //!< mean iteration time, s
};

/**
 * The congestion point by the thesis's method (Appendix A.2), automated: the flat region is
 * the longest prefix (sorted by x, at least 2 points) in which every point lies within
 * `tolerance` (relative) of the least-squares line through the points before it; the tangent
 * is the least-squares line through the first `tangentPoints` points after it. The congestion
 * point is the intersection of the two lines (both coordinates). Not found when no point
 * leaves the flat region or the lines do not cross to the right of the first point.
 */
struct CongestionPoint
{
    bool found = false;
    double x = kUnknown;
    double t = kUnknown;
    size_t flatPoints = 0;
};
CongestionPoint FindCongestionPoint(std::vector<CurvePoint> curve, double tolerance = 0.05,
                                    size_t tangentPoints = 3);

/** t(x) = A exp(B / (C - x)^n), C above every x; least squares on t (Levenberg-Marquardt). */
struct ExpFit
{
    bool ok = false;
    double a = kUnknown;
    double b = kUnknown;
    double c = kUnknown;
    double n = kUnknown;
    double r2 = kUnknown;
    double Evaluate(double x) const;
};
ExpFit FitExpCurve(const std::vector<CurvePoint>& curve);

/**
 * Kolmogorov-Smirnov distance sup |F(x) - G(x)| between the empirical distribution of
 * `samples` and a measured CDF given as (value, cumulative fraction) steps.
 */
double KolmogorovSmirnov(std::vector<double> samples, std::vector<CdfPoint> cdf);

/**
 * Closed-form baselines from an idle iteration time t0, the bits D each worker sends per
 * iteration, the link rate C and cross traffic x (bits per second); infinite at x >= C.
 * Exposed: communication never overlaps, t = (t0 - D/C) + D/(C - x).
 * Hidden: communication hides behind compute until it is longer, t = max(t0, D/(C - x)).
 */
double BaselineExposed(double t0, double bits, double linkBps, double crossBps);
double BaselineHidden(double t0, double bits, double linkBps, double crossBps);

/** Median and mean of |values| (NaN when empty). */
double MedianAbs(std::vector<double> values);
double MeanAbs(const std::vector<double>& values);

} // namespace flumen

#endif
