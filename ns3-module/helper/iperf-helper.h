/*
 * iperf cross traffic as the testbed ran it (`iperf -c IP -b BW -P p`): p long-lived TCP
 * streams from one host to another, each paced to BW/p by the application, and a sink.
 */
#ifndef FLUMEN_IPERF_HELPER_H
#define FLUMEN_IPERF_HELPER_H

#include "ns3/application-container.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet-sink.h"

namespace ns3
{

struct IperfFlows
{
    ApplicationContainer senders; //!< PacedTcpSender, one per stream
    Ptr<PacketSink> sink;
};

class IperfHelper
{
  public:
    /** iperf's server port. */
    static constexpr uint16_t kDefaultPort = 5001;

    IperfHelper(DataRate totalRate, uint32_t streams, uint16_t port = kDefaultPort);
    /** iperf's write length (-l). */
    void SetWriteBytes(uint32_t bytes) { m_writeBytes = bytes; }

    IperfFlows Install(Ptr<Node> client, Ptr<Node> server, Ipv4Address serverAddress, Time start,
                       Time stop) const;

  private:
    DataRate m_totalRate;
    uint32_t m_streams;
    uint16_t m_port;
    uint32_t m_writeBytes = 128 * 1024;
};

} // namespace ns3

#endif
