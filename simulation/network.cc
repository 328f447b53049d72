#include "network.h"

#include "flow-network.h"
#include "packet-network.h"
#include "scenario.h"

namespace flumen
{

std::unique_ptr<Network>
BuildNetwork(const Scenario& scenario)
{
    if (scenario.engine == "flow")
    {
        return std::make_unique<FlowNetwork>(scenario);
    }
    return std::make_unique<PacketNetwork>(scenario);
}

} // namespace flumen
