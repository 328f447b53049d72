#include "flow-schedule.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(FlowSchedule);
NS_OBJECT_ENSURE_REGISTERED(ReplayFlowSchedule);

TypeId
FlowSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::FlowSchedule").SetParent<Object>().SetGroupName("Flumen");
    return tid;
}

TypeId
ReplayFlowSchedule::GetTypeId()
{
    static TypeId tid = TypeId("ns3::ReplayFlowSchedule")
                            .SetParent<FlowSchedule>()
                            .SetGroupName("Flumen")
                            .AddConstructor<ReplayFlowSchedule>();
    return tid;
}

ReplayFlowSchedule::ReplayFlowSchedule(std::vector<FlowArrival> flows) : m_flows(std::move(flows))
{
    // Stable: flows that start together keep the file's order.
    std::stable_sort(m_flows.begin(), m_flows.end(),
                     [](const auto& a, const auto& b) { return a.startUs < b.startUs; });
}

bool
ReplayFlowSchedule::Next(FlowArrival& flow)
{
    if (m_next >= m_flows.size())
    {
        return false;
    }
    flow = m_flows[m_next++];
    return true;
}

} // namespace ns3
