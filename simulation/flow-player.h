// The flow engine's flow traffic: a schedule's flows played as fluid flows (flow-network.cc).
#ifndef FLUMEN_FLOW_PLAYER_H
#define FLUMEN_FLOW_PLAYER_H

#include "run-outputs.h"

#include "ns3/flow-generator.h"
#include "ns3/flow-schedule.h"
#include "ns3/fluid-host.h"
#include "ns3/fluid-network.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace flumen
{

// Flows of a schedule (web-search, burst, replay) played as fluid flows: each starts one round
// trip after its arrival (TCP's handshake, behind the queues) and ends when its last byte has
// arrived. At queued links each is a window flow in slow start.
struct FlowPlayer
{
    ns3::Ptr<ns3::FluidNetwork> net;
    ns3::Ptr<ns3::FlowSchedule> schedule;
    ns3::FluidHost::Route route;
    ns3::FluidHost::Route ackRoute; //!< back from the destination: the flows' ACKs
    ns3::Ipv4Address source;
    ns3::Ipv4Address destination;
    double wireFactor = 1;
    /** Settings of every flow: its window (kind SHARE: none), its ACKs' wire factor. */
    ns3::FluidNetwork::FlowSpec window;
    ns3::Time origin;
    ns3::Time stop;
    std::deque<FlowRow> rows; //!< from flow `first` on: those not handed over yet
    uint32_t first = 0;
    std::map<uint64_t, uint32_t> active; //!< fluid flow id -> flow id
    double doneBytes = 0;
    /** outputs.tcp_csv: every flow's row so far (by flow id), filled as its window flow ends. */
    bool traceWindows = false;
    std::vector<TcpFlowRow> windows;

    void Next(const std::shared_ptr<FlowPlayer>& self);
    void Start(const std::shared_ptr<FlowPlayer>& self, const ns3::FlowArrival& a);
    void Done(uint64_t flow);
    // tcp.csv's columns from a window flow's record: its round trips are the model's (base
    // and queueing, at recomputations), its recoveries the cuts of host buffer overflows.
    void Fill(uint32_t index, const ns3::FluidNetwork::WindowRecord& r);
    void WindowEnded(uint64_t flow, const ns3::FluidNetwork::WindowRecord& r);
    std::vector<TcpFlowRow> TakeWindows();
    std::vector<FlowRow> Take(bool closedOnly);
    uint64_t BytesReceived() const;
};

} // namespace flumen

#endif
