/*
 * What each cross-traffic flow's TCP socket did: when and at what window it left slow start
 * and why (HyStart or a loss), its largest window, the range of its round-trip samples and
 * its fast recoveries and timeouts. It listens to the sockets' own trace sources
 * (CongestionWindow, SlowStartThreshold, CongState, RTT), so it reports ns-3's TCP as it ran;
 * the flow engine's slow-start rules are checked against these (docs/flow-engine.md).
 */
#ifndef FLUMEN_TCP_FLOW_TRACER_H
#define FLUMEN_TCP_FLOW_TRACER_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/socket.h"
#include "ns3/tcp-socket-state.h"

#include <vector>

namespace ns3
{

class FlowGenerator;

/** One flow's socket, as its trace sources reported it. */
struct TcpFlowStats
{
    uint32_t id = 0;                   //!< the generator's flow id
    Time slowStartEnd = Time(-1);      //!< negative: never left slow start
    uint32_t slowStartEndCwnd = 0;     //!< bytes: the window when slow start ended
    bool slowStartEndedByLoss = false; //!< a recovery or timeout ended it (else HyStart)
    uint32_t cwnd = 0;                 //!< bytes: the window now
    uint32_t maxCwnd = 0;              //!< bytes
    Time minRtt = Time::Max();         //!< smallest round-trip sample (Max: none)
    Time maxRtt = Time(0);             //!< largest round-trip sample
    uint32_t recoveries = 0;           //!< entries into fast recovery
    uint32_t timeouts = 0;             //!< retransmission timeouts (entries into CA_LOSS)
    Time lastLoss = Time(-1);          //!< when it last entered recovery or CA_LOSS
};

class TcpFlowTracer : public Object
{
  public:
    static TypeId GetTypeId();

    /** Watches every socket the generator opens from now on. */
    void Install(Ptr<FlowGenerator> generator);
    /** Watches one socket as flow `id` (before it connects, so that its first window counts). */
    void Watch(uint32_t id, Ptr<Socket> socket);

    /** Every watched flow, by flow id (ids never watched keep id and zeros). */
    const std::vector<TcpFlowStats>& GetStats() const { return m_stats; }

  private:
    TcpFlowStats& Stats(uint32_t id);
    void CwndChanged(uint32_t id, uint32_t before, uint32_t now);
    void SsThreshChanged(uint32_t id, uint32_t before, uint32_t now);
    void CongStateChanged(uint32_t id, TcpSocketState::TcpCongState_t before,
                          TcpSocketState::TcpCongState_t now);
    void RttSample(uint32_t id, Time before, Time now);

    std::vector<TcpFlowStats> m_stats;
};

} // namespace ns3

#endif
