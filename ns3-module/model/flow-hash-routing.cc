#include "flow-hash-routing.h"

#include "ns3/ipv4-route.h"
#include "ns3/log.h"
#include "ns3/output-stream-wrapper.h"
#include "ns3/packet.h"
#include "ns3/uinteger.h"

#include <iomanip>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowHashRouting");
NS_OBJECT_ENSURE_REGISTERED(FlowHashRouting);

namespace
{

constexpr uint8_t kTcp = 6;
constexpr uint8_t kUdp = 17;

uint32_t
PrefixLength(Ipv4Mask mask)
{
    return mask.GetPrefixLength();
}

} // namespace

TypeId
FlowHashRouting::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowHashRouting")
              .SetParent<Ipv4RoutingProtocol>()
              .SetGroupName("Flumen")
              .AddConstructor<FlowHashRouting>()
              .AddAttribute("Salt",
                            "Mixed into the flow hash, so that switches in series do not all "
                            "pick the same index (hash polarisation).",
                            UintegerValue(0), MakeUintegerAccessor(&FlowHashRouting::m_salt),
                            MakeUintegerChecker<uint64_t>())
              .AddTraceSource("Forward",
                              "A packet was routed: its IP header and the output interface.",
                              MakeTraceSourceAccessor(&FlowHashRouting::m_forwardTrace),
                              "ns3::FlowHashRouting::ForwardTracedCallback");
    return tid;
}

void
FlowHashRouting::DoDispose()
{
    m_ipv4 = nullptr;
    m_routes.clear();
    Ipv4RoutingProtocol::DoDispose();
}

void
FlowHashRouting::AddRoute(Ipv4Address network, Ipv4Mask mask, uint32_t interface,
                          Ipv4Address gateway)
{
    m_routes[PrefixLength(mask)][network.CombineMask(mask).Get()].push_back({ interface, gateway });
}

uint64_t
FlowHashRouting::FlowHash(Ipv4Address source, Ipv4Address destination, uint8_t protocol,
                          uint16_t sourcePort, uint16_t destinationPort, uint64_t salt)
{
    // FNV-1a over the 5-tuple and the salt, then a final mix (FNV's low bits alone are weak
    // for a modulo by a small count).
    uint64_t h = 1469598103934665603ULL;
    auto mix = [&h](uint64_t value, int bytes)
    {
        for (int i = 0; i < bytes; ++i)
        {
            h ^= (value >> (8 * i)) & 0xff;
            h *= 1099511628211ULL;
        }
    };
    mix(source.Get(), 4);
    mix(destination.Get(), 4);
    mix(protocol, 1);
    mix(sourcePort, 2);
    mix(destinationPort, 2);
    mix(salt, 8);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

bool
FlowHashRouting::Lookup(const Ipv4Header& header, Ptr<const Packet> l4, NextHop& hop) const
{
    const uint32_t destination = header.GetDestination().Get();
    for (const auto& [length, networks] : m_routes)
    {
        const uint32_t mask = length == 0 ? 0 : ~0u << (32 - length);
        auto it = networks.find(destination & mask);
        if (it == networks.end() || it->second.empty())
        {
            continue;
        }
        const auto& hops = it->second;
        if (hops.size() == 1)
        {
            hop = hops.front();
            return true;
        }
        uint16_t sourcePort = 0;
        uint16_t destinationPort = 0;
        const uint8_t protocol = header.GetProtocol();
        if (l4 && (protocol == kTcp || protocol == kUdp) && l4->GetSize() >= 4)
        {
            uint8_t ports[4];
            l4->CopyData(ports, 4);
            sourcePort = static_cast<uint16_t>(ports[0] << 8 | ports[1]);
            destinationPort = static_cast<uint16_t>(ports[2] << 8 | ports[3]);
        }
        const uint64_t h = FlowHash(header.GetSource(), header.GetDestination(), protocol,
                                    sourcePort, destinationPort, m_salt);
        hop = hops[h % hops.size()];
        return true;
    }
    return false;
}

Ptr<Ipv4Route>
FlowHashRouting::MakeRoute(const Ipv4Header& header, const NextHop& hop) const
{
    Ptr<Ipv4Route> route = Create<Ipv4Route>();
    route->SetDestination(header.GetDestination());
    route->SetGateway(hop.gateway);
    route->SetOutputDevice(m_ipv4->GetNetDevice(hop.interface));
    route->SetSource(m_ipv4->GetAddress(hop.interface, 0).GetLocal());
    return route;
}

Ptr<Ipv4Route>
FlowHashRouting::RouteOutput(Ptr<Packet> p, const Ipv4Header& header, Ptr<NetDevice>,
                             Socket::SocketErrno& sockerr)
{
    NextHop hop;
    if (!Lookup(header, p, hop))
    {
        sockerr = Socket::ERROR_NOROUTETOHOST;
        return nullptr;
    }
    sockerr = Socket::ERROR_NOTERROR;
    return MakeRoute(header, hop);
}

bool
FlowHashRouting::RouteInput(Ptr<const Packet> p, const Ipv4Header& header,
                            Ptr<const NetDevice> idev, UnicastForwardCallback ucb,
                            MulticastForwardCallback, LocalDeliverCallback lcb, ErrorCallback ecb)
{
    const int32_t iif = m_ipv4->GetInterfaceForDevice(idev);
    if (m_ipv4->IsDestinationAddress(header.GetDestination(), iif))
    {
        if (!lcb.IsNull())
        {
            lcb(p, header, iif);
            return true;
        }
        return false;
    }
    NextHop hop;
    if (!Lookup(header, p, hop))
    {
        NS_LOG_WARN("no route to " << header.GetDestination());
        if (!ecb.IsNull())
        {
            ecb(p, header, Socket::ERROR_NOROUTETOHOST);
        }
        return false;
    }
    m_forwardTrace(header, hop.interface);
    ucb(MakeRoute(header, hop), p, header);
    return true;
}

void
FlowHashRouting::PrintRoutingTable(Ptr<OutputStreamWrapper> stream, Time::Unit) const
{
    std::ostream& os = *stream->GetStream();
    for (const auto& [length, networks] : m_routes)
    {
        for (const auto& [network, hops] : networks)
        {
            os << Ipv4Address(network) << "/" << length << ":";
            for (const auto& h : hops)
            {
                os << " if " << h.interface << " via " << h.gateway;
            }
            os << "\n";
        }
    }
}

} // namespace ns3
