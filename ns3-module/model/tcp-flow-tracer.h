/*
 * What each cross-traffic flow's TCP socket did: when and at what window it left slow start
 * and why (HyStart, a loss or an ECN echo), its largest window, the range of its smoothed
 * round trip and its fast recoveries and timeouts. It listens to the sockets' own trace
 * sources (CongestionWindow, SlowStartThreshold, CongState, RTT), so it reports ns-3's TCP as
 * it ran; the flow engine's slow-start rules are checked against these (docs/flow-engine.md).
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
    /** What ended slow start. */
    enum Cause
    {
        NONE,    //!< it never ended
        HYSTART, //!< CUBIC's HyStart set the threshold to the window
        LOSS,    //!< a fast recovery or a retransmission timeout
        ECN,     //!< an ECN echo (CWR)
        OTHER    //!< the threshold fell below the window with no cut at that instant
    };

    uint32_t id = 0;               //!< the generator's flow id
    Time slowStartEnd = Time(-1);  //!< negative: never left slow start
    uint32_t slowStartEndCwnd = 0; //!< bytes: the window when slow start ended
    Cause slowStartEndCause = NONE;
    uint32_t maxCwnd = 0; //!< bytes
    /**
     * Smallest and largest smoothed round trip (the `RTT` trace source, which is ns-3's
     * estimate, not the raw sample; what CUBIC's HyStart reads). Max and 0: none yet.
     */
    Time minSrtt = Time::Max();
    Time maxSrtt = Time(0);
    uint32_t recoveries = 0; //!< entries into fast recovery
    /** Entries into CA_LOSS: retransmission timeouts (one repeated within it counts once). */
    uint32_t timeouts = 0;
};

class TcpFlowTracer : public Object
{
  public:
    static TypeId GetTypeId();

    /**
     * Watches every socket the generator opens from now on. The tracer is aggregated to the
     * generator, so that it lives as long as the generator (whose sockets fire nothing once the
     * simulation is destroyed); one tracer per generator (a second is a fatal error).
     */
    void Install(Ptr<FlowGenerator> generator);
    /** Watches one socket as flow `id` (before it connects, so that its first window counts). */
    void Watch(uint32_t id, Ptr<Socket> socket);

    /** Flow ids 0 to the largest watched; an id never watched has its defaults. */
    std::vector<TcpFlowStats> GetStats() const;

  private:
    /** A flow's statistics and what deciding them needs. */
    struct Watched
    {
        TcpFlowStats stats;
        uint32_t cwnd = 0;       //!< bytes: the window now
        Time lastCut = Time(-1); //!< when it last entered recovery, CA_LOSS or CWR
        TcpFlowStats::Cause lastCutCause = TcpFlowStats::NONE;
    };

    Watched& Flow(uint32_t id);
    void CwndChanged(uint32_t id, uint32_t before, uint32_t now);
    void SsThreshChanged(uint32_t id, uint32_t before, uint32_t now);
    void CongStateChanged(uint32_t id, TcpSocketState::TcpCongState_t before,
                          TcpSocketState::TcpCongState_t now);
    void RttChanged(uint32_t id, Time before, Time now);

    std::vector<Watched> m_flows;
};

} // namespace ns3

#endif
