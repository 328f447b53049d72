#include "mltcp-congestion-ops.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/type-id.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MltcpCongestionOps");
NS_OBJECT_ENSURE_REGISTERED(MltcpCongestionOps);

TypeId
MltcpCongestionOps::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::MltcpCongestionOps")
              .SetParent<TcpCongestionOps>()
              .SetGroupName("Flumen")
              .AddConstructor<MltcpCongestionOps>()
              .AddAttribute("Base", "The congestion control whose window increase MLTCP scales",
                            TypeIdValue(TypeId::LookupByName("ns3::TcpCubic")),
                            MakeTypeIdAccessor(&MltcpCongestionOps::m_baseType),
                            MakeTypeIdChecker())
              .AddTraceSource("Factor", "MLTCP's F(bytes_ratio) at the last window increase",
                              MakeTraceSourceAccessor(&MltcpCongestionOps::m_factor),
                              "ns3::TracedValueCallback::Double");
    return tid;
}

MltcpCongestionOps::MltcpCongestionOps() = default;

MltcpCongestionOps::MltcpCongestionOps(const MltcpCongestionOps& other)
    : TcpCongestionOps(other), m_baseType(other.m_baseType),
      m_base(other.m_base ? other.m_base->Fork() : nullptr),
      m_aggressiveness(other.m_aggressiveness)
{
}

void
MltcpCongestionOps::SetAggressiveness(Ptr<MltcpAggressiveness> aggressiveness)
{
    m_aggressiveness = aggressiveness;
}

Ptr<TcpCongestionOps>
MltcpCongestionOps::GetBase()
{
    if (!m_base)
    {
        NS_ABORT_MSG_IF(m_baseType == MltcpCongestionOps::GetTypeId(),
                        "MltcpCongestionOps: its Base cannot be MLTCP itself");
        ObjectFactory factory;
        factory.SetTypeId(m_baseType);
        m_base = factory.Create<TcpCongestionOps>();
        NS_ABORT_MSG_IF(m_base->HasCongControl(), "MltcpCongestionOps: Base "
                                                      << m_baseType.GetName()
                                                      << " sets its window itself (CongControl); "
                                                         "MLTCP scales a window increase");
    }
    return m_base;
}

std::string
MltcpCongestionOps::GetName() const
{
    return "Mltcp";
}

void
MltcpCongestionOps::Init(Ptr<TcpSocketState> tcb)
{
    GetBase()->Init(tcb);
}

uint32_t
MltcpCongestionOps::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    return GetBase()->GetSsThresh(tcb, bytesInFlight);
}

void
MltcpCongestionOps::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    const uint32_t real = tcb->m_cWnd;
    if (!m_aggressiveness || real < tcb->m_ssThresh)
    {
        GetBase()->IncreaseWindow(tcb, segmentsAcked); // slow start: the base's own
        m_shadow = 0;
        return;
    }
    // The base grows its own window (the shadow), which a cut or slow start resets to the
    // socket's; the socket's window takes F times each of its steps. Fed the scaled window,
    // CUBIC pulled it back up and F was largely lost (mltcp-congestion-ops.h).
    if (m_shadow == 0 || real != m_lastSet)
    {
        m_shadow = real;
    }
    tcb->m_cWnd = m_shadow;
    GetBase()->IncreaseWindow(tcb, segmentsAcked);
    const uint32_t step = tcb->m_cWnd - m_shadow;
    m_shadow = tcb->m_cWnd;
    m_factor = m_aggressiveness->Factor();
    const double scaled = m_factor * static_cast<double>(step) + m_carryBytes;
    const double whole = std::floor(scaled);
    m_carryBytes = scaled - whole;
    tcb->m_cWnd = static_cast<uint32_t>(static_cast<double>(real) + whole);
    m_lastSet = tcb->m_cWnd;
    NS_LOG_LOGIC("F " << m_factor << ": base " << m_shadow - step << " -> " << m_shadow
                      << ", window " << real << " -> " << tcb->m_cWnd);
}

void
MltcpCongestionOps::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    GetBase()->PktsAcked(tcb, segmentsAcked, rtt);
}

void
MltcpCongestionOps::CongestionStateSet(Ptr<TcpSocketState> tcb,
                                       const TcpSocketState::TcpCongState_t newState)
{
    GetBase()->CongestionStateSet(tcb, newState);
}

void
MltcpCongestionOps::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    GetBase()->CwndEvent(tcb, event);
}

bool
MltcpCongestionOps::HasCongControl() const
{
    // A base that sets the window itself (BBR) bypasses IncreaseWindow: MLTCP would do nothing.
    return false;
}

void
MltcpCongestionOps::CongControl(Ptr<TcpSocketState> tcb, const TcpRateOps::TcpRateConnection& rc,
                                const TcpRateOps::TcpRateSample& rs)
{
}

Ptr<TcpCongestionOps>
MltcpCongestionOps::Fork()
{
    return CopyObject<MltcpCongestionOps>(this);
}

} // namespace ns3
