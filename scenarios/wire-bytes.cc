#include "wire-bytes.h"

#include "ns3/ethernet-framing.h"
#include "ns3/rdma-nic.h"

namespace flumen
{

uint32_t
TcpIpHeaderBytes(bool timestamps)
{
    // IPv4 20 + TCP 20, plus 12 with the timestamp option. The MTU counts them; PPP's 2 bytes
    // come on top, on the wire.
    return 20 + 20 + (timestamps ? 12 : 0);
}

uint32_t
TcpMss(const Scenario& s)
{
    return s.mtuBytes - TcpIpHeaderBytes(s.tcpTimestamps);
}

uint32_t
FramingBytes(const Scenario& s)
{
    return s.ethernetFraming ? ns3::kEthernetFramingBytes : 0;
}

uint32_t
TcpFrameBytes(const Scenario& s)
{
    return s.mtuBytes + 2 + FramingBytes(s);
}

uint32_t
RoceFrameBytes(const Scenario& s)
{
    return ns3::RdmaNic::WireBytes(s.rdmaMtuBytes) + FramingBytes(s);
}

double
TcpWireFactor(const Scenario& s)
{
    return double(TcpFrameBytes(s)) / TcpMss(s);
}

} // namespace flumen
