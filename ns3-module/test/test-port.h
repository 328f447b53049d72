// A test fixture shared by the port-level tests: two nodes on an 8 Mb/s point-to-point link
// (one byte per microsecond) with a chosen queue disc on node 0's device.
#ifndef FLUMEN_TEST_PORT_H
#define FLUMEN_TEST_PORT_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

namespace ns3::test
{

struct TestPort
{
    NodeContainer nodes;
    NetDeviceContainer devices;
    Ptr<QueueDisc> disc;

    explicit TestPort(TrafficControlHelper tch)
    {
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("8Mbps"));
        p2p.SetChannelAttribute("Delay", StringValue("10us"));
        // A one-packet device queue: the queue disc holds everything but the packet on the
        // wire and the next one.
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1p"));
        devices = p2p.Install(nodes);
        InternetStackHelper().Install(nodes);
        disc = tch.Install(devices.Get(0)).Get(0);
        Ipv4AddressHelper("10.1.1.0", "255.255.255.0").Assign(devices);
    }
};

} // namespace ns3::test

#endif
