/*
 * A switch's routing with ECMP by flow hash, as datacenter switches do: routes by longest
 * prefix, each with one or more equal-cost next hops, and a packet takes the next hop that a
 * hash of its 5-tuple (addresses, protocol, TCP/UDP ports) and the switch's salt selects. All
 * packets of a flow take one path, so flows that hash alike share a link while another idles
 * (ns-3's global routing only spreads packet by packet, at random, which reorders TCP).
 */
#ifndef FLUMEN_FLOW_HASH_ROUTING_H
#define FLUMEN_FLOW_HASH_ROUTING_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace ns3
{

class FlowHashRouting : public Ipv4RoutingProtocol
{
  public:
    static TypeId GetTypeId();

    /** One equal-cost next hop: the interface and the neighbour (0.0.0.0: the destination). */
    struct NextHop
    {
        uint32_t interface;
        Ipv4Address gateway;
    };

    /** Adds a next hop for a prefix (several for the same prefix: equal cost). */
    void AddRoute(Ipv4Address network, Ipv4Mask mask, uint32_t interface,
                  Ipv4Address gateway = Ipv4Address::GetZero());
    /**
     * The next hop a packet takes: longest prefix first, then its flow's hash among the equal
     * ones. `l4` starts with the TCP or UDP header (ports) or is null. False if no route.
     */
    bool Lookup(const Ipv4Header& header, Ptr<const Packet> l4, NextHop& hop) const;
    /** The hash that picks among equal-cost next hops (the salt decorrelates switches). */
    static uint64_t FlowHash(Ipv4Address source, Ipv4Address destination, uint8_t protocol,
                             uint16_t sourcePort, uint16_t destinationPort, uint64_t salt);

    Ptr<Ipv4Route> RouteOutput(Ptr<Packet> p, const Ipv4Header& header, Ptr<NetDevice> oif,
                               Socket::SocketErrno& sockerr) override;
    bool RouteInput(Ptr<const Packet> p, const Ipv4Header& header, Ptr<const NetDevice> idev,
                    UnicastForwardCallback ucb, MulticastForwardCallback mcb,
                    LocalDeliverCallback lcb, ErrorCallback ecb) override;
    void NotifyInterfaceUp(uint32_t) override {}
    void NotifyInterfaceDown(uint32_t) override {}
    void NotifyAddAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void NotifyRemoveAddress(uint32_t, Ipv4InterfaceAddress) override {}
    void SetIpv4(Ptr<Ipv4> ipv4) override { m_ipv4 = ipv4; }
    void PrintRoutingTable(Ptr<OutputStreamWrapper> stream,
                           Time::Unit unit = Time::S) const override;

    /** Signature of the Forward trace: the packet's IP header, its output interface. */
    typedef void (*ForwardTracedCallback)(const Ipv4Header& header, uint32_t interface);

  protected:
    void DoDispose() override;

  private:
    Ptr<Ipv4Route> MakeRoute(const Ipv4Header& header, const NextHop& hop) const;

    Ptr<Ipv4> m_ipv4;
    uint64_t m_salt = 0; //!< attribute
    /** Prefix length -> network -> its equal-cost next hops. */
    std::map<uint32_t, std::map<uint32_t, std::vector<NextHop>>, std::greater<>> m_routes;
    TracedCallback<const Ipv4Header&, uint32_t> m_forwardTrace;
};

} // namespace ns3

#endif
