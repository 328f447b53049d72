#include "link-loss.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/pointer.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("LinkLoss");
NS_OBJECT_ENSURE_REGISTERED(LinkLoss);

TypeId
LinkLoss::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::LinkLoss")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<LinkLoss>()
              .AddAttribute("Rate", "Probability that a packet arriving on the link is lost",
                            DoubleValue(0.0), MakeDoubleAccessor(&LinkLoss::m_rate),
                            MakeDoubleChecker<double>(0.0, 1.0))
              .AddTraceSource("Lost", "A packet was lost on the link",
                              MakeTraceSourceAccessor(&LinkLoss::m_lostTrace),
                              "ns3::Packet::TracedCallback");
    return tid;
}

void
LinkLoss::Install(Ptr<NetDevice> receiver)
{
    NS_ABORT_MSG_IF(m_errors, "LinkLoss installed twice");
    m_errors = CreateObject<RateErrorModel>();
    m_errors->SetAttribute("ErrorUnit", EnumValue(RateErrorModel::ERROR_UNIT_PACKET));
    m_errors->SetAttribute("ErrorRate", DoubleValue(m_rate));
    receiver->SetAttribute("ReceiveErrorModel", PointerValue(m_errors));
    // The device drops a packet its error model corrupts (PhyRxDrop) and passes the others
    // on (PhyRxEnd).
    receiver->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&LinkLoss::HandleLost, this));
    receiver->TraceConnectWithoutContext("PhyRxEnd",
                                         MakeCallback(&LinkLoss::HandleDelivered, this));
}

void
LinkLoss::Reset()
{
    m_arrived = 0;
    m_lost = 0;
}

int64_t
LinkLoss::AssignStreams(int64_t stream)
{
    NS_ABORT_MSG_UNLESS(m_errors, "LinkLoss::AssignStreams before Install");
    return m_errors->AssignStreams(stream);
}

void
LinkLoss::HandleLost(Ptr<const Packet> packet)
{
    ++m_arrived;
    ++m_lost;
    m_lostTrace(packet);
}

void
LinkLoss::HandleDelivered(Ptr<const Packet>)
{
    ++m_arrived;
}

void
LinkLoss::DoDispose()
{
    m_errors = nullptr;
    Object::DoDispose();
}

} // namespace ns3
