// What a scenario's frames take on the wire: TCP segments and RoCE packets with their headers,
// PPP's and, where topology.ethernet_framing asks, Ethernet's. Facts of the scenario, read by
// the packet level, the flow engine's wire factors and the validation's wire share.
#ifndef FLUMEN_WIRE_BYTES_H
#define FLUMEN_WIRE_BYTES_H

#include "scenario.h"

#include <cstdint>

namespace flumen
{

/** IPv4 and TCP header bytes of a segment (with the timestamp option or without). */
uint32_t TcpIpHeaderBytes(bool timestamps);
/** A full segment's payload: the MTU less the IPv4 and TCP headers. */
uint32_t TcpMss(const Scenario& scenario);
/** Bytes every frame takes on the wire beyond its PPP header: Ethernet's where
 * topology.ethernet_framing asks for them, else 0. */
uint32_t FramingBytes(const Scenario& scenario);
/** A full TCP segment's frame on the wire: the MTU, PPP's 2 bytes and the framing. */
uint32_t TcpFrameBytes(const Scenario& scenario);
/** A full RoCE packet's frame on the wire (job.rdma.mtu_bytes of payload), with the framing. */
uint32_t RoceFrameBytes(const Scenario& scenario);
/** A full TCP segment on the wire per payload byte. */
double TcpWireFactor(const Scenario& scenario);

} // namespace flumen

#endif
