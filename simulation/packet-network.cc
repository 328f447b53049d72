#include "packet-network.h"

#include "scenario.h"

#include "ns3/core-module.h"
#include "ns3/flow-generator-helper.h"
#include "ns3/internet-module.h"
#include "ns3/iperf-helper.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/roce-header.h"
#include "ns3/tcp-flow-tracer.h"
#include "ns3/tcp-prr-ecn-recovery.h"
#include "ns3/training-job-helper.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace flumen
{

using namespace ns3;

namespace
{

std::string
CongestionControlType(const std::string& name)
{
    if (name == "newreno")
        return "ns3::TcpNewReno";
    if (name == "dctcp")
        return "ns3::TcpDctcp";
    return "ns3::TcpCubic";
}

// The TCP settings derived from keys rather than set by them (the attribute-backed ones are
// set by ApplyAttributeKeys).
void
SetTcpDefaults(const Scenario& s)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(TcpMss(s)));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(kTcpInitialCwndSegments));
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime",
                       DoubleValue(s.tcpTimeWaitMs / 2.0 / 1000.0));
    // ns-3.37's PRR, whose ECN window reduction is completed as Linux and later ns-3 complete
    // it (3.37's stalls a connection whose message ends during one: tcp-prr-ecn-recovery.h).
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpPrrEcnRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::UseEcn",
                       EnumValue(TcpNegotiatesEcn(s) ? TcpSocketState::On : TcpSocketState::Off));
}

std::string
CauseName(TcpFlowStats::Cause cause)
{
    switch (cause)
    {
    case TcpFlowStats::HYSTART:
        return "hystart";
    case TcpFlowStats::LOSS:
        return "loss";
    case TcpFlowStats::ECN:
        return "ecn";
    case TcpFlowStats::OTHER:
        return "other";
    default:
        return "";
    }
}

// Each flow's socket traced from its creation on: tcp.csv's rows, in the order of the
// generator's records (flows.csv's).
std::function<std::vector<TcpFlowRow>()>
TraceTcpFlows(Ptr<FlowGenerator> generator)
{
    Ptr<TcpFlowTracer> tracer = CreateObject<TcpFlowTracer>();
    tracer->Install(generator);
    return [generator, tracer]
    {
        const std::vector<TcpFlowStats> stats = tracer->GetStats();
        std::vector<TcpFlowRow> rows;
        for (const FlowRecord& r : generator->GetRecords())
        {
            // A flow whose socket could not be bound was never watched: its defaults.
            const TcpFlowStats t = r.id < stats.size() ? stats[r.id] : TcpFlowStats{};
            TcpFlowRow row;
            row.id = r.id;
            row.startS = r.start.GetSeconds();
            row.sizeBytes = r.sizeBytes;
            row.slowStartEndS = t.slowStartEnd.IsNegative() ? -1.0 : t.slowStartEnd.GetSeconds();
            row.slowStartEndCwndBytes = t.slowStartEndCwnd;
            row.slowStartEndCause = CauseName(t.slowStartEndCause);
            row.maxCwndBytes = t.maxCwnd;
            const bool sampled = t.minSrtt != Time::Max();
            row.minSrttS = sampled ? t.minSrtt.GetSeconds() : -1.0;
            row.maxSrttS = sampled ? t.maxSrtt.GetSeconds() : -1.0;
            row.recoveries = t.recoveries;
            row.timeouts = t.timeouts;
            rows.push_back(row);
        }
        return rows;
    };
}

StarTopology
BuildStar(const Scenario& s)
{
    SetTcpDefaults(s);
    StarTopologyConfig topo;
    topo.configuration = s.configuration;
    topo.hosts = s.hosts;
    topo.linkRate = DataRate(static_cast<uint64_t>(std::llround(s.linkRateGbps * 1e9)));
    topo.hostReceiveRate = DataRate(static_cast<uint64_t>(std::llround(s.hostReceiveGbps * 1e9)));
    topo.linkDelay = NanoSeconds(std::llround(s.linkDelayUs * 1000));
    topo.mtu = static_cast<uint16_t>(s.mtuBytes);
    topo.framingBytes = FramingBytes(s);
    topo.hostQueue = s.hostQueue;
    topo.switchQueue = s.switchQueue;
    // An RDMA job anywhere: every host's NIC arbitrates RDMA and TCP/IP (NicQueueDisc).
    const auto jobs = Jobs(s);
    topo.rdmaNic = std::any_of(jobs.begin(), jobs.end(),
                               [](const Scenario* job) { return job->transport == "rdma"; });
    topo.pfc = s.pfcEnabled;
    topo.lossRate = s.lossPercent / 100.0;
    topo.lossHosts = s.lossHosts;
    topo.crossSource = s.crossSource;
    topo.crossDestination = s.crossDestination;
    topo.leaves = s.leaves;
    topo.spines = s.spines;
    topo.uplinkRate = DataRate(static_cast<uint64_t>(std::llround(s.uplinkRateGbps * 1e9)));
    StarTopology t
        = StarTopologyHelper(topo).Install(CongestionControlType(s.tcpCongestionControl));
    // The loss draws' own streams, apart from the job's (100...) and the cross traffic's (1000).
    t.AssignStreams(2000);
    return t;
}

PortSummary
ToPortSummary(const std::string& name, const Ptr<QueueMonitor>& m)
{
    PortSummary p;
    p.port = name;
    p.utilization = m->GetUtilization();
    p.drops = m->GetDrops();
    p.ecnMarks = m->GetEcnMarks();
    p.meanQueueBytes = m->GetMeanQueueBytes();
    p.maxQueueBytes = m->GetMaxQueueBytes();
    return p;
}

// A port: the queue disc that feeds it and its device.
struct HostPort
{
    Ptr<QueueDisc> disc;
    Ptr<NetDevice> dev;
};

// A host's NIC egress (`nic`) or the ToR's port towards it.
HostPort
PortOf(const StarTopology& t, uint32_t host, bool nic)
{
    return nic ? HostPort{ t.hostQueueDiscs[host], t.hostDevices.Get(host) }
               : HostPort{ t.torQueueDiscs[host], t.torDevices.Get(host) };
}

} // namespace

PacketNetwork::PacketNetwork(const Scenario& scenario)
    : m_topology(BuildStar(scenario)), m_traceTcp(scenario.tcpCsv)
{
}

NodeContainer
PacketNetwork::Nodes(const std::vector<uint32_t>& hosts) const
{
    NodeContainer nodes;
    for (uint32_t h : hosts)
    {
        nodes.Add(m_topology.hosts.Get(h));
    }
    return nodes;
}

std::vector<Ipv4Address>
PacketNetwork::Addresses(const std::vector<uint32_t>& hosts) const
{
    std::vector<Ipv4Address> addresses;
    for (uint32_t h : hosts)
    {
        addresses.push_back(m_topology.hostAddresses[h]);
    }
    return addresses;
}

void
PacketNetwork::SetJobTransport(TrainingJobHelper& helper, const Scenario& job) const
{
    helper.SetTransport(job.transport == "rdma" ? "ns3::RdmaRingTransport"
                                                : "ns3::TcpRingTransport");
}

CrossTraffic
PacketNetwork::InstallIperf(double gbps, uint32_t streams, Time start, Time stop)
{
    const StarTopology& t = m_topology;
    IperfHelper iperf(DataRate(static_cast<uint64_t>(std::llround(gbps * 1e9))), streams);
    IperfFlows flows = iperf.Install(t.hosts.Get(t.crossSource), t.hosts.Get(t.crossDestination),
                                     t.hostAddresses[t.crossDestination], start, stop);
    Ptr<PacketSink> sink = flows.sink;
    CrossTraffic c;
    c.bytesReceived = [sink] { return sink->GetTotalRx(); };
    return c;
}

CrossTraffic
PacketNetwork::InstallFlows(Ptr<FlowSchedule> schedule, Time start, Time stop)
{
    const StarTopology& t = m_topology;
    FlowTraffic traffic = FlowGeneratorHelper().Install(
        t.hosts.Get(t.crossSource), { t.hosts.Get(t.crossDestination) },
        { t.hostAddresses[t.crossDestination] }, schedule, start, stop);
    Ptr<FlowSink> sink = traffic.sinks.front();
    Ptr<FlowGenerator> generator = traffic.generator;
    CrossTraffic c;
    c.bytesReceived = [sink] { return sink->GetTotalRx(); };
    c.connectionsOpen = [sink] { return static_cast<uint64_t>(sink->GetConnectionsOpen()); };
    c.flowOverheadBytes = FlowGenerator::kHeaderBytes;
    // Kept to the end: at packet level a flow record costs nothing next to its packets.
    c.takeFlows = [generator, taken = std::make_shared<size_t>(0)](bool closedOnly)
    {
        std::vector<FlowRow> rows;
        if (closedOnly)
        {
            return rows;
        }
        const auto& records = generator->GetRecords();
        for (size_t i = *taken; i < records.size(); ++i)
        {
            const FlowRecord& r = records[i];
            FlowRow row;
            row.id = r.id;
            row.startS = r.start.GetSeconds();
            row.sizeBytes = r.sizeBytes;
            row.endS = r.IsComplete() ? r.end.GetSeconds() : -1.0;
            row.failed = r.failed;
            rows.push_back(row);
        }
        *taken = records.size();
        return rows;
    };
    if (m_traceTcp)
    {
        c.takeTcpFlows = TraceTcpFlows(generator);
    }
    return c;
}

void
PacketNetwork::Observe(const Scenario& s)
{
    const StarTopology& t = m_topology;
    if (s.linkBinUs > 0)
    {
        m_series = CreateObject<LinkTimeSeries>();
        m_series->SetAttribute("BinWidth", TimeValue(NanoSeconds(std::llround(s.linkBinUs * 1e3))));
        // The ring's TCP channels listen on 45000 + channel: their data goes there and their
        // ACKs come from there. RoCE (the RDMA transport) is UDP port 4791 both ways.
        std::set<uint16_t> jobPorts{ RoceHeader::kUdpPort };
        for (const Scenario* job : Jobs(s))
        {
            TrainingJobHelper helper;
            helper.SetChannels(job->ncclChannels);
            helper.SetCollective(job->collective, job->psServers);
            for (uint16_t port : helper.TcpPorts(static_cast<uint32_t>(job->jobHosts.size())))
            {
                jobPorts.insert(port);
            }
        }
        m_series->SetJobPorts(jobPorts);
        // outputs.link_port, else the bottleneck.
        const auto [disc, dev]
            = s.linkPortHost < 0 ? HostPort{ t.GetBottleneckQueueDisc(), t.GetBottleneckDevice() }
                                 : PortOf(t, s.linkPortHost, s.linkPortAtNic);
        m_series->Attach(disc, dev);
        // Each ring job host's egress carries its ring hop (and, in configuration A, S0's
        // iperf, which the job ports tell apart). Other collectives have no hops to name.
        for (const Scenario* job : Jobs(s))
        {
            const auto& ranks = job->jobHosts;
            for (size_t r = 0; r < ranks.size() && job->collective == "ring"; ++r)
            {
                Ptr<LinkTimeSeries> hop = CreateObject<LinkTimeSeries>();
                hop->SetAttribute("BinWidth",
                                  TimeValue(NanoSeconds(std::llround(s.linkBinUs * 1e3))));
                hop->SetJobPorts(jobPorts);
                hop->Attach(t.hostQueueDiscs[ranks[r]], t.hostDevices.Get(ranks[r]));
                m_hops.push_back({ ranks[r], ranks[(r + 1) % ranks.size()], hop });
            }
        }
    }
    // Each port at its own device's rate: a port towards a host may send slower than the
    // link (topology.host_receive_gbps).
    const auto rateOf = [](const Ptr<NetDevice>& dev)
    {
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        return rate.Get();
    };
    m_bottleneck = CreateObject<QueueMonitor>();
    m_bottleneck->Attach(t.GetBottleneckQueueDisc(), t.GetBottleneckDevice(),
                         rateOf(t.GetBottleneckDevice()));
    for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
    {
        for (int side = 0; side < 2; ++side)
        {
            const auto [disc, dev] = PortOf(t, i, side == 0);
            Ptr<QueueMonitor> m = CreateObject<QueueMonitor>();
            m->Attach(disc, dev, rateOf(dev));
            m_ports.emplace_back(StarTopologyHelper::PortName(i, side == 0), m);
        }
    }
    m_hostPorts = m_ports.size();
    // A fabric's uplinks, both ways.
    for (const auto& u : t.uplinks)
    {
        for (bool up : { true, false })
        {
            Ptr<QueueMonitor> m = CreateObject<QueueMonitor>();
            m->Attach(up ? u.leafQueueDisc : u.spineQueueDisc, up ? u.leafDevice : u.spineDevice,
                      t.config.uplinkRate);
            m_ports.emplace_back(StarTopologyHelper::UplinkName(u.leaf, u.spine, up), m);
        }
    }
}

void
PacketNetwork::ResetPortCounters()
{
    m_bottleneck->Reset();
    for (auto& [name, m] : m_ports)
    {
        m->Reset();
    }
    for (auto& loss : m_topology.losses)
    {
        loss->Reset();
    }
}

PortSummary
PacketNetwork::Bottleneck() const
{
    return ToPortSummary(m_topology.GetBottleneckName(), m_bottleneck);
}

std::vector<PortSummary>
PacketNetwork::Ports() const
{
    std::vector<PortSummary> ports;
    for (const auto& [name, m] : m_ports)
    {
        ports.push_back(ToPortSummary(name, m));
    }
    return ports;
}

std::vector<LinkRow>
PacketNetwork::TakeLinkSeries(bool closedOnly)
{
    std::vector<LinkRow> rows;
    if (!m_series)
    {
        return rows;
    }
    const uint64_t first = m_series->GetFirstBin();
    const auto bins = m_series->TakeBins(closedOnly);
    const double width = m_series->GetBinWidth().GetSeconds();
    for (size_t i = 0; i < bins.size(); ++i)
    {
        LinkRow row;
        row.startS = (first + i) * width;
        row.widthS = width;
        row.jobBytes = bins[i].jobBytes;
        row.crossBytes = bins[i].crossBytes;
        row.queueMeanBytes = bins[i].queueByteSeconds / width;
        row.queueMaxBytes = bins[i].maxQueueBytes;
        row.drops = bins[i].drops;
        row.ecnMarks = bins[i].ecnMarks;
        rows.push_back(row);
    }
    return rows;
}

std::vector<RingHopSeries>
PacketNetwork::RingHops() const
{
    std::vector<RingHopSeries> hops;
    for (const RingHop& hop : m_hops)
    {
        RingHopSeries h;
        h.from = StarTopologyHelper::HostName(hop.from);
        h.to = StarTopologyHelper::HostName(hop.to);
        h.binS = hop.series->GetBinWidth().GetSeconds();
        for (const auto& bin : hop.series->GetBins())
        {
            h.jobBytes.push_back(bin.jobBytes);
        }
        hops.push_back(std::move(h));
    }
    return hops;
}

void
PacketNetwork::CapturePcap(const std::vector<uint32_t>& hosts, const std::string& dir)
{
    PointToPointHelper p2p;
    for (uint32_t h : hosts)
    {
        const std::string file = dir + "/" + StarTopologyHelper::HostName(h) + ".pcap";
        p2p.EnablePcap(file, m_topology.hostDevices.Get(h), false, true);
    }
}

uint64_t
PacketNetwork::PfcPauses() const
{
    return m_topology.pfc ? m_topology.pfc->GetPausesSent() : 0;
}

LossCounts
PacketNetwork::Loss() const
{
    LossCounts c;
    for (const auto& loss : m_topology.losses)
    {
        c.arrived += loss->GetArrived();
        c.lost += loss->GetLost();
    }
    return c;
}

PacketCounts
PacketNetwork::Packets() const
{
    PacketCounts c;
    // Per host: its NIC, then its ToR's port; then a fabric's uplinks (switches both ends).
    for (size_t i = 0; i < m_ports.size(); ++i)
    {
        const uint64_t n = m_ports[i].second->GetTxPacketsSinceAttach();
        c.hops += n;
        c.torForwarded += (i >= m_hostPorts || i % 2 == 1) ? n : 0;
    }
    return c;
}

} // namespace flumen
