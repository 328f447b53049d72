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
 * Queued links (FIFO switch ports that mark nothing, when enabled): a saturated port holds a
 * standing queue (fluid-queue.h). Window flows (TCP) are served at window / (base RTT + queueing
 * delay), their windows growing in slow start by what they deliver; unresponsive flows (RoCE
 * that nothing marks) push at what their sender allows and are served what the others leave, a
 * share that grows with their backlog. While a backlog or a window changes, the rates are
 * recomputed in small time steps (a fraction of the queueing delay); otherwise only at flow
 * events.
 *
 * Queued links may mark (SetMarking): the probability that a packet is marked follows the
 * ramp over the standing queue; a reaction point outside (FlowRingTransport's DCQCN) reads it
 * and sets its flows' caps.
 *
 * Queued links may have a buffer (SetDropBuffer): where the standing queue would pass it the
 * port drops. Every window flow through it loses (at most once per round trip), paced ones too
 * (their window, which covered their pace, falls by the same factor), and unresponsive flows
 * push only what the port serves while it stays full (what they pushed beyond is dropped and
 * sent again; go-back-N's waste is not modelled). A flow with a timeout (FlowSpec::timeoutS: the
 * engine gives paced flows one) that loses again within two round trips of its last loss (while
 * it recovers) times out: its retransmissions are lost too.
 *
 * Approximate, on purpose (docs/flow-engine.md): no congestion-control dynamics beyond slow
 * start, HyStart and a cut per loss or ECN echo (a flow takes its share at once); unresponsive
 * flows share their class's part of a queue by backlog (those all pushed first), not byte by byte
 * in arrival order, so the last bytes of a lone message drain over several queueing delays.
 */
#ifndef FLUMEN_FLUID_NETWORK_H
#define FLUMEN_FLUID_NETWORK_H

#include "fluid-queue.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
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
    /** A backlog this small is empty (rounding residue of the byte counts). */
    static constexpr double kEmptyBacklogBytes = 1;

    /** How a flow meets a queued link (AddLink's `queued`); elsewhere all share by weight. */
    enum Kind : uint8_t
    {
        SHARE = 0,       //!< takes its weighted share at once
        WINDOW = 1,      //!< window-limited: window / round trip
        UNRESPONSIVE = 2 //!< pushes regardless, served from its backlog
    };

    /** A window flow's answer to ECN marks (its packets are not ECN-capable: NO_ECN). */
    enum EcnResponse : uint8_t
    {
        NO_ECN = 0,
        CLASSIC_ECN = 1, //!< as a loss: keeps lossBeta of its window
        DCTCP = 2        //!< keeps 1 - alpha / 2, alpha the marked fraction's moving average
    };

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
        Kind kind = SHARE;
        double windowBytes = kUnbounded;        //!< WINDOW: its largest window (its buffers)
        double initialWindowBytes = kUnbounded; //!< WINDOW: slow start's first window
        double slowStartGain = 1;               //!< WINDOW: window growth per byte delivered
        double baseRttS = 0;                    //!< WINDOW: round trip without queues
        /** WINDOW: a window per path segment, each over its own cycle (a whole ring's hops). */
        struct WindowSegment
        {
            uint32_t begin = 0;  //!< where it begins in path (the first at 0)
            double baseRttS = 0; //!< its cycle without queues
            /** Links whose queues its cycle waits behind too, carrying nothing of it (grants). */
            std::vector<uint32_t> cycleLinks;
        };
        std::vector<WindowSegment> windowSegments; //!< empty: one, the path over baseRttS
        double segmentBytes = 1448;                //!< WINDOW: growth after slow start, per RTT
        /** WINDOW: CUBIC's HyStart can end slow start from this window on (its low window;
         * kUnbounded: never, slow start then ends only on a loss). */
        double hystartWindowBytes = kUnbounded;
        /** WINDOW: HyStart's ACK train ends slow start (at the low window, or at once when
         * past it) when the flow's smallest round trip is within this ACK spacing (the gaps
         * between the window's ACK bursts cannot break the train) or when the window sent at
         * line rate spans that round trip. */
        double hystartAckDeltaS = 0.002;
        /** WINDOW: HyStart's delay rule: slow start ends once the round trip exceeds the
         * smallest by that round trip clamped to [min, max]. */
        double hystartDelayMinS = 0.004;
        double hystartDelayMaxS = 1.0;
        /** WINDOW: the window kept after a loss (CUBIC's beta). */
        double lossBeta = 0.7;
        /** WINDOW or paced, at a drop buffer: its retransmission timeout (0: none). A flow that
         * loses again while it recovers sends nothing for this long. */
        double timeoutS = 0;
        /** WINDOW at marking ports: how it answers ECN echoes (at most once per round trip). */
        EcnResponse ecn = NO_ECN;
        /** Where its ACKs go back (link ids; empty: not modelled), and their bytes on the wire
         * per byte it delivers. They load those links like a paced flow, and their queues
         * lengthen its round trip (a window flow's, or a paced one's bounded by windowBytes). */
        std::vector<uint32_t> ackPath;
        double ackWireFactor = 0;
        /** DCTCP: alpha's gain per round trip, and alpha at the start. */
        double dctcpGain = 1.0 / 16;
        double dctcpInitialAlpha = 1;
        Callback<void, uint64_t> done; //!< called with the flow id when its bytes have moved
        /** UNRESPONSIVE at a queued link: called when its bytes have all left the sender (they
         * may still wait in the queue); others: not called. */
        Callback<void, uint64_t> sent;
    };

    /**
     * Adds a link of this rate (bits per second); returns its id. `fifo`: one queue served in
     * arrival order, where paced flows keep their pace and the others (window-limited,
     * backing off on loss) share what is left; otherwise (a NIC serving its send queues round
     * robin) every flow shares by weight. `queued`: a FIFO switch port with a standing queue
     * (above); a flow's last queued link is where its backlog waits.
     */
    uint32_t AddLink(double bps, bool fifo = false, bool queued = false);
    /**
     * Gives a host's egress link a tail-drop buffer that its window flows in slow start can
     * overrun (they send what each ACK releases plus what their window grows): once they have sent
     * this many bytes more than the link serves, every window flow sending through it loses, keeps
     * lossBeta of its window and leaves slow start.
     */
    void SetOverflowBuffer(uint32_t link, double bytes);
    /**
     * Gives a queued link (a switch port) a tail-drop buffer: its standing queue stays within
     * `bytes`. Where the queue would pass it, every window or paced flow through it that has not
     * lost within its round trip loses (keeps lossBeta of its window), and while it stays full
     * its unresponsive flows push only what it serves.
     */
    void SetDropBuffer(uint32_t link, double bytes);
    /**
     * Gives a queued link DCQCN's ECN marking ramp (ecn-ramp-queue-disc.h) over its standing
     * queue: probability 0 below kmin bytes, up to pmax at kmax, 1 at or above kmax.
     */
    void SetMarking(uint32_t link, double kminBytes, double kmaxBytes, double pmax);
    /** The probability that a packet along this path is marked at the queues now. */
    double GetMarkProbability(const std::vector<uint32_t>& path) const;
    /**
     * PFC: the switch pauses this NIC's unresponsive flows while more than `bytes` of theirs
     * wait at queued links (the ToR's XOFF for the host on that port; a fluid pause sends
     * exactly what leaves, so XON does not enter).
     */
    void SetPauseThreshold(uint32_t nic, double bytes);
    /** How many times a NIC's flows were paused (reached the threshold). */
    uint64_t GetPauses() const
    {
        Settled();
        return m_pauses;
    }
    /** How many times the link's overflow buffer overflowed, or its drop buffer filled. */
    uint64_t GetOverflows(uint32_t link) const
    {
        Settled();
        return m_links.at(link).overflows;
    }
    /** How many windows its overflows or drops cut (each window flow sending through it, each
     * time). */
    uint64_t GetWindowsCut(uint32_t link) const
    {
        Settled();
        return m_links.at(link).windowsCut;
    }
    /** Whether the link has an overflow buffer (SetOverflowBuffer). */
    bool HasOverflowBuffer(uint32_t link) const { return m_links.at(link).overflowBufferBits > 0; }
    /** Whether the link has a drop buffer (SetDropBuffer). */
    bool HasDropBuffer(uint32_t link) const { return m_links.at(link).dropBufferBits > 0; }
    /** Its size, bytes (unbounded without one). */
    double GetOverflowBufferBytes(uint32_t link) const
    {
        return HasOverflowBuffer(link) ? m_links.at(link).overflowBufferBits / 8 : kUnbounded;
    }
    /** Whether a window flow is still in slow start (false when not active). */
    bool IsInSlowStart(uint64_t id) const;

    /** A window flow's history so far (tcp.csv at flow level). */
    struct WindowRecord
    {
        double slowStartEndS = -1;         //!< negative: still in slow start
        double slowStartEndBytes = 0;      //!< the window slow start ended at (at most its buffers)
        bool slowStartEndedByLoss = false; //!< a host buffer's overflow (else HyStart)
        double maxWindowBytes = 0;         //!< the largest window (at most its buffers)
        double minRttS = -1; //!< round trip with queueing, at recomputations (negative: none)
        double maxRttS = -1;
        uint32_t cuts = 0;    //!< windows cut by losses (host buffer overflows, switch drops)
        uint32_t ecnCuts = 0; //!< windows cut by ECN echoes
    };
    /** A window flow's record so far (none when not active or not a window flow). */
    std::optional<WindowRecord> GetWindowRecord(uint64_t id) const;
    /** Signature of the WindowFlowEnded trace: the flow's id and its record. */
    typedef void (*WindowFlowEndedCallback)(uint64_t id, const WindowRecord& record);
    /** Starts a flow now; returns its id. */
    uint64_t StartFlow(const FlowSpec& spec);
    /** Sets an active flow's own rate limit (a reaction point's rate) from now on. */
    void SetFlowCap(uint64_t id, double capBps);
    /** Ends a flow now, whatever it has left (no completion callback). */
    void StopFlow(uint64_t id);
    /** Bytes the flow has moved so far (a stopped flow: its total; a finished one is not kept:
     * 0, its bytes being its size). */
    double GetFlowBytes(uint64_t id);
    /** Bytes that have left the flow's sender so far (those delivered, and those queued behind
     * its queue when it is unresponsive); 0 when not active. */
    double GetFlowSentBytes(uint64_t id);
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
    Time GetRatesSince() const
    {
        Settled();
        return m_ratesSince;
    }
    /** A window flow's current window, bytes (0 when not active). */
    double GetFlowWindow(uint64_t id) const;
    /** A queued link's current queue, bytes; an overflow link's buffer occupancy (not added to
     * round trips); 0 for other links. */
    double GetQueueBytes(uint32_t link) const;
    /** The same when the current rates were set (GetRatesSince), and how it changes under them
     * (bytes per second, down to empty): a buffer's occupancy fills or drains, a queue holds.
     * Within a RatesChanged callback: of the interval that ends. */
    double GetQueueBytesAtRates(uint32_t link) const;
    double GetQueueSlope(uint32_t link) const;
    /** A link's queue integrated over time so far (byte-seconds), up to now. */
    double GetQueueByteSeconds(uint32_t link);
    /** A link's largest queue (bytes) since ResetMaxQueues(). */
    double GetMaxQueueBytes(uint32_t link) const
    {
        Settled();
        return m_links.at(link).maxQueueBits / 8;
    }
    /** Every link's largest queue starts again from its queue now. */
    void ResetMaxQueues();
    /** The queueing delay along a path now (seconds). */
    double GetQueueDelay(const std::vector<uint32_t>& path) const;
    /** How many times the rates were recomputed (the engine's unit of work). */
    uint64_t GetRecomputations() const
    {
        Settled();
        return m_recomputations;
    }

    /** How many groups of flows the water-fillings have filled so far: one per water-filling,
     * more where one split its flows into groups that share no link. */
    uint64_t GetFilledGroups() const
    {
        Settled();
        return m_filledGroups;
    }

    /** Brings every counter up to the current time (done by every getter above). */
    void Advance();
    /** Recomputes the rates now if flows started, stopped or changed caps at this instant
     * since the last recomputation (every getter of rates, queues and windows does it). */
    void SettleRates();

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
        bool queued = false;
        double queueBits = 0;   //!< queued links: the standing queue (SetQueue)
        double queueDelayS = 0; //!< queueBits / bps, kept with it (round trips read it)
        /** Sets the standing queue and its delay. */
        void SetQueue(double bits)
        {
            queueBits = bits;
            queueDelayS = bits / bps;
        }
        double queueBitSeconds = 0;    //!< the queue integrated over time
        double maxQueueBits = 0;       //!< since ResetMaxQueues()
        double overflowBufferBits = 0; //!< SetOverflowBuffer's (0: none)
        double dropBufferBits = 0;     //!< SetDropBuffer's (0: none)
        bool full = false;             //!< its queue is held at its drop buffer
        bool overflowing = false;      //!< DropAtFullBuffers': its queue would pass it
        double markMinBits = 0;        //!< SetMarking's ramp (markMax 0: no marks)
        double markMaxBits = 0;
        double markPmax = 0;
        /** ACKs through it, bits per second on the wire, per class: the ackWireFactor of the
         * flows whose ackPath crosses it, at their rates of the last recomputation. */
        double ackBps[2] = { 0, 0 };
        double ackAtRatesBps = 0; //!< the ACKs of the rates since the last recomputation
        bool carriesAcks = false; //!< on the ackPath of a flow with ACKs (m_ackLinks)
        double pauseBits = 0;     //!< SetPauseThreshold's (0: no PFC)
        bool paused = false;
        double overrunBits = 0;        //!< sent beyond what the link served, not yet drained
        double overrunAtRatesBits = 0; //!< overrunBits when the rates were set
        double overrunSlopeBps = 0;    //!< how it changed under those rates
        uint64_t overflows = 0;
        uint64_t windowsCut = 0;
        /** Overflow links: what slow start's growth sends into it beyond the flows' rates. */
        double growthBps = 0;
        /** What the flows send into it: their rates on it and slow start's growth. */
        double SendingBps() const { return rate[JOB] + rate[CROSS] + growthBps; }
    };

    struct Flow
    {
        FlowSpec spec;
        uint64_t id = 0;
        double moved = 0;    //!< bytes (delivered)
        double pushed = 0;   //!< bytes that left the sender (UNRESPONSIVE at a queued link)
        double rate = 0;     //!< bits per second (of its own bytes, delivered)
        double lastRate = 0; //!< its rate before the recomputation under way
        mutable std::vector<double> roomsUsed; //!< window segments: the room the queues took
        double pushRate = 0;                   //!< bits per second leaving the sender
        double cap = 0;                        //!< this recomputation's rate limit
        double weight = 0;                     //!< this recomputation's weight
        int queuedAt = -1; //!< index in the path of its last queued link (-1: none)
        bool sentCalled = false;
        double drainByS = 0; //!< once all pushed: when its last byte reaches the queue's head
        double cwnd = 0;     //!< WINDOW: its window (bytes)
        bool slowStart = true;
        /** WINDOW: what its record keeps of the past: slow start's end, the largest window
         * before each cut (the window only falls at cuts), the largest round trip, the cuts. */
        WindowRecord record;
        /** Slow start ends now, at its window (kept in the record). */
        void EndSlowStart(bool byLoss);
        /** A congestion signal: a window flow leaves slow start and keeps its largest window in
         * its record; the window becomes `keep` of `window` (two segments at least). */
        void Cut(double keep, double window);
        /** A loss: it keeps lossBeta of `window` (its window, or what a paced flow has in
         * flight); a window flow counts the cut. */
        void Lose(double window);
        double lastLossS = -1;    //!< when it last lost at a switch port (negative: never)
        double idleUntilS = -1;   //!< a retransmission timeout: it sends nothing until then
        double ssthreshBytes = 0; //!< a paced flow after a timeout: slow start up to this
        /** A paced flow's window since its first loss (unbounded before: it covers the pace). */
        bool PacedByWindow() const { return spec.paced && std::isfinite(cwnd); }
        /** A paced flow whose window may hold it below its pace: since a loss, or bounded by its
         * buffers (behind queues, its ACKs' included, the pace may not fit). */
        bool PacedWithinWindow() const
        {
            return PacedByWindow() || (spec.paced && std::isfinite(spec.windowBytes));
        }
        /** The window it may send: its window within its buffers. */
        double WindowInBuffers() const { return std::min(cwnd, spec.windowBytes); }
        /** Its record: what was kept, with the window and smallest round trip now. */
        WindowRecord Record() const;
        double expectedMarks = 0; //!< ECN: marked packets expected since its last answer
        double alpha = 1;         //!< DCTCP
        double lastEcnCutS = -1;  //!< ECN: when it last cut its window
        /** ECN: when the echo of the marks it answers comes back and its window falls (a round
         * trip after the marks added up; negative: none on its way). */
        double ecnCutDueS = -1;
        /** ECN: its packets' marks over dt at its path's marking now; answers them. */
        void AnswerMarks(double markProbability, double delivered, double dt);
        double rttS = 0;             //!< WINDOW: its round trip at the last recomputation
        double minRttS = kUnbounded; //!< WINDOW: the smallest round trip it has seen
        /** WaterFill's: where the links it counts on start and end in Scratch::counted. */
        uint32_t countedBegin = 0;
        uint32_t countedEnd = 0;

        bool Backlogged() const { return queuedAt >= 0 && spec.kind == UNRESPONSIVE; }
        double Window() const { return std::min({ spec.windowBytes, cwnd, spec.bytes }); }
        /** Whether slow start still grows the window (not held by its buffers or bytes). */
        bool Growing() const;
    };

    void Recompute();
    /** Sets every link's ackBps from the flows' rates (before they are recomputed). */
    void LoadAcks();
    /** Whether the ACKs of the rates now differ from the load LoadAcks set by over 10 % (a
     * fifth of a percent of the rates: ACKs are about 2 % of them). */
    bool AcksStale() const;
    /** The queueing delay along links now (callers have settled the rates). */
    double QueueDelayAlong(const std::vector<uint32_t>& links) const;
    /** The queueing delay of a flow's round trip now: its path's and its ACKs'. */
    double RoundTripQueueing(const Flow& f) const;
    void CheckWindowSegments(const FlowSpec& spec) const; // (fluid-network-segments.cc)
    /** A window flow's round trip now (a segmented one's: its longest segment's cycle). */
    double WindowRoundTrip(const Flow& f) const;
    /** Each segment's window at its queued ports, capped at the room it has to push there. */
    void AddSegmentWindows(const Flow& f, std::vector<std::pair<uint32_t, WindowAtPort>>& windows,
                           bool& twoQueues) const;
    double SegmentQueues(const Flow& f, size_t k, double from, uint32_t& end,
                         uint32_t& queued) const;
    template <typename Visit>
    void ForSegmentPorts(const Flow& f, double ownRate, Visit visit) const;
    /** Whether that room, at the rates now, differs from what the queues were solved with. */
    bool SegmentRoomsMoved(const Flow& f) const;
    /** Recomputes, unless completions are being handed over (CompleteDue recomputes after). */
    void RecomputeUnlessCompleting();
    void FixPacedFlows(const std::vector<Flow*>& all, const std::vector<Flow*>& paced,
                       std::vector<double>& left);
    /** Rates where queued links are: `paced` and `rest` split `all` (Recompute's lists). */
    void RecomputeQueued(const std::vector<Flow*>& all, const std::vector<Flow*>& paced,
                         const std::vector<Flow*>& rest, std::vector<double>& left);
    void SolveQueues();
    /** HyStart's ACK train: whether it ends slow start at this window (fluid-network-queues.cc). */
    bool TrainEndsSlowStart(const Flow& f, double windowBytes) const;
    /** Fills the overflow links over dt at the interval's sending; where one overflows, the
     * window flows through it lose. */
    void Overflow(double dt);
    /** Seconds until the first overflow link overflows at the current sending. */
    double UntilOverflow() const;
    /** Queues that would pass their drop buffer (SolveQueues'): the flows through them lose;
     * whatever their cuts leave beyond the buffer is held at it. */
    void DropAtFullBuffers();
    /** While a port is full, its unresponsive flows push only what it serves. */
    void HoldAtFullBuffers(const std::vector<Flow*>& pushing);
    /** The next time step while queues change or a host buffer fills; negative when nothing
     * changes between flow events. */
    Time QueueStep();
    /** Which links of a flow's path WaterFill counts it on. */
    enum class Counts : uint8_t
    {
        ALL,           //!< every link
        PACED_AT_FIFO, //!< FixPacedFlows' probe: a FIFO link only for paced flows
        BEFORE_QUEUE,  //!< backlogged flows only on the links before their queue
        AFTER_QUEUE    //!< from their queue on (their share of it)
    };
    /** Whether the flow counts on the link at index i of its path. */
    bool CountsOn(Counts counts, uint32_t i, const Flow& f) const;
    void WaterFill(const std::vector<Flow*>& flows, std::vector<double>& left, Counts counts);
    /** WaterFill's levels by passes over the open flows, or from a heap of links (from
     * WaterFillHeapFrom flows on); both take Scratch's counted links. */
    void WaterFillByLevels(std::vector<double>& left);
    void WaterFillByHeap(std::vector<double>& left);
    /** The same for one flow (its links counted), without either's bookkeeping. */
    void WaterFillOne(Flow* f, std::vector<double>& left);
    /** One of the three above for Scratch's open flows and touched links. */
    void WaterFillOpen(std::vector<double>& left, bool byHeap);
    /** Groups the open flows and touched links into components that share no link (Scratch's
     * comp*); false when they are one. */
    bool SplitComponents();
    /** A link in WaterFillByHeap's heap, the lowest level on top. */
    struct LinkLevel
    {
        double level;
        uint32_t link;
        bool operator<(const LinkLevel& o) const
        {
            return level > o.level || (level == o.level && link > o.link);
        }
    };
    void ScheduleNextCompletion();
    /** A whole number of nanoseconds as a Time, at most `most` (far-off instants must not
     * overflow ns-3's 64-bit count of them). */
    static Time NanoSecondsAtMost(double ns, Time most);
    void CompleteDue();

    /** Working space of a recomputation, kept between them so that it allocates nothing. */
    struct Scratch
    {
        std::vector<double> left;
        std::vector<double> probe;
        std::vector<double> heldGrowth;    //!< Pause's: each NIC's queued backlog's growth
        std::vector<double> backlogGrowth; //!< QueueStep's: each queued link's, on the wire
        std::vector<Flow*> all;
        std::vector<Flow*> paced;
        std::vector<Flow*> rest;
        std::vector<Flow*> backlogged;
        std::vector<Flow*> draining;
        std::vector<Flow*> pushing;
        // WaterFill's
        std::vector<Flow*> open;
        std::vector<Flow*> next;
        std::vector<uint32_t> counted; //!< per open flow, the links of its path it counts on
        std::vector<uint32_t> touched; //!< the links counted on, each once
        std::vector<double> weightOn;  //!< by link id; zero between calls
        std::vector<uint32_t> flowsOn; //!< by link id; zero between calls
        std::vector<char> full;
        // WaterFillByHeap's: each link's open flows in onLink[linkBegin, linkEnd), its weight
        // when last summed afresh; per open flow whether it is fixed
        std::vector<uint32_t> linkBegin;
        std::vector<uint32_t> linkEnd;
        std::vector<uint32_t> onLink;
        std::vector<double> freshWeight;
        std::vector<char> fixed;
        std::vector<LinkLevel> heap;
        std::vector<uint32_t> byCap; //!< the capped open flows, by the level of their caps
        // SplitComponents': a union-find over link ids, and the components' flows and links,
        // component k's in [compFlowBegin[k], compFlowBegin[k + 1]) (links alike)
        std::vector<uint32_t> linkParent;
        std::vector<uint32_t> compOfRoot;
        std::vector<uint32_t> compOfFlow;
        std::vector<Flow*> compFlows;
        std::vector<uint32_t> compFlowBegin;
        std::vector<uint32_t> compLinks;
        std::vector<uint32_t> compLinkBegin;
        std::vector<uint32_t> compAt; //!< the counting sort's next slot per component
        // SolveQueues': what the flows hold at each queued link, by link id
        struct AtPort
        {
            bool used = false;
            double paced = 0;
            double backlog = 0;
            std::vector<WindowAtPort> windows;
        };
        std::vector<AtPort> ports;
        mutable std::vector<uint32_t> crossings; //!< ForSegmentPorts': a path's crossings per link
        std::vector<std::pair<uint32_t, WindowAtPort>> segmentWindows; //!< at queued links
    };

    std::vector<Link> m_links;
    std::vector<uint32_t> m_overflowLinks; //!< links with an overflow buffer
    std::vector<uint32_t> m_dropLinks;     //!< queued links with a drop buffer
    std::vector<uint32_t> m_queuedLinks;   //!< links with a standing queue (AddLink's queued)
    bool m_anyFifo = false;
    std::vector<uint32_t> m_ackLinks; //!< links on the ackPath of a flow with ACKs, so far
    std::map<uint64_t, Flow> m_flows; //!< active flows, by id (ordered: deterministic)
    std::vector<Flow*> m_active;      //!< the same, as a list (map nodes do not move)
    Scratch m_scratch;
    std::map<uint64_t, double> m_finished; //!< bytes of flows that ended
    uint64_t m_nextId = 1;
    Time m_lastAdvance;
    Time m_ratesSince; //!< the current rates hold from then
    EventId m_completion;
    bool m_completing = false; //!< CompleteDue is calling back
    /** Flows changed at this instant: one recomputation serves them all (a ring step's
     * messages start together on every host), in a zero-delay event (m_settle: after the
     * events already scheduled for this instant, before those scheduled later) or at the
     * first getter or completion before it. */
    bool m_ratesDue = false;
    EventId m_settle;
    /** SettleRates for the const getters: the rates are a cache of the flows' state. */
    void Settled() const;
    uint64_t m_recomputations = 0;
    uint64_t m_filledGroups = 0;
    uint64_t m_pauses = 0;
    bool m_anyPause = false;
    /** PFC: pushing flows whose NIC's queued backlog is at its threshold send what leaves;
     * sets m_untilPauseS. */
    void Pause(const std::vector<Flow*>& pushing);
    /** Seconds from the last recomputation until a NIC's queued backlog reaches its pause
     * threshold at its rates (kUnbounded: none will). */
    double m_untilPauseS = kUnbounded;
    double m_completionSlackS;    //!< attribute: a flow this close to done completes
    double m_stepFraction;        //!< attribute: queue step as a fraction of the queueing delay
    uint32_t m_waterFillHeapFrom; //!< attribute: the heap's water-filling from this many flows
    uint32_t m_componentsFrom;    //!< attribute: water-filling by components from this many flows
    Time m_minStep;               //!< attribute
    Time m_maxStep;               //!< attribute

    TracedCallback<Time, Time> m_ratesChangedTrace;
    TracedCallback<uint64_t, const WindowRecord&> m_windowFlowEndedTrace;
};

} // namespace ns3

#endif
