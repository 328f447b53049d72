#include "iperf-helper.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/paced-tcp-sender.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

IperfHelper::IperfHelper(DataRate totalRate, uint32_t streams, uint16_t port)
    : m_totalRate(totalRate), m_streams(streams), m_port(port)
{
    NS_ABORT_MSG_IF(streams == 0, "iperf needs at least one stream");
}

IperfFlows
IperfHelper::Install(Ptr<Node> client, Ptr<Node> server, Ipv4Address serverAddress, Time start,
                     Time stop) const
{
    IperfFlows flows;
    PacketSinkHelper sinkHelper(TcpSocketFactory::GetTypeId().GetName(),
                                InetSocketAddress(Ipv4Address::GetAny(), m_port));
    ApplicationContainer sinkApp = sinkHelper.Install(server);
    sinkApp.Start(Seconds(0));
    flows.sink = DynamicCast<PacketSink>(sinkApp.Get(0));

    DataRate perStream(m_totalRate.GetBitRate() / m_streams);
    for (uint32_t i = 0; i < m_streams; ++i)
    {
        Ptr<PacedTcpSender> s = CreateObject<PacedTcpSender>();
        s->SetAttribute("Remote", AddressValue(InetSocketAddress(serverAddress, m_port)));
        s->SetAttribute("Rate", DataRateValue(perStream));
        s->SetAttribute("WriteBytes", UintegerValue(m_writeBytes));
        s->SetStartTime(start);
        s->SetStopTime(stop);
        client->AddApplication(s);
        flows.senders.Add(s);
    }
    return flows;
}

} // namespace ns3
