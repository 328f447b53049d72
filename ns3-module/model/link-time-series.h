/*
 * A time series of one egress port in fixed bins (default 100 us): bytes of the training
 * job's traffic and of everything else (cross traffic) put on the link, the time-averaged
 * and maximum queue, drops and ECN marks. Packets are told apart by their transport ports:
 * a packet to or from one of the job's ports is job traffic (data and ACKs alike).
 */
#ifndef FLUMEN_LINK_TIME_SERIES_H
#define FLUMEN_LINK_TIME_SERIES_H

#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"

#include <set>
#include <vector>

namespace ns3
{

class LinkTimeSeries : public Object
{
  public:
    static TypeId GetTypeId();
    LinkTimeSeries();

    struct Bin
    {
        uint64_t jobBytes = 0;
        uint64_t crossBytes = 0;
        double queueByteSeconds = 0; //!< integral of the queue over the bin
        uint32_t maxQueueBytes = 0;
        uint32_t drops = 0;
        uint32_t ecnMarks = 0;
    };

    /** Transport ports (TCP or UDP) that mark a packet as the job's. */
    void SetJobPorts(const std::set<uint16_t>& ports) { m_jobPorts = ports; }
    /** Starts recording `disc` and the point-to-point device it feeds; bins start at 0. */
    void Attach(Ptr<QueueDisc> disc, Ptr<NetDevice> device);
    /** The bins up to now (the queue integral of the last bin is brought up to date). */
    const std::vector<Bin>& GetBins();
    Time GetBinWidth() const { return m_binWidth; }

  protected:
    void DoDispose() override;

  private:
    Bin& BinAt(Time t);
    void Integrate(Time now);
    void HandleBytes(uint32_t oldValue, uint32_t newValue);
    void HandleDrop(Ptr<const QueueDiscItem> item);
    void HandleMark(Ptr<const QueueDiscItem> item, const char* reason);
    void HandleTx(Ptr<const Packet> packet);

    Time m_binWidth;
    std::set<uint16_t> m_jobPorts;
    Ptr<QueueDisc> m_disc;
    std::vector<Bin> m_bins;
    Time m_lastChange;
    uint32_t m_queueBytes = 0;
};

} // namespace ns3

#endif
