// The two tiers of StarTopologyHelper: leaves and spines, a link from every leaf to every
// spine, and the switches' flow-hash routes (a leaf: its hosts' subnets down, everything else
// up over every spine; a spine: each host's subnet towards its leaf).
#include "flow-hash-routing-helper.h"
#include "star-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

namespace
{

const Ipv4Mask kSubnet("255.255.255.0");

// Each switch its own salt (leaves 0.., spines 1000..): no two pick alike.
void
Salt(Ptr<Node> node, uint64_t salt)
{
    FlowHashRoutingHelper::Get(node)->SetAttribute("Salt", UintegerValue(salt));
}

uint32_t
InterfaceOf(Ptr<NetDevice> device)
{
    return static_cast<uint32_t>(
        device->GetNode()->GetObject<Ipv4>()->GetInterfaceForDevice(device));
}

} // namespace

std::string
StarTopologyHelper::UplinkName(uint32_t leaf, uint32_t spine, bool up)
{
    std::ostringstream os;
    if (up)
    {
        os << "ToR " << leaf << " uplink to spine " << spine;
    }
    else
    {
        os << "spine " << spine << " port towards ToR " << leaf;
    }
    return os.str();
}

void
StarTopologyHelper::InstallFabric(StarTopology& t,
                                  const std::vector<NetDeviceContainer>& hostLinks) const
{
    const StarTopologyConfig& c = m_config;
    NS_ABORT_MSG_IF(c.leaves > 256 || c.spines > 256, "at most 256 leaves and 256 spines");
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(c.uplinkRate));
    p2p.SetDeviceAttribute("InterframeGap",
                           TimeValue(c.uplinkRate.CalculateBytesTxTime(c.framingBytes)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(c.mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(c.linkDelay));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));
    TrafficControlHelper tc = MakeEgressQueue(c.switchQueue, c.uplinkRate, c.linkDelay);

    Ipv4AddressHelper addr;
    std::vector<std::vector<Ipv4Address>> spineSide(c.leaves); // [leaf][spine]
    std::vector<std::vector<Ipv4Address>> leafSide(c.leaves);
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        for (uint32_t s = 0; s < c.spines; ++s)
        {
            NetDeviceContainer link = p2p.Install(t.leaves.Get(l), t.spines.Get(s));
            StarTopology::Uplink u{ l, s, link.Get(0), link.Get(1), nullptr, nullptr };
            // Queue discs before addresses, or Ipv4AddressHelper installs fq_codel.
            u.leafQueueDisc = tc.Install(link.Get(0)).Get(0);
            u.spineQueueDisc = tc.Install(link.Get(1)).Get(0);
            std::ostringstream net;
            net << "11." << l << "." << s << ".0";
            addr.SetBase(net.str().c_str(), "255.255.255.0");
            Ipv4InterfaceContainer ifs = addr.Assign(link);
            leafSide[l].push_back(ifs.GetAddress(0));
            spineSide[l].push_back(ifs.GetAddress(1));
            t.uplinks.push_back(u);
        }
    }

    // Hosts: everything through their leaf.
    Ipv4StaticRoutingHelper statics;
    for (uint32_t h = 0; h < t.hosts.GetN(); ++h)
    {
        Ptr<Ipv4> ipv4 = t.hosts.Get(h)->GetObject<Ipv4>();
        // The host is .1 of its link's subnet, its leaf .2.
        const Ipv4Address leaf(t.hostAddresses[h].CombineMask(kSubnet).Get() + 2);
        statics.GetStaticRouting(ipv4)->SetDefaultRoute(leaf, InterfaceOf(hostLinks[h].Get(0)));
    }
    // Leaves: their hosts' subnets down; the rest up, over every spine.
    for (uint32_t l = 0; l < c.leaves; ++l)
    {
        Salt(t.leaves.Get(l), l);
    }
    for (uint32_t h = 0; h < t.hosts.GetN(); ++h)
    {
        Ptr<NetDevice> down = hostLinks[h].Get(1);
        FlowHashRoutingHelper::Get(down->GetNode())
            ->AddRoute(t.hostAddresses[h].CombineMask(kSubnet), kSubnet, InterfaceOf(down));
    }
    // Spines: each host's subnet towards its leaf.
    for (uint32_t s = 0; s < c.spines; ++s)
    {
        Salt(t.spines.Get(s), 1000 + s);
    }
    for (const auto& u : t.uplinks)
    {
        FlowHashRoutingHelper::Get(t.leaves.Get(u.leaf))
            ->AddRoute(Ipv4Address::GetZero(), Ipv4Mask::GetZero(), InterfaceOf(u.leafDevice),
                       spineSide[u.leaf][u.spine]);
        for (uint32_t h = 0; h < t.hosts.GetN(); ++h)
        {
            if (t.LeafOf(h) == u.leaf)
            {
                FlowHashRoutingHelper::Get(t.spines.Get(u.spine))
                    ->AddRoute(t.hostAddresses[h].CombineMask(kSubnet), kSubnet,
                               InterfaceOf(u.spineDevice), leafSide[u.leaf][u.spine]);
            }
        }
    }
}

} // namespace ns3
