// One bench measurement: a scenario (or the anchor) for a fixed simulated time, in a child
// process (its own peak RSS, a fresh ns-3 state), repeated, the median kept.
#ifndef FLUMEN_BENCH_MEASUREMENT_H
#define FLUMEN_BENCH_MEASUREMENT_H

#include "scenario.h"

#include <nlohmann/json.hpp>

#include <functional>

namespace flumen
{

/** A measurement: figures as JSON with at least simulated_s, wall_s, events, packet_hops. */
using Measurement = std::function<nlohmann::json()>;

/**
 * One canonical scenario for `seconds` of simulated time, in this process: simulated_s,
 * wall_s, events, tor_packets, packet_hops, iterations_done.
 */
nlohmann::json MeasureScenario(const Scenario& s, double seconds);

/** Runs `measure` in a child process; its JSON (or {"error": ...}) plus its peak_rss_mb. */
nlohmann::json MeasureInChild(const Measurement& measure);

/**
 * Repeats a measurement, each in a child; keeps the run with the median wall time, every wall
 * time (wall_s_runs), and the rates derived from the median (wall_per_simulated_s,
 * events_per_wall_s, wall_us_per_packet_hop). The first error ends it and is returned.
 */
nlohmann::json RepeatedMeasurement(const Measurement& measure, int repeats);

} // namespace flumen

#endif
