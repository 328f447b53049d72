#include "flow-sink.h"

#include "flow-generator.h"

#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowSink");
NS_OBJECT_ENSURE_REGISTERED(FlowSink);

TypeId
FlowSink::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowSink")
              .SetParent<Application>()
              .SetGroupName("Flumen")
              .AddConstructor<FlowSink>()
              .AddAttribute("Port", "TCP port to accept flows on.", UintegerValue(5002),
                            MakeUintegerAccessor(&FlowSink::m_port),
                            MakeUintegerChecker<uint16_t>(1))
              .AddTraceSource("FlowComplete",
                              "A flow's last byte arrived (flow id, size in bytes, time).",
                              MakeTraceSourceAccessor(&FlowSink::m_flowCompleteTrace),
                              "ns3::FlowSink::FlowCompleteTracedCallback");
    return tid;
}

FlowSink::FlowSink() = default;

void
FlowSink::DoDispose()
{
    for (auto& [raw, c] : m_connections)
    {
        c.socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
    }
    m_connections.clear();
    m_listener = nullptr;
    Application::DoDispose();
}

void
FlowSink::StartApplication()
{
    m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0)
    {
        NS_FATAL_ERROR("FlowSink: cannot listen on port " << m_port);
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&FlowSink::HandleAccept, this));
}

void
FlowSink::StopApplication()
{
    if (m_listener)
    {
        m_listener->Close();
    }
}

void
FlowSink::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    Incoming in;
    in.socket = socket;
    m_connections.emplace(PeekPointer(socket), in);
    socket->SetRecvCallback(MakeCallback(&FlowSink::HandleRead, this));
    socket->SetCloseCallbacks(MakeCallback(&FlowSink::HandleClose, this),
                              MakeCallback(&FlowSink::HandleClose, this));
}

void
FlowSink::HandleRead(Ptr<Socket> socket)
{
    auto it = m_connections.find(PeekPointer(socket));
    if (it == m_connections.end())
    {
        return;
    }
    Incoming& in = it->second;
    constexpr uint32_t kHeader = FlowGenerator::kHeaderBytes;
    Ptr<Packet> p;
    while ((p = socket->Recv()) && p->GetSize() > 0)
    {
        uint32_t n = p->GetSize();
        if (in.received < kHeader)
        {
            uint32_t take = std::min<uint64_t>(kHeader - in.received, n);
            p->CopyData(in.header + in.received, take);
            if (in.received + take == kHeader)
            {
                in.id = 0;
                in.size = 0;
                for (int i = 0; i < 4; ++i)
                {
                    in.id = (in.id << 8) | in.header[i];
                    in.size = (in.size << 8) | in.header[4 + i];
                }
            }
        }
        in.received += n;
        m_totalRx += n;
    }
    if (!in.reported && in.received >= kHeader && in.received >= kHeader + in.size)
    {
        in.reported = true;
        ++m_completed;
        m_flowCompleteTrace(in.id, in.size, Simulator::Now());
    }
}

void
FlowSink::HandleClose(Ptr<Socket> socket)
{
    // The client closed (or the connection broke): close our side so the endpoint is freed.
    auto it = m_connections.find(PeekPointer(socket));
    if (it != m_connections.end())
    {
        Ptr<Socket> keep = it->second.socket;
        m_connections.erase(it);
        keep->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        keep->Close();
    }
}

} // namespace ns3
