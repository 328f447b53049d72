#include "testbed-settings.h"

#include "ns3/star-topology-helper.h"

#include <algorithm>
#include <cmath>

namespace flumen
{

// Workers of the job in configuration "A" or "B".
int
JobWorkers(const std::string& configuration)
{
    return static_cast<int>(ns3::StarTopologyHelper::JobHosts(configuration.at(0)).size());
}

// iperf streams (-P) for a load, as the testbed's operator chose them: "the number of parallel
// threads sufficient to reach as close as possible to the requested BW load when competing
// with DL traffic", 1 to 10 (thesis, section 3.2). A NIC serving k busy TCP send queues and
// RDMA round robin gives TCP k/(k+1) of the link, so k = ceil(x / (C - x)), within 1..10.
int
IperfStreamsFor(double loadGbps)
{
    constexpr double kLinkGbps = 25;
    double k = std::ceil(loadGbps / std::max(1e-9, kLinkGbps - loadGbps) - 1e-9);
    return static_cast<int>(std::clamp(k, 1.0, 10.0));
}

} // namespace flumen
