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
    void HandleFlowSent(uint64_t flow);
    void HandleFlowDone(uint64_t flow);
    void Release(uint64_t message);
    void HandleArrival(uint64_t bytes);

    // Attributes
    uint16_t m_port;
    double m_weight;
    double m_wireFactor;
    DataRate m_hostCeiling; //!< 0 = none
    uint32_t m_connections;
    uint16_t m_localPortBase;
    bool m_unresponsive;
    double m_windowBytes; //!< per connection; 0: not window-limited
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
    Ptr<FluidHost> m_host;
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
