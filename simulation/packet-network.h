// The packet-level network model (the reference): ns-3's IPv4/TCP stack on the testbed's
// star (StarTopologyHelper), queue discs at every egress port, RoCEv2 NICs for an RDMA job,
// ns-3 TCP for the socket transport and the cross traffic.
#ifndef FLUMEN_PACKET_NETWORK_H
#define FLUMEN_PACKET_NETWORK_H

#include "network.h"
#include "wire-bytes.h"

#include "ns3/link-time-series.h"
#include "ns3/queue-monitor.h"
#include "ns3/star-topology-helper.h"

namespace flumen
{

class PacketNetwork : public Network
{
  public:
    /** Sets ns-3's TCP defaults from the scenario and builds the star. */
    explicit PacketNetwork(const Scenario& scenario);

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
    std::vector<RingHopSeries> RingHops() const override;
    uint64_t PfcPauses() const override;
    LossCounts Loss() const override;
    void CapturePcap(const std::vector<uint32_t>& hosts, const std::string& dir) override;
    PacketCounts Packets() const override;
    const ns3::StarTopology* Topology() const override { return &m_topology; }

  private:
    ns3::StarTopology m_topology;
    bool m_traceTcp; //!< outputs.tcp_csv: trace each cross-traffic flow's socket
    ns3::Ptr<ns3::LinkTimeSeries> m_series;
    /** Per rank of each ring job: its host's egress, the hop towards the next rank. */
    struct RingHop
    {
        uint32_t from;
        uint32_t to;
        ns3::Ptr<ns3::LinkTimeSeries> series;
    };
    std::vector<RingHop> m_hops;
    ns3::Ptr<ns3::QueueMonitor> m_bottleneck;
    /** Per host: its NIC's egress, then the ToR's port towards it; then every uplink. */
    std::vector<std::pair<std::string, ns3::Ptr<ns3::QueueMonitor>>> m_ports;
    size_t m_hostPorts = 0; //!< the hosts' ports, first in m_ports
};

/** A new TCP connection's first window, in segments (ns3::TcpSocket::InitialCwnd). */
constexpr uint32_t kTcpInitialCwndSegments = 10;

} // namespace flumen

#endif
