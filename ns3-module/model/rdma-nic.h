/*
 * The RoCE engine of one host's NIC: one UDP socket on RoCEv2's port, queue pairs registered
 * by number, and the transmit scheduler. Queue pairs pace themselves (DCQCN rate); when one
 * has a packet due it asks the NIC, which serves due queue pairs round robin and pulls a
 * packet only while the NIC's egress holds less than BackpressureBytes of RDMA data (a NIC
 * fetches work from host memory when the port can take it, so RDMA is never dropped at its
 * own NIC). ACKs, NAKs and CNPs are sent at once.
 *
 * Installed on a node the first time a queue pair asks for it; the host's first non-loopback
 * device is the NIC (the star's hosts have one).
 */
#ifndef FLUMEN_RDMA_NIC_H
#define FLUMEN_RDMA_NIC_H

#include "roce-header.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"
#include "ns3/socket.h"

#include <deque>
#include <map>

namespace ns3
{

class PointToPointNetDevice;

class RdmaNic : public Object
{
  public:
    static TypeId GetTypeId();
    RdmaNic();
    ~RdmaNic() override;

    /** The node's RdmaNic, created and aggregated on first use. */
    static Ptr<RdmaNic> GetOrInstall(Ptr<Node> node);

    /** Handles a received RoCE packet: header already removed; ce = it arrived ECN-marked. */
    typedef Callback<void, const RoceHeader&, uint32_t /* payload */, Ipv4Address /* from */,
                     bool /* ce */>
        ReceiveCallback;
    /** Called when the queue pair may put one data packet on the wire. */
    typedef Callback<void> TransmitCallback;

    /** Registers queue pair `qpn`; fails if the number is taken on this NIC. */
    void Register(uint16_t qpn, ReceiveCallback receive, TransmitCallback transmit);
    void Unregister(uint16_t qpn);

    /** Queue pair `qpn` has a data packet due: it will be called back when the NIC takes it. */
    void RequestTransmit(uint16_t qpn);
    /** Sends a packet (header already added) to a peer's NIC. */
    void Send(Ptr<Packet> packet, Ipv4Address to);

    DataRate GetLineRate() const;
    /** The bytes the device's interframe gap stands for at its line rate (the framing every
     * packet takes on the wire beyond WireBytes; the gap is whole nanoseconds, so 36 bytes at
     * 25 Gbps come out as 37.5). */
    double GetFramingBytes() const;
    Ptr<NetDevice> GetDevice() const { return m_device; }
    /** Bytes of IP packet per payload byte count: IPv4 + UDP + RoCE header + payload. */
    static uint32_t IpBytes(uint32_t payload);
    /** Bytes on the wire per payload, adding the point-to-point framing. */
    static uint32_t WireBytes(uint32_t payload);

  protected:
    void DoDispose() override;
    void NotifyNewAggregate() override;

  private:
    void Setup();
    /** The NIC's device, which must be a point-to-point one. */
    Ptr<PointToPointNetDevice> PointToPoint() const;
    void HandleRead(Ptr<Socket> socket);
    void HandleEgressDequeue(Ptr<const QueueDiscItem> item);
    void ScheduleTransmitLoop();
    void TransmitLoop();
    uint32_t EgressRdmaBytes() const;

    uint32_t m_backpressureBytes;

    Ptr<Node> m_node;
    Ptr<NetDevice> m_device;
    Ptr<QueueDisc> m_egress;
    Ptr<Socket> m_socket;
    struct QueuePair
    {
        ReceiveCallback receive;
        TransmitCallback transmit;
        bool waiting = false;
    };
    std::map<uint16_t, QueuePair> m_qps;
    std::deque<uint16_t> m_due;
    bool m_loopScheduled = false;
};

} // namespace ns3

#endif
