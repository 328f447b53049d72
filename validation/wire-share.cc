#include "wire-share.h"

#include "wire-bytes.h"

#include <cmath>
#include <limits>

namespace flumen
{

double
TestbedWireShare(const Scenario& s, double crossGbps, double iterationS)
{
    if (!(iterationS > 0) || std::isnan(crossGbps))
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    const double ringBits
        = 8 * s.model.RingBytesPerWorker(static_cast<uint32_t>(s.jobHosts.size()));
    const double ringWire
        = s.transport == "rdma" ? double(RoceFrameBytes(s)) / s.rdmaMtuBytes : TcpWireFactor(s);
    const double wireBps = crossGbps * 1e9 * TcpWireFactor(s) + ringBits / iterationS * ringWire;
    // B's shared port is the ToR's towards S0: it sends no faster than S0 takes frames.
    const double portGbps = s.configuration == 'B' ? s.hostReceiveGbps : s.linkRateGbps;
    return wireBps / (portGbps * 1e9);
}

} // namespace flumen
