/*
 * RoCEv2's transport header as this model needs it: RoCEv2 is InfiniBand's transport over
 * UDP (destination port 4791), so a RoCE packet here is IPv4 / UDP / this header / payload.
 * The header stands for the BTH (12 bytes) plus the ICRC trailer (4 bytes): 16 bytes on the
 * wire. It carries the source QP as well as the destination QP, which a real NIC keeps in
 * the QP context instead.
 */
#ifndef FLUMEN_ROCE_HEADER_H
#define FLUMEN_ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

class QueueDiscItem;

class RoceHeader : public Header
{
  public:
    /** RoCEv2's UDP destination port. */
    static constexpr uint16_t kUdpPort = 4791;
    /** Bytes the header occupies on the wire (BTH 12 + ICRC 4). */
    static constexpr uint32_t kWireBytes = 16;

    enum Opcode : uint8_t
    {
        DATA = 0, //!< payload; PSN = its sequence number
        ACK = 1,  //!< cumulative: every PSN up to and including Psn arrived
        NAK = 2,  //!< sequence error: the receiver expects Psn (go back to it)
        CNP = 3,  //!< congestion notification: an ECN-marked packet reached the receiver
        CTS = 4,  //!< clear to send: the receiver has posted Psn receives in all (cumulative)
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    Opcode opcode = DATA;
    bool lastOfMessage = false; //!< DATA: the message's last packet (asks for an ACK)
    uint16_t srcQp = 0;
    uint16_t dstQp = 0;
    uint32_t psn = 0;

    /** Whether a queue-disc item is a RoCEv2 packet (IPv4 / UDP port 4791). */
    static bool IsRoce(Ptr<const QueueDiscItem> item);
};

} // namespace ns3

#endif
