/*
 * NCCL's RDMA transport as a ring link: one reliable-connected queue pair from this rank to
 * the next (the sending half) and one from the previous rank (the receiving half), both on
 * the host's RdmaNic under the same queue-pair number.
 *
 * Sender: messages are cut into RoCE-MTU packets, paced at the DCQCN rate (line rate until
 * the first CNP). Loss recovery is go-back-N: a NAK (or the retransmission timeout, for a
 * lost tail) sends everything again from the first missing packet.
 * Receiver: accepts only the next expected packet; an out-of-order one is dropped and NAKed
 * (once per gap, again after NakInterval); ACKs are cumulative, every AckInterval packets
 * and at each message's end; an ECN-marked packet yields a CNP, at most one per CnpInterval.
 *
 * Clear to send (SetClearToSend, NCCL's net_ib.cc): each posted receive sends a CTS packet to
 * the previous rank carrying the number of receives posted so far, and the sender transmits a
 * message only once that count covers it. CTS rides on a reliable write in NCCL; here a lost
 * CTS is made good by the next one, or, if none follows, by sending the count again when no
 * data came for RetransmitTimeout. A message counts as sent (the send slot frees) once it is
 * acknowledged.
 */
#ifndef FLUMEN_RDMA_RING_TRANSPORT_H
#define FLUMEN_RDMA_RING_TRANSPORT_H

#include "dcqcn-rate-control.h"
#include "rdma-nic.h"
#include "ring-transport.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <deque>

namespace ns3
{

class RdmaRingTransport : public RingTransport
{
  public:
    static TypeId GetTypeId();
    RdmaRingTransport();
    ~RdmaRingTransport() override;

    void SetNode(Ptr<Node> node) { m_node = node; }
    /** IPv4 address of the next rank (its queue pair has the same number as ours). */
    void SetNextAddress(Ipv4Address next) { m_next = next; }
    /** IPv4 address of the rank whose messages this one receives (where its CTS go). */
    void SetPreviousAddress(Ipv4Address previous) { m_previous = previous; }
    void SetClearToSend(bool on) override { m_clearToSend = on; }

    void Start() override;
    void Send(uint64_t bytes) override;
    void PostReceive(uint64_t bytes) override;
    uint64_t GetBytesSent() const override { return m_bytesQueued; }
    uint64_t GetBytesReceived() const override { return m_bytesReceived; }

    Ptr<DcqcnRateControl> GetRateControl() const { return m_dcqcn; }
    uint64_t GetPacketsRetransmitted() const { return m_retransmitted; }
    uint64_t GetNaksSent() const { return m_naksSent; }
    uint64_t GetCnpsSent() const { return m_cnpsSent; }
    uint64_t GetTimeouts() const { return m_timeouts; }
    /** Packets sent and not yet acknowledged (what the queue pair has in flight, at most). */
    uint32_t GetPacketsUnacknowledged() const { return m_highestSent - m_sndUna; }
    /** CTS packets this rank's receiver sent, and of them repeats after a silence. */
    uint64_t GetCtsSent() const { return m_ctsSent; }
    uint64_t GetCtsRepeated() const { return m_ctsRepeated; }
    /** Data packets that arrived out of order or twice and were dropped. */
    uint64_t GetPacketsDiscarded() const { return m_discarded; }

    /** Signature of the PacketDelivered trace: payload bytes, PSN. */
    typedef void (*DeliveredTracedCallback)(uint32_t bytes, uint32_t psn);

  protected:
    void DoDispose() override;

  private:
    struct Message
    {
        uint64_t bytes;
        uint32_t firstPsn;
        uint32_t packets;
    };
    struct PostedReceive
    {
        uint64_t bytes;
        uint64_t cumulativeTarget;
    };

    // sender half
    void Transmit();
    void ScheduleNextRequest(Time after);
    void RequestIfDue();
    uint32_t PayloadOf(uint32_t psn) const;
    bool IsLastOfMessage(uint32_t psn) const;
    void HandleAck(uint32_t psn);
    void HandleNak(uint32_t expected);
    void RetransmitTimeout();
    void RestartTimer();
    void HandleCts(uint32_t granted);
    /** One past the last PSN the sender may transmit (all of them without clear to send). */
    uint32_t SendableEnd() const { return m_clearToSend ? m_sendableEnd : m_psnEnd; }
    void SendCts();
    void CtsTimeout();
    // receiver half
    void HandleData(const RoceHeader& h, uint32_t payload, Ipv4Address from, bool ce);
    void SendControl(RoceHeader::Opcode op, uint32_t psn, Ipv4Address to);
    void CompleteReceives();
    void Receive(const RoceHeader& h, uint32_t payload, Ipv4Address from, bool ce);

    // Attributes
    uint16_t m_qpn;
    uint32_t m_mtu;
    uint32_t m_ackInterval;
    Time m_cnpInterval;
    Time m_nakInterval;
    Time m_rto;

    Ptr<Node> m_node;
    Ptr<RdmaNic> m_nic;
    double m_framingBytes = 0; //!< per packet on the wire beyond WireBytes (the NIC's gap)
    Ipv4Address m_next;
    Ipv4Address m_previous;
    bool m_clearToSend = false;
    Ptr<DcqcnRateControl> m_dcqcn;
    bool m_started = false;

    // sender state
    std::deque<Message> m_messages; //!< not yet fully acknowledged, in PSN order
    uint32_t m_psnEnd = 0;          //!< one past the last PSN assigned
    uint32_t m_sndNxt = 0;
    uint32_t m_sndUna = 0;
    uint32_t m_highestSent = 0; //!< one past the highest PSN ever sent
    uint64_t m_bytesQueued = 0;
    Time m_nextDue;
    EventId m_dueEvent;
    bool m_requested = false;
    EventId m_rtoEvent;
    uint64_t m_retransmitted = 0;
    uint64_t m_timeouts = 0;
    uint32_t m_messagesQueued = 0;     //!< messages ever queued
    uint32_t m_granted = 0;            //!< messages the receiver has cleared (its count)
    uint32_t m_sendableEnd = 0;        //!< one past the last PSN of the cleared messages
    std::deque<uint32_t> m_waitingCts; //!< PSN ends of queued messages not yet cleared

    // receiver state
    uint32_t m_ePsn = 0;
    uint32_t m_sinceAck = 0;
    Time m_lastCnp;
    bool m_cnpSent = false;
    uint32_t m_nakedPsn = 0;
    bool m_naked = false;
    Time m_lastNak;
    uint64_t m_bytesReceived = 0;
    uint64_t m_postedTotal = 0;
    std::deque<PostedReceive> m_posted;
    uint64_t m_naksSent = 0;
    uint64_t m_cnpsSent = 0;
    uint64_t m_discarded = 0;
    uint32_t m_receivesPosted = 0; //!< the count CTS carry
    uint64_t m_receivedAtCtsCheck = 0;
    EventId m_ctsTimer;
    uint64_t m_ctsSent = 0;
    uint64_t m_ctsRepeated = 0;

    TracedCallback<uint32_t, uint32_t> m_deliveredTrace;
    TracedCallback<uint32_t> m_nakTrace;     //!< NAK received: expected PSN
    TracedCallback<uint32_t> m_timeoutTrace; //!< timeout: PSN sent again from
    TracedCallback<> m_cnpTrace;             //!< CNP received
};

} // namespace ns3

#endif
