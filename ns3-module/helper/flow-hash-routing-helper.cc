#include "flow-hash-routing-helper.h"

#include "ns3/ipv4.h"
#include "ns3/node.h"
#include "ns3/uinteger.h"

namespace ns3
{

Ptr<Ipv4RoutingProtocol>
FlowHashRoutingHelper::Create(Ptr<Node> node) const
{
    Ptr<FlowHashRouting> routing = CreateObject<FlowHashRouting>();
    routing->SetAttribute("Salt", UintegerValue(node->GetId()));
    return routing;
}

Ptr<FlowHashRouting>
FlowHashRoutingHelper::Get(Ptr<Node> node)
{
    return DynamicCast<FlowHashRouting>(node->GetObject<Ipv4>()->GetRoutingProtocol());
}

} // namespace ns3
