/*
 * A host of the flow-level engine, aggregated to its ns-3 node: where it sits in the
 * FluidNetwork (its routes to the other hosts: links and propagation delay) and its bound
 * ports, which receive the bytes that flows deliver, as sockets would. Routes are added, or
 * made by a resolver the first time one is asked for: only the pairs that carry traffic are
 * kept (all pairs of 4,096 hosts over a fabric took 8.6 GB).
 */
#ifndef FLUMEN_FLUID_HOST_H
#define FLUMEN_FLUID_HOST_H

#include "fluid-network.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class FluidHost : public Object
{
  public:
    static TypeId GetTypeId();

    struct Route
    {
        Ptr<FluidHost> to;
        std::vector<uint32_t> links; //!< the FluidNetwork's link ids, in order
        Time delay;                  //!< propagation along them
        /**
         * Equal-cost alternatives to `links` (a fabric's spines), of which the switch picks
         * one per connection by FlowHashRouting::FlowHash with `salt`; empty: `links` only.
         */
        std::vector<std::vector<uint32_t>> paths;
        uint64_t salt = 0;

        /** The links one connection (protocol, ports) takes, as the packet level's switch
         * would pick them for these addresses. */
        const std::vector<uint32_t>& PathOf(Ipv4Address source, Ipv4Address destination,
                                            uint8_t protocol, uint16_t sourcePort,
                                            uint16_t destinationPort) const;
    };

    void SetNetwork(Ptr<FluidNetwork> network) { m_network = network; }
    Ptr<FluidNetwork> GetNetwork() const { return m_network; }
    void SetAddress(Ipv4Address address) { m_address = address; }
    Ipv4Address GetAddress() const { return m_address; }

    void AddRoute(Ipv4Address destination, const Route& route);
    /** Makes the route to a destination not added, the first time it is asked for. */
    void SetRouteResolver(Callback<Route, Ipv4Address> resolver) { m_resolver = resolver; }
    /** The route to a destination (aborts naming it if there is none and no resolver). A
     * reference that stays valid while the host lives. */
    const Route& GetRoute(Ipv4Address destination) const;
    /** Routes held: those added and those made so far. */
    size_t GetRouteCount() const { return m_routes.size(); }

    /** Bytes that arrive for `port` go to `receive` (one receiver per port). */
    void Bind(uint16_t port, Callback<void, uint64_t> receive);
    /** Bytes have arrived for `port` (dropped, and counted, if nothing is bound). */
    void Deliver(uint16_t port, uint64_t bytes);
    uint64_t GetUndeliveredBytes() const { return m_undelivered; }

  protected:
    void DoDispose() override;

  private:
    Ptr<FluidNetwork> m_network;
    Ipv4Address m_address;
    mutable std::map<Ipv4Address, Route> m_routes; //!< (node-based: references stay valid)
    Callback<Route, Ipv4Address> m_resolver;
    std::map<uint16_t, Callback<void, uint64_t>> m_ports;
    uint64_t m_undelivered = 0;
};

} // namespace ns3

#endif
