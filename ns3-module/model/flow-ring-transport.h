/*
 * The ring link of the flow-level engine: each message to the next rank is one flow of the
 * FluidNetwork (messages go one after the other, as over one ordered connection), delivered
 * to the next rank's port after the route's propagation delay. Its share of a congested link
 * is its Weight (a TCP ring link: its connections); HostCeiling caps its rate as the socket
 * path's ceiling does at packet level.
 */
#ifndef FLUMEN_FLOW_RING_TRANSPORT_H
#define FLUMEN_FLOW_RING_TRANSPORT_H

#include "fluid-host.h"
#include "ring-transport.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <deque>

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
    void SetNextAddress(Ipv4Address next) { m_next = next; }

    void Start() override;
    void Send(uint64_t bytes) override;
    void PostReceive(uint64_t bytes) override;
    uint64_t GetBytesSent() const override { return m_bytesSent; }
    uint64_t GetBytesReceived() const override { return m_bytesReceived; }

  protected:
    void DoDispose() override;

  private:
    void SendNext();
    void HandleFlowDone(uint64_t flow);
    void HandleArrival(uint64_t bytes);

    // Attributes
    uint16_t m_port;
    double m_weight;
    double m_wireFactor;
    DataRate m_hostCeiling; //!< 0 = none
    uint32_t m_connections;
    uint16_t m_localPortBase;
    uint32_t m_stripesLeft = 0; //!< flows of the message in flight still moving (one per path)

    Ptr<Node> m_node;
    Ipv4Address m_next;
    Ptr<FluidHost> m_host;
    bool m_started = false;
    bool m_sending = false;
    std::deque<uint64_t> m_outgoing;
    uint64_t m_inFlight = 0; //!< bytes of the message being sent
    std::deque<uint64_t> m_posted;
    uint64_t m_arrivedUnclaimed = 0; //!< arrived bytes not yet matched to a completed receive
    uint64_t m_bytesSent = 0;
    uint64_t m_bytesReceived = 0;

    TracedCallback<uint64_t> m_messageSentTrace;     //!< a message's bytes all moved
    TracedCallback<uint64_t> m_messageReceivedTrace; //!< posted receive completed (bytes)
};

} // namespace ns3

#endif
