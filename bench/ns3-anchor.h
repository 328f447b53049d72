// The bench's anchor: a plain ns-3 program (stock helpers only) pushing 24 Gbps of UDP over
// two 25 Gbps hops, so that every figure of `flumen bench` reads as a ratio to plain ns-3 on
// the same machine at the same moment.
#ifndef FLUMEN_NS3_ANCHOR_H
#define FLUMEN_NS3_ANCHOR_H

#include <nlohmann/json.hpp>

namespace flumen
{

/**
 * Runs the anchor for `seconds` of simulated time in this process (it owns ns-3's simulator
 * while it runs); its figures as JSON: simulated_s, wall_s, events, tor_packets, packet_hops,
 * udp_goodput_gbps.
 */
nlohmann::json MeasureNs3Anchor(double seconds);

} // namespace flumen

#endif
