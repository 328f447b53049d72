#include "roce-header.h"

#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/udp-header.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceHeader);

TypeId
RoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("Flumen")
                            .AddConstructor<RoceHeader>();
    return tid;
}

TypeId
RoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
RoceHeader::GetSerializedSize() const
{
    return kWireBytes;
}

void
RoceHeader::Serialize(Buffer::Iterator start) const
{
    start.WriteU8(static_cast<uint8_t>(opcode));
    start.WriteU8(lastOfMessage ? 1 : 0);
    start.WriteHtonU16(srcQp);
    start.WriteHtonU16(dstQp);
    start.WriteU16(0);
    start.WriteHtonU32(psn);
    start.WriteU32(0); // ICRC stand-in
}

uint32_t
RoceHeader::Deserialize(Buffer::Iterator start)
{
    opcode = static_cast<Opcode>(start.ReadU8());
    lastOfMessage = start.ReadU8() != 0;
    srcQp = start.ReadNtohU16();
    dstQp = start.ReadNtohU16();
    start.ReadU16();
    psn = start.ReadNtohU32();
    start.ReadU32();
    return kWireBytes;
}

void
RoceHeader::Print(std::ostream& os) const
{
    static const char* names[] = { "DATA", "ACK", "NAK", "CNP", "CTS" };
    os << (opcode <= CTS ? names[opcode] : "?") << " qp " << srcQp << "->" << dstQp << " psn "
       << psn << (lastOfMessage ? " last" : "");
}

bool
RoceHeader::IsRoce(Ptr<const QueueDiscItem> item)
{
    auto ipItem = DynamicCast<const Ipv4QueueDiscItem>(item);
    if (!ipItem || ipItem->GetHeader().GetProtocol() != 17)
    {
        return false;
    }
    UdpHeader udp;
    if (ipItem->GetPacket()->PeekHeader(udp) != udp.GetSerializedSize())
    {
        return false;
    }
    return udp.GetDestinationPort() == kUdpPort;
}

} // namespace ns3
