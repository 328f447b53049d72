#include "rdma-nic.h"

#include "nic-queue-disc.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/loopback-net-device.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RdmaNic");
NS_OBJECT_ENSURE_REGISTERED(RdmaNic);

namespace
{
constexpr uint8_t kEct0 = 0x02;
constexpr uint8_t kCe = 0x03;
} // namespace

TypeId
RdmaNic::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RdmaNic")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<RdmaNic>()
              .AddAttribute("BackpressureBytes",
                            "The NIC takes a queue pair's next packet only while its egress holds "
                            "less RDMA data than this.",
                            UintegerValue(4096),
                            MakeUintegerAccessor(&RdmaNic::m_backpressureBytes),
                            MakeUintegerChecker<uint32_t>(1));
    return tid;
}

RdmaNic::RdmaNic() = default;
RdmaNic::~RdmaNic() = default;

Ptr<RdmaNic>
RdmaNic::GetOrInstall(Ptr<Node> node)
{
    Ptr<RdmaNic> nic = node->GetObject<RdmaNic>();
    if (!nic)
    {
        nic = CreateObject<RdmaNic>();
        node->AggregateObject(nic);
    }
    return nic;
}

void
RdmaNic::NotifyNewAggregate()
{
    if (!m_node)
    {
        Ptr<Node> node = GetObject<Node>();
        if (node)
        {
            m_node = node;
            Setup();
        }
    }
    Object::NotifyNewAggregate();
}

uint32_t
RdmaNic::IpBytes(uint32_t payload)
{
    return 20 + 8 + RoceHeader::kWireBytes + payload;
}

uint32_t
RdmaNic::WireBytes(uint32_t payload)
{
    return IpBytes(payload) + 2; // PPP header
}

void
RdmaNic::Setup()
{
    for (uint32_t i = 0; i < m_node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> dev = m_node->GetDevice(i);
        if (!DynamicCast<LoopbackNetDevice>(dev))
        {
            m_device = dev;
            break;
        }
    }
    NS_ABORT_MSG_IF(!m_device, "RdmaNic: node " << m_node->GetId() << " has no network device");
    Ptr<TrafficControlLayer> tc = m_node->GetObject<TrafficControlLayer>();
    NS_ABORT_MSG_IF(!tc, "RdmaNic: install the internet stack first");
    m_egress = tc->GetRootQueueDiscOnDevice(m_device);
    NS_ABORT_MSG_IF(!m_egress,
                    "RdmaNic: the NIC of node " << m_node->GetId() << " has no queue disc");
    m_egress->TraceConnectWithoutContext("Dequeue",
                                         MakeCallback(&RdmaNic::HandleEgressDequeue, this));

    m_socket = Socket::CreateSocket(m_node, UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(
        m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), RoceHeader::kUdpPort)) != 0,
        "RdmaNic: UDP port " << RoceHeader::kUdpPort << " taken on node " << m_node->GetId());
    m_socket->SetIpRecvTos(true); // RoCE packets are sent ECT(0): switches mark, not drop
    m_socket->SetRecvCallback(MakeCallback(&RdmaNic::HandleRead, this));
}

void
RdmaNic::DoDispose()
{
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
    }
    m_socket = nullptr;
    m_qps.clear();
    m_egress = nullptr;
    m_device = nullptr;
    m_node = nullptr;
    Object::DoDispose();
}

Ptr<PointToPointNetDevice>
RdmaNic::PointToPoint() const
{
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(m_device);
    NS_ABORT_MSG_IF(!p2p, "RdmaNic: the NIC must be a point-to-point device");
    return p2p;
}

DataRate
RdmaNic::GetLineRate() const
{
    DataRateValue rate;
    PointToPoint()->GetAttribute("DataRate", rate);
    return rate.Get();
}

double
RdmaNic::GetFramingBytes() const
{
    TimeValue gap;
    PointToPoint()->GetAttribute("InterframeGap", gap);
    return gap.Get().GetSeconds() * static_cast<double>(GetLineRate().GetBitRate()) / 8.0;
}

void
RdmaNic::Register(uint16_t qpn, ReceiveCallback receive, TransmitCallback transmit)
{
    NS_ABORT_MSG_IF(m_qps.count(qpn), "RdmaNic: queue pair " << qpn
                                                             << " already registered on node "
                                                             << m_node->GetId());
    QueuePair qp;
    qp.receive = receive;
    qp.transmit = transmit;
    m_qps[qpn] = qp;
}

void
RdmaNic::Unregister(uint16_t qpn)
{
    m_qps.erase(qpn);
}

void
RdmaNic::RequestTransmit(uint16_t qpn)
{
    auto it = m_qps.find(qpn);
    NS_ASSERT(it != m_qps.end());
    if (it->second.waiting)
    {
        return;
    }
    it->second.waiting = true;
    m_due.push_back(qpn);
    ScheduleTransmitLoop();
}

void
RdmaNic::Send(Ptr<Packet> packet, Ipv4Address to)
{
    // UDP's SendTo takes the TOS from the address, not from the socket.
    InetSocketAddress address(to, RoceHeader::kUdpPort);
    address.SetTos(kEct0);
    m_socket->SendTo(packet, 0, address);
}

uint32_t
RdmaNic::EgressRdmaBytes() const
{
    Ptr<NicQueueDisc> nic = DynamicCast<NicQueueDisc>(m_egress);
    return nic ? nic->GetRdmaBytes() : m_egress->GetNBytes();
}

void
RdmaNic::HandleEgressDequeue(Ptr<const QueueDiscItem> /* item */)
{
    if (!m_due.empty())
    {
        ScheduleTransmitLoop();
    }
}

void
RdmaNic::ScheduleTransmitLoop()
{
    // Never re-enter the queue disc from inside its own dequeue or enqueue.
    if (!m_loopScheduled)
    {
        m_loopScheduled = true;
        Simulator::ScheduleNow(&RdmaNic::TransmitLoop, this);
    }
}

void
RdmaNic::TransmitLoop()
{
    m_loopScheduled = false;
    while (!m_due.empty() && EgressRdmaBytes() < m_backpressureBytes)
    {
        uint16_t qpn = m_due.front();
        m_due.pop_front();
        auto it = m_qps.find(qpn);
        if (it == m_qps.end())
        {
            continue;
        }
        it->second.waiting = false;
        it->second.transmit();
    }
}

void
RdmaNic::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    Address from;
    while ((packet = socket->RecvFrom(from)))
    {
        SocketIpTosTag tos;
        bool ce = packet->RemovePacketTag(tos) && (tos.GetTos() & 0x3) == kCe;
        RoceHeader h;
        packet->RemoveHeader(h);
        auto it = m_qps.find(h.dstQp);
        if (it == m_qps.end())
        {
            NS_LOG_WARN("node " << m_node->GetId() << ": packet for unknown queue pair "
                                << h.dstQp);
            continue;
        }
        it->second.receive(h, packet->GetSize(), InetSocketAddress::ConvertFrom(from).GetIpv4(),
                           ce);
    }
}

} // namespace ns3
