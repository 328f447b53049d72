// The flow-level network model (simulation.engine = flow): the same star, hosts and roles as
// the packet level (configurations A and B), but every transfer is a flow of a FluidNetwork
// that shares the links by weighted max-min with caps. The training job, Horovod's timing, the
// compute model and the cross-traffic schedules are the same code as at packet level.
#ifndef FLUMEN_FLOW_NETWORK_H
#define FLUMEN_FLOW_NETWORK_H

#include "fluid-link-bins.h"
#include "network.h"

#include "ns3/fluid-host.h"
#include "ns3/fluid-network.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace flumen
{

/** Scenario keys (prefixes) that only the packet level models: the flow engine ignores them. */
const std::vector<std::string>& FlowEngineIgnoredKeys();

/**
 * Whether a flow-level run stayed where the flow engine agrees with the packet level: not
 * when its bottleneck is a FIFO port (any but an RDMA job's round-robin NIC, configuration A)
 * busier than simulation.auto_max_utilization, nor where a switch port's queue reached its
 * buffer, nor where, over TCP alone, a TCP ring's host ceiling and flow cross traffic ask more
 * than the bottleneck carries. `why` gives the reason and the figures (RunScenario prefixes
 * auto's verdict).
 */
bool FlowEngineInDomain(const Scenario& scenario, const RunSummary& flowRun, std::string& why);

class FlowNetwork : public Network
{
  public:
    explicit FlowNetwork(const Scenario& scenario);
    ~FlowNetwork() override;

    ns3::NodeContainer Nodes(const std::vector<uint32_t>& hosts) const override;
    std::vector<ns3::Ipv4Address> Addresses(const std::vector<uint32_t>& hosts) const override;
    void SetJobTransport(ns3::TrainingJobHelper& helper, const Scenario& job) const override;
    CrossTraffic InstallIperf(double gbps, uint32_t streams, ns3::Time start,
                              ns3::Time stop) override;
    CrossTraffic InstallFlows(ns3::Ptr<ns3::FlowSchedule> schedule, ns3::Time start,
                              ns3::Time stop) override;
    void Observe(const Scenario& scenario) override;
    void ResetPortCounters() override;
    PortSummary Bottleneck() const override;
    std::vector<PortSummary> Ports() const override;
    std::vector<LinkRow> TakeLinkSeries(bool closedOnly) override;
    /** Each ring hop's job bytes on its host's NIC egress link, binned from its rates. */
    std::vector<RingHopSeries> RingHops() const override;
    /** No packets at flow level (the scenario rules refuse outputs.pcap_hosts with it). */
    void CapturePcap(const std::vector<uint32_t>&, const std::string&) override
    {
        throw std::logic_error("the flow engine has no packets to capture");
    }
    uint64_t PfcPauses() const override { return m_net->GetPauses(); }
    LossCounts Loss() const override { return {}; } // refused by the scenario rules
    PacketCounts Packets() const override { return {}; }
    const ns3::StarTopology* Topology() const override { return nullptr; }

  private:
    struct Port
    {
        std::string name;
        uint32_t link;
    };

    PortSummary Summary(const Port& port) const;
    /** Host `from`'s route to host `to`. */
    const ns3::FluidHost::Route& RouteBetween(uint32_t from, uint32_t to) const;
    /** The route as the fabric gives it (the hosts' resolvers: made when first asked for). */
    ns3::FluidHost::Route MakeRoute(uint32_t from, uint32_t to) const;
    void AddToBins(double fromS, double toS);

    ns3::Ptr<ns3::FluidNetwork> m_net;
    ns3::NodeContainer m_hosts;
    std::vector<ns3::Ipv4Address> m_addresses;
    std::map<ns3::Ipv4Address, uint32_t> m_hostOf; //!< address -> host index
    /** The fabric's links: each host's up (NIC egress) and down (the port towards it), and a
     * leaf-spine's [leaf][spine] up and [spine][leaf] down. */
    std::vector<uint32_t> m_up, m_down;
    std::vector<std::vector<uint32_t>> m_leafUp, m_spineDown;
    ns3::Time m_linkDelay;
    uint32_t m_leaves = 1;
    uint32_t m_crossSource = 0;
    uint32_t m_crossDestination = 0;
    double m_tcpWireFactor = 1;
    double m_roceWireFactor = 1;
    /** TCP's ACK bytes on the wire per byte delivered (0: not modelled). */
    double m_tcpAckWireFactor = 0;
    uint32_t m_rdmaMtu = 1024;   //!< job.rdma.mtu_bytes
    bool m_wholeSteps = false;   //!< simulation.flow_whole_steps
    bool m_queues = false;       //!< simulation.flow_queues (FlowEngineHasStandingQueues)
    bool m_marks = false;        //!< the queued switch ports mark (discipline ecn): DCQCN
    bool m_traceWindows = false; //!< outputs.tcp_csv: each flow's window (behind the queues)
    double m_sliceBytes = 0;     //!< simulation.flow_slice_bytes
    double m_tcpWindowBytes = 0;
    ns3::FluidNetwork::FlowSpec m_newConnection; //!< a cross-traffic flow's window settings
    Port m_bottleneck;
    Port m_binned;             //!< link.csv's port
    std::vector<Port> m_ports; //!< per host: its NIC's egress, then the ToR's port towards it
    double m_windowStartS = 0;
    std::vector<double> m_windowStartBytes;             //!< per link, both classes
    std::vector<double> m_windowStartQueue;             //!< per link, its queue's byte-seconds
    std::vector<BufferLossSummary> m_windowStartLosses; //!< per link, its overflows and cuts so far
    std::unique_ptr<FluidLinkBins> m_bins;              //!< link.csv (none: not binned)
    /** ring.csv: a ring job host's egress towards the next rank, binned as link.csv is. */
    struct Hop
    {
        uint32_t from, to;
        uint32_t link;
        std::unique_ptr<FluidLinkBins> bins;
    };
    mutable std::vector<Hop> m_hops;
};

} // namespace flumen

#endif
