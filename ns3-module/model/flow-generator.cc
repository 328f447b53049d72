#include "flow-generator.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowGenerator");
NS_OBJECT_ENSURE_REGISTERED(FlowGenerator);

TypeId
FlowGenerator::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowGenerator")
              .SetParent<Application>()
              .SetGroupName("Flumen")
              .AddConstructor<FlowGenerator>()
              .AddAttribute("Port", "TCP port of the destinations' FlowSink.", UintegerValue(5002),
                            MakeUintegerAccessor(&FlowGenerator::m_port),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("MaxWriteBytes", "Largest single write into a flow's socket.",
                            UintegerValue(256 * 1024),
                            MakeUintegerAccessor(&FlowGenerator::m_maxWriteBytes),
                            MakeUintegerChecker<uint32_t>(kHeaderBytes))
              .AddAttribute("ChunkBytes",
                            "A flow's data is written in chunks of this many bytes, each "
                            "followed by a sleep of ChunkGap (the testbed's client: blocking "
                            "sends of 18,068 bytes); 0: written as the socket takes it.",
                            UintegerValue(0), MakeUintegerAccessor(&FlowGenerator::m_chunkBytes),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("ChunkGap",
                            "How long a flow's writer sleeps after each chunk (ChunkBytes).",
                            TimeValue(Time(0)), MakeTimeAccessor(&FlowGenerator::m_chunkGap),
                            MakeTimeChecker(Time(0)))
              .AddTraceSource("FlowStart",
                              "A flow's connection was opened (flow id, size in bytes).",
                              MakeTraceSourceAccessor(&FlowGenerator::m_flowStartTrace),
                              "ns3::FlowGenerator::FlowStartTracedCallback")
              .AddTraceSource("FlowSocket",
                              "A flow's socket was created, before it connects (flow id, "
                              "socket): where its TCP trace sources can be connected.",
                              MakeTraceSourceAccessor(&FlowGenerator::m_flowSocketTrace),
                              "ns3::FlowGenerator::FlowSocketTracedCallback");
    return tid;
}

FlowGenerator::FlowGenerator() = default;

double
FlowGenerator::WriterPaceBps(uint64_t chunkBytes, Time gap)
{
    if (chunkBytes == 0 || !gap.IsStrictlyPositive())
    {
        return std::numeric_limits<double>::infinity();
    }
    // Sends into a socket with room take no simulated time: one chunk per gap.
    return double(chunkBytes) * 8 / gap.GetSeconds();
}

void
FlowGenerator::DoDispose()
{
    m_nextEvent.Cancel();
    for (auto& [raw, flow] : m_active)
    {
        flow.wake.Cancel();
        flow.socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        flow.socket->SetConnectCallback(MakeNullCallback<void, Ptr<Socket>>(),
                                        MakeNullCallback<void, Ptr<Socket>>());
    }
    m_active.clear();
    m_schedule = nullptr;
    Application::DoDispose();
}

void
FlowGenerator::StartApplication()
{
    NS_ABORT_MSG_IF(!m_schedule, "FlowGenerator: no schedule set");
    NS_ABORT_MSG_IF(m_destinations.empty(), "FlowGenerator: no destinations set");
    m_origin = Simulator::Now();
    ScheduleNext();
}

void
FlowGenerator::StopApplication()
{
    m_nextEvent.Cancel();
}

void
FlowGenerator::ScheduleNext()
{
    m_haveNext = m_schedule->Next(m_nextFlow);
    if (!m_haveNext)
    {
        return;
    }
    Time at = m_origin + MicroSeconds(m_nextFlow.startUs);
    NS_ABORT_MSG_IF(m_nextFlow.destination >= m_destinations.size(),
                    "FlowGenerator: destination index " << m_nextFlow.destination << " but only "
                                                        << m_destinations.size()
                                                        << " destination(s)");
    m_nextEvent = Simulator::Schedule(std::max(Time(0), at - Simulator::Now()),
                                      &FlowGenerator::StartFlow, this);
}

void
FlowGenerator::StartFlow()
{
    const FlowArrival f = m_nextFlow;
    FlowRecord r;
    r.id = static_cast<uint32_t>(m_records.size());
    r.destination = f.destination;
    r.sizeBytes = f.sizeBytes;
    r.start = Simulator::Now();
    m_records.push_back(r);

    Ptr<Socket> s = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    ActiveFlow a;
    a.id = r.id;
    a.remaining = f.sizeBytes + kHeaderBytes;
    a.chunkLeft = m_chunkBytes;
    // Big-endian id then size (sizes are checked below 2^32 by whoever builds schedules).
    for (int i = 0; i < 4; ++i)
    {
        a.header[i] = static_cast<uint8_t>(r.id >> (24 - 8 * i));
        a.header[4 + i] = static_cast<uint8_t>(f.sizeBytes >> (24 - 8 * i));
    }
    if (s->Bind() != 0)
    {
        NS_LOG_WARN("flow " << r.id << ": no local port free");
        m_records.back().failed = true;
    }
    else
    {
        a.socket = s;
        m_active.emplace(PeekPointer(s), a);
        s->SetConnectCallback(MakeCallback(&FlowGenerator::HandleConnected, this),
                              MakeCallback(&FlowGenerator::HandleConnectFailed, this));
        s->SetSendCallback(MakeCallback(&FlowGenerator::HandleSendSpace, this));
        m_flowSocketTrace(r.id, s);
        s->Connect(m_destinations[f.destination]);
        m_flowStartTrace(r.id, r.sizeBytes);
    }
    ScheduleNext();
}

void
FlowGenerator::HandleConnected(Ptr<Socket> socket)
{
    auto it = m_active.find(PeekPointer(socket));
    if (it == m_active.end())
    {
        return;
    }
    it->second.connected = true;
    Write(socket, it->second);
}

void
FlowGenerator::HandleConnectFailed(Ptr<Socket> socket)
{
    auto it = m_active.find(PeekPointer(socket));
    if (it != m_active.end())
    {
        m_records[it->second.id].failed = true;
        m_active.erase(it);
    }
}

void
FlowGenerator::HandleSendSpace(Ptr<Socket> socket, uint32_t available)
{
    auto it = m_active.find(PeekPointer(socket));
    if (it != m_active.end() && it->second.connected)
    {
        Write(socket, it->second);
    }
}

void
FlowGenerator::Wake(Ptr<Socket> socket)
{
    auto it = m_active.find(PeekPointer(socket));
    if (it != m_active.end())
    {
        Write(socket, it->second);
    }
}

void
FlowGenerator::Write(Ptr<Socket> socket, ActiveFlow& flow)
{
    const uint64_t total = m_records[flow.id].sizeBytes + kHeaderBytes;
    while (flow.remaining > 0)
    {
        if (flow.wake.IsRunning())
        {
            return; // asleep after a chunk: Wake resumes
        }
        uint32_t room = socket->GetTxAvailable();
        if (room == 0)
        {
            return; // HandleSendSpace resumes
        }
        uint64_t offset = total - flow.remaining;
        Ptr<Packet> p;
        if (offset < kHeaderBytes)
        {
            // The header is real bytes (the sink reads them); the data is virtual zeros.
            uint32_t n = std::min<uint64_t>(kHeaderBytes - offset, room);
            p = Create<Packet>(flow.header + offset, n);
        }
        else
        {
            // (The header goes in a send of its own, as the client's, outside the chunks.)
            const uint64_t chunk = m_chunkBytes > 0 ? flow.chunkLeft : flow.remaining;
            p = Create<Packet>(static_cast<uint32_t>(
                std::min<uint64_t>({ flow.remaining, chunk, room, m_maxWriteBytes })));
        }
        int sent = socket->Send(p);
        if (sent <= 0)
        {
            return;
        }
        flow.remaining -= sent;
        if (m_chunkBytes > 0 && offset >= kHeaderBytes && (flow.chunkLeft -= sent) == 0)
        {
            // The chunk is in the socket: the writer sleeps before the next one.
            flow.chunkLeft = m_chunkBytes;
            if (flow.remaining > 0 && m_chunkGap.IsStrictlyPositive())
            {
                flow.wake = Simulator::Schedule(m_chunkGap, &FlowGenerator::Wake, this, socket);
            }
        }
    }
    // Everything is in TCP's hands: close (FIN after the data), forget the socket.
    NS_LOG_LOGIC("flow " << flow.id << " written");
    socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
    socket->Close();
    m_active.erase(PeekPointer(socket)); // `flow` is gone from here on
}

void
FlowGenerator::NotifyFlowComplete(uint32_t id, uint64_t sizeBytes, Time at)
{
    if (id < m_records.size() && m_records[id].sizeBytes == sizeBytes)
    {
        m_records[id].end = at;
    }
}

} // namespace ns3
