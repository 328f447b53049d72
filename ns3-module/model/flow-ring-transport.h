/*
 * The ring link of the flow-level engine: each message to the next rank is one flow of the
 * FluidNetwork (messages go one after the other, as over one ordered connection), delivered
 * to the next rank's port after the route's propagation delay. Its share of a congested link
 * is its Weight (a TCP ring link: its connections); HostCeiling caps its rate as the socket
 * path's ceiling does at packet level.
 *
 * A RoCE queue pair under DCQCN (CnpInterval above 0): its reaction point is the packet level's
 * DcqcnRateControl, one per queue pair, kept across messages; its rate caps the link's flows.
 * The notification point is modelled: every CnpInterval the queue pair's receiver returns a CNP
 * with the probability that at least one of the packets sent in it was marked, 1 - (1 - p)^n,
 * p the path's marking probability now (FluidNetwork::SetMarking) and n the packets sent.
 *
 * Clear to send (a queue pair, SetClearToSend): a message starts only once the next rank has
 * posted its receive; each posted receive reaches the previous rank's GrantPort after the route's
 * propagation and queueing delay, as the packet level's CTS packet would. A message counts as sent
 * (the send slot frees) when its ACK would be back: its last byte delivered plus as long again for
 * its ACK (a queue pair), or when it has left the sender (TCP connections: written into the
 * sockets).
 */
#ifndef FLUMEN_FLOW_RING_TRANSPORT_H
#define FLUMEN_FLOW_RING_TRANSPORT_H

#include "fluid-host.h"
#include "fluid-ring-all-reduce.h"
#include "ring-transport.h"

#include "dcqcn-rate-control.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/random-variable-stream.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <map>

namespace ns3
{

class FlowRingTransport : public RingTransport
{
  public:
    static TypeId GetTypeId();
    FlowRingTransport();
    ~FlowRingTransport() override;

    /** The node this rank runs on (it carries a FluidHost). */
    void SetNode(Ptr<Node> node) { m_node = node; }
    /** The next rank's address (a FluidHost's). */
    void SetNextAddress(Ipv4Address next)
    {
        m_next = next;
        m_route = nullptr;
        m_routeBack = nullptr;
    }
    /** The rank whose messages this one receives (where the clear-to-send goes). */
    void SetPreviousAddress(Ipv4Address previous) { m_previous = previous; }
    void SetClearToSend(bool on) override { m_clearToSend = on; }

    void Start() override;
    void Send(uint64_t bytes) override;
    void PostReceive(uint64_t bytes) override;
    uint64_t GetBytesSent() const override { return m_bytesSent; }
    uint64_t GetBytesReceived() const override { return m_bytesReceived; }
    int64_t AssignStreams(int64_t stream) override;
    /** CNPs its receiver returned (DCQCN). */
    uint64_t GetCnps() const { return m_cnps; }
    /** Its reaction point (null without DCQCN, or before Start). */
    Ptr<DcqcnRateControl> GetRateControl() const { return m_dcqcn; }

    /** Its rank's all-reduces run as part of `ring` (simulation.flow_ring "whole"). */
    void SetWholeRing(Ptr<FluidRingAllReduce> ring, uint32_t rank);
    bool RunsWholeAllReduces() const override { return m_wholeRing != nullptr; }
    void WholeAllReduce(uint64_t bytes, const RingPacing& pacing, Callback<void> done) override;
    /** Its hop of a whole ring: the flow one of its messages would be, shared by weight (a
     * TCP link's connections on the path of its first; FluidRingAllReduce). After Start. */
    FluidNetwork::FlowSpec WholeRingHop() const;
    /** Whether it is a queue pair (RoCE), not TCP connections. */
    bool IsQueuePair() const { return m_connections == 0; }
    /** The links its clear-to-send comes back over (the next rank's path to it, a queue
     * pair's), and their propagation. After Start. */
    const std::vector<uint32_t>& GrantPath() const;
    Time GrantDelay() const { return RouteBack().delay; }
    /** Propagation to the next rank. After Start. */
    Time HopDelay() const { return RouteToNext().delay; }
    Ptr<FluidNetwork> GetNetwork() const { return m_host->GetNetwork(); }
    /** A whole ring's bytes, counted as its messages' would be. */
    void CountWholeRing(uint64_t sent, uint64_t received)
    {
        m_bytesSent += sent;
        m_bytesReceived += received;
    }

  protected:
    void DoDispose() override;

  private:
    void SendNext();
    void HandleFlowSent(uint64_t flow);
    void HandleFlowDone(uint64_t flow);
    void Release(uint64_t message);
    void HandleArrival(uint64_t bytes);
    void HandleGrant(uint64_t grants);
    /** Whether messages wait for the next rank's clear to send (a queue pair that asked to). */
    bool WaitsForGrants() const { return m_clearToSend && IsQueuePair(); }

    /** DCQCN: the notification point's interval; samples marks and feeds the reaction point. */
    void CheckMarks();
    void HandleRate(double oldBps, double newBps);
    /** What every flow of the link shares: its weight, headers, class and cap. */
    FluidNetwork::FlowSpec LinkSpec() const;
    /** The cap of the link's flows: the host ceiling, and DCQCN's rate of payload. */
    double FlowCap() const;
    /** One path, or the one a fabric's switches pick for a queue pair (UDP 4791 both ways). */
    const std::vector<uint32_t>& QueuePairPath() const;
    /** The host's route to the next rank, and the next rank's back to it (its ACKs'). */
    const FluidHost::Route& RouteToNext() const;
    const FluidHost::Route& RouteBack() const;
    /** Bytes that left this rank's sender so far (payload). */
    double SentBytes() const;

    // Attributes
    uint16_t m_port;
    uint16_t m_grantPort;
    double m_weight;
    double m_wireFactor;
    double m_ackWireFactor; //!< 0: its ACKs not modelled
    DataRate m_hostCeiling; //!< 0 = none
    uint32_t m_connections;
    uint16_t m_localPortBase;
    bool m_unresponsive;
    double m_windowBytes; //!< per connection; 0: not window-limited
    Time m_cnpInterval;   //!< 0: no DCQCN
    Time m_checkInterval; //!< the CNP interval, at least a packet's time at line rate
    uint32_t m_mtu;       //!< payload bytes per packet (counts packets for the marks)
    Ptr<DcqcnRateControl> m_dcqcn;
    Ptr<UniformRandomVariable> m_uniform;
    Ptr<FluidRingAllReduce> m_wholeRing; //!< SetWholeRing's (null: slice by slice)
    uint32_t m_rank = 0;                 //!< in m_wholeRing
    EventId m_cnpCheck;
    double m_sentByEnded = 0; //!< payload bytes of flows that ended
    double m_sentAtCheck = 0; //!< SentBytes() at the last CheckMarks
    uint64_t m_cnps = 0;
    /** A message in flight: its flows (one per path) still moving, and not yet all sent. */
    struct Message
    {
        uint64_t bytes = 0;
        uint32_t moving = 0;
        uint32_t unsent = 0;
    };
    std::map<uint64_t, Message> m_messages;   //!< by sequence number
    std::map<uint64_t, uint64_t> m_flowToMsg; //!< fluid flow id -> message
    uint64_t m_nextMessage = 0;

    Ptr<Node> m_node;
    Ipv4Address m_next;
    Ipv4Address m_previous;
    bool m_clearToSend = false;
    uint64_t m_granted = 0; //!< messages the next rank has cleared
    Ptr<FluidHost> m_host;
    mutable const FluidHost::Route* m_route = nullptr;     //!< RouteToNext's (a map's entry)
    mutable const FluidHost::Route* m_routeBack = nullptr; //!< RouteBack's
    bool m_started = false;
    bool m_sending = false;
    std::deque<uint64_t> m_outgoing;
    std::deque<uint64_t> m_posted;
    uint64_t m_arrivedUnclaimed = 0; //!< arrived bytes not yet matched to a completed receive
    uint64_t m_bytesSent = 0;
    uint64_t m_bytesReceived = 0;

    TracedCallback<uint64_t> m_messageSentTrace;     //!< a message's bytes all moved
    TracedCallback<uint64_t> m_messageReceivedTrace; //!< posted receive completed (bytes)
};

} // namespace ns3

#endif
