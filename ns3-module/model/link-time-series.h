/*
 * A time series of one egress port in fixed bins (default 100 us): bytes of the training
 * job's traffic and of everything else (cross traffic) put on the link, the time-averaged
 * and maximum queue, drops and ECN marks. Packets are told apart by their transport ports:
 * a packet to or from one of the job's ports is job traffic (data and ACKs alike). The bins
 * that time has closed can be taken while the run goes, so that a long run's series is
 * written as it grows instead of held (TakeBins).
 */
#ifndef FLUMEN_LINK_TIME_SERIES_H
#define FLUMEN_LINK_TIME_SERIES_H

#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/queue-disc.h"

#include <deque>
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
    /**
     * The bins not taken yet, up to now (the queue integral of the last bin is brought up to
     * date); the first is bin GetFirstBin().
     */
    std::vector<Bin> GetBins();
    /** The index of the first bin GetBins() returns (bins taken before it are forgotten). */
    uint64_t GetFirstBin() const { return m_first; }
    /**
     * Hands over bins from GetFirstBin() on and forgets them: while the run goes
     * (`closedOnly`) those that end at or before now, which nothing can change any more; once
     * it has stopped, every bin up to now. The queue integral is split at a bin's end, where
     * it is split anyway, so that the figures are those of one GetBins() at the end.
     */
    std::vector<Bin> TakeBins(bool closedOnly);
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
    std::deque<Bin> m_bins; //!< from bin m_first on
    uint64_t m_first = 0;
    Time m_lastChange;
    uint32_t m_queueBytes = 0;
};

} // namespace ns3

#endif
