#include "nic-queue-disc.h"

#include "roce-header.h"

#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NicQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(NicQueueDisc);

TypeId
NicQueueDisc::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::NicQueueDisc")
              .SetParent<QueueDisc>()
              .SetGroupName("Flumen")
              .AddConstructor<NicQueueDisc>()
              .AddAttribute("HostBufferBytes", "Buffer of the TCP/IP class (tail drop).",
                            UintegerValue(4 * 1024 * 1024),
                            MakeUintegerAccessor(&NicQueueDisc::m_hostBufferBytes),
                            MakeUintegerChecker<uint32_t>(1500))
              .AddAttribute("RdmaBufferBytes",
                            "Hard limit of the RDMA class (the NIC's backpressure keeps it far "
                            "below).",
                            UintegerValue(4 * 1024 * 1024),
                            MakeUintegerAccessor(&NicQueueDisc::m_rdmaBufferBytes),
                            MakeUintegerChecker<uint32_t>(1500))
              .AddAttribute("Quantum", "Deficit round robin quantum in bytes.", UintegerValue(1500),
                            MakeUintegerAccessor(&NicQueueDisc::m_quantum),
                            MakeUintegerChecker<uint32_t>(64))
              .AddAttribute("RdmaWeight",
                            "RDMA's quantum relative to the TCP/IP class's (1 = byte-fair).",
                            DoubleValue(1.0), MakeDoubleAccessor(&NicQueueDisc::m_rdmaWeight),
                            MakeDoubleChecker<double>(0.01, 100.0))
              .AddTraceSource("RdmaPaused", "PFC paused (true) or resumed (false) the RDMA class.",
                              MakeTraceSourceAccessor(&NicQueueDisc::m_pausedTrace),
                              "ns3::TracedCallback::Bool");
    return tid;
}

NicQueueDisc::NicQueueDisc() : QueueDisc(QueueDiscSizePolicy::NO_LIMITS) {}

NicQueueDisc::~NicQueueDisc() = default;

Time
NicQueueDisc::GetPausedTime() const
{
    return m_pausedTotal + (m_paused ? Simulator::Now() - m_pausedSince : Time(0));
}

void
NicQueueDisc::SetRdmaPaused(bool paused)
{
    if (paused == m_paused)
    {
        return;
    }
    NS_LOG_FUNCTION(this << paused);
    m_paused = paused;
    if (paused)
    {
        m_pausedSince = Simulator::Now();
    }
    else
    {
        m_pausedTotal += Simulator::Now() - m_pausedSince;
    }
    m_pausedTrace(paused);
    if (!paused)
    {
        Run(); // the device may be idle with RDMA packets waiting
    }
}

bool
NicQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    uint32_t c = RoceHeader::IsRoce(item) ? kRdma : kHost;
    uint32_t limit = c == kRdma ? m_rdmaBufferBytes : m_hostBufferBytes;
    if (m_bytes[c] + item->GetSize() > limit)
    {
        DropBeforeEnqueue(item, c == kRdma ? kRdmaBufferFull : kHostBufferFull);
        return false;
    }
    bool ok = GetInternalQueue(c)->Enqueue(item);
    NS_ASSERT(ok);
    m_bytes[c] += item->GetSize();
    return ok;
}

bool
NicQueueDisc::Eligible(uint32_t c) const
{
    return m_bytes[c] > 0 && !(c == kRdma && m_paused);
}

Ptr<QueueDiscItem>
NicQueueDisc::DoDequeue()
{
    if (!Eligible(kRdma) && !Eligible(kHost))
    {
        return nullptr;
    }
    // Deficit round robin over the two classes: a class's turn adds its quantum, it sends
    // while the deficit covers its head packet, then the turn passes. An idle class keeps
    // no credit.
    while (true)
    {
        uint32_t c = m_turn;
        if (!Eligible(c))
        {
            m_deficit[c] = 0;
            m_turn = 1 - c;
            m_turnStarted = false;
            continue;
        }
        if (!m_turnStarted)
        {
            double q = c == kRdma ? m_quantum * m_rdmaWeight : m_quantum;
            m_deficit[c] += static_cast<int64_t>(q);
            m_turnStarted = true;
        }
        Ptr<const QueueDiscItem> head = GetInternalQueue(c)->Peek();
        if (m_deficit[c] >= static_cast<int64_t>(head->GetSize()))
        {
            Ptr<QueueDiscItem> item = GetInternalQueue(c)->Dequeue();
            m_deficit[c] -= item->GetSize();
            m_bytes[c] -= item->GetSize();
            return item;
        }
        m_turn = 1 - c;
        m_turnStarted = false;
    }
}

bool
NicQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("NicQueueDisc has no classes and no packet filters");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        // Limits are enforced per class above; the internal queues themselves are unbounded.
        for (int i = 0; i < 2; ++i)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
        }
    }
    return GetNInternalQueues() == 2;
}

void
NicQueueDisc::InitializeParams()
{
}

} // namespace ns3
