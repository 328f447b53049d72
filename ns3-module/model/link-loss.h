/*
 * Random packet loss on one direction of a link, as the measurement framework of Zerwas et
 * al. injects it (netem, 0 to 2 %): every packet that arrives at the receiving device is lost
 * with probability Rate, independently (ns-3's RateErrorModel per packet, on its own random
 * stream). Counts what arrived and what was lost, so that the loss actually applied is
 * reported beside the rate requested; counters cover a window that starts at Reset().
 */
#ifndef FLUMEN_LINK_LOSS_H
#define FLUMEN_LINK_LOSS_H

#include "ns3/error-model.h"
#include "ns3/net-device.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class LinkLoss : public Object
{
  public:
    static TypeId GetTypeId();

    /** Loses packets arriving at `receiver` (a PointToPointNetDevice) at the Rate attribute. */
    void Install(Ptr<NetDevice> receiver);
    /** Zeroes the counters: the measurement window starts now. */
    void Reset();
    /** Assigns a fixed stream to the loss draws; returns the number of streams used (1). */
    int64_t AssignStreams(int64_t stream);

    uint64_t GetArrived() const { return m_arrived; } //!< lost ones included
    uint64_t GetLost() const { return m_lost; }
    double GetRate() const { return m_rate; }

  protected:
    void DoDispose() override;

  private:
    void HandleLost(Ptr<const Packet> packet);
    void HandleDelivered(Ptr<const Packet> packet);

    double m_rate = 0;
    Ptr<RateErrorModel> m_errors;
    uint64_t m_arrived = 0;
    uint64_t m_lost = 0;
    TracedCallback<Ptr<const Packet>> m_lostTrace;
};

} // namespace ns3

#endif
