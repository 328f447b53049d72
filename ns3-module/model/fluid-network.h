/*
 * The flow-level engine's network: links with a rate, and flows that share them. Rates are
 * weighted max-min fair with per-flow caps (water-filling), recomputed only when a flow starts,
 * ends or changes its cap; between those events every rate is constant, so a flow's progress
 * and its completion time are exact for the model. One ns-3 event stands for the next
 * completion, however many bytes move.
 *
 * A flow's rate counts its own bytes; on the links it takes that rate times its wire factor (its
 * headers), and the water level is shared in link bits.
 *
 * Paced flows (iperf's) keep their pace at FIFO links, ahead of the flows that share by
 * weight: at packet level a paced TCP stream's window covers its pace however long the queue,
 * while window-limited flows slow down as the queue grows.
 *
 * Approximate, on purpose (docs/flow-engine.md): no queues (a saturated
 * link is shared at once, with no buffer occupancy, queueing delay, drops or ECN marks), no
 * congestion-control dynamics (a TCP or RoCE flow takes its weighted share at once).
 */
#ifndef FLUMEN_FLUID_NETWORK_H
#define FLUMEN_FLUID_NETWORK_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <vector>

namespace ns3
{

class FluidNetwork : public Object
{
  public:
    static TypeId GetTypeId();
    FluidNetwork();
    ~FluidNetwork() override;

    /** Who a flow's bytes count for, on the links' counters. */
    enum Class : uint8_t
    {
        JOB = 0,
        CROSS = 1
    };
    static constexpr double kUnbounded = std::numeric_limits<double>::infinity();

    struct FlowSpec
    {
        std::vector<uint32_t> path; //!< link ids, in order
        double bytes = kUnbounded;  //!< bytes to move (kUnbounded: until stopped)
        double capBps = kUnbounded; //!< the flow's own rate limit (a pacer, a host ceiling)
        double weight = 1;          //!< its share relative to others (TCP: its connections)
        double wireFactor = 1;      //!< link bytes per flow byte (its headers on the wire)
        Class cls = CROSS;
        /** Keeps its pace (a paced sender whose window covers it): first at FIFO links. */
        bool paced = false;
        Callback<void, uint64_t> done; //!< called with the flow id when its bytes have moved
    };

    /**
     * Adds a link of this rate (bits per second); returns its id. `fifo`: one queue served in
     * arrival order, where paced flows keep their pace and the others (window-limited,
     * backing off on loss) share what is left; otherwise (a NIC serving its send queues round
     * robin) every flow shares by weight.
     */
    uint32_t AddLink(double bps, bool fifo = false);
    /** Starts a flow now; returns its id. */
    uint64_t StartFlow(const FlowSpec& spec);
    /** Ends a flow now, whatever it has left (no completion callback). */
    void StopFlow(uint64_t id);
    /** Bytes the flow has moved so far (a stopped or finished flow: its total). */
    double GetFlowBytes(uint64_t id);
    /** The flow's current rate of its own bytes, bits per second (0 when not active). */
    double GetFlowRate(uint64_t id) const;
    uint32_t GetActiveFlows() const { return static_cast<uint32_t>(m_flows.size()); }

    /** Bytes a link carried so far for one class (with the flows' headers), up to now. */
    double GetLinkBytes(uint32_t link, Class cls);
    /** A link's current rate for one class (bits per second). */
    double GetLinkRate(uint32_t link, Class cls) const;
    double GetLinkCapacity(uint32_t link) const { return m_links.at(link).bps; }
    uint32_t GetLinkCount() const { return static_cast<uint32_t>(m_links.size()); }
    /** When the current rates were set. */
    Time GetRatesSince() const { return m_ratesSince; }
    /** How many times the rates were recomputed (the engine's unit of work). */
    uint64_t GetRecomputations() const { return m_recomputations; }

    /** Brings every counter up to the current time (done by every getter above). */
    void Advance();

    /** Signature of the RatesChanged trace: [from, to) had the previous rates. */
    typedef void (*IntervalTracedCallback)(Time from, Time to);

  protected:
    void DoDispose() override;

  private:
    struct Link
    {
        double bps = 0;
        double bytes[2] = { 0, 0 }; //!< carried, per class
        double rate[2] = { 0, 0 };  //!< current, bits per second, per class
        bool fifo = false;
    };

    struct Flow
    {
        FlowSpec spec;
        double moved = 0; //!< bytes
        double rate = 0;  //!< bits per second
    };

    void Recompute();
    void WaterFill(std::vector<Flow*> open, std::vector<double>& left,
                   const std::function<bool(uint32_t, const Flow&)>& counts);
    void ScheduleNextCompletion();
    void CompleteDue();

    std::vector<Link> m_links;
    bool m_anyFifo = false;
    std::map<uint64_t, Flow> m_flows;      //!< active flows, by id (ordered: deterministic)
    std::map<uint64_t, double> m_finished; //!< bytes of flows that ended
    uint64_t m_nextId = 1;
    Time m_lastAdvance;
    Time m_ratesSince; //!< the current rates hold from then
    EventId m_completion;
    uint64_t m_recomputations = 0;
    double m_completionSlackS; //!< attribute: a flow this close to done completes

    TracedCallback<Time, Time> m_ratesChangedTrace;
};

} // namespace ns3

#endif
