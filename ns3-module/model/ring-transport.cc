#include "ring-transport.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RingTransport);

TypeId
RingTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::RingTransport").SetParent<Object>().SetGroupName("Flumen");
    return tid;
}

void
RingTransport::DoDispose()
{
    m_receiveCallback = MakeNullCallback<void, uint64_t>();
    m_sendCompleteCallback = MakeNullCallback<void, uint64_t>();
    Object::DoDispose();
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
