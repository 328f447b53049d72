#include "queue-monitor.h"

#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("QueueMonitor");
NS_OBJECT_ENSURE_REGISTERED(QueueMonitor);

TypeId
QueueMonitor::GetTypeId()
{
    static TypeId tid = TypeId("ns3::QueueMonitor")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<QueueMonitor>();
    return tid;
}

QueueMonitor::QueueMonitor() = default;

void
QueueMonitor::Attach(Ptr<QueueDisc> disc, Ptr<NetDevice> device, DataRate linkRate)
{
    NS_ABORT_MSG_IF(m_disc, "QueueMonitor: already attached");
    m_disc = disc;
    m_device = device;
    m_linkRate = linkRate;
    disc->TraceConnectWithoutContext("BytesInQueue",
                                     MakeCallback(&QueueMonitor::HandleBytes, this));
    disc->TraceConnectWithoutContext("Drop", MakeCallback(&QueueMonitor::HandleDrop, this));
    disc->TraceConnectWithoutContext("Mark", MakeCallback(&QueueMonitor::HandleMark, this));
    device->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&QueueMonitor::HandleTx, this));
    m_currentBytes = disc->GetNBytes();
    Reset();
}

void
QueueMonitor::Reset()
{
    Time now = Simulator::Now();
    m_windowStart = now;
    m_lastChange = now;
    m_byteSeconds = 0.0;
    m_maxBytes = m_currentBytes;
    m_drops = 0;
    m_marks = 0;
    m_txBytes = 0;
    m_txPackets = 0;
}

uint32_t
QueueMonitor::GetQueueBytes() const
{
    return m_currentBytes;
}

double
QueueMonitor::GetMeanQueueBytes() const
{
    Time now = Simulator::Now();
    double span = (now - m_windowStart).GetSeconds();
    if (span <= 0)
    {
        return m_currentBytes;
    }
    double integral = m_byteSeconds + m_currentBytes * (now - m_lastChange).GetSeconds();
    return integral / span;
}

double
QueueMonitor::GetUtilization() const
{
    double span = (Simulator::Now() - m_windowStart).GetSeconds();
    if (span <= 0 || m_linkRate.GetBitRate() == 0)
    {
        return 0.0;
    }
    return m_txBytes * 8.0 / (m_linkRate.GetBitRate() * span);
}

void
QueueMonitor::HandleBytes(uint32_t oldValue, uint32_t newValue)
{
    Time now = Simulator::Now();
    m_byteSeconds += m_currentBytes * (now - m_lastChange).GetSeconds();
    m_lastChange = now;
    m_currentBytes = newValue;
    if (newValue > m_maxBytes)
    {
        m_maxBytes = newValue;
    }
}

void
QueueMonitor::HandleDrop(Ptr<const QueueDiscItem> item)
{
    ++m_drops;
}

void
QueueMonitor::HandleMark(Ptr<const QueueDiscItem> item, const char* reason)
{
    ++m_marks;
}

void
QueueMonitor::HandleTx(Ptr<const Packet> packet)
{
    m_txBytes += packet->GetSize();
    ++m_txPackets;
    ++m_txPacketsTotal;
}

void
QueueMonitor::DoDispose()
{
    m_disc = nullptr;
    m_device = nullptr;
    Object::DoDispose();
}

} // namespace ns3
