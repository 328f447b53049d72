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
    generator->AggregateObject(this);
    generator->TraceConnectWithoutContext("FlowSocket", MakeCallback(&TcpFlowTracer::Watch, this));
}

void
TcpFlowTracer::Watch(uint32_t id, Ptr<Socket> socket)
{
    Flow(id);
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
             "RTT", MakeCallback(&TcpFlowTracer::RttChanged, this).Bind(id));
    NS_ABORT_MSG_UNLESS(ok, "TcpFlowTracer: flow " << id << "'s socket is not a TCP socket");
}

std::vector<TcpFlowStats>
TcpFlowTracer::GetStats() const
{
    std::vector<TcpFlowStats> stats;
    stats.reserve(m_flows.size());
    for (const Watched& w : m_flows)
    {
        stats.push_back(w.stats);
    }
    return stats;
}

TcpFlowTracer::Watched&
TcpFlowTracer::Flow(uint32_t id)
{
    while (m_flows.size() <= id)
    {
        m_flows.emplace_back();
        m_flows.back().stats.id = static_cast<uint32_t>(m_flows.size() - 1);
    }
    return m_flows[id];
}

void
TcpFlowTracer::CwndChanged(uint32_t id, uint32_t, uint32_t now)
{
    Watched& w = Flow(id);
    w.cwnd = now;
    w.stats.maxCwnd = std::max(w.stats.maxCwnd, now);
}

void
TcpFlowTracer::SsThreshChanged(uint32_t id, uint32_t, uint32_t now)
{
    // The socket's setup raises the threshold above any window; HyStart lowers it to the
    // window, a loss or an ECN echo below it. The first such fall ends slow start; a cut
    // whose state changes after it, at the same instant, names its cause then.
    Watched& w = Flow(id);
    TcpFlowStats& s = w.stats;
    if (s.slowStartEnd.IsNegative() && w.cwnd > 0 && now <= w.cwnd)
    {
        s.slowStartEnd = Simulator::Now();
        s.slowStartEndCwnd = w.cwnd;
        s.slowStartEndCause = w.lastCut == s.slowStartEnd ? w.lastCutCause
                              : now == w.cwnd             ? TcpFlowStats::HYSTART
                                                          : TcpFlowStats::OTHER;
        NS_LOG_LOGIC("flow " << id << " leaves slow start at " << w.cwnd << " B");
    }
}

void
TcpFlowTracer::CongStateChanged(uint32_t id, TcpSocketState::TcpCongState_t,
                                TcpSocketState::TcpCongState_t now)
{
    Watched& w = Flow(id);
    TcpFlowStats& s = w.stats;
    s.recoveries += now == TcpSocketState::CA_RECOVERY ? 1 : 0;
    s.timeouts += now == TcpSocketState::CA_LOSS ? 1 : 0;
    if (now != TcpSocketState::CA_RECOVERY && now != TcpSocketState::CA_LOSS
        && now != TcpSocketState::CA_CWR)
    {
        return;
    }
    // A cut changes the threshold and the state at the same instant, in either order (in
    // ns-3.37 fast recovery the state first, a timeout and CWR the threshold: both are tested).
    w.lastCut = Simulator::Now();
    w.lastCutCause = now == TcpSocketState::CA_CWR ? TcpFlowStats::ECN : TcpFlowStats::LOSS;
    const bool provisional = s.slowStartEndCause == TcpFlowStats::HYSTART
                             || s.slowStartEndCause == TcpFlowStats::OTHER;
    if (s.slowStartEnd == w.lastCut && provisional)
    {
        s.slowStartEndCause = w.lastCutCause;
    }
}

void
TcpFlowTracer::RttChanged(uint32_t id, Time, Time now)
{
    TcpFlowStats& s = Flow(id).stats;
    if (now.IsStrictlyPositive())
    {
        s.minSrtt = std::min(s.minSrtt, now);
        s.maxSrtt = std::max(s.maxSrtt, now);
    }
}

} // namespace ns3
