/*
 * NCCL's socket transport as a ring link: K TCP connections from this rank to the next,
 * each message striped across them, and an optional host-side throughput ceiling (NCCL's
 * socket path copies through the CPU; on the testbed it tops out near 10 Gbps).
 *
 * A message counts as sent (NCCL frees its send slot) once all its stripes are written into the
 * sockets: ncclSocketTest completes a request when its bytes are handed to the kernel. NCCL's
 * socket transport has no clear to send; the socket buffers and TCP's window bound what is in
 * flight.
 */
#ifndef FLUMEN_TCP_RING_TRANSPORT_H
#define FLUMEN_TCP_RING_TRANSPORT_H

#include "ring-transport.h"

#include "ns3/address.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <deque>
#include <vector>

namespace ns3
{

class TcpRingTransport : public RingTransport
{
  public:
    static TypeId GetTypeId();
    TcpRingTransport();
    ~TcpRingTransport() override;

    /** The node this rank runs on. */
    void SetNode(Ptr<Node> node) { m_node = node; }
    /** Where the next rank listens (its IPv4 address; the port is the ListenPort attribute). */
    void SetNextAddress(const Address& ipv4) { m_nextAddress = ipv4; }

    void Start() override;
    void Send(uint64_t bytes) override;
    void PostReceive(uint64_t bytes) override;
    uint64_t GetBytesSent() const override { return m_bytesSent; }
    uint64_t GetBytesReceived() const override { return m_bytesReceived; }

  protected:
    void DoDispose() override;

  private:
    struct Outgoing
    {
        Ptr<Socket> socket;
        uint64_t pending = 0; //!< bytes queued for this socket, not yet written into TCP
        bool connected = false;
    };

    /** A message as its stripes: where each stripe's cumulative count reaches its end. */
    struct StripedMessage
    {
        uint64_t bytes;
        std::vector<uint64_t> cumulativeTarget; //!< per stripe, cumulative through this message
    };
    /** Adds a message of `bytes` to the per-stripe running totals; its targets. */
    StripedMessage Stripe(uint64_t bytes, std::vector<uint64_t>& totals) const;
    /** Whether every stripe's count has reached the message's end. */
    static bool Reached(const std::vector<uint64_t>& counts, const StripedMessage& m);

    /** Writes what the sockets take, then reports the messages all written. */
    void Pump();
    void WriteAll();
    void SchedulePump(Time at);
    //! One write into `o` (paced by the ceiling when `ceiling`); false if it took nothing.
    bool WriteSome(Outgoing& o, bool ceiling);
    void HandleConnected(Ptr<Socket> socket);
    void HandleConnectFailed(Ptr<Socket> socket);
    void HandleSendSpace(Ptr<Socket> socket, uint32_t available);
    bool HandleConnectionRequest(Ptr<Socket> socket, const Address& from);
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleRead(Ptr<Socket> socket);
    void CompleteReceives();
    /** Reports the messages whose stripes are all written (in order). */
    void CompleteSends();

    // Attributes
    uint16_t m_listenPort;
    uint16_t m_localPortBase;
    uint32_t m_sockets;
    DataRate m_hostCeiling; //!< 0 = no ceiling
    uint32_t m_maxWriteBytes;
    bool m_interleaveStripes;
    uint32_t m_nextSocket = 0; //!< where the next interleaved write goes

    Ptr<Node> m_node;
    Address m_nextAddress;
    bool m_started = false;

    std::vector<Outgoing> m_out;
    Ptr<Socket> m_listener;
    std::vector<Ptr<Socket>> m_accepted;
    std::vector<uint64_t> m_rxPerStripe;
    std::vector<uint64_t> m_postedPerStripe;
    std::deque<StripedMessage> m_posted;
    std::vector<uint64_t> m_queuedPerStripe;  //!< bytes ever queued per stripe
    std::vector<uint64_t> m_writtenPerStripe; //!< of them, written into the socket
    std::deque<StripedMessage> m_unwritten;   //!< messages not all written (their targets)

    Time m_ceilingFreeAt; //!< when the ceiling lets the next byte go
    EventId m_pumpEvent;
    uint64_t m_bytesSent = 0;
    uint64_t m_bytesReceived = 0;

    TracedCallback<uint64_t> m_messageSentTrace;     //!< message queued (bytes)
    TracedCallback<uint64_t> m_messageReceivedTrace; //!< posted receive completed (bytes)
};

} // namespace ns3

#endif
