/*
 * The testbed's rack: hosts S0..S(n-1) on one ToR (an IPv4 router), every link the same
 * rate. Each egress port (host NIC and ToR port) has a queue disc that holds the queue,
 * in front of a one-packet device queue, so that queue length, drops and ECN marks are
 * observable where they happen.
 *
 * With several leaves it is a two-tier leaf-spine fabric: the hosts split evenly over the
 * leaves (ToR switches, hosts in order), every leaf linked to every spine at the uplink rate,
 * and the switches route by flow hash over the spines (FlowHashRouting).
 *
 * Configuration A: the job runs on every host; cross traffic leaves S0 towards S1 (S0's
 * ring successor), so S0's NIC egress is the only bottleneck.
 * Configuration B: the job runs on every host but S2 (S0, S1, S3 on the testbed's four); S2
 * sends cross traffic to S0, so the ToR port towards S0 is the bottleneck.
 */
#ifndef FLUMEN_STAR_TOPOLOGY_HELPER_H
#define FLUMEN_STAR_TOPOLOGY_HELPER_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/link-loss.h"
#include "ns3/net-device-container.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/pfc-controller.h"
#include "ns3/queue-disc.h"
#include "ns3/traffic-control-helper.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * One egress port's queue: a FIFO, ns-3's RED with an ECN ramp, or the DCQCN-style ramp
 * (EcnRampQueueDisc: instantaneous queue, Kmin, Kmax, Pmax; marks only ECN-capable packets).
 */
struct EgressQueueConfig
{
    std::string discipline = "fifo";    //!< "fifo", "red" or "ecn"
    uint32_t bufferBytes = 4000000;     //!< ns-3 counts queue bytes in 32 bits
    uint32_t ecnKminBytes = 100 * 1000; //!< red, ecn
    uint32_t ecnKmaxBytes = 400 * 1000; //!< red, ecn
    double ecnPmax = 0.2;               //!< red, ecn: marking probability at Kmax
};

/** The queue disc of an egress port of this rate and delay (RED needs both). */
TrafficControlHelper MakeEgressQueue(const EgressQueueConfig& q, DataRate rate, Time delay);

struct StarTopologyConfig
{
    char configuration = 'B'; //!< 'A' or 'B'
    uint32_t hosts = 4;
    DataRate linkRate = DataRate("25Gbps");
    /** How fast every host takes frames off its link: the switch's port towards it sends at
     * this rate where it is below linkRate (0: linkRate). */
    DataRate hostReceiveRate = DataRate(0);
    Time linkDelay = MicroSeconds(1);
    uint16_t mtu = 1500;
    /** Bytes every frame also takes on the wire beyond its PPP header (ethernet-framing.h;
     * 0: none), as each device's interframe gap at its rate. */
    uint32_t framingBytes = 0;
    /**
     * Every host NIC's egress. Linux's qdisc limit (1000 packets) counts TSO super-packets and
     * TCP Small Queues caps each socket near 1 MB, so a host does not drop its own TCP windows;
     * ns-3 has neither, so the buffer is sized above the sockets' windows instead.
     */
    EgressQueueConfig hostQueue{ "fifo", 8000000 };
    /**
     * Every ToR port's egress: marks ECN-capable packets (RoCE) so that DCQCN works; TCP
     * without ECN sees a FIFO.
     */
    EgressQueueConfig switchQueue{ "ecn", 4000000 };
    /**
     * Host NICs arbitrate RDMA and TCP/IP (NicQueueDisc, hostQueue.bufferBytes for the
     * TCP/IP class; its other attributes through Config or ns-3 defaults) instead of
     * hostQueue's discipline; needed by the RDMA transport.
     */
    bool rdmaNic = false;
    /** Priority flow control at the ToR for the RoCE class (needs rdmaNic); thresholds are
     * PfcController's attributes. */
    bool pfc = false;
    /** Random loss (LinkLoss) on both directions of these hosts' links; 0 = none. */
    double lossRate = 0;
    std::vector<uint32_t> lossHosts; //!< empty: every host's link
    /** The cross traffic's hosts, overriding the configuration's (kConfigured: keep it). */
    static constexpr uint32_t kConfigured = 0xffffffff;
    uint32_t crossSource = kConfigured;
    uint32_t crossDestination = kConfigured;
    /** ToR switches the hosts split over (1: the star); with 2 or more, `spines` above them. */
    uint32_t leaves = 1;
    uint32_t spines = 1;
    DataRate uplinkRate = DataRate("25Gbps"); //!< every leaf-spine link
};

/** What StarTopologyHelper::Install built, and the roles configuration A or B gives hosts. */
struct StarTopology
{
    StarTopologyConfig config;
    NodeContainer hosts;
    Ptr<Node> tor;        //!< the star's ToR (null with several leaves)
    NodeContainer leaves; //!< the ToR switches, host h under leaf h / (hosts / leaves)
    NodeContainer spines; //!< empty for the star
    /** One leaf-spine link: both ends' devices and egress queue discs. */
    struct Uplink
    {
        uint32_t leaf;
        uint32_t spine;
        Ptr<NetDevice> leafDevice;
        Ptr<NetDevice> spineDevice;
        Ptr<QueueDisc> leafQueueDisc;  //!< towards the spine
        Ptr<QueueDisc> spineQueueDisc; //!< towards the leaf
    };
    std::vector<Uplink> uplinks;
    NetDeviceContainer hostDevices; //!< NIC of host i
    NetDeviceContainer torDevices;  //!< ToR port towards host i
    std::vector<Ipv4Address> hostAddresses;
    std::vector<Ptr<QueueDisc>> hostQueueDiscs; //!< NIC egress of host i
    std::vector<Ptr<QueueDisc>> torQueueDiscs;  //!< ToR egress towards host i
    std::vector<uint32_t> jobHosts;             //!< host index of rank 0, 1, ...
    uint32_t crossSource = 0;
    uint32_t crossDestination = 0;
    Ptr<PfcController> pfc; //!< null unless PFC is enabled
    /** Loss into the ToR then into the host, per lossy host link (empty without loss). */
    std::vector<Ptr<LinkLoss>> losses;

    /** The leaf (ToR switch) a host hangs from. */
    uint32_t LeafOf(uint32_t host) const;
    /** Assigns fixed streams to the loss draws and the ECN and RED ports' marking draws;
     * returns the number of streams used. */
    int64_t AssignStreams(int64_t stream);

    /** The queue that the configuration makes the bottleneck, and its device. */
    Ptr<QueueDisc> GetBottleneckQueueDisc() const;
    Ptr<NetDevice> GetBottleneckDevice() const;
    /** Human-readable name of the bottleneck port, e.g. "ToR port towards S0". */
    std::string GetBottleneckName() const;
};

/** The roles configuration A or B gives the hosts of a star of a given size. */
struct StarRoles
{
    std::vector<uint32_t> jobHosts; //!< host index of rank 0, 1, ...
    uint32_t crossSource = 0;
    uint32_t crossDestination = 0;
    bool bottleneckAtNic = false; //!< A: the source's NIC egress; B: the ToR port to the sink
    /** The bottleneck port's host: its NIC's, or the ToR port towards it. */
    uint32_t BottleneckHost() const { return bottleneckAtNic ? crossSource : crossDestination; }
    /** e.g. "ToR port towards S0" (the summaries' name of the bottleneck). */
    std::string BottleneckName() const;
};

class StarTopologyHelper
{
  public:
    explicit StarTopologyHelper(const StarTopologyConfig& config);
    /** Builds nodes, links, IP stack (with the given TCP congestion control), queue discs, routes.
     */
    StarTopology Install(const std::string& tcpCongestionControl = "ns3::TcpCubic") const;
    /** Host index of each training rank: A runs the job on every host, B on all but S2. */
    static std::vector<uint32_t> JobHosts(char configuration, uint32_t hosts = 4);
    /** Every role of configuration A or B on `hosts` hosts. */
    static StarRoles Roles(char configuration, uint32_t hosts = 4);
    /** The roles of a configuration with its cross-traffic hosts where it places them. */
    static StarRoles Roles(const StarTopologyConfig& config);
    /** The name of host `host`'s NIC egress ("S1 NIC egress") or ToR port ("ToR port towards S1").
     */
    static std::string PortName(uint32_t host, bool nic);
    /** The name of host `host`: "S1". */
    static std::string HostName(uint32_t host);
    /** Host `host`'s address, 10.<host / 256>.<host % 256>.1: its link's /24 subnet, its leaf
     * .2 (both engines name hosts so; a fabric's switches hash these addresses). */
    static Ipv4Address HostAddress(uint32_t host);
    /** The leaf that host `host` hangs from, `hosts` split evenly over `leaves`. */
    static uint32_t LeafOf(uint32_t host, uint32_t hosts, uint32_t leaves);
    /** "ToR 0 uplink to spine 1" (the leaf's egress) or "spine 1 port towards ToR 0". */
    static std::string UplinkName(uint32_t leaf, uint32_t spine, bool up);

  private:
    /** Leaves, spines, their links and the flow-hash routes (several leaves). */
    void InstallFabric(StarTopology& t, const std::vector<NetDeviceContainer>& hostLinks) const;

    StarTopologyConfig m_config;
};

} // namespace ns3

#endif
