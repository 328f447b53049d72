/*
 * Installs flow-based cross traffic: a FlowSink on every destination and a FlowGenerator on
 * the source that plays a FlowSchedule (web-search, burst web-search or a replayed load
 * file), with each sink's completions reported back to the generator's flow records.
 */
#ifndef FLUMEN_FLOW_GENERATOR_HELPER_H
#define FLUMEN_FLOW_GENERATOR_HELPER_H

#include "ns3/flow-generator.h"
#include "ns3/flow-schedule.h"
#include "ns3/flow-sink.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

struct FlowTraffic
{
    Ptr<FlowGenerator> generator;
    std::vector<Ptr<FlowSink>> sinks; //!< sink of destination index i
};

class FlowGeneratorHelper
{
  public:
    explicit FlowGeneratorHelper(uint16_t port = 5002);

    /**
     * Destination index i of the schedule is node destinations[i] at addresses[i]. Flows start
     * at `start` plus their scheduled time; no new flow starts after `stop`.
     */
    FlowTraffic Install(Ptr<Node> source, const std::vector<Ptr<Node>>& destinations,
                        const std::vector<Ipv4Address>& addresses, Ptr<FlowSchedule> schedule,
                        Time start, Time stop) const;

  private:
    uint16_t m_port;
};

} // namespace ns3

#endif
