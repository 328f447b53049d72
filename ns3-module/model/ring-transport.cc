#include "ring-transport.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingTransport);

TypeId
RingTransport::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::RingTransport")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddAttribute("Mltcp",
                            "MLTCP on the link's flows: their window (TCP), rate (DCQCN) or share "
                            "(the flow engine) increases scaled by F(bytes ratio of the "
                            "iteration), mltcp-aggressiveness.h",
                            BooleanValue(false), MakeBooleanAccessor(&RingTransport::m_mltcp),
                            MakeBooleanChecker());
    return tid;
}

void
RingTransport::DoDispose()
{
    m_receiveCallback = MakeNullCallback<void, uint64_t>();
    m_sendCompleteCallback = MakeNullCallback<void, uint64_t>();
    if (m_aggressiveness)
    {
        m_aggressiveness->Dispose();
        m_aggressiveness = nullptr;
    }
    Object::DoDispose();
}

Ptr<MltcpAggressiveness>
RingTransport::GetAggressiveness()
{
    if (m_mltcp && !m_aggressiveness)
    {
        m_aggressiveness = CreateObject<MltcpAggressiveness>();
        // A plain pointer: the transport owns the aggressiveness.
        m_aggressiveness->SetBytesCounter(MakeCallback(&RingTransport::GetBytesSent, this));
    }
    return m_aggressiveness;
}

void
RingTransport::StartIteration()
{
    if (Ptr<MltcpAggressiveness> a = GetAggressiveness())
    {
        a->StartIteration();
    }
}

void
RingTransport::NotifyReceiveComplete(uint64_t bytes)
{
    if (!m_receiveCallback.IsNull())
    {
        m_receiveCallback(bytes);
    }
}

void
RingTransport::NotifySendComplete(uint64_t bytes)
{
    if (!m_sendCompleteCallback.IsNull())
    {
        m_sendCompleteCallback(bytes);
    }
}

void
RingTransport::WholeAllReduce(uint64_t, const RingPacing&, Callback<void>)
{
    NS_ABORT_MSG("RingTransport: this transport runs all-reduces slice by slice only");
}

} // namespace ns3
