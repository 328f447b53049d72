#include "fluid-host.h"

#include "flow-hash-routing.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidHost");
NS_OBJECT_ENSURE_REGISTERED(FluidHost);

TypeId
FluidHost::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FluidHost")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<FluidHost>();
    return tid;
}

void
FluidHost::DoDispose()
{
    m_network = nullptr;
    m_routes.clear();
    m_resolver = MakeNullCallback<Route, Ipv4Address>();
    m_ports.clear();
    Object::DoDispose();
}

const std::vector<uint32_t>&
FluidHost::Route::PathOf(Ipv4Address source, Ipv4Address destination, uint8_t protocol,
                         uint16_t sourcePort, uint16_t destinationPort) const
{
    if (paths.empty())
    {
        return links;
    }
    const uint64_t h = FlowHashRouting::FlowHash(source, destination, protocol, sourcePort,
                                                 destinationPort, salt);
    return paths[h % paths.size()];
}

void
FluidHost::AddRoute(Ipv4Address destination, const Route& route)
{
    m_routes[destination] = route;
}

const FluidHost::Route&
FluidHost::GetRoute(Ipv4Address destination) const
{
    auto it = m_routes.find(destination);
    if (it == m_routes.end() && !m_resolver.IsNull())
    {
        it = m_routes.emplace(destination, m_resolver(destination)).first;
    }
    NS_ABORT_MSG_IF(it == m_routes.end(),
                    "FluidHost " << m_address << ": no route to " << destination);
    return it->second;
}

void
FluidHost::Bind(uint16_t port, Callback<void, uint64_t> receive)
{
    m_ports[port] = receive;
}

void
FluidHost::Deliver(uint16_t port, uint64_t bytes)
{
    auto it = m_ports.find(port);
    if (it == m_ports.end() || it->second.IsNull())
    {
        NS_LOG_WARN("FluidHost " << m_address << ": " << bytes << " B for unbound port " << port);
        m_undelivered += bytes;
        return;
    }
    it->second(bytes);
}

} // namespace ns3
