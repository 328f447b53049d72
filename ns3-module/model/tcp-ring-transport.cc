#include "tcp-ring-transport.h"

#include "ns3/boolean.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-address.h"
#include "ns3/log.h"
#include "ns3/mltcp-congestion-ops.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpRingTransport");
NS_OBJECT_ENSURE_REGISTERED(TcpRingTransport);

namespace
{
// Stripe k of a message of `bytes` over `n` sockets (NCCL splits each message evenly).
uint64_t
StripeBytes(uint64_t bytes, uint32_t n, uint32_t k)
{
    return bytes / n + (k < bytes % n ? 1 : 0);
}
} // namespace

TypeId
TcpRingTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::TcpRingTransport")
              .SetParent<RingTransport>()
              .SetGroupName("Flumen")
              .AddConstructor<TcpRingTransport>()
              .AddAttribute("ListenPort",
                            "TCP port on which every rank accepts its predecessor's connections.",
                            UintegerValue(45000),
                            MakeUintegerAccessor(&TcpRingTransport::m_listenPort),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("LocalPortBase",
                            "First local port of the outgoing connections; connection k binds "
                            "LocalPortBase+k so the receiver knows each stripe's index.",
                            UintegerValue(40000),
                            MakeUintegerAccessor(&TcpRingTransport::m_localPortBase),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("SocketsPerPeer",
                            "TCP connections to the next rank (NCCL_NSOCKS_PERTHREAD x threads).",
                            UintegerValue(2), MakeUintegerAccessor(&TcpRingTransport::m_sockets),
                            MakeUintegerChecker<uint32_t>(1, 64))
              .AddAttribute(
                  "HostCeiling", "Host-side throughput ceiling of the socket path (0 = none).",
                  DataRateValue(DataRate(0)),
                  MakeDataRateAccessor(&TcpRingTransport::m_hostCeiling), MakeDataRateChecker())
              .AddAttribute("InterleaveStripes",
                            "Write the sockets in turn, a write each, so that the stripes of a "
                            "message leave side by side (NCCL's socket threads); false writes "
                            "each socket's pending stripes before the next socket's.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&TcpRingTransport::m_interleaveStripes),
                            MakeBooleanChecker())
              .AddAttribute("MaxWriteBytes",
                            "Largest single write into a socket (a copy of NCCL's staging buffer).",
                            UintegerValue(1 << 20),
                            MakeUintegerAccessor(&TcpRingTransport::m_maxWriteBytes),
                            MakeUintegerChecker<uint32_t>(1))
              .AddTraceSource("MessageSent", "A message was queued to the next rank (bytes).",
                              MakeTraceSourceAccessor(&TcpRingTransport::m_messageSentTrace),
                              "ns3::RingTransport::BytesTracedCallback")
              .AddTraceSource("MessageReceived",
                              "A posted receive from the previous rank completed (bytes).",
                              MakeTraceSourceAccessor(&TcpRingTransport::m_messageReceivedTrace),
                              "ns3::RingTransport::BytesTracedCallback");
    return tid;
}

TcpRingTransport::TcpRingTransport() = default;
TcpRingTransport::~TcpRingTransport() = default;

void
TcpRingTransport::DoDispose()
{
    m_pumpEvent.Cancel();
    for (auto& o : m_out)
    {
        if (o.socket)
        {
            o.socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
            o.socket->Close();
        }
    }
    m_out.clear();
    for (auto& s : m_accepted)
    {
        if (s)
        {
            s->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
            s->Close();
        }
    }
    m_accepted.clear();
    if (m_listener)
    {
        m_listener->Close();
        m_listener = nullptr;
    }
    m_node = nullptr;
    RingTransport::DoDispose();
}

void
TcpRingTransport::Start()
{
    NS_ABORT_MSG_IF(!m_node, "TcpRingTransport: no node set");
    NS_ABORT_MSG_IF(m_started, "TcpRingTransport: started twice");
    m_started = true;
    m_rxPerStripe.assign(m_sockets, 0);
    m_postedPerStripe.assign(m_sockets, 0);
    m_queuedPerStripe.assign(m_sockets, 0);
    m_writtenPerStripe.assign(m_sockets, 0);
    m_accepted.assign(m_sockets, nullptr);

    m_listener = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
    if (m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_listenPort)) != 0)
    {
        NS_FATAL_ERROR("TcpRingTransport: cannot listen on port " << m_listenPort);
    }
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeCallback(&TcpRingTransport::HandleConnectionRequest, this),
                                  MakeCallback(&TcpRingTransport::HandleAccept, this));

    m_out.resize(m_sockets);
    Ipv4Address next = Ipv4Address::ConvertFrom(m_nextAddress);
    for (uint32_t k = 0; k < m_sockets; ++k)
    {
        Ptr<Socket> s = Socket::CreateSocket(m_node, TcpSocketFactory::GetTypeId());
        if (s->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_localPortBase + k)) != 0)
        {
            NS_FATAL_ERROR("TcpRingTransport: cannot bind local port " << m_localPortBase + k);
        }
        s->SetConnectCallback(MakeCallback(&TcpRingTransport::HandleConnected, this),
                              MakeCallback(&TcpRingTransport::HandleConnectFailed, this));
        s->SetSendCallback(MakeCallback(&TcpRingTransport::HandleSendSpace, this));
        if (Ptr<MltcpAggressiveness> a = GetAggressiveness())
        {
            // MLTCP on the host's congestion control, for the ring's connections only.
            TypeIdValue base;
            m_node->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", base);
            Ptr<MltcpCongestionOps> mltcp = CreateObject<MltcpCongestionOps>();
            mltcp->SetAttribute("Base", base);
            mltcp->SetAggressiveness(a);
            DynamicCast<TcpSocketBase>(s)->SetCongestionControlAlgorithm(mltcp);
        }
        s->Connect(InetSocketAddress(next, m_listenPort));
        m_out[k].socket = s;
    }
}

void
TcpRingTransport::Send(uint64_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    StripedMessage message = Stripe(bytes, m_queuedPerStripe);
    for (uint32_t k = 0; k < m_sockets; ++k)
    {
        m_out[k].pending += StripeBytes(bytes, m_sockets, k);
    }
    m_unwritten.push_back(std::move(message));
    m_messageSentTrace(bytes);
    Pump();
}

TcpRingTransport::StripedMessage
TcpRingTransport::Stripe(uint64_t bytes, std::vector<uint64_t>& totals) const
{
    StripedMessage m;
    m.bytes = bytes;
    m.cumulativeTarget.resize(m_sockets);
    for (uint32_t k = 0; k < m_sockets; ++k)
    {
        totals[k] += StripeBytes(bytes, m_sockets, k);
        m.cumulativeTarget[k] = totals[k];
    }
    return m;
}

bool
TcpRingTransport::Reached(const std::vector<uint64_t>& counts, const StripedMessage& m)
{
    for (size_t k = 0; k < counts.size(); ++k)
    {
        if (counts[k] < m.cumulativeTarget[k])
        {
            return false;
        }
    }
    return true;
}

void
TcpRingTransport::CompleteSends()
{
    while (!m_unwritten.empty() && Reached(m_writtenPerStripe, m_unwritten.front()))
    {
        const uint64_t bytes = m_unwritten.front().bytes;
        m_unwritten.pop_front();
        NotifySendComplete(bytes); // may queue the next message (and come back here)
    }
}

void
TcpRingTransport::PostReceive(uint64_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    StripedMessage r = Stripe(bytes, m_postedPerStripe);
    m_posted.push_back(std::move(r));
    // Bytes may already be here; complete from a fresh event so the caller is not re-entered.
    Simulator::ScheduleNow(&TcpRingTransport::CompleteReceives, this);
}

void
TcpRingTransport::SchedulePump(Time at)
{
    if (m_pumpEvent.IsRunning())
    {
        return;
    }
    m_pumpEvent = Simulator::Schedule(at - Simulator::Now(), &TcpRingTransport::Pump, this);
}

void
TcpRingTransport::Pump()
{
    WriteAll();
    CompleteSends();
}

void
TcpRingTransport::WriteAll()
{
    const bool ceiling = m_hostCeiling.GetBitRate() > 0;
    const uint32_t n = static_cast<uint32_t>(m_out.size());
    // Serial: a socket takes writes until it can take no more, then the next one, so a
    // socket's pending stripes all go before the next socket's. Interleaved: a write per socket
    // in turn, so the stripes of a message leave side by side as NCCL's socket threads send
    // them.
    uint32_t k = m_interleaveStripes ? m_nextSocket : 0;
    for (uint32_t refused = 0; refused < n;)
    {
        Outgoing& o = m_out[k];
        const bool hasData = o.connected && o.pending > 0;
        if (hasData && ceiling && m_ceilingFreeAt > Simulator::Now())
        {
            m_nextSocket = k;
            SchedulePump(m_ceilingFreeAt);
            return;
        }
        if (hasData && WriteSome(o, ceiling))
        {
            refused = 0;
            if (!m_interleaveStripes)
            {
                continue; // serial: the same socket again
            }
            m_nextSocket = (k + 1) % n;
        }
        else
        {
            ++refused; // HandleSendSpace resumes a full socket
        }
        k = (k + 1) % n;
    }
}

bool
TcpRingTransport::WriteSome(Outgoing& o, bool ceiling)
{
    uint32_t avail = o.socket->GetTxAvailable();
    if (avail == 0)
    {
        return false;
    }
    uint32_t n = static_cast<uint32_t>(std::min<uint64_t>({ o.pending, avail, m_maxWriteBytes }));
    if (ceiling)
    {
        // Writes stay small so the ceiling paces smoothly rather than in big bursts.
        n = std::min<uint32_t>(n, 64 * 1024);
    }
    int sent = o.socket->Send(Create<Packet>(n));
    if (sent <= 0)
    {
        return false;
    }
    o.pending -= sent;
    m_bytesSent += sent;
    m_writtenPerStripe[&o - m_out.data()] += sent;
    if (ceiling)
    {
        m_ceilingFreeAt = std::max(m_ceilingFreeAt, Simulator::Now())
                          + m_hostCeiling.CalculateBytesTxTime(sent);
    }
    return true;
}

void
TcpRingTransport::HandleConnected(Ptr<Socket> socket)
{
    for (auto& o : m_out)
    {
        if (o.socket == socket)
        {
            o.connected = true;
        }
    }
    Pump();
}

void
TcpRingTransport::HandleConnectFailed(Ptr<Socket> socket)
{
    NS_FATAL_ERROR("TcpRingTransport: connection to the next rank failed at "
                   << Simulator::Now().As(Time::US));
}

void
TcpRingTransport::HandleSendSpace(Ptr<Socket> socket, uint32_t available)
{
    Pump();
}

bool
TcpRingTransport::HandleConnectionRequest(Ptr<Socket> socket, const Address& from)
{
    return true;
}

void
TcpRingTransport::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    uint16_t port = InetSocketAddress::ConvertFrom(from).GetPort();
    NS_ABORT_MSG_IF(port < m_localPortBase || port >= m_localPortBase + m_sockets,
                    "TcpRingTransport: unexpected connection from port " << port);
    uint32_t k = port - m_localPortBase;
    NS_ABORT_MSG_IF(m_accepted[k], "TcpRingTransport: stripe " << k << " connected twice");
    m_accepted[k] = socket;
    socket->SetRecvCallback(MakeCallback(&TcpRingTransport::HandleRead, this));
}

void
TcpRingTransport::HandleRead(Ptr<Socket> socket)
{
    uint32_t k = 0;
    while (k < m_accepted.size() && m_accepted[k] != socket)
    {
        ++k;
    }
    NS_ASSERT(k < m_accepted.size());
    Ptr<Packet> p;
    while ((p = socket->Recv()) && p->GetSize() > 0)
    {
        m_rxPerStripe[k] += p->GetSize();
        m_bytesReceived += p->GetSize();
    }
    CompleteReceives();
}

void
TcpRingTransport::CompleteReceives()
{
    while (!m_posted.empty() && Reached(m_rxPerStripe, m_posted.front()))
    {
        uint64_t bytes = m_posted.front().bytes;
        m_posted.pop_front();
        m_messageReceivedTrace(bytes);
        NotifyReceiveComplete(bytes);
    }
}

} // namespace ns3
