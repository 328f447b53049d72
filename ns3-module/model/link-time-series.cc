#include "link-time-series.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkTimeSeries");
NS_OBJECT_ENSURE_REGISTERED(LinkTimeSeries);

TypeId
LinkTimeSeries::GetTypeId()
{
    static TypeId tid = TypeId("ns3::LinkTimeSeries")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<LinkTimeSeries>()
                            .AddAttribute("BinWidth", "Width of one bin of the series.",
                                          TimeValue(MicroSeconds(100)),
                                          MakeTimeAccessor(&LinkTimeSeries::m_binWidth),
                                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

LinkTimeSeries::LinkTimeSeries() = default;

void
LinkTimeSeries::Attach(Ptr<QueueDisc> disc, Ptr<NetDevice> device)
{
    NS_ABORT_MSG_IF(m_disc, "LinkTimeSeries: already attached");
    m_disc = disc;
    m_queueBytes = disc->GetNBytes();
    m_lastChange = Simulator::Now();
    disc->TraceConnectWithoutContext("BytesInQueue",
                                     MakeCallback(&LinkTimeSeries::HandleBytes, this));
    disc->TraceConnectWithoutContext("Drop", MakeCallback(&LinkTimeSeries::HandleDrop, this));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&LinkTimeSeries::HandleMark, this));
    device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&LinkTimeSeries::HandleTx, this));
}

LinkTimeSeries::Bin&
LinkTimeSeries::BinAt(Time t)
{
    const auto i = static_cast<uint64_t>(t.GetTimeStep() / m_binWidth.GetTimeStep());
    NS_ASSERT_MSG(i >= m_first, "LinkTimeSeries: bin " << i << " was already taken");
    const size_t at = i - m_first;
    if (at >= m_bins.size())
    {
        m_bins.resize(at + 1);
    }
    return m_bins[at];
}

void
LinkTimeSeries::Integrate(Time now)
{
    // Spread the queue's constant level since the last change over the bins it covers.
    int64_t w = m_binWidth.GetTimeStep();
    int64_t t = m_lastChange.GetTimeStep();
    const int64_t end = now.GetTimeStep();
    while (t < end)
    {
        int64_t binEnd = (t / w + 1) * w;
        int64_t until = std::min(binEnd, end);
        Bin& b = BinAt(TimeStep(t));
        b.queueByteSeconds += m_queueBytes * TimeStep(until - t).GetSeconds();
        b.maxQueueBytes = std::max(b.maxQueueBytes, m_queueBytes);
        t = until;
    }
    m_lastChange = now;
}

std::vector<LinkTimeSeries::Bin>
LinkTimeSeries::GetBins()
{
    Integrate(Simulator::Now());
    return { m_bins.begin(), m_bins.end() };
}

std::vector<LinkTimeSeries::Bin>
LinkTimeSeries::TakeBins(bool closedOnly)
{
    const Time now = Simulator::Now();
    const int64_t w = m_binWidth.GetTimeStep();
    const auto open = static_cast<uint64_t>(now.GetTimeStep() / w);
    const Time until = closedOnly ? TimeStep(static_cast<int64_t>(open) * w) : now;
    if (m_lastChange < until)
    {
        Integrate(until);
    }
    size_t n = m_bins.size();
    if (closedOnly)
    {
        n = open > m_first ? std::min<size_t>(open - m_first, n) : 0;
    }
    std::vector<Bin> taken(m_bins.begin(), m_bins.begin() + n);
    m_bins.erase(m_bins.begin(), m_bins.begin() + n);
    m_first += n;
    return taken;
}

void
LinkTimeSeries::HandleBytes(uint32_t oldValue, uint32_t newValue)
{
    Time now = Simulator::Now();
    Integrate(now);
    m_queueBytes = newValue;
    Bin& b = BinAt(now);
    b.maxQueueBytes = std::max(b.maxQueueBytes, newValue);
}

void
LinkTimeSeries::HandleDrop(Ptr<const QueueDiscItem> item)
{
    ++BinAt(Simulator::Now()).drops;
}

void
LinkTimeSeries::HandleMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    ++BinAt(Simulator::Now()).ecnMarks;
}

void
LinkTimeSeries::HandleTx(Ptr<const Packet> packet)
{
    // The frame as serialised: PPP (2 bytes), IPv4 (IHL x 4), then the transport's ports.
    uint8_t head[2 + 60 + 4];
    uint32_t n = packet->CopyData(head, sizeof(head));
    bool job = false;
    if (n >= 2 + 20 + 4 && head[0] == 0x00 && head[1] == 0x21)
    {
        const uint8_t* ip = head + 2;
        uint32_t ihl = (ip[0] & 0x0f) * 4u;
        uint8_t proto = ip[9];
        if ((proto == 6 || proto == 17) && n >= 2 + ihl + 4)
        {
            const uint8_t* l4 = ip + ihl;
            uint16_t src = static_cast<uint16_t>(l4[0] << 8 | l4[1]);
            uint16_t dst = static_cast<uint16_t>(l4[2] << 8 | l4[3]);
            job = m_jobPorts.count(src) || m_jobPorts.count(dst);
        }
    }
    Bin& b = BinAt(Simulator::Now());
    (job ? b.jobBytes : b.crossBytes) += packet->GetSize();
}

void
LinkTimeSeries::DoDispose()
{
    m_disc = nullptr;
    Object::DoDispose();
}

} // namespace ns3
