#include "pfc-controller.h"

#include "roce-header.h"

#include "ns3/abort.h"
#include "ns3/ipv4-queue-disc-item.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcController");
NS_OBJECT_ENSURE_REGISTERED(PfcController);

TypeId
PfcController::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::PfcController")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<PfcController>()
              .AddAttribute("XoffBytes",
                            "An ingress port buffering more RoCE bytes than this is paused.",
                            UintegerValue(512 * 1024), MakeUintegerAccessor(&PfcController::m_xoff),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("XonBytes", "A paused ingress port resumes at or below this.",
                            UintegerValue(512 * 1024 - 2 * 1500),
                            MakeUintegerAccessor(&PfcController::m_xon),
                            MakeUintegerChecker<uint32_t>())
              .AddTraceSource("Pause", "A PAUSE (true) or RESUME (false) left an ingress port.",
                              MakeTraceSourceAccessor(&PfcController::m_pauseTrace),
                              "ns3::PfcController::PauseTracedCallback");
    return tid;
}

PfcController::PfcController() = default;

void
PfcController::Install(const std::vector<Ptr<QueueDisc>>& torEgress,
                       const std::vector<Ipv4Address>& hostAddresses,
                       const std::vector<Ptr<NicQueueDisc>>& hostNics, Time pauseDelay)
{
    NS_ABORT_MSG_IF(m_xon > m_xoff, "PfcController: XonBytes must not exceed XoffBytes");
    NS_ABORT_MSG_IF(hostAddresses.size() != hostNics.size(),
                    "PfcController: one NIC per host address");
    m_addresses = hostAddresses;
    m_nics = hostNics;
    m_delay = pauseDelay;
    m_ingressBytes.assign(hostAddresses.size(), 0);
    m_pausedSent.assign(hostAddresses.size(), false);
    for (const auto& q : torEgress)
    {
        q->TraceConnectWithoutContext("Enqueue", MakeCallback(&PfcController::Enqueued, this));
        // ns-3's QueueDisc fires Dequeue for every packet taken from its queue, also for one it
        // then drops (DropAfterDequeue follows): Dequeue alone counts each packet out once.
        q->TraceConnectWithoutContext("Dequeue", MakeCallback(&PfcController::Left, this));
    }
}

void
PfcController::DoDispose()
{
    m_nics.clear();
    Object::DoDispose();
}

int32_t
PfcController::IngressOf(Ptr<const QueueDiscItem> item) const
{
    if (!RoceHeader::IsRoce(item))
    {
        return -1;
    }
    Ipv4Address src = DynamicCast<const Ipv4QueueDiscItem>(item)->GetHeader().GetSource();
    for (uint32_t i = 0; i < m_addresses.size(); ++i)
    {
        if (m_addresses[i] == src)
        {
            return static_cast<int32_t>(i);
        }
    }
    return -1;
}

void
PfcController::Enqueued(Ptr<const QueueDiscItem> item)
{
    int32_t port = IngressOf(item);
    if (port < 0)
    {
        return;
    }
    m_ingressBytes[port] += item->GetSize();
    m_maxIngressBytes = std::max(m_maxIngressBytes, m_ingressBytes[port]);
    Check(port);
}

void
PfcController::Left(Ptr<const QueueDiscItem> item)
{
    int32_t port = IngressOf(item);
    if (port < 0)
    {
        return;
    }
    NS_ASSERT(m_ingressBytes[port] >= item->GetSize());
    m_ingressBytes[port] -= item->GetSize();
    Check(port);
}

void
PfcController::Check(uint32_t port)
{
    if (!m_pausedSent[port] && m_ingressBytes[port] > m_xoff)
    {
        m_pausedSent[port] = true;
        ++m_pauses;
        m_pauseTrace(port, true);
        Simulator::Schedule(m_delay, &PfcController::Apply, this, port, true);
    }
    else if (m_pausedSent[port] && m_ingressBytes[port] <= m_xon)
    {
        m_pausedSent[port] = false;
        m_pauseTrace(port, false);
        Simulator::Schedule(m_delay, &PfcController::Apply, this, port, false);
    }
}

void
PfcController::Apply(uint32_t port, bool paused)
{
    if (m_nics[port])
    {
        m_nics[port]->SetRdmaPaused(paused);
    }
}

} // namespace ns3
