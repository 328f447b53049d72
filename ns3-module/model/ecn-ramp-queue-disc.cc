#include "ecn-ramp-queue-disc.h"

#include "ns3/double.h"
#include "ns3/drop-tail-queue.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("EcnRampQueueDisc");
NS_OBJECT_ENSURE_REGISTERED(EcnRampQueueDisc);

TypeId
EcnRampQueueDisc::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::EcnRampQueueDisc")
              .SetParent<QueueDisc>()
              .SetGroupName("Flumen")
              .AddConstructor<EcnRampQueueDisc>()
              .AddAttribute("MaxSize", "The buffer: packets that do not fit are dropped.",
                            QueueSizeValue(QueueSize("4MB")),
                            MakeQueueSizeAccessor(&QueueDisc::SetMaxSize, &QueueDisc::GetMaxSize),
                            MakeQueueSizeChecker())
              .AddAttribute("KminBytes", "Queue length where marking starts.",
                            UintegerValue(100000), MakeUintegerAccessor(&EcnRampQueueDisc::m_kmin),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("KmaxBytes",
                            "Queue length from which every ECN-capable packet is "
                            "marked.",
                            UintegerValue(400000), MakeUintegerAccessor(&EcnRampQueueDisc::m_kmax),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("Pmax", "Marking probability just below KmaxBytes.", DoubleValue(0.2),
                            MakeDoubleAccessor(&EcnRampQueueDisc::m_pmax),
                            MakeDoubleChecker<double>(0.0, 1.0));
    return tid;
}

EcnRampQueueDisc::EcnRampQueueDisc() : QueueDisc(QueueDiscSizePolicy::SINGLE_INTERNAL_QUEUE)
{
    m_uniform = CreateObject<UniformRandomVariable>();
}

EcnRampQueueDisc::~EcnRampQueueDisc() = default;

int64_t
EcnRampQueueDisc::AssignStreams(int64_t stream)
{
    m_uniform->SetStream(stream);
    return 1;
}

double
EcnRampQueueDisc::Ramp(double queued, double kmin, double kmax, double pmax)
{
    if (queued <= kmin)
    {
        return 0.0;
    }
    if (queued >= kmax)
    {
        return 1.0;
    }
    return pmax * (queued - kmin) / (kmax - kmin);
}

double
EcnRampQueueDisc::MarkProbability(uint32_t q) const
{
    return Ramp(q, m_kmin, m_kmax, m_pmax);
}

bool
EcnRampQueueDisc::DoEnqueue(Ptr<QueueDiscItem> item)
{
    if (GetCurrentSize() + item > GetMaxSize())
    {
        DropBeforeEnqueue(item, kLimitExceeded);
        return false;
    }
    double p = MarkProbability(GetNBytes());
    // Draw only when it can matter, so queues below Kmin consume no random numbers.
    if (p >= 1.0 || (p > 0.0 && m_uniform->GetValue() < p))
    {
        Mark(item, kRampMark); // no effect on packets that are not ECN-capable
    }
    return GetInternalQueue(0)->Enqueue(item);
}

Ptr<QueueDiscItem>
EcnRampQueueDisc::DoDequeue()
{
    return GetInternalQueue(0)->Dequeue();
}

bool
EcnRampQueueDisc::CheckConfig()
{
    if (GetNQueueDiscClasses() > 0 || GetNPacketFilters() > 0)
    {
        NS_LOG_ERROR("EcnRampQueueDisc has no classes and no packet filters");
        return false;
    }
    if (m_kmin >= m_kmax)
    {
        NS_LOG_ERROR("EcnRampQueueDisc: KminBytes must be below KmaxBytes");
        return false;
    }
    if (GetNInternalQueues() == 0)
    {
        AddInternalQueue(CreateObjectWithAttributes<DropTailQueue<QueueDiscItem>>(
            "MaxSize", QueueSizeValue(GetMaxSize())));
    }
    return GetNInternalQueues() == 1;
}

void
EcnRampQueueDisc::InitializeParams()
{
}

} // namespace ns3
