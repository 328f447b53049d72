#include "flow-generator-helper.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/uinteger.h"

namespace ns3
{

FlowGeneratorHelper::FlowGeneratorHelper(uint16_t port) : m_port(port) {}

FlowTraffic
FlowGeneratorHelper::Install(Ptr<Node> source, const std::vector<Ptr<Node>>& destinations,
                             const std::vector<Ipv4Address>& addresses, Ptr<FlowSchedule> schedule,
                             Time start, Time stop) const
{
    NS_ABORT_MSG_IF(destinations.size() != addresses.size() || destinations.empty(),
                    "FlowGeneratorHelper: one address per destination node, at least one");
    FlowTraffic t;
    t.generator = CreateObject<FlowGenerator>();
    t.generator->SetAttribute("Port", UintegerValue(m_port));
    t.generator->SetSchedule(schedule);
    std::vector<Address> remote;
    for (size_t i = 0; i < destinations.size(); ++i)
    {
        Ptr<FlowSink> sink = CreateObject<FlowSink>();
        sink->SetAttribute("Port", UintegerValue(m_port));
        sink->SetStartTime(Seconds(0));
        destinations[i]->AddApplication(sink);
        sink->TraceConnectWithoutContext(
            "FlowComplete", MakeCallback(&FlowGenerator::NotifyFlowComplete, t.generator));
        t.sinks.push_back(sink);
        remote.push_back(InetSocketAddress(addresses[i], m_port));
    }
    t.generator->SetDestinations(remote);
    t.generator->SetStartTime(start);
    t.generator->SetStopTime(stop);
    source->AddApplication(t.generator);
    return t;
}

} // namespace ns3
