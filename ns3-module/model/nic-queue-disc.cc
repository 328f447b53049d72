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
                            "RDMA's quantum relative to each TCP/IP queue's (1 = byte-fair).",
                            DoubleValue(1.0), MakeDoubleAccessor(&NicQueueDisc::m_rdmaWeight),
                            MakeDoubleChecker<double>(0.01, 100.0))
              .AddAttribute("HostTxQueues",
                            "TCP/IP send queues served round robin beside RDMA's; flows take "
                            "them in order of appearance (1 = all TCP/IP in one queue).",
                            UintegerValue(32), MakeUintegerAccessor(&NicQueueDisc::m_hostTxQueues),
                            MakeUintegerChecker<uint32_t>(1, 1024))
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

uint32_t
NicQueueDisc::HostQueueOf(Ptr<QueueDiscItem> item)
{
    auto [it, fresh] = m_flows.try_emplace(item->Hash(), FlowSlot{ 0, 0 });
    if (fresh)
    {
        it->second.queue = 1 + m_nextQueue;
        m_nextQueue = (m_nextQueue + 1) % m_hostTxQueues;
    }
    ++it->second.packets;
    return it->second.queue;
}

bool
NicQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    const bool rdma = RoceHeader::IsRoce(item);
    const uint32_t size = item->GetSize();
    if (rdma ? m_rdmaBytes + size > m_rdmaBufferBytes : m_hostBytes + size > m_hostBufferBytes)
    {
        DropBeforeEnqueue(item, rdma ? kRdmaBufferFull : kHostBufferFull);
        return false;
    }
    uint32_t q = rdma ? kRdma : HostQueueOf(item);
    bool ok = GetInternalQueue(q)->Enqueue(item);
    NS_ASSERT(ok);
    (rdma ? m_rdmaBytes : m_hostBytes) += size;
    if (m_packets[q]++ == 0)
    {
        m_active.push_back(q);
        m_deficit[q] = 0; // an idle queue keeps no credit
    }
    return ok;
}

Ptr<QueueDiscItem>
NicQueueDisc::DoDequeue()
{
    // Deficit round robin over the busy queues: the front queue's turn adds its quantum, it
    // sends while the deficit covers its head packet, then goes to the back. A paused RDMA
    // queue is passed over without credit.
    while (!m_active.empty())
    {
        uint32_t q = m_active.front();
        if (q == kRdma && m_paused)
        {
            if (m_active.size() == 1)
            {
                return nullptr;
            }
            m_active.pop_front();
            m_active.push_back(q);
            m_turnStarted = false;
            continue;
        }
        if (!m_turnStarted)
        {
            double quantum = q == kRdma ? m_quantum * m_rdmaWeight : m_quantum;
            m_deficit[q] += static_cast<int64_t>(quantum);
            m_turnStarted = true;
        }
        Ptr<const QueueDiscItem> head = GetInternalQueue(q)->Peek();
        if (m_deficit[q] >= static_cast<int64_t>(head->GetSize()))
        {
            Ptr<QueueDiscItem> item = GetInternalQueue(q)->Dequeue();
            m_deficit[q] -= item->GetSize();
            if (q == kRdma)
            {
                m_rdmaBytes -= item->GetSize();
            }
            else
            {
                m_hostBytes -= item->GetSize();
                auto it = m_flows.find(item->Hash());
                NS_ASSERT(it != m_flows.end());
                if (--it->second.packets == 0)
                {
                    m_flows.erase(it); // a flow keeps its queue only while it has packets
                }
            }
            if (--m_packets[q] == 0)
            {
                m_active.pop_front();
                m_turnStarted = false;
            }
            return item;
        }
        m_active.pop_front();
        m_active.push_back(q);
        m_turnStarted = false;
    }
    return nullptr;
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
        // Limits are enforced above; the internal queues themselves are unbounded.
        for (uint32_t i = 0; i < 1 + m_hostTxQueues; ++i)
        {
            AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
                "MaxSize", QueueSizeValue(QueueSize("1000000p"))));
        }
    }
    m_deficit.assign(GetNInternalQueues(), 0);
    m_packets.assign(GetNInternalQueues(), 0);
    return GetNInternalQueues() == 1 + m_hostTxQueues;
}

void
NicQueueDisc::InitializeParams()
{
}

} // namespace ns3
