/*
 * Where cross-traffic flows come from: a stream of flow arrivals (start time, size,
 * destination index), in non-decreasing start order, as the testbed's load files list them.
 * Generators draw them lazily, so a run of any length costs memory only for flows in flight.
 */
#ifndef FLUMEN_FLOW_SCHEDULE_H
#define FLUMEN_FLOW_SCHEDULE_H

#include "ns3/object.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/** One flow of a load file: `start_us size_bytes destination_index`. */
struct FlowArrival
{
    uint64_t startUs = 0;     //!< start time, whole microseconds from the schedule's origin
    uint64_t sizeBytes = 0;   //!< payload bytes (the 8-byte size header comes on top)
    uint32_t destination = 0; //!< destination index, as in the testbed's load files

    bool operator==(const FlowArrival& o) const
    {
        return startUs == o.startUs && sizeBytes == o.sizeBytes && destination == o.destination;
    }
};

class FlowSchedule : public Object
{
  public:
    static TypeId GetTypeId();
    /** The next flow, in non-decreasing start order; false when there are no more. */
    virtual bool Next(FlowArrival& flow) = 0;
    /** Fixes the random streams (ns-3 convention); returns how many were used. */
    virtual int64_t AssignStreams(int64_t stream) = 0;
};

/** A fixed list of flows (a replayed load file); sorted by start on construction. */
class ReplayFlowSchedule : public FlowSchedule
{
  public:
    static TypeId GetTypeId();
    ReplayFlowSchedule() = default;
    explicit ReplayFlowSchedule(std::vector<FlowArrival> flows);
    bool Next(FlowArrival& flow) override;
    int64_t AssignStreams(int64_t stream) override { return 0; }

  private:
    std::vector<FlowArrival> m_flows;
    size_t m_next = 0;
};

} // namespace ns3

#endif
