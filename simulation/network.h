// The seam between a run and its network model. A run builds one Network from its scenario,
// installs the training job on the network's job hosts with the network's ring transport,
// installs the cross traffic through it, and reads its ports for the outputs. Everything else
// (the training job's model, Horovod's timing, the cross-traffic schedules, the measurement
// window and the outputs) is shared, so that another network model (a flow-level engine)
// plugs in here without touching them.
#ifndef FLUMEN_NETWORK_H
#define FLUMEN_NETWORK_H

#include "run-outputs.h"
#include "run-summary.h"

#include "ns3/flow-schedule.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{
struct StarTopology;
class TrainingJobHelper;
} // namespace ns3

namespace flumen
{

struct Scenario;

/** Cross traffic installed on a network: what the outputs read of it. */
struct CrossTraffic
{
    /** Bytes its receiver(s) took so far. */
    std::function<uint64_t()> bytesReceived;
    /**
     * Flow generators (empty function for iperf): hands over the flows started so far, in
     * order from the first not handed over yet: while the run goes (`closedOnly`) those up to
     * the first still open, which nothing changes any more (the packet level: none, it keeps
     * them to the end); at the end every one.
     */
    std::function<std::vector<FlowRow>(bool closedOnly)> takeFlows;
    /** Flow generators: connections still open at the receiver(s). */
    std::function<uint64_t()> connectionsOpen;
    /** Bytes a flow carries besides its payload (the generator's header). */
    uint32_t flowOverheadBytes = 0;
    /** Flow generators with outputs.tcp_csv (packet level): every flow's socket so far. */
    std::function<std::vector<TcpFlowRow>()> takeTcpFlows;
};

/** Packets the network moved, for the speed figures. */
struct PacketCounts
{
    uint64_t hops = 0;         //!< packets sent on any link
    uint64_t torForwarded = 0; //!< packets the ToR sent
};

/** Packets the lossy links (topology.loss.*) saw arrive and lost, over the window. */
struct LossCounts
{
    uint64_t arrived = 0; //!< lost ones included
    uint64_t lost = 0;
};

class Network
{
  public:
    virtual ~Network() = default;

    /** These hosts (indices), in order, and their addresses. */
    virtual ns3::NodeContainer Nodes(const std::vector<uint32_t>& hosts) const = 0;
    virtual std::vector<ns3::Ipv4Address> Addresses(const std::vector<uint32_t>& hosts) const = 0;
    /** Sets the transport (type and attributes) this network carries a job's collective on. */
    virtual void SetJobTransport(ns3::TrainingJobHelper& helper, const Scenario& job) const = 0;

    /** iperf: `streams` paced TCP streams of `gbps` in total, from the cross source. */
    virtual CrossTraffic InstallIperf(double gbps, uint32_t streams, ns3::Time start,
                                      ns3::Time stop)
        = 0;
    /** Flows of a schedule (web-search, burst, replay) from the cross source. */
    virtual CrossTraffic InstallFlows(ns3::Ptr<ns3::FlowSchedule> schedule, ns3::Time start,
                                      ns3::Time stop)
        = 0;

    /**
     * Starts watching every port (and link.csv's port in bins if the scenario bins it);
     * called once the job and the cross traffic are installed.
     */
    virtual void Observe(const Scenario& scenario) = 0;
    /** The measurement window opens: port counters start again from zero. */
    virtual void ResetPortCounters() = 0;
    /** The configuration's bottleneck port, then every port, over the window. */
    virtual PortSummary Bottleneck() const = 0;
    virtual std::vector<PortSummary> Ports() const = 0;
    /**
     * link.csv's port (outputs.link_port, else the bottleneck) in bins (empty unless enabled),
     * each bin handed over once:
     * while the run goes (`closedOnly`) the bins that time has closed, so that a long run's
     * series need not be held; at the end every bin left, up to now.
     */
    virtual std::vector<LinkRow> TakeLinkSeries(bool closedOnly) = 0;
    /** Each ring hop's job bytes in bins (empty unless binned; the packet engine only). */
    virtual std::vector<RingHopSeries> RingHops() const = 0;
    /** PFC pauses over the window. */
    virtual uint64_t PfcPauses() const = 0;
    /** Random loss on the lossy links over the window (zeros without loss). */
    virtual LossCounts Loss() const = 0;
    /**
     * Captures the NIC links of these hosts as pcap files `dir`/S<i>.pcap (both directions);
     * called before the run. Throws std::logic_error where the model has no packets.
     */
    virtual void CapturePcap(const std::vector<uint32_t>& hosts, const std::string& dir) = 0;
    virtual PacketCounts Packets() const = 0;
    /** The packet-level topology for tracing hooks (nullptr for other network models). */
    virtual const ns3::StarTopology* Topology() const = 0;
};

/** The network model the scenario asks for, built and ready for the job and traffic. */
std::unique_ptr<Network> BuildNetwork(const Scenario& scenario);

} // namespace flumen

#endif
