/*
 * Ethernet's bytes around every frame beyond what flumen's point-to-point links spend on it:
 * preamble and start delimiter 8, MAC header 14, FCS 4 and the interframe gap 12 (IEEE 802.3),
 * less the 2-byte PPP header the links already carry. Where a scenario asks for them
 * (topology.ethernet_framing) the packet level's devices wait this long after every frame
 * (PointToPointNetDevice::InterframeGap at the link's rate) and the flow engine's wire factors
 * count them.
 */
#ifndef FLUMEN_ETHERNET_FRAMING_H
#define FLUMEN_ETHERNET_FRAMING_H

#include <cstdint>

namespace ns3
{

constexpr uint32_t kEthernetFramingBytes = 36;

} // namespace ns3

#endif
