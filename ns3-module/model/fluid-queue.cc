#include "fluid-queue.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

double
WindowRateBps(const WindowAtPort& w, double capacityBps, double queueBits)
{
    const double rtt = w.baseRttS + queueBits / capacityBps;
    const double byWindow = rtt > 0 ? w.windowBits / rtt : std::numeric_limits<double>::infinity();
    return std::min(w.capBps, byWindow);
}

double
FifoQueueBits(double capacityBps, double pacedBps, const std::vector<WindowAtPort>& windows,
              double backlogBits)
{
    auto demand = [&](double q)
    {
        double d = pacedBps;
        for (const WindowAtPort& w : windows)
        {
            d += WindowRateBps(w, capacityBps, q);
        }
        return d;
    };
    // f(Q) = Q (1 - D(Q) / C) - backlog: negative up to where the window and paced flows alone
    // fill the port, increasing beyond (D falls as Q grows).
    auto f = [&](double q) { return q * (1 - demand(q) / capacityBps) - backlogBits; };
    if (backlogBits <= 0 && demand(0) <= capacityBps)
    {
        return 0;
    }
    // One uncapped window aggregate (the usual case: every TCP flow behind the port has one
    // base round trip b): Q (a - S / (C b + Q)) = B with a = 1 - P / C is a quadratic,
    // a Q^2 + (a C b - B - S) Q - B C b = 0; its positive root.
    const double a = 1 - pacedBps / capacityBps;
    if (windows.size() == 1 && std::isinf(windows[0].capBps) && a > 1e-9)
    {
        const double cb = capacityBps * windows[0].baseRttS;
        const double beta = a * cb - backlogBits - windows[0].windowBits;
        return (-beta + std::sqrt(beta * beta + 4 * a * backlogBits * cb)) / (2 * a);
    }
    double held = backlogBits;
    for (const WindowAtPort& w : windows)
    {
        held += w.windowBits;
    }
    // Above the root: every window and the backlog in the queue, and room for the paced flows'
    // share (when paced flows alone overfill the port there is no fixed point: the bound).
    const double pacedShare = std::min(pacedBps / capacityBps, 0.999);
    double lo = 0;
    double hi = held / (1 - pacedShare) + 1;
    if (f(hi) < 0)
    {
        return hi;
    }
    for (int i = 0; i < 60 && hi - lo > 1e-7 * hi; ++i)
    {
        const double mid = 0.5 * (lo + hi);
        (f(mid) < 0 ? lo : hi) = mid;
    }
    return hi;
}

} // namespace ns3
