/*
 * The standing queue of a saturated FIFO switch port in the flow-level engine, from what the
 * flows through it hold there (docs/flow-engine.md, "FIFO queues").
 *
 * A window-limited flow (TCP) keeps its window in flight: where the port is saturated nearly
 * all of it waits in the queue, so it is served at window / (base RTT + queueing delay), its
 * share of a FIFO. An unresponsive flow (RoCE that nothing marks) pushes at line rate whatever
 * the queue; its backlog is what it has pushed and the port has not yet served. Paced flows
 * keep their pace (their window covers it). The queue Q (bits) is then the fixed point
 *
 *     Q = backlog + (Q / C) * D(Q),   D(Q) = paced + sum_w min(cap_w, window_w / (base_w + Q / C))
 *
 * (the window and paced flows' bytes in the queue are their rate times the queueing delay):
 * Q (1 - D(Q) / C) = backlog. Without backlog Q is where the window flows alone fill the port
 * (0 when they cannot); with backlog, the unresponsive flows are served C - D(Q) = C backlog / Q,
 * their share of the queue.
 */
#ifndef FLUMEN_FLUID_QUEUE_H
#define FLUMEN_FLUID_QUEUE_H

#include <algorithm>
#include <vector>

namespace ns3
{

/** A window-limited flow at a FIFO port, in bits on the wire. */
struct WindowAtPort
{
    double windowBits; //!< its window, with its headers
    double baseRttS;   //!< its round trip without this port's queue
    double capBps;     //!< its rate limit elsewhere (a host ceiling), on the wire
};

/**
 * The queue (bits) of a FIFO port of `capacityBps` holding `backlogBits` of unresponsive flows
 * beside these window flows and `pacedBps` of paced ones.
 */
double FifoQueueBits(double capacityBps, double pacedBps, const std::vector<WindowAtPort>& windows,
                     double backlogBits);

/** A window flow's rate (bits per second on the wire) behind a queue of `queueBits`. */
double WindowRateBps(const WindowAtPort& w, double capacityBps, double queueBits);

/**
 * A level (a host buffer's occupancy) of `q` at time `from`, changing by `slope` per second
 * between empty and `full`: what it holds at a time and over an interval, for the engine's
 * queue statistics and for link.csv's bins alike.
 */
struct LinearLevel
{
    double q;
    double slope;
    double from;
    double full;

    double At(double t) const { return std::clamp(q + slope * (t - from), 0.0, full); }
    /** Its integral over [a, b]: linear up to where it empties or fills, then flat. */
    double Integral(double a, double b) const
    {
        if (slope == 0)
        {
            return At(a) * (b - a);
        }
        const double bound = from + ((slope < 0 ? 0.0 : full) - q) / slope;
        const double m = std::clamp(bound, a, b);
        return 0.5 * (At(a) + At(m)) * (m - a) + At(b) * (b - m);
    }
};

} // namespace ns3

#endif
