#include "windowed-launch-schedule.h"

#include "ns3/abort.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(WindowedLaunchSchedule);

TypeId
WindowedLaunchSchedule::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::WindowedLaunchSchedule")
              .SetParent<FlowSchedule>()
              .SetGroupName("Flumen")
              .AddConstructor<WindowedLaunchSchedule>()
              .AddAttribute("Window",
                            "The grid the client's threads sleep to, each launching the next "
                            "window's flows at once (the testbed's client: 100 ms).",
                            TimeValue(MilliSeconds(100)),
                            MakeTimeAccessor(&WindowedLaunchSchedule::m_window),
                            MakeTimeChecker(MicroSeconds(1)))
              .AddAttribute(
                  "Threads", "Helper threads taking the flows in turn (the testbed's client: 3).",
                  UintegerValue(3), MakeUintegerAccessor(&WindowedLaunchSchedule::m_threadCount),
                  MakeUintegerChecker<uint32_t>(1, 1024));
    return tid;
}

WindowedLaunchSchedule::WindowedLaunchSchedule() : m_window(MilliSeconds(100)), m_threadCount(3) {}

void
WindowedLaunchSchedule::DoDispose()
{
    m_inner = nullptr;
    FlowSchedule::DoDispose();
}

int64_t
WindowedLaunchSchedule::AssignStreams(int64_t stream)
{
    return m_inner ? m_inner->AssignStreams(stream) : 0;
}

bool
WindowedLaunchSchedule::Next(FlowArrival& flow)
{
    NS_ABORT_MSG_IF(!m_inner, "WindowedLaunchSchedule: no schedule to launch (SetInner)");
    if (!m_inner->Next(flow))
    {
        return false;
    }
    const auto windowUs = static_cast<uint64_t>(m_window.GetMicroSeconds());
    if (m_flows == 0)
    {
        m_originUs = flow.startUs;
        m_threadWindow.assign(m_threadCount, 0);
    }
    uint64_t& window = m_threadWindow[m_flows++ % m_threadCount];
    const uint64_t launchUs = m_originUs + window * windowUs;
    // The thread looks ahead to the end of its window; a flow past it still starts now, then
    // the thread sleeps to the start of that flow's window (skipping empty ones).
    if (flow.startUs > launchUs + windowUs)
    {
        window = (flow.startUs - m_originUs - 1) / windowUs; // the flow's own window
    }
    flow.startUs = launchUs;
    return true;
}

} // namespace ns3
