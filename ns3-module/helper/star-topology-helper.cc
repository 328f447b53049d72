#include "star-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ecn-ramp-queue-disc.h"
#include "ns3/flow-hash-routing-helper.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/log.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/queue-size.h"
#include "ns3/red-queue-disc.h"
#include "ns3/string.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("StarTopologyHelper");

TrafficControlHelper
MakeEgressQueue(const EgressQueueConfig& q, DataRate rate, Time delay)
{
    TrafficControlHelper tch;
    QueueSize size(QueueSizeUnit::BYTES, q.bufferBytes);
    if (q.discipline == "fifo")
    {
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", QueueSizeValue(size));
    }
    else if (q.discipline == "red")
    {
        // Instantaneous queue (QW = 1), linear marking Kmin..Kmax up to Pmax, every ECT
        // packet marked above Kmax (Gentle off), tail drop at the buffer size.
        tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", QueueSizeValue(size), "MinTh",
                             DoubleValue(q.ecnKminBytes), "MaxTh", DoubleValue(q.ecnKmaxBytes),
                             "LInterm", DoubleValue(1.0 / q.ecnPmax), "QW", DoubleValue(1.0),
                             "Gentle", BooleanValue(false), "UseEcn", BooleanValue(true),
                             "UseHardDrop", BooleanValue(false), "MeanPktSize", UintegerValue(1500),
                             "LinkBandwidth", DataRateValue(rate), "LinkDelay", TimeValue(delay));
    }
    else if (q.discipline == "ecn")
    {
        tch.SetRootQueueDisc("ns3::EcnRampQueueDisc", "MaxSize", QueueSizeValue(size), "KminBytes",
                             UintegerValue(q.ecnKminBytes), "KmaxBytes",
                             UintegerValue(q.ecnKmaxBytes), "Pmax", DoubleValue(q.ecnPmax));
    }
    else
    {
        NS_ABORT_MSG("unknown queue discipline '" << q.discipline
                                                  << "' (expected fifo, red or ecn)");
    }
    return tch;
}

Ptr<QueueDisc>
StarTopology::GetBottleneckQueueDisc() const
{
    return config.configuration == 'A' ? hostQueueDiscs.at(crossSource)
                                       : torQueueDiscs.at(crossDestination);
}

Ptr<NetDevice>
StarTopology::GetBottleneckDevice() const
{
    return config.configuration == 'A' ? hostDevices.Get(crossSource)
                                       : torDevices.Get(crossDestination);
}

uint32_t
StarTopology::LeafOf(uint32_t host) const
{
    return StarTopologyHelper::LeafOf(host, config.hosts, config.leaves);
}

uint32_t
StarTopologyHelper::LeafOf(uint32_t host, uint32_t hosts, uint32_t leaves)
{
    return host / (hosts / leaves);
}

Ipv4Address
StarTopologyHelper::HostAddress(uint32_t host)
{
    return Ipv4Address(0x0a000001 + (host << 8));
}

int64_t
StarTopology::AssignStreams(int64_t stream)
{
    int64_t used = 0;
    for (auto& loss : losses)
    {
        used += loss->AssignStreams(stream + used);
    }
    // The marking draws of ECN and RED ports: left to ns-3's automatic streams, they would
    // depend on what ran before in the process (a test's outcome on the tests before it).
    std::vector<Ptr<QueueDisc>> ports = hostQueueDiscs;
    ports.insert(ports.end(), torQueueDiscs.begin(), torQueueDiscs.end());
    for (const auto& u : uplinks)
    {
        ports.push_back(u.leafQueueDisc);
        ports.push_back(u.spineQueueDisc);
    }
    for (const auto& q : ports)
    {
        if (auto ecn = DynamicCast<EcnRampQueueDisc>(q))
        {
            used += ecn->AssignStreams(stream + used);
        }
        else if (auto red = DynamicCast<RedQueueDisc>(q))
        {
            used += red->AssignStreams(stream + used);
        }
    }
    return used;
}

std::string
StarTopology::GetBottleneckName() const
{
    return StarTopologyHelper::Roles(config).BottleneckName();
}

std::string
StarRoles::BottleneckName() const
{
    std::ostringstream os;
    if (bottleneckAtNic)
    {
        os << "NIC egress of S" << crossSource;
    }
    else
    {
        os << "ToR port towards S" << crossDestination;
    }
    return os.str();
}

StarTopologyHelper::StarTopologyHelper(const StarTopologyConfig& config) : m_config(config)
{
    NS_ABORT_MSG_IF(config.configuration != 'A' && config.configuration != 'B',
                    "configuration must be A or B");
    NS_ABORT_MSG_IF(config.hosts < 4, "the star needs at least 4 hosts (S0..S3)");
    NS_ABORT_MSG_IF(config.leaves < 1 || config.hosts % config.leaves != 0,
                    "the hosts must split evenly over the leaves");
    NS_ABORT_MSG_IF(config.leaves > 1 && config.spines < 1, "a fabric needs a spine");
    const StarRoles roles = Roles(config);
    NS_ABORT_MSG_IF(roles.crossSource >= config.hosts || roles.crossDestination >= config.hosts
                        || roles.crossSource == roles.crossDestination,
                    "the cross traffic needs two distinct hosts of the topology");
}

StarTopology
StarTopologyHelper::Install(const std::string& tcpCongestionControl) const
{
    StarTopology t;
    t.config = m_config;
    t.hosts.Create(m_config.hosts);
    const bool star = m_config.leaves == 1;
    if (star)
    {
        t.tor = CreateObject<Node>();
        t.leaves.Add(t.tor);
    }
    else
    {
        t.leaves.Create(m_config.leaves);
        t.spines.Create(m_config.spines);
    }

    InternetStackHelper stack;
    stack.Install(t.hosts);
    if (star)
    {
        stack.Install(t.tor);
    }
    else
    {
        InternetStackHelper switches;
        switches.SetRoutingHelper(FlowHashRoutingHelper());
        switches.Install(t.leaves);
        switches.Install(t.spines);
    }
    TypeId cc = TypeId::LookupByName(tcpCongestionControl);
    for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
    {
        t.hosts.Get(i)->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(cc));
    }

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(m_config.linkRate));
    p2p.SetDeviceAttribute(
        "InterframeGap", TimeValue(m_config.linkRate.CalculateBytesTxTime(m_config.framingBytes)));
    p2p.SetDeviceAttribute("Mtu", UintegerValue(m_config.mtu));
    p2p.SetChannelAttribute("Delay", TimeValue(m_config.linkDelay));
    // The queue lives in the queue disc; the device holds one packet behind the one on the wire.
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize("1p")));

    TrafficControlHelper hostTc
        = MakeEgressQueue(m_config.hostQueue, m_config.linkRate, m_config.linkDelay);
    if (m_config.rdmaNic)
    {
        hostTc = TrafficControlHelper();
        hostTc.SetRootQueueDisc("ns3::NicQueueDisc", "HostBufferBytes",
                                UintegerValue(m_config.hostQueue.bufferBytes));
    }
    TrafficControlHelper torTc
        = MakeEgressQueue(m_config.switchQueue, m_config.linkRate, m_config.linkDelay);

    Ipv4AddressHelper addr;
    std::vector<NetDeviceContainer> hostLinks;
    for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
    {
        NetDeviceContainer link = p2p.Install(t.hosts.Get(i), t.leaves.Get(t.LeafOf(i)));
        hostLinks.push_back(link);
        const DataRate receive = m_config.hostReceiveRate;
        if (receive.GetBitRate() > 0 && receive < m_config.linkRate)
        {
            // The host's receive path, not the wire, paces the port towards it; the framing
            // keeps its share of the time.
            link.Get(1)->SetAttribute("DataRate", DataRateValue(receive));
            link.Get(1)->SetAttribute(
                "InterframeGap", TimeValue(receive.CalculateBytesTxTime(m_config.framingBytes)));
        }
        t.hostDevices.Add(link.Get(0));
        t.torDevices.Add(link.Get(1));
        // Queue discs go in before addresses, or Ipv4AddressHelper installs fq_codel.
        t.hostQueueDiscs.push_back(hostTc.Install(link.Get(0)).Get(0));
        t.torQueueDiscs.push_back(torTc.Install(link.Get(1)).Get(0));
        addr.SetBase(HostAddress(i).CombineMask(Ipv4Mask("255.255.255.0")),
                     Ipv4Mask("255.255.255.0"));
        Ipv4InterfaceContainer ifs = addr.Assign(link);
        t.hostAddresses.push_back(ifs.GetAddress(0));
    }
    if (star)
    {
        Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    }
    else
    {
        InstallFabric(t, hostLinks);
    }

    if (m_config.pfc)
    {
        NS_ABORT_MSG_IF(!star, "PFC is modelled on the star's ToR only");
        NS_ABORT_MSG_IF(!m_config.rdmaNic, "PFC needs the RDMA-aware host NICs (rdmaNic)");
        std::vector<Ptr<NicQueueDisc>> nics;
        for (const auto& q : t.hostQueueDiscs)
        {
            nics.push_back(DynamicCast<NicQueueDisc>(q));
        }
        t.pfc = CreateObject<PfcController>();
        // A PAUSE frame (64 bytes) takes effect after its serialisation and the propagation.
        Time delay = m_config.linkDelay + m_config.linkRate.CalculateBytesTxTime(64);
        t.pfc->Install(t.torQueueDiscs, t.hostAddresses, nics, delay);
    }

    if (m_config.lossRate > 0)
    {
        for (uint32_t i = 0; i < t.hosts.GetN(); ++i)
        {
            const auto& only = m_config.lossHosts;
            if (!only.empty() && std::find(only.begin(), only.end(), i) == only.end())
            {
                continue;
            }
            for (Ptr<NetDevice> receiver : { t.torDevices.Get(i), t.hostDevices.Get(i) })
            {
                Ptr<LinkLoss> loss = CreateObject<LinkLoss>();
                loss->SetAttribute("Rate", DoubleValue(m_config.lossRate));
                loss->Install(receiver);
                t.losses.push_back(loss);
            }
        }
    }

    const StarRoles roles = Roles(m_config);
    t.jobHosts = roles.jobHosts;
    t.crossSource = roles.crossSource;
    t.crossDestination = roles.crossDestination;
    return t;
}

std::vector<uint32_t>
StarTopologyHelper::JobHosts(char configuration, uint32_t hosts)
{
    std::vector<uint32_t> job;
    for (uint32_t h = 0; h < hosts; ++h)
    {
        if (configuration == 'A' || h != 2) // B: S2 is the cross-traffic source
        {
            job.push_back(h);
        }
    }
    return job;
}

StarRoles
StarTopologyHelper::Roles(char configuration, uint32_t hosts)
{
    StarRoles r;
    r.jobHosts = JobHosts(configuration, hosts);
    r.bottleneckAtNic = configuration == 'A';
    r.crossSource = configuration == 'A' ? 0 : 2; // A: S0 -> S1 (S0's successor); B: S2 -> S0
    r.crossDestination = configuration == 'A' ? 1 : 0;
    return r;
}

StarRoles
StarTopologyHelper::Roles(const StarTopologyConfig& config)
{
    StarRoles r = Roles(config.configuration, config.hosts);
    if (config.crossSource != StarTopologyConfig::kConfigured)
    {
        r.crossSource = config.crossSource;
    }
    if (config.crossDestination != StarTopologyConfig::kConfigured)
    {
        r.crossDestination = config.crossDestination;
    }
    return r;
}

std::string
StarTopologyHelper::HostName(uint32_t host)
{
    return "S" + std::to_string(host);
}

std::string
StarTopologyHelper::PortName(uint32_t host, bool nic)
{
    return nic ? HostName(host) + " NIC egress" : "ToR port towards " + HostName(host);
}

} // namespace ns3
