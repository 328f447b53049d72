/*
 * Watches one egress port: its queue disc (occupancy, drops, ECN marks) and the link it
 * feeds (bytes transmitted, hence utilisation). Counters cover a measurement window that
 * starts at Reset(); the queue occupancy is also averaged over time in that window.
 */
#ifndef FLUMEN_QUEUE_MONITOR_H
#define FLUMEN_QUEUE_MONITOR_H

#include "ns3/data-rate.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"
#include "ns3/traced-callback.h"

namespace ns3
{

class QueueMonitor : public Object
{
  public:
    static TypeId GetTypeId();
    QueueMonitor();

    /** Starts watching `disc` and the device it transmits on. */
    void Attach(Ptr<QueueDisc> disc, Ptr<NetDevice> device, DataRate linkRate);
    /** Zeroes the counters: the measurement window starts now. */
    void Reset();

    uint64_t GetDrops() const { return m_drops; }
    uint64_t GetEcnMarks() const { return m_marks; }
    uint64_t GetTxBytes() const { return m_txBytes; }
    uint64_t GetTxPackets() const { return m_txPackets; }
    /** Packets put on the link since Attach(), whatever the window (for speed figures). */
    uint64_t GetTxPacketsSinceAttach() const { return m_txPacketsTotal; }
    uint32_t GetMaxQueueBytes() const { return m_maxBytes; }
    uint32_t GetQueueBytes() const;
    /** Time-averaged queue occupancy in bytes since Reset(). */
    double GetMeanQueueBytes() const;
    /** Fraction of the link's capacity used since Reset(). */
    double GetUtilization() const;
    Time GetWindowStart() const { return m_windowStart; }
    Ptr<QueueDisc> GetQueueDisc() const { return m_disc; }
    Ptr<NetDevice> GetDevice() const { return m_device; }

  protected:
    void DoDispose() override;

  private:
    void HandleBytes(uint32_t oldValue, uint32_t newValue);
    void HandleDrop(Ptr<const QueueDiscItem> item);
    void HandleMark(Ptr<const QueueDiscItem> item, const char* reason);
    void HandleTx(Ptr<const Packet> packet);

    Ptr<QueueDisc> m_disc;
    Ptr<NetDevice> m_device;
    DataRate m_linkRate;
    Time m_windowStart;
    Time m_lastChange;
    double m_byteSeconds = 0.0; //!< integral of occupancy over time since the window start
    uint32_t m_currentBytes = 0;
    uint32_t m_maxBytes = 0;
    uint64_t m_drops = 0;
    uint64_t m_marks = 0;
    uint64_t m_txBytes = 0;
    uint64_t m_txPackets = 0;
    uint64_t m_txPacketsTotal = 0;
};

} // namespace ns3

#endif
