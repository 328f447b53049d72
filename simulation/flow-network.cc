#include "flow-network.h"

#include "flow-player.h"
#include "key-attributes.h"
#include "packet-network.h"
#include "scenario.h"

#include "ns3/core-module.h"
#include "ns3/flow-generator.h"
#include "ns3/flow-ring-transport.h"
#include "ns3/fluid-host.h"
#include "ns3/iperf-helper.h"
#include "ns3/node.h"
#include "ns3/tcp-ring-transport.h"
#include "ns3/training-job-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>

namespace flumen
{

using namespace ns3;

namespace
{

// A RoCE packet on the wire (with the framing) per payload byte.
double
RoceWireFactor(const Scenario& s)
{
    return double(RoceFrameBytes(s)) / s.rdmaMtuBytes;
}

// ring.csv's hops are binned for rings of at most this many ranks.
constexpr size_t kMaxBinnedRingRanks = 64;

// An ns-3 attribute's current default (the tcp.* keys set them as defaults).
template <typename Value>
Value
AttributeNow(const std::string& attribute)
{
    Ptr<const Value> value = DynamicCast<const Value>(AttributeInfo(attribute).initialValue);
    NS_ABORT_MSG_IF(!value, "FlowNetwork: " << attribute << " is not of the type read here");
    return *value;
}

uint32_t
TcpSocketDefault(const std::string& name)
{
    return AttributeNow<UintegerValue>("ns3::TcpSocket::" + name).Get();
}

} // namespace

FlowNetwork::FlowNetwork(const Scenario& s)
{
    const uint32_t hosts = s.hosts;
    m_net = CreateObject<FluidNetwork>();
    const double bps = s.linkRateGbps * 1e9;
    m_linkDelay = NanoSeconds(std::llround(s.linkDelayUs * 1000));
    m_leaves = s.leaves;
    std::vector<uint32_t>& up = m_up;
    std::vector<uint32_t>& down = m_down;
    // Standing queues at the switch's ports, held by an RDMA job's RoCE (docs/flow-engine.md:
    // with TCP alone max-min agrees better); where they mark, its queue pairs run DCQCN.
    m_queues = FlowEngineHasStandingQueues(s);
    m_marks = m_queues && s.switchQueue.discipline == "ecn";
    const auto switchPort = [&](double rate)
    {
        const uint32_t link = m_net->AddLink(rate, true, m_queues);
        if (m_queues)
        {
            // A full port drops: windows lose, unresponsive RoCE pushes what it serves.
            m_net->SetDropBuffer(link, s.switchQueue.bufferBytes);
        }
        if (m_marks)
        {
            const auto& q = s.switchQueue;
            m_net->SetMarking(link, q.ecnKminBytes, q.ecnKmaxBytes, q.ecnPmax);
        }
        return link;
    };
    m_traceWindows = s.tcpCsv && m_queues; // (the scenario's rules refuse it otherwise)
    m_hosts.Create(hosts);
    for (uint32_t i = 0; i < hosts; ++i)
    {
        // Every port is one FIFO but an RDMA job's NICs, which serve RoCE and TCP/IP round
        // robin (NicQueueDisc).
        up.push_back(m_net->AddLink(bps, !HostRunsRdmaJob(s, i)));
        if (m_queues && !HostRunsRdmaJob(s, i) && s.hostQueue.discipline == "fifo")
        {
            // Slow start behind a standing queue can overrun a sender's NIC buffer.
            m_net->SetOverflowBuffer(up.back(), s.hostQueue.bufferBytes);
        }
        if (m_queues && s.pfcEnabled && HostRunsRdmaJob(s, i))
        {
            // PFC: the ToR pauses the host's RoCE at XOFF bytes buffered from it.
            m_net->SetPauseThreshold(
                up.back(), AttributeNow<UintegerValue>("ns3::PfcController::XoffBytes").Get());
        }
        // The port towards the host sends no faster than the host takes frames.
        down.push_back(switchPort(s.hostReceiveGbps * 1e9));
        m_ports.push_back({ StarTopologyHelper::PortName(i, true), up.back() });
        m_ports.push_back({ StarTopologyHelper::PortName(i, false), down.back() });
        Ptr<FluidHost> host = CreateObject<FluidHost>();
        host->SetNetwork(m_net);
        host->SetAddress(StarTopologyHelper::HostAddress(i)); // the packet level's
        m_addresses.push_back(host->GetAddress());
        m_hostOf[host->GetAddress()] = i;
        m_hosts.Get(i)->AggregateObject(host);
    }
    // A fabric's uplinks: [leaf][spine] up, [spine][leaf] down (FIFO switch ports).
    const double uplinkBps = s.uplinkRateGbps * 1e9;
    std::vector<std::vector<uint32_t>>& leafUp = m_leafUp;
    std::vector<std::vector<uint32_t>>& spineDown = m_spineDown;
    leafUp.resize(s.leaves > 1 ? s.leaves : 0);
    spineDown.resize(s.leaves > 1 ? s.spines : 0);
    for (uint32_t l = 0; l < leafUp.size(); ++l)
    {
        for (uint32_t sp = 0; sp < s.spines; ++sp)
        {
            leafUp[l].push_back(switchPort(uplinkBps));
            m_ports.push_back({ StarTopologyHelper::UplinkName(l, sp, true), leafUp[l].back() });
            spineDown[sp].push_back(switchPort(uplinkBps));
            m_ports.push_back(
                { StarTopologyHelper::UplinkName(l, sp, false), spineDown[sp].back() });
        }
    }
    const StarRoles roles = CrossTrafficRoles(s);
    m_crossSource = roles.crossSource;
    m_crossDestination = roles.crossDestination;
    // Routes are made where traffic asks for them (the ring's successors, the trees', the
    // cross traffic's): all pairs would grow as the square of the hosts.
    for (uint32_t i = 0; i < hosts; ++i)
    {
        m_hosts.Get(i)->GetObject<FluidHost>()->SetRouteResolver(
            Callback<FluidHost::Route, Ipv4Address>(
                [this, i](Ipv4Address to)
                {
                    const auto it = m_hostOf.find(to);
                    NS_ABORT_MSG_IF(it == m_hostOf.end(), "FlowNetwork: no host at " << to);
                    return MakeRoute(i, it->second);
                }));
    }
    const uint32_t b = roles.BottleneckHost();
    m_bottleneck = Port{ roles.BottleneckName(), roles.bottleneckAtNic ? up[b] : down[b] };
    m_tcpWireFactor = TcpWireFactor(s);
    m_roceWireFactor = RoceWireFactor(s);
    // TCP's ACKs where the standing queues are: a segment's frame without its payload per
    // DelAckCount segments (docs/flow-engine.md, "ACKs").
    m_tcpAckWireFactor = m_queues
                             ? double(TcpFrameBytes(s) - TcpMss(s))
                                   / (std::max(1u, TcpSocketDefault("DelAckCount")) * TcpMss(s))
                             : 0;
    m_rdmaMtu = s.rdmaMtuBytes;
    m_wholeSteps = s.flowWholeSteps;
    m_sliceBytes = s.flowSliceBytes;
    m_tcpWindowBytes = std::min(TcpSocketDefault("SndBufSize"), TcpSocketDefault("RcvBufSize"));
    if (m_queues)
    {
        // A new connection's window: slow start from its first window, one segment per ACK
        // (ns-3's), an ACK every DelAckCount segments.
        const uint32_t mss = TcpMss(s);
        m_newConnection.kind = FluidNetwork::WINDOW;
        m_newConnection.windowBytes = m_tcpWindowBytes;
        m_newConnection.initialWindowBytes = double(kTcpInitialCwndSegments) * mss;
        m_newConnection.slowStartGain = 1.0 / std::max(1u, TcpSocketDefault("DelAckCount"));
        m_newConnection.segmentBytes = mss;
        // CUBIC's HyStart (ns-3's, on by default) ends slow start from its low window on
        // (fluid-network.h); a loss keeps CUBIC's beta of the window, NewReno's half.
        m_newConnection.lossBeta = 0.5;
        if (m_marks && TcpNegotiatesEcn(s))
        {
            // ECN-capable: the switch's ramp marks its packets too, and it answers the echoes.
            m_newConnection.ecn = FluidNetwork::CLASSIC_ECN;
            if (s.tcpCongestionControl == "dctcp")
            {
                const std::string dctcp = "ns3::TcpDctcp::";
                m_newConnection.ecn = FluidNetwork::DCTCP;
                m_newConnection.dctcpGain = AttributeNow<DoubleValue>(dctcp + "DctcpShiftG").Get();
                m_newConnection.dctcpInitialAlpha
                    = AttributeNow<DoubleValue>(dctcp + "DctcpAlphaOnInit").Get();
            }
        }
        if (s.tcpCongestionControl == "cubic")
        {
            const std::string cubic = "ns3::TcpCubic::";
            m_newConnection.lossBeta = AttributeNow<DoubleValue>(cubic + "Beta").Get();
            if (AttributeNow<BooleanValue>(cubic + "HyStart").Get())
            {
                m_newConnection.hystartWindowBytes
                    = double(AttributeNow<UintegerValue>(cubic + "HyStartLowWindow").Get()) * mss;
                m_newConnection.hystartAckDeltaS
                    = AttributeNow<TimeValue>(cubic + "HyStartAckDelta").Get().GetSeconds();
                m_newConnection.hystartDelayMinS
                    = AttributeNow<TimeValue>(cubic + "HyStartDelayMin").Get().GetSeconds();
                m_newConnection.hystartDelayMaxS
                    = AttributeNow<TimeValue>(cubic + "HyStartDelayMax").Get().GetSeconds();
            }
        }
    }
}

FlowNetwork::~FlowNetwork() = default;

NodeContainer
FlowNetwork::Nodes(const std::vector<uint32_t>& hosts) const
{
    NodeContainer nodes;
    for (uint32_t h : hosts)
    {
        nodes.Add(m_hosts.Get(h));
    }
    return nodes;
}

std::vector<Ipv4Address>
FlowNetwork::Addresses(const std::vector<uint32_t>& hosts) const
{
    std::vector<Ipv4Address> addresses;
    for (uint32_t h : hosts)
    {
        addresses.push_back(m_addresses[h]);
    }
    return addresses;
}

void
FlowNetwork::SetJobTransport(TrainingJobHelper& helper, const Scenario& job) const
{
    helper.SetTransport("ns3::FlowRingTransport");
    // Slices pipeline a ring step's hops; between flow events the rates are constant, so a
    // whole step ends at the same time at far fewer events (flow-engine-test,
    // docs/flow-engine.md). A tree's depth is not a ring step: its slices stay.
    // Unmarked RoCE behind a standing queue: a whole step would wait for its last byte at
    // every step, where slices pipeline past it; slices there.
    const bool backlogged = m_queues && job.transport == "rdma";
    // (The scenario's rules keep "whole" where nothing queues.)
    helper.SetWholeRing(job.flowRing == "whole"); // the ring, or every tree of a tree collective
    if (m_wholeSteps && !backlogged && job.collective == "ring")
    {
        helper.SetWorkerAttribute("SliceBytes", UintegerValue(0));
    }
    if (backlogged)
    {
        // Coarser than NCCL's (fewer events), still pipelining.
        const uint64_t nccl = AttributeNow<UintegerValue>("ns3::TrainingWorker::SliceBytes").Get();
        helper.SetWorkerAttribute("SliceBytes", UintegerValue(std::max<uint64_t>(
                                                    nccl, static_cast<uint64_t>(m_sliceBytes))));
    }
    // The link: a TCP link shares as its connections do, under the host ceiling; RoCE as one
    // flow at line rate (without queues: DCQCN's fair share), under DCQCN where ports mark.
    if (job.transport == "rdma")
    {
        helper.SetTransportAttribute("Unresponsive", BooleanValue(m_queues));
        if (m_marks)
        {
            helper.SetTransportAttribute(
                "CnpInterval", AttributeNow<TimeValue>("ns3::RdmaRingTransport::CnpInterval"));
            helper.SetTransportAttribute("Mtu", UintegerValue(m_rdmaMtu));
        }
        helper.SetTransportAttribute("Weight", DoubleValue(1.0));
        helper.SetTransportAttribute("WireFactor", DoubleValue(m_roceWireFactor));
        helper.SetTransportAttribute("Connections", UintegerValue(0));
        return;
    }
    Ptr<TcpRingTransport> tcp = CreateObject<TcpRingTransport>(); // its attributes' defaults
    UintegerValue sockets;
    DataRateValue ceiling;
    tcp->GetAttribute("SocketsPerPeer", sockets);
    tcp->GetAttribute("HostCeiling", ceiling);
    helper.SetTransportAttribute("Weight", DoubleValue(sockets.Get()));
    helper.SetTransportAttribute("Connections", sockets);
    helper.SetTransportAttribute("HostCeiling", ceiling);
    helper.SetTransportAttribute("WireFactor", DoubleValue(m_tcpWireFactor));
    helper.SetTransportAttribute("AckWireFactor", DoubleValue(m_tcpAckWireFactor));
}

FluidHost::Route
FlowNetwork::MakeRoute(uint32_t from, uint32_t to) const
{
    const uint32_t hosts = m_hosts.GetN();
    FluidHost::Route r;
    r.to = m_hosts.Get(to)->GetObject<FluidHost>();
    r.links = { m_up[from], m_down[to] };
    r.delay = m_linkDelay * 2;
    const uint32_t a = StarTopologyHelper::LeafOf(from, hosts, m_leaves);
    const uint32_t b = StarTopologyHelper::LeafOf(to, hosts, m_leaves);
    if (a != b)
    {
        // Over any spine: a connection takes the one the source leaf's hash picks, as at
        // packet level (the leaf's salt is its index); `links` is the first.
        for (uint32_t sp = 0; sp < m_spineDown.size(); ++sp)
        {
            r.paths.push_back({ m_up[from], m_leafUp[a][sp], m_spineDown[sp][b], m_down[to] });
        }
        r.salt = a;
        r.links = r.paths.front();
        r.delay = m_linkDelay * 4;
    }
    return r;
}

const FluidHost::Route&
FlowNetwork::RouteBetween(uint32_t from, uint32_t to) const
{
    return m_hosts.Get(from)->GetObject<FluidHost>()->GetRoute(m_addresses[to]);
}

CrossTraffic
FlowNetwork::InstallIperf(double gbps, uint32_t streams, Time start, Time stop)
{
    // Paced TCP streams: each a flow capped at its pace, for as long as the traffic runs.
    const FluidHost::Route route = RouteBetween(m_crossSource, m_crossDestination);
    const FluidHost::Route back = RouteBetween(m_crossDestination, m_crossSource);
    auto ids = std::make_shared<std::vector<uint64_t>>();
    Ptr<FluidNetwork> net = m_net;
    // Where a full switch port drops, a stream's window falls and grows back as a new
    // connection's would, and it times out (the packet traces' silences); web-search's
    // connections only cut their windows (docs/flow-engine.md, "Drops at switch ports").
    FluidNetwork::FlowSpec stream;
    stream.paced = true;
    stream.segmentBytes = m_newConnection.segmentBytes;
    stream.lossBeta = m_newConnection.lossBeta;
    stream.slowStartGain = m_newConnection.slowStartGain;
    stream.baseRttS = 2 * route.delay.GetSeconds();
    stream.timeoutS = AttributeNow<TimeValue>("ns3::TcpSocketBase::MinRto").Get().GetSeconds();
    stream.wireFactor = m_tcpWireFactor;
    stream.cls = FluidNetwork::CROSS;
    // Its buffers bound its window: behind queues, its ACKs' too, it may fall below its pace.
    stream.windowBytes = m_tcpWindowBytes;
    stream.ackWireFactor = m_tcpAckWireFactor;
    const Ipv4Address from = m_addresses[m_crossSource];
    const Ipv4Address to = m_addresses[m_crossDestination];
    Simulator::Schedule(start,
                        [=]
                        {
                            for (uint32_t k = 0; k < streams; ++k)
                            {
                                FluidNetwork::FlowSpec spec = stream;
                                // On a fabric, the spine of the packet level's stream k:
                                // ns-3 gives the source's k-th ephemeral port, 49153 + k.
                                const auto port = static_cast<uint16_t>(49153 + k);
                                spec.path
                                    = route.PathOf(from, to, 6, port, IperfHelper::kDefaultPort);
                                spec.ackPath
                                    = back.PathOf(to, from, 6, IperfHelper::kDefaultPort, port);
                                spec.capBps = gbps * 1e9 / streams;
                                ids->push_back(net->StartFlow(spec));
                            }
                        });
    Simulator::Schedule(stop,
                        [=]
                        {
                            for (uint64_t id : *ids)
                            {
                                net->StopFlow(id);
                            }
                        });
    CrossTraffic c;
    c.bytesReceived = [=]
    {
        double bytes = 0;
        for (uint64_t id : *ids)
        {
            bytes += net->GetFlowBytes(id);
        }
        return static_cast<uint64_t>(bytes);
    };
    return c;
}

CrossTraffic
FlowNetwork::InstallFlows(Ptr<FlowSchedule> schedule, Time start, Time stop)
{
    auto player = std::make_shared<FlowPlayer>();
    player->net = m_net;
    player->schedule = schedule;
    player->route = RouteBetween(m_crossSource, m_crossDestination);
    player->source = m_addresses[m_crossSource];
    player->destination = m_addresses[m_crossDestination];
    player->wireFactor = m_tcpWireFactor;
    player->ackRoute = RouteBetween(m_crossDestination, m_crossSource);
    player->window = m_newConnection;
    player->window.ackWireFactor = m_tcpAckWireFactor;
    player->window.baseRttS = 2 * player->route.delay.GetSeconds();
    // The client's chunked writes: no faster than a chunk per sleep (the packet level's
    // FlowGenerator writes them so), a cap under any window.
    player->window.capBps = FlowGenerator::WriterPaceBps(
        AttributeNow<UintegerValue>("ns3::FlowGenerator::ChunkBytes").Get(),
        AttributeNow<TimeValue>("ns3::FlowGenerator::ChunkGap").Get());
    player->origin = start;
    player->stop = stop;
    Simulator::Schedule(Time(0), [player] { player->Next(player); });
    CrossTraffic c;
    c.bytesReceived = [player] { return player->BytesReceived(); };
    c.connectionsOpen = [player] { return static_cast<uint64_t>(player->active.size()); };
    c.flowOverheadBytes = FlowGenerator::kHeaderBytes;
    c.takeFlows = [player](bool closedOnly) { return player->Take(closedOnly); };
    if (m_traceWindows)
    {
        player->traceWindows = true;
        // Weak: the network keeps its traces; they must not keep the player alive.
        std::weak_ptr<FlowPlayer> weak = player;
        m_net->TraceConnectWithoutContext(
            "WindowFlowEnded", Callback<void, uint64_t, const FluidNetwork::WindowRecord&>(
                                   [weak](uint64_t flow, const FluidNetwork::WindowRecord& r)
                                   {
                                       if (auto p = weak.lock())
                                       {
                                           p->WindowEnded(flow, r);
                                       }
                                   }));
        c.takeTcpFlows = [player] { return player->TakeWindows(); };
    }
    return c;
}

void
FlowNetwork::Observe(const Scenario& s)
{
    if (s.linkBinUs > 0)
    {
        m_bins = std::make_unique<FluidLinkBins>(s.linkBinUs * 1e-6);
        // outputs.link_port, else the bottleneck (m_ports: per host its NIC, then the ToR's).
        m_binned = s.linkPortHost < 0 ? m_bottleneck
                                      : m_ports.at(2 * s.linkPortHost + (s.linkPortAtNic ? 0 : 1));
        // Each ring job host's egress carries its ring hop (and, in configuration A, S0's
        // iperf, which the job class tells apart), as at packet level. Binning costs every hop
        // at every rate change: rings of more ranks are not binned (ring.csv, docs/outputs.md).
        for (const Scenario* job : Jobs(s))
        {
            const auto& ranks = job->jobHosts;
            const bool binned = job->collective == "ring" && ranks.size() <= kMaxBinnedRingRanks;
            for (size_t r = 0; r < ranks.size() && binned; ++r)
            {
                m_hops.push_back({ ranks[r], ranks[(r + 1) % ranks.size()],
                                   m_ports.at(2 * ranks[r]).link,
                                   std::make_unique<FluidLinkBins>(s.linkBinUs * 1e-6) });
            }
        }
        m_net->TraceConnectWithoutContext(
            "RatesChanged",
            Callback<void, Time, Time>([this](Time from, Time to)
                                       { AddToBins(from.GetSeconds(), to.GetSeconds()); }));
    }
    ResetPortCounters();
}

// The binned port's rates were constant over [from, to), its queue too or, at a host buffer,
// linear (filling or draining).
void
FlowNetwork::AddToBins(double fromS, double toS)
{
    for (Hop& hop : m_hops)
    {
        hop.bins->Add(fromS, toS, m_net->GetLinkRate(hop.link, FluidNetwork::JOB) / 8, 0);
    }
    m_bins->Add(fromS, toS, m_net->GetLinkRate(m_binned.link, FluidNetwork::JOB) / 8,
                m_net->GetLinkRate(m_binned.link, FluidNetwork::CROSS) / 8,
                m_net->GetQueueBytesAtRates(m_binned.link), m_net->GetQueueSlope(m_binned.link),
                m_net->GetOverflowBufferBytes(m_binned.link));
}

void
FlowNetwork::ResetPortCounters()
{
    m_windowStartS = Simulator::Now().GetSeconds();
    m_windowStartBytes.clear();
    m_windowStartQueue.clear();
    m_windowStartLosses.clear();
    for (uint32_t l = 0; l < m_net->GetLinkCount(); ++l)
    {
        m_windowStartBytes.push_back(m_net->GetLinkBytes(l, FluidNetwork::JOB)
                                     + m_net->GetLinkBytes(l, FluidNetwork::CROSS));
        m_windowStartQueue.push_back(m_net->GetQueueByteSeconds(l));
        m_windowStartLosses.push_back({ m_net->GetOverflows(l), m_net->GetWindowsCut(l) });
    }
    m_net->ResetMaxQueues();
}

PortSummary
FlowNetwork::Summary(const Port& port) const
{
    PortSummary p;
    p.port = port.name;
    const double window = Simulator::Now().GetSeconds() - m_windowStartS;
    const double bytes = m_net->GetLinkBytes(port.link, FluidNetwork::JOB)
                         + m_net->GetLinkBytes(port.link, FluidNetwork::CROSS)
                         - m_windowStartBytes.at(port.link);
    p.utilization = window > 0 ? bytes * 8 / (m_net->GetLinkCapacity(port.link) * window) : 0;
    // Standing queues only (flow_queues); drops and marks are not counted as packets.
    const double queue = m_net->GetQueueByteSeconds(port.link) - m_windowStartQueue.at(port.link);
    p.meanQueueBytes = window > 0 ? queue / window : 0;
    p.maxQueueBytes = static_cast<uint64_t>(m_net->GetMaxQueueBytes(port.link) + 0.5);
    // Where the packet level drops, the engine's overflows cut windows: at a host buffer, and
    // at a switch port's (with standing queues).
    const BufferLossSummary& start = m_windowStartLosses.at(port.link);
    const BufferLossSummary losses{ m_net->GetOverflows(port.link) - start.overflows,
                                    m_net->GetWindowsCut(port.link) - start.windowsCut };
    if (m_net->HasOverflowBuffer(port.link))
    {
        p.hostBuffer = losses;
    }
    else if (m_net->HasDropBuffer(port.link))
    {
        p.switchBuffer = losses;
    }
    return p;
}

PortSummary
FlowNetwork::Bottleneck() const
{
    return Summary(m_bottleneck);
}

std::vector<PortSummary>
FlowNetwork::Ports() const
{
    std::vector<PortSummary> ports;
    for (const auto& p : m_ports)
    {
        ports.push_back(Summary(p));
    }
    return ports;
}

std::vector<LinkRow>
FlowNetwork::TakeLinkSeries(bool closedOnly)
{
    if (!m_bins)
    {
        return {};
    }
    // The stretch since the last rate change, up to the open bin (or to now at the end).
    m_net->SettleRates(); // (a change at this instant first closes the stretch before it)
    const double now = Simulator::Now().GetSeconds();
    const double until = closedOnly ? m_bins->BinStart(now) : now;
    if (until > m_bins->AddedUntil())
    {
        AddToBins(m_net->GetRatesSince().GetSeconds(), until);
    }
    return m_bins->Take(now, !closedOnly);
}

} // namespace flumen

namespace flumen
{

std::vector<RingHopSeries>
FlowNetwork::RingHops() const
{
    std::vector<RingHopSeries> out;
    if (m_hops.empty())
    {
        return out;
    }
    // The stretch since the last rate change, to now (the run has ended).
    m_net->SettleRates();
    const double now = Simulator::Now().GetSeconds();
    for (Hop& hop : m_hops)
    {
        if (now > hop.bins->AddedUntil())
        {
            hop.bins->Add(m_net->GetRatesSince().GetSeconds(), now,
                          m_net->GetLinkRate(hop.link, FluidNetwork::JOB) / 8, 0);
        }
        RingHopSeries h;
        h.from = StarTopologyHelper::HostName(hop.from);
        h.to = StarTopologyHelper::HostName(hop.to);
        const std::vector<LinkRow> rows = hop.bins->Take(now, true);
        h.binS = rows.empty() ? 0 : rows.front().widthS;
        for (const LinkRow& row : rows)
        {
            h.jobBytes.push_back(row.jobBytes);
        }
        out.push_back(std::move(h));
    }
    return out;
}

} // namespace flumen
