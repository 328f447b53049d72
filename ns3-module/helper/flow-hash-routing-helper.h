/*
 * Installs FlowHashRouting on a node (InternetStackHelper::SetRoutingHelper), with the node's
 * id as its salt; routes are added by whoever knows the topology.
 */
#ifndef FLUMEN_FLOW_HASH_ROUTING_HELPER_H
#define FLUMEN_FLOW_HASH_ROUTING_HELPER_H

#include "ns3/flow-hash-routing.h"
#include "ns3/ipv4-routing-helper.h"

namespace ns3
{

class FlowHashRoutingHelper : public Ipv4RoutingHelper
{
  public:
    FlowHashRoutingHelper* Copy() const override { return new FlowHashRoutingHelper(*this); }
    Ptr<Ipv4RoutingProtocol> Create(Ptr<Node> node) const override;
    /** The FlowHashRouting of a node's IPv4 (null if it has another routing protocol). */
    static Ptr<FlowHashRouting> Get(Ptr<Node> node);
};

} // namespace ns3

#endif
