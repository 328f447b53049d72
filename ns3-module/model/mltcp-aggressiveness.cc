#include "mltcp-aggressiveness.h"

#include "ns3/double.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MltcpAggressiveness");
NS_OBJECT_ENSURE_REGISTERED(MltcpAggressiveness);

TypeId
MltcpAggressiveness::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::MltcpAggressiveness")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<MltcpAggressiveness>()
              .AddAttribute(
                  "Slope",
                  "F(bytes_ratio) = Slope x bytes_ratio + Intercept: how much more a flow "
                  "late in its iteration's communication takes than one just begun",
                  DoubleValue(1.0), MakeDoubleAccessor(&MltcpAggressiveness::m_slope),
                  MakeDoubleChecker<double>(0.0))
              .AddAttribute("Intercept",
                            "F at the start of an iteration's communication (bytes_ratio 0)",
                            DoubleValue(0.5), MakeDoubleAccessor(&MltcpAggressiveness::m_intercept),
                            MakeDoubleChecker<double>(1e-6));
    return tid;
}

MltcpAggressiveness::MltcpAggressiveness() = default;

void
MltcpAggressiveness::DoDispose()
{
    m_counter = MakeNullCallback<uint64_t>();
    Object::DoDispose();
}

void
MltcpAggressiveness::StartIteration()
{
    const uint64_t now = Count();
    if (m_started && now > m_bytesAtStart)
    {
        m_iterationBytes = now - m_bytesAtStart;
    }
    m_started = true;
    m_bytesAtStart = now;
    NS_LOG_DEBUG("iteration starts at " << now << " B; last iteration " << m_iterationBytes
                                        << " B");
}

double
MltcpAggressiveness::Of(double bytesRatio) const
{
    return m_slope * std::clamp(bytesRatio, 0.0, 1.0) + m_intercept;
}

double
MltcpAggressiveness::Factor() const
{
    if (m_iterationBytes == 0)
    {
        return 1.0;
    }
    const double sent = static_cast<double>(Count() - m_bytesAtStart);
    return Of(sent / static_cast<double>(m_iterationBytes));
}

} // namespace ns3
