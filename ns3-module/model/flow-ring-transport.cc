#include "flow-ring-transport.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/ring-allreduce.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FlowRingTransport");
NS_OBJECT_ENSURE_REGISTERED(FlowRingTransport);

namespace
{

constexpr uint8_t kTcp = 6;
constexpr uint8_t kUdp = 17;
constexpr uint16_t kRocePort = 4791; // RoceHeader::kUdpPort, both ways

} // namespace

TypeId
FlowRingTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FlowRingTransport")
              .SetParent<RingTransport>()
              .SetGroupName("Flumen")
              .AddConstructor<FlowRingTransport>()
              .AddAttribute("Port", "Port at which every rank receives its predecessor's bytes.",
                            UintegerValue(45000), MakeUintegerAccessor(&FlowRingTransport::m_port),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("GrantPort",
                            "Port at which every rank receives its successor's clear to send "
                            "(with clear to send).",
                            UintegerValue(55000),
                            MakeUintegerAccessor(&FlowRingTransport::m_grantPort),
                            MakeUintegerChecker<uint16_t>(1))
              .AddAttribute("Weight",
                            "Share of a congested link relative to a weight-1 flow (a TCP "
                            "connection): the ring link's connections.",
                            DoubleValue(1.0), MakeDoubleAccessor(&FlowRingTransport::m_weight),
                            MakeDoubleChecker<double>(1e-6, 1e6))
              .AddAttribute("WireFactor",
                            "Link bytes per payload byte (the transport's headers on the wire).",
                            DoubleValue(1.0), MakeDoubleAccessor(&FlowRingTransport::m_wireFactor),
                            MakeDoubleChecker<double>(1, 10))
              .AddAttribute("AckWireFactor",
                            "ACK bytes on the wire per payload byte delivered, sent back along "
                            "the next rank's route to this one (0: ACKs not modelled).",
                            DoubleValue(0.0),
                            MakeDoubleAccessor(&FlowRingTransport::m_ackWireFactor),
                            MakeDoubleChecker<double>(0, 0.999))
              .AddAttribute("Connections",
                            "TCP connections of the link, each a stripe of every message that "
                            "a fabric's switches route on its own (0: one RoCE queue pair, UDP "
                            "port 4791 both ways).",
                            UintegerValue(1),
                            MakeUintegerAccessor(&FlowRingTransport::m_connections),
                            MakeUintegerChecker<uint32_t>(0, 64))
              .AddAttribute("LocalPortBase",
                            "Source port of connection 0 (connection k: LocalPortBase + k), as "
                            "the TCP transport binds them.",
                            UintegerValue(40000),
                            MakeUintegerAccessor(&FlowRingTransport::m_localPortBase),
                            MakeUintegerChecker<uint16_t>())
              .AddAttribute("Unresponsive",
                            "The link's flows push regardless of queues (RoCE that nothing "
                            "marks): at a queued link the next message starts once this one "
                            "has left the sender, while its bytes still wait there.",
                            BooleanValue(false),
                            MakeBooleanAccessor(&FlowRingTransport::m_unresponsive),
                            MakeBooleanChecker())
              .AddAttribute("WindowBytes",
                            "Each connection's window (TCP: its buffers); at a queued link the "
                            "link moves windows / round trip (0: not window-limited).",
                            DoubleValue(0), MakeDoubleAccessor(&FlowRingTransport::m_windowBytes),
                            MakeDoubleChecker<double>(0))
              .AddAttribute("CnpInterval",
                            "DCQCN: the receiver returns at most one CNP per this interval, when "
                            "a packet of the interval was marked (0: no DCQCN, nothing marks; "
                            "needs Connections 0, a queue pair).",
                            TimeValue(Time(0)), MakeTimeAccessor(&FlowRingTransport::m_cnpInterval),
                            MakeTimeChecker(Time(0)))
              .AddAttribute("Mtu", "DCQCN: payload bytes per packet (the packets marks can hit).",
                            UintegerValue(1024), MakeUintegerAccessor(&FlowRingTransport::m_mtu),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute(
                  "HostCeiling", "Host-side throughput ceiling of the ring link (0 = none).",
                  DataRateValue(DataRate(0)),
                  MakeDataRateAccessor(&FlowRingTransport::m_hostCeiling), MakeDataRateChecker())
              .AddTraceSource("MessageSent", "A message's bytes all left this rank.",
                              MakeTraceSourceAccessor(&FlowRingTransport::m_messageSentTrace),
                              "ns3::RingTransport::BytesTracedCallback")
              .AddTraceSource("MessageReceived", "A posted receive completed.",
                              MakeTraceSourceAccessor(&FlowRingTransport::m_messageReceivedTrace),
                              "ns3::RingTransport::BytesTracedCallback");
    return tid;
}

FlowRingTransport::FlowRingTransport() = default;

FlowRingTransport::~FlowRingTransport() = default;

void
FlowRingTransport::DoDispose()
{
    m_cnpCheck.Cancel();
    if (m_dcqcn)
    {
        m_dcqcn->Dispose();
        m_dcqcn = nullptr;
    }
    m_uniform = nullptr;
    m_wholeRing = nullptr;
    m_node = nullptr;
    m_host = nullptr;
    m_route = nullptr;
    RingTransport::DoDispose();
}

void
FlowRingTransport::Start()
{
    NS_ABORT_MSG_IF(!m_node, "FlowRingTransport: SetNode first");
    m_host = m_node->GetObject<FluidHost>();
    NS_ABORT_MSG_IF(!m_host, "FlowRingTransport: the node has no FluidHost");
    m_host->Bind(m_port, MakeCallback(&FlowRingTransport::HandleArrival, this));
    if (WaitsForGrants())
    {
        m_host->Bind(m_grantPort, MakeCallback(&FlowRingTransport::HandleGrant, this));
    }
    if (m_cnpInterval.IsStrictlyPositive())
    {
        NS_ABORT_MSG_IF(m_connections != 0, "FlowRingTransport: DCQCN needs a queue pair");
        // At the NIC's line rate on the wire, as the packet level's queue pair starts.
        m_dcqcn = CreateObject<DcqcnRateControl>();
        const FluidHost::Route& route = RouteToNext();
        m_dcqcn->SetLineRate(
            DataRate(static_cast<uint64_t>(m_host->GetNetwork()->GetLinkCapacity(route.links[0]))));
        m_dcqcn->TraceConnectWithoutContext("Rate",
                                            MakeCallback(&FlowRingTransport::HandleRate, this));
        m_dcqcn->SetAggressiveness(GetAggressiveness());
        // The receiver answers packets: no more than a CNP per packet at line rate.
        const double packetS = m_mtu * m_wireFactor * 8 / m_dcqcn->GetRateBps();
        m_checkInterval
            = std::max(m_cnpInterval, NanoSeconds(static_cast<int64_t>(std::ceil(packetS * 1e9))));
        if (!m_uniform)
        {
            m_uniform = CreateObject<UniformRandomVariable>();
        }
    }
    m_started = true;
    SendNext();
}

void
FlowRingTransport::Send(uint64_t bytes)
{
    m_outgoing.push_back(bytes);
    SendNext();
}

void
FlowRingTransport::SendNext()
{
    if (!m_started || m_sending || m_outgoing.empty()
        || (WaitsForGrants() && m_nextMessage >= m_granted))
    {
        return;
    }
    m_sending = true;
    const uint64_t seq = m_nextMessage++;
    Message& message = m_messages[seq];
    message.bytes = m_outgoing.front();
    m_outgoing.pop_front();
    const FluidHost::Route& route = RouteToNext();
    FluidNetwork::FlowSpec spec = LinkSpec();
    spec.bytes = static_cast<double>(message.bytes);
    if (Ptr<MltcpAggressiveness> a = GetAggressiveness())
    {
        // MLTCP's flow-level rule: a share in proportion to F, which is what its scaled
        // increase gives two AIMD flows that lose together (the paper's own analysis); F as
        // the message leaves (a slice: NCCL's are 512 KiB).
        spec.weight *= a->Factor();
    }
    if (m_unresponsive)
    {
        spec.kind = FluidNetwork::UNRESPONSIVE;
        spec.sent = MakeCallback(&FlowRingTransport::HandleFlowSent, this);
    }
    else if (m_windowBytes > 0)
    {
        // Connections long open: their windows have grown to their buffers.
        spec.kind = FluidNetwork::WINDOW;
        spec.windowBytes = spec.initialWindowBytes = m_windowBytes * std::max(1u, m_connections);
        spec.baseRttS = 2 * route.delay.GetSeconds();
    }
    spec.done = MakeCallback(&FlowRingTransport::HandleFlowDone, this);
    spec.ackWireFactor = m_ackWireFactor;
    const Ipv4Address self = m_host->GetAddress();
    // Its ACKs' links: back along the path the switches pick for them.
    auto ackPath = [&](uint8_t protocol, uint16_t localPort, uint16_t peerPort)
    {
        return m_ackWireFactor > 0 ? RouteBack().PathOf(m_next, self, protocol, peerPort, localPort)
                                   : std::vector<uint32_t>();
    };
    auto start = [&](const FluidNetwork::FlowSpec& one)
    {
        message.moving++;
        message.unsent++;
        m_flowToMsg[m_host->GetNetwork()->StartFlow(one)] = seq;
    };
    if (route.paths.empty() || m_connections == 0)
    {
        // One path, or a queue pair (its UDP ports are 4791 both ways): one flow.
        spec.path = QueuePairPath();
        spec.ackPath = m_connections == 0 ? ackPath(kUdp, kRocePort, kRocePort)
                                          : ackPath(kTcp, m_localPortBase, m_port);
        start(spec);
        if (m_dcqcn && !m_cnpCheck.IsRunning())
        {
            m_sentAtCheck = SentBytes();
            m_cnpCheck = Simulator::Schedule(m_checkInterval, &FlowRingTransport::CheckMarks, this);
        }
        return;
    }
    // Equal-cost paths: each connection's stripe where the switch's hash sends it, with its
    // share of the link's weight and ceiling; the stripes on one path move as one flow (equal
    // weights on equal links: they would move in step).
    struct PathShare
    {
        const std::vector<uint32_t>* path;
        uint64_t bytes;
        uint32_t connections;
        uint16_t firstPort; //!< its first connection's (its ACKs' path stands for theirs)
    };
    std::vector<PathShare> shares;
    for (uint32_t k = 0; k < m_connections; ++k)
    {
        const std::vector<uint32_t>* path
            = &route.PathOf(self, m_next, kTcp, static_cast<uint16_t>(m_localPortBase + k), m_port);
        auto share = std::find_if(shares.begin(), shares.end(),
                                  [path](const PathShare& p) { return p.path == path; });
        if (share == shares.end())
        {
            shares.push_back({ path, 0, 0, static_cast<uint16_t>(m_localPortBase + k) });
            share = shares.end() - 1;
        }
        share->bytes += RingAllReduce::ChunkBytes(message.bytes, m_connections, k);
        share->connections++;
    }
    for (const PathShare& share : shares)
    {
        FluidNetwork::FlowSpec one = spec;
        one.path = *share.path;
        one.ackPath = ackPath(kTcp, share.firstPort, m_port);
        one.bytes = static_cast<double>(share.bytes);
        one.weight = spec.weight * share.connections / m_connections;
        one.capBps = spec.capBps * share.connections / m_connections;
        if (one.kind == FluidNetwork::WINDOW)
        {
            one.windowBytes = one.initialWindowBytes = m_windowBytes * share.connections;
        }
        start(one);
    }
}

void
FlowRingTransport::HandleFlowSent(uint64_t flow)
{
    auto it = m_messages.find(m_flowToMsg.at(flow));
    if (it->second.unsent > 0 && --it->second.unsent == 0)
    {
        Release(it->first);
    }
}

// The message has left this rank: the next may go.
void
FlowRingTransport::Release(uint64_t message)
{
    const uint64_t bytes = m_messages.at(message).bytes;
    m_bytesSent += bytes;
    m_messageSentTrace(bytes);
    m_sending = false;
    SendNext();
    if (m_connections > 0)
    {
        NotifySendComplete(bytes); // written into the sockets
    }
}

void
FlowRingTransport::HandleFlowDone(uint64_t flow)
{
    auto f = m_flowToMsg.find(flow);
    const uint64_t seq = f->second;
    m_flowToMsg.erase(f);
    Message& message = m_messages.at(seq);
    if (--message.moving > 0)
    {
        return;
    }
    const uint64_t bytes = message.bytes;
    m_sentByEnded += static_cast<double>(bytes);
    const bool released = message.unsent == 0;
    message.unsent = 0;
    const FluidHost::Route& route = RouteToNext();
    Simulator::Schedule(route.delay, &FluidHost::Deliver, route.to, m_port, bytes);
    if (m_connections == 0)
    {
        // A queue pair's message is done when its last packet's ACK is back (the way back
        // taken as long as the way there).
        Simulator::Schedule(route.delay + route.delay, &FlowRingTransport::NotifySendComplete, this,
                            bytes);
    }
    if (!released)
    {
        Release(seq);
    }
    m_messages.erase(seq);
}

void
FlowRingTransport::PostReceive(uint64_t bytes)
{
    m_posted.push_back(bytes);
    if (WaitsForGrants())
    {
        // The CTS goes back along the queue pair's path, behind whatever queues there.
        NS_ABORT_MSG_IF(m_previous == Ipv4Address(), "FlowRingTransport: no previous rank set");
        const FluidHost::Route& back = m_host->GetRoute(m_previous);
        const std::vector<uint32_t>& path
            = back.paths.empty()
                  ? back.links
                  : back.PathOf(m_host->GetAddress(), m_previous, kUdp, kRocePort, kRocePort);
        const double queued = m_host->GetNetwork()->GetQueueDelay(path);
        Simulator::Schedule(back.delay + Seconds(queued), &FluidHost::Deliver, back.to, m_grantPort,
                            uint64_t{ 1 });
    }
    HandleArrival(0);
}

void
FlowRingTransport::HandleGrant(uint64_t grants)
{
    m_granted += grants;
    SendNext();
}

void
FlowRingTransport::HandleArrival(uint64_t bytes)
{
    m_bytesReceived += bytes;
    m_arrivedUnclaimed += bytes;
    while (!m_posted.empty() && m_arrivedUnclaimed >= m_posted.front())
    {
        const uint64_t done = m_posted.front();
        m_posted.pop_front();
        m_arrivedUnclaimed -= done;
        m_messageReceivedTrace(done);
        NotifyReceiveComplete(done);
    }
}

int64_t
FlowRingTransport::AssignStreams(int64_t stream)
{
    if (!m_cnpInterval.IsStrictlyPositive())
    {
        return 0; // draws nothing
    }
    if (!m_uniform)
    {
        m_uniform = CreateObject<UniformRandomVariable>();
    }
    m_uniform->SetStream(stream);
    return 1;
}

const FluidHost::Route&
FlowRingTransport::RouteToNext() const
{
    // Looked up once, when first sent on (a rank that only receives has no route).
    if (!m_route)
    {
        m_route = &m_host->GetRoute(m_next);
    }
    return *m_route;
}

const FluidHost::Route&
FlowRingTransport::RouteBack() const
{
    if (!m_routeBack)
    {
        m_routeBack = &RouteToNext().to->GetRoute(m_host->GetAddress());
    }
    return *m_routeBack;
}

const std::vector<uint32_t>&
FlowRingTransport::QueuePairPath() const
{
    const FluidHost::Route& route = RouteToNext();
    return route.paths.empty()
               ? route.links
               : route.PathOf(m_host->GetAddress(), m_next, kUdp, kRocePort, kRocePort);
}

const std::vector<uint32_t>&
FlowRingTransport::GrantPath() const
{
    const FluidHost::Route& back = RouteBack();
    return back.paths.empty()
               ? back.links
               : back.PathOf(m_next, m_host->GetAddress(), kUdp, kRocePort, kRocePort);
}

void
FlowRingTransport::SetWholeRing(Ptr<FluidRingAllReduce> ring, uint32_t rank)
{
    m_wholeRing = ring;
    m_rank = rank;
}

void
FlowRingTransport::WholeAllReduce(uint64_t bytes, const RingPacing& pacing, Callback<void> done)
{
    NS_ABORT_MSG_IF(!m_wholeRing, "FlowRingTransport: SetWholeRing first");
    NS_ABORT_MSG_IF(!m_started, "FlowRingTransport: Start first");
    m_wholeRing->Join(m_rank, bytes, pacing, done);
}

FluidNetwork::FlowSpec
FlowRingTransport::LinkSpec() const
{
    FluidNetwork::FlowSpec spec;
    spec.weight = m_weight;
    spec.wireFactor = m_wireFactor;
    spec.cls = FluidNetwork::JOB;
    spec.capBps = FlowCap();
    return spec;
}

FluidNetwork::FlowSpec
FlowRingTransport::WholeRingHop() const
{
    FluidNetwork::FlowSpec spec = LinkSpec();
    const FluidHost::Route& route = RouteToNext();
    spec.path = route.paths.empty() || m_connections == 0
                    ? QueuePairPath()
                    : route.PathOf(m_host->GetAddress(), m_next, kTcp, m_localPortBase, m_port);
    return spec;
}

double
FlowRingTransport::FlowCap() const
{
    double cap = FluidNetwork::kUnbounded;
    if (m_hostCeiling.GetBitRate() > 0)
    {
        cap = static_cast<double>(m_hostCeiling.GetBitRate());
    }
    if (m_dcqcn)
    {
        cap = std::min(cap, m_dcqcn->GetRateBps() / m_wireFactor); // DCQCN paces the wire
    }
    return cap;
}

double
FlowRingTransport::SentBytes() const
{
    double sent = m_sentByEnded;
    for (const auto& [flow, message] : m_flowToMsg)
    {
        sent += m_host->GetNetwork()->GetFlowSentBytes(flow);
    }
    return sent;
}

void
FlowRingTransport::CheckMarks()
{
    const double sent = SentBytes();
    const double bytes = sent - m_sentAtCheck;
    m_sentAtCheck = sent;
    if (bytes > 0)
    {
        m_dcqcn->NotifyBytesSent(static_cast<uint64_t>(bytes * m_wireFactor)); // wire bytes
        const Ptr<FluidNetwork> net = m_host->GetNetwork();
        const double p = net->GetMarkProbability(QueuePairPath());
        if (p > 0)
        {
            const double packets = std::ceil(bytes / m_mtu);
            const double cnp = p >= 1 ? 1.0 : 1 - std::pow(1 - p, packets);
            if (m_uniform->GetValue() < cnp)
            {
                ++m_cnps;
                m_dcqcn->ReceiveCnp();
            }
        }
    }
    if (!m_flowToMsg.empty())
    {
        m_cnpCheck = Simulator::Schedule(m_checkInterval, &FlowRingTransport::CheckMarks, this);
    }
}

void
FlowRingTransport::HandleRate(double, double)
{
    const Ptr<FluidNetwork> net = m_host->GetNetwork();
    const double cap = FlowCap();
    for (const auto& [flow, message] : m_flowToMsg)
    {
        net->SetFlowCap(flow, cap);
    }
}

} // namespace ns3
