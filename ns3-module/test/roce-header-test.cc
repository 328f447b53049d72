// RoceHeader: wire size, serialize/deserialize round trip, byte layout, and the RoCEv2
// classification of queue-disc items (IPv4 / UDP destination port 4791).
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/packet.h"
#include "ns3/roce-header.h"
#include "ns3/tcp-header.h"
#include "ns3/udp-header.h"

#include <gtest/gtest.h>

#include <array>
#include <sstream>

using namespace ns3;

namespace
{

/** An IPv4 queue-disc item carrying `l4` (already holding its transport header). */
Ptr<Ipv4QueueDiscItem>
Item(Ptr<Packet> l4, uint8_t protocol)
{
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(protocol);
    ip.SetPayloadSize(l4->GetSize());
    return Create<Ipv4QueueDiscItem>(l4, Address(), Ipv4L3Protocol::PROT_NUMBER, ip);
}

Ptr<Ipv4QueueDiscItem>
UdpItem(uint16_t srcPort, uint16_t dstPort)
{
    Ptr<Packet> p = Create<Packet>(100);
    p->AddHeader(RoceHeader());
    UdpHeader udp;
    udp.SetSourcePort(srcPort);
    udp.SetDestinationPort(dstPort);
    p->AddHeader(udp);
    return Item(p, 17 /* UDP */);
}

} // namespace

TEST(RoceHeader, SerializedSizeIsBthPlusIcrcAndRoundTripKeepsEveryField)
{
    // BTH 12 bytes + ICRC 4 bytes = 16 bytes, whatever the field values.
    EXPECT_EQ(RoceHeader::kWireBytes, 16u);
    for (RoceHeader::Opcode op :
         { RoceHeader::DATA, RoceHeader::ACK, RoceHeader::NAK, RoceHeader::CNP })
    {
        for (bool last : { false, true })
        {
            RoceHeader h;
            h.opcode = op;
            h.lastOfMessage = last;
            h.srcQp = 0xBEEF;
            h.dstQp = 0x0102;
            h.psn = 0xDEADBEEF; // every bit of the 32-bit field
            EXPECT_EQ(h.GetSerializedSize(), 16u);
            Ptr<Packet> p = Create<Packet>(1024);
            p->AddHeader(h);
            ASSERT_EQ(p->GetSize(), 1024u + 16u);
            RoceHeader back;
            EXPECT_EQ(p->RemoveHeader(back), 16u);
            EXPECT_EQ(p->GetSize(), 1024u);
            EXPECT_EQ(back.opcode, op);
            EXPECT_EQ(back.lastOfMessage, last);
            EXPECT_EQ(back.srcQp, 0xBEEF);
            EXPECT_EQ(back.dstQp, 0x0102);
            EXPECT_EQ(back.psn, 0xDEADBEEFu);
        }
    }
}

TEST(RoceHeader, WireLayoutIsNetworkByteOrder)
{
    // The layout written by Serialize: opcode, flags (1 = last), source QP and destination QP
    // (16 bits each, big-endian), 2 reserved bytes, PSN (32 bits, big-endian), 4 ICRC bytes.
    RoceHeader h;
    h.opcode = RoceHeader::NAK;
    h.lastOfMessage = true;
    h.srcQp = 0x1234;
    h.dstQp = 0xABCD;
    h.psn = 0x01020304;
    Ptr<Packet> p = Create<Packet>();
    p->AddHeader(h);
    std::array<uint8_t, 16> bytes{};
    ASSERT_EQ(p->CopyData(bytes.data(), bytes.size()), 16u);
    const std::array<uint8_t, 16> expected{ 2,    1,    0x12, 0x34, 0xAB, 0xCD, 0, 0,
                                            0x01, 0x02, 0x03, 0x04, 0,    0,    0, 0 };
    EXPECT_EQ(bytes, expected);

    std::ostringstream text;
    h.Print(text);
    EXPECT_EQ(text.str(), "NAK qp 4660->43981 psn 16909060 last");
}

TEST(RoceHeader, IsRoceMeansIpv4UdpToPort4791)
{
    EXPECT_EQ(RoceHeader::kUdpPort, 4791);
    EXPECT_TRUE(RoceHeader::IsRoce(UdpItem(49152, 4791)));
    // Only the destination port identifies RoCEv2 (the source port is an entropy field).
    EXPECT_TRUE(RoceHeader::IsRoce(UdpItem(4791, 4791)));
    EXPECT_FALSE(RoceHeader::IsRoce(UdpItem(4791, 5001)));
    EXPECT_FALSE(RoceHeader::IsRoce(UdpItem(49152, 4792)));

    // TCP to port 4791 is not RoCE: the protocol must be UDP (17).
    Ptr<Packet> p = Create<Packet>(100);
    TcpHeader tcp;
    tcp.SetSourcePort(49152);
    tcp.SetDestinationPort(4791);
    p->AddHeader(tcp);
    EXPECT_FALSE(RoceHeader::IsRoce(Item(p, 6 /* TCP */)));
}
