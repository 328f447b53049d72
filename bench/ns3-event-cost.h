// What ns-3 itself costs per event on this machine: empty events, scheduled and run, so that
// `flumen bench` can say how fast a run of a given number of events could be at best.
#ifndef FLUMEN_NS3_EVENT_COST_H
#define FLUMEN_NS3_EVENT_COST_H

#include <nlohmann/json.hpp>

#include <cstdint>

namespace flumen
{

/**
 * Runs `events` empty events through ns-3's default simulator in this process (it owns the
 * simulator while it runs), a few dozen pending at a time as in a flow-level run; its figures as
 * JSON: events, wall_s, wall_us_per_event.
 */
nlohmann::json MeasureNs3EmptyEvents(uint64_t events);

} // namespace flumen

#endif
