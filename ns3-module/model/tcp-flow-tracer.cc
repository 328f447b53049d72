#include "tcp-flow-tracer.h"

#include "flow-generator.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TcpFlowTracer");
NS_OBJECT_ENSURE_REGISTERED(TcpFlowTracer);

TypeId
TcpFlowTracer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TcpFlowTracer")
                            .SetParent<Object>()
                            .SetGroupName("Flumen")
                            .AddConstructor<TcpFlowTracer>();
    return tid;
}

void
TcpFlowTracer::Install(Ptr<FlowGenerator> generator)
{
    generator->TraceConnectWithoutContext("FlowSocket", MakeCallback(&TcpFlowTracer::Watch, this));
}

void
TcpFlowTracer::Watch(uint32_t id, Ptr<Socket> socket)
{
    Stats(id);
    // The sockets outlive the generator's hold on them (TCP closes them later), never the
    // tracer: it lives until the simulation is destroyed.
    bool ok = socket->TraceConnectWithoutContext(
        "CongestionWindow", MakeCallback(&TcpFlowTracer::CwndChanged, this).Bind(id));
    ok = ok
         && socket->TraceConnectWithoutContext(
             "SlowStartThreshold", MakeCallback(&TcpFlowTracer::SsThreshChanged, this).Bind(id));
    ok = ok
         && socket->TraceConnectWithoutContext(
             "CongState", MakeCallback(&TcpFlowTracer::CongStateChanged, this).Bind(id));
    ok = ok
         && socket->TraceConnectWithoutContext(
             "RTT", MakeCallback(&TcpFlowTracer::RttSample, this).Bind(id));
    NS_ABORT_MSG_UNLESS(ok, "TcpFlowTracer: flow " << id << "'s socket is not a TCP socket");
}

TcpFlowStats&
TcpFlowTracer::Stats(uint32_t id)
{
    while (m_stats.size() <= id)
    {
        m_stats.emplace_back();
        m_stats.back().id = static_cast<uint32_t>(m_stats.size() - 1);
    }
    return m_stats[id];
}

void
TcpFlowTracer::CwndChanged(uint32_t id, uint32_t, uint32_t now)
{
    TcpFlowStats& s = Stats(id);
    s.cwnd = now;
    s.maxCwnd = std::max(s.maxCwnd, now);
}

void
TcpFlowTracer::SsThreshChanged(uint32_t id, uint32_t, uint32_t now)
{
    // The socket's setup raises the threshold above any window; HyStart lowers it to the
    // window, a loss below it. The first such fall ends slow start.
    TcpFlowStats& s = Stats(id);
    if (s.slowStartEnd.IsNegative() && s.cwnd > 0 && now <= s.cwnd)
    {
        s.slowStartEnd = Simulator::Now();
        s.slowStartEndCwnd = s.cwnd;
        s.slowStartEndedByLoss = s.lastLoss == s.slowStartEnd;
        NS_LOG_LOGIC("flow " << id << " leaves slow start at " << s.cwnd << " B");
    }
}

void
TcpFlowTracer::CongStateChanged(uint32_t id, TcpSocketState::TcpCongState_t,
                                TcpSocketState::TcpCongState_t now)
{
    TcpFlowStats& s = Stats(id);
    const bool recovery = now == TcpSocketState::CA_RECOVERY;
    const bool timeout = now == TcpSocketState::CA_LOSS;
    s.recoveries += recovery ? 1 : 0;
    s.timeouts += timeout ? 1 : 0;
    if (recovery || timeout)
    {
        // A loss changes the threshold and the state at the same instant, in either order.
        s.lastLoss = Simulator::Now();
        s.slowStartEndedByLoss = s.slowStartEndedByLoss || s.slowStartEnd == s.lastLoss;
    }
}

void
TcpFlowTracer::RttSample(uint32_t id, Time, Time now)
{
    TcpFlowStats& s = Stats(id);
    if (now.IsStrictlyPositive())
    {
        s.minRtt = std::min(s.minRtt, now);
        s.maxRtt = std::max(s.maxRtt, now);
    }
}

} // namespace ns3
