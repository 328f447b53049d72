/*
 * Priority flow control at the ToR for the lossless (RoCE) class. The switch counts, per
 * ingress port, the RoCE bytes buffered in any of its egress queues; when one ingress
 * exceeds XoffBytes it sends PAUSE to the host on that port, which stops the RDMA class of
 * its NIC (NicQueueDisc) after the frame's delay; below XonBytes it sends RESUME. Other
 * traffic is not paused (it is in another priority).
 *
 * The star has one host per ToR port, so a packet's ingress port is its source host. The
 * PAUSE frame's delay is the link's propagation delay plus one 64-byte frame at line rate.
 */
#ifndef FLUMEN_PFC_CONTROLLER_H
#define FLUMEN_PFC_CONTROLLER_H

#include "nic-queue-disc.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class PfcController : public Object
{
  public:
    static TypeId GetTypeId();
    PfcController();

    /** Signature of the Pause trace: ingress port, paused (true) or resumed (false). */
    typedef void (*PauseTracedCallback)(uint32_t port, bool paused);

    /**
     * Port i: the ToR's egress queue disc towards host i, host i's address, and host i's NIC
     * egress (what a PAUSE received on port i stops). `pauseDelay`: time for a PAUSE to
     * take effect at the host.
     */
    void Install(const std::vector<Ptr<QueueDisc>>& torEgress,
                 const std::vector<Ipv4Address>& hostAddresses,
                 const std::vector<Ptr<NicQueueDisc>>& hostNics, Time pauseDelay);

    uint64_t GetPausesSent() const { return m_pauses; }
    uint32_t GetIngressBytes(uint32_t port) const { return m_ingressBytes.at(port); }
    uint32_t GetMaxIngressBytes() const { return m_maxIngressBytes; }

  protected:
    void DoDispose() override;

  private:
    int32_t IngressOf(Ptr<const QueueDiscItem> item) const;
    void Enqueued(Ptr<const QueueDiscItem> item);
    void Left(Ptr<const QueueDiscItem> item);
    void Check(uint32_t port);
    void Apply(uint32_t port, bool paused);

    uint32_t m_xoff;
    uint32_t m_xon;

    std::vector<Ipv4Address> m_addresses;
    std::vector<Ptr<NicQueueDisc>> m_nics;
    std::vector<uint32_t> m_ingressBytes;
    std::vector<bool> m_pausedSent;
    uint32_t m_maxIngressBytes = 0;
    Time m_delay;
    uint64_t m_pauses = 0;
    TracedCallback<uint32_t, bool> m_pauseTrace;
};

} // namespace ns3

#endif
