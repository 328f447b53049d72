#include "fluid-network.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FluidNetwork");
NS_OBJECT_ENSURE_REGISTERED(FluidNetwork);

TypeId
FluidNetwork::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::FluidNetwork")
              .SetParent<Object>()
              .SetGroupName("Flumen")
              .AddConstructor<FluidNetwork>()
              .AddAttribute("CompletionSlack",
                            "A flow whose bytes would all have moved within this many seconds "
                            "completes now (completion times are rounded to ns-3's nanosecond).",
                            DoubleValue(1e-9),
                            MakeDoubleAccessor(&FluidNetwork::m_completionSlackS),
                            MakeDoubleChecker<double>(0, 1e-3))
              .AddAttribute("QueueStepFraction",
                            "While a queued link's backlog or a window there changes, the rates "
                            "are recomputed every this fraction of its queueing delay.",
                            DoubleValue(0.25), MakeDoubleAccessor(&FluidNetwork::m_stepFraction),
                            MakeDoubleChecker<double>(1e-3, 1))
              .AddAttribute("WaterFillHeapFrom",
                            "From this many flows the sharing keeps the links in a heap by the "
                            "level at which they fill (cost per flow fixed: its own links); "
                            "below it, one pass over every open flow and link per level "
                            "(cheaper for few flows). Both give the same rates but for "
                            "rounding.",
                            UintegerValue(256),
                            MakeUintegerAccessor(&FluidNetwork::m_waterFillHeapFrom),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("WaterFillComponentsFrom",
                            "From this many flows a water-filling first splits its flows into "
                            "groups that share no link and fills each on its own (a flow's "
                            "rate depends only on its group's), so that a level costs a pass "
                            "over its group, not over every flow. The same rates but for "
                            "rounding.",
                            UintegerValue(64),
                            MakeUintegerAccessor(&FluidNetwork::m_componentsFrom),
                            MakeUintegerChecker<uint32_t>())
              .AddAttribute("MinQueueStep", "The shortest such step.", TimeValue(MicroSeconds(10)),
                            MakeTimeAccessor(&FluidNetwork::m_minStep),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddAttribute("MaxQueueStep", "The longest such step.", TimeValue(MilliSeconds(1)),
                            MakeTimeAccessor(&FluidNetwork::m_maxStep),
                            MakeTimeChecker(NanoSeconds(1)))
              .AddTraceSource("RatesChanged",
                              "The rates are about to change; the interval [from, to) had the "
                              "previous ones (query GetLinkRate within the callback).",
                              MakeTraceSourceAccessor(&FluidNetwork::m_ratesChangedTrace),
                              "ns3::FluidNetwork::IntervalTracedCallback")
              .AddTraceSource("WindowFlowEnded",
                              "A window flow ends (done or stopped): its id and its record of "
                              "slow start, windows, round trips and cuts; fired before its "
                              "completion callback.",
                              MakeTraceSourceAccessor(&FluidNetwork::m_windowFlowEndedTrace),
                              "ns3::FluidNetwork::WindowFlowEndedCallback");
    return tid;
}

FluidNetwork::FluidNetwork()
    : m_completionSlackS(1e-9), m_stepFraction(0.25), m_waterFillHeapFrom(256),
      m_componentsFrom(64), m_minStep(MicroSeconds(10)), m_maxStep(MilliSeconds(1))
{
}

void
FluidNetwork::Flow::EndSlowStart(bool byLoss)
{
    slowStart = false;
    record.slowStartEndS = Simulator::Now().GetSeconds();
    record.slowStartEndBytes = WindowInBuffers();
    record.slowStartEndedByLoss = byLoss;
}

FluidNetwork::WindowRecord
FluidNetwork::Flow::Record() const
{
    WindowRecord r = record;
    r.maxWindowBytes = std::max(r.maxWindowBytes, WindowInBuffers());
    r.minRttS = std::isfinite(minRttS) ? minRttS : -1;
    return r;
}

bool
FluidNetwork::Flow::Growing() const
{
    return spec.kind == WINDOW && slowStart
           && cwnd < std::min(spec.windowBytes, spec.bytes - moved);
}

FluidNetwork::~FluidNetwork() = default;

void
FluidNetwork::DoDispose()
{
    Simulator::Cancel(m_completion);
    Simulator::Cancel(m_settle);
    m_ratesDue = false;
    m_flows.clear();
    m_active.clear();
    Object::DoDispose();
}

uint32_t
FluidNetwork::AddLink(double bps, bool fifo, bool queued)
{
    NS_ABORT_MSG_IF(!(bps > 0), "FluidNetwork: a link needs a rate above 0");
    NS_ABORT_MSG_IF(queued && !fifo, "FluidNetwork: a queued link is a FIFO");
    Link l;
    l.bps = bps;
    l.fifo = fifo;
    l.queued = queued;
    m_anyFifo = m_anyFifo || fifo;
    if (queued)
    {
        m_queuedLinks.push_back(static_cast<uint32_t>(m_links.size()));
    }
    m_links.push_back(l);
    return static_cast<uint32_t>(m_links.size() - 1);
}

uint64_t
FluidNetwork::StartFlow(const FlowSpec& spec)
{
    NS_ABORT_MSG_IF(spec.path.empty(), "FluidNetwork: a flow needs a path");
    NS_ABORT_MSG_IF(!(spec.weight > 0), "FluidNetwork: a flow's weight must be above 0");
    NS_ABORT_MSG_IF(!(spec.wireFactor >= 1), "FluidNetwork: a flow's wire factor must be >= 1");
    NS_ABORT_MSG_IF(!(spec.capBps > 0), "FluidNetwork: a flow's cap must be above 0");
    for (const auto* links : { &spec.path, &spec.ackPath })
    {
        for (uint32_t l : *links)
        {
            NS_ABORT_MSG_IF(l >= m_links.size(), "FluidNetwork: no link " << l);
        }
    }
    NS_ABORT_MSG_IF(!(spec.ackWireFactor >= 0 && spec.ackWireFactor < 1),
                    "FluidNetwork: a flow's ACK wire factor must be in [0, 1)");
    NS_ABORT_MSG_IF(spec.kind == WINDOW && !(spec.windowBytes > 0 && spec.initialWindowBytes > 0),
                    "FluidNetwork: a window flow needs windows above 0");
    CheckWindowSegments(spec);
    Advance();
    const uint64_t id = m_nextId++;
    Flow& f = m_flows[id];
    f.id = id;
    m_active.push_back(&f); // the largest id yet: the list stays in id order
    f.spec = spec;
    // The links its ACKs load join those that LoadAcks and AcksStale scan.
    for (uint32_t l : spec.ackPath)
    {
        if (spec.ackWireFactor > 0 && !m_links.at(l).carriesAcks)
        {
            m_links[l].carriesAcks = true;
            m_ackLinks.push_back(l);
        }
    }
    // (A paced flow's window covers its pace until it first loses.)
    f.cwnd = spec.paced ? kUnbounded : spec.initialWindowBytes;
    f.alpha = spec.dctcpInitialAlpha;
    if (spec.kind != SHARE)
    {
        for (size_t i = 0; i < spec.path.size(); ++i)
        {
            f.queuedAt = m_links[spec.path[i]].queued ? static_cast<int>(i) : f.queuedAt;
        }
    }
    // An unresponsive flow pushes what the links before its queue allow (its NIC): with none,
    // only its cap can hold it.
    NS_ABORT_MSG_IF(f.Backlogged() && f.queuedAt == 0 && std::isinf(spec.capBps),
                    "FluidNetwork: an unresponsive flow needs a link before its queue or a cap");
    RecomputeUnlessCompleting();
    return id;
}

void
FluidNetwork::StopFlow(uint64_t id)
{
    auto it = m_flows.find(id);
    if (it == m_flows.end())
    {
        return;
    }
    Advance();
    if (it->second.spec.kind == WINDOW && !m_windowFlowEndedTrace.IsEmpty())
    {
        Settled(); // its record with this instant's changes, as a getter would see it
        m_windowFlowEndedTrace(id, it->second.Record());
    }
    m_finished[id] = it->second.moved;
    m_active.erase(std::find(m_active.begin(), m_active.end(), &it->second));
    m_flows.erase(it);
    RecomputeUnlessCompleting();
}

double
FluidNetwork::GetFlowBytes(uint64_t id)
{
    Advance();
    auto it = m_flows.find(id);
    if (it != m_flows.end())
    {
        return it->second.moved;
    }
    auto f = m_finished.find(id);
    return f == m_finished.end() ? 0.0 : f->second;
}

double
FluidNetwork::GetFlowSentBytes(uint64_t id)
{
    Advance();
    auto it = m_flows.find(id);
    if (it == m_flows.end())
    {
        return 0.0;
    }
    return it->second.Backlogged() ? it->second.pushed : it->second.moved;
}

void
FluidNetwork::SetFlowCap(uint64_t id, double capBps)
{
    NS_ABORT_MSG_IF(!(capBps > 0), "FluidNetwork: a flow's cap must be above 0");
    auto it = m_flows.find(id);
    if (it == m_flows.end() || it->second.spec.capBps == capBps)
    {
        return;
    }
    Advance();
    it->second.spec.capBps = capBps;
    RecomputeUnlessCompleting();
}

double
FluidNetwork::GetFlowRate(uint64_t id) const
{
    Settled();
    auto it = m_flows.find(id);
    return it == m_flows.end() ? 0.0 : it->second.rate;
}

double
FluidNetwork::GetFlowWindow(uint64_t id) const
{
    Settled();
    auto it = m_flows.find(id);
    return it == m_flows.end() ? 0.0 : it->second.Window();
}

std::optional<FluidNetwork::WindowRecord>
FluidNetwork::GetWindowRecord(uint64_t id) const
{
    Settled();
    auto it = m_flows.find(id);
    if (it == m_flows.end() || it->second.spec.kind != WINDOW)
    {
        return std::nullopt;
    }
    return it->second.Record();
}

bool
FluidNetwork::IsInSlowStart(uint64_t id) const
{
    Settled();
    auto it = m_flows.find(id);
    return it != m_flows.end() && it->second.spec.kind == WINDOW && it->second.slowStart;
}

void
FluidNetwork::SetPauseThreshold(uint32_t nic, double bytes)
{
    NS_ABORT_MSG_IF(!(bytes > 0), "FluidNetwork: a pause threshold needs bytes above 0");
    m_links.at(nic).pauseBits = bytes * 8;
    m_anyPause = true;
}

double
FluidNetwork::GetLinkBytes(uint32_t link, Class cls)
{
    Advance();
    return m_links.at(link).bytes[cls];
}

double
FluidNetwork::GetLinkRate(uint32_t link, Class cls) const
{
    Settled();
    return m_links.at(link).rate[cls];
}

void
FluidNetwork::Advance()
{
    const Time now = Simulator::Now();
    const double dt = (now - m_lastAdvance).GetSeconds();
    if (dt <= 0)
    {
        return;
    }
    // (A change due is recomputed at its own instant, before time moves on: the getters used
    // below must not recompute half-way through.)
    NS_ASSERT_MSG(!m_ratesDue, "FluidNetwork: rates due across an interval");
    if (!m_overflowLinks.empty())
    {
        Overflow(dt); // from the windows and rates the interval began with
    }
    for (Flow* flow : m_active)
    {
        Flow& f = *flow;
        if (f.Backlogged())
        {
            f.pushed = std::min(f.spec.bytes, f.pushed + f.pushRate * dt / 8);
            f.moved = std::min(f.pushed, f.moved + f.rate * dt / 8);
            continue;
        }
        const double before = f.moved;
        f.moved = std::min(f.spec.bytes, f.moved + f.rate * dt / 8);
        const double delivered = f.moved - before;
        if (f.spec.ecn != NO_ECN && f.queuedAt >= 0)
        {
            f.AnswerMarks(GetMarkProbability(f.spec.path), delivered, dt);
        }
        if (f.idleUntilS >= 0 && f.idleUntilS > m_lastAdvance.GetSeconds())
        {
            continue; // a timeout: no ACKs, no growth
        }
        if (f.PacedByWindow() && f.rttS > 0)
        {
            // After a loss a paced flow's window grows about a segment per round trip, until it
            // covers the pace again.
            f.cwnd += f.cwnd < f.ssthreshBytes ? f.spec.slowStartGain * delivered
                                               : f.spec.segmentBytes * dt / f.rttS;
            f.cwnd = f.cwnd * 8 / f.rttS >= f.spec.capBps ? kUnbounded : f.cwnd;
        }
        if (f.spec.kind == WINDOW && f.cwnd < f.spec.windowBytes)
        {
            const double grown = f.cwnd + f.spec.slowStartGain * delivered;
            if (f.slowStart && grown >= f.spec.hystartWindowBytes
                && TrainEndsSlowStart(f, std::max(f.cwnd, f.spec.hystartWindowBytes)))
            {
                // The ACK train ends slow start as the window reaches the low window, not at
                // the next recomputation.
                f.cwnd = std::max(f.cwnd, f.spec.hystartWindowBytes);
                f.EndSlowStart(false);
                continue;
            }
            // Slow start: a segment per ACK; then about a segment per round trip.
            f.cwnd = f.slowStart ? grown
                                 : f.cwnd + (f.rttS > 0 ? f.spec.segmentBytes * dt / f.rttS : 0);
        }
    }
    for (auto& l : m_links)
    {
        l.bytes[JOB] += l.rate[JOB] * dt / 8;
        l.bytes[CROSS] += l.rate[CROSS] * dt / 8;
        l.queueBitSeconds += l.queueBits * dt;
    }
    m_lastAdvance = now;
}

void
FluidNetwork::Recompute()
{
    if (m_ratesDue)
    {
        m_ratesDue = false;
        Simulator::Cancel(m_settle);
    }
    ++m_recomputations;
    const Time now = Simulator::Now();
    m_ratesChangedTrace(m_ratesSince, now);
    m_ratesSince = now;
    LoadAcks();
    std::vector<double>& left = m_scratch.left;
    left.resize(m_links.size());
    for (size_t l = 0; l < m_links.size(); ++l)
    {
        const Link& link = m_links[l];
        left[l] = std::max(0.0, link.bps - link.ackBps[JOB] - link.ackBps[CROSS]);
    }
    std::vector<Flow*>& all = m_scratch.all;
    std::vector<Flow*>& paced = m_scratch.paced;
    std::vector<Flow*>& rest = m_scratch.rest;
    all.assign(m_active.begin(), m_active.end());
    paced.clear();
    rest.clear();
    for (Flow* f : all)
    {
        f->lastRate = f->rate;
        f->rate = 0;
        f->cap = f->spec.capBps;
        f->weight = f->spec.weight;
        (f->spec.paced ? paced : rest).push_back(f);
    }
    if (!m_queuedLinks.empty())
    {
        RecomputeQueued(all, paced, rest, left);
    }
    else if (paced.empty() || !m_anyFifo)
    {
        WaterFill(all, left, Counts::ALL);
    }
    else
    {
        // Paced flows first; then the others share what the paced flows leave, everywhere.
        FixPacedFlows(all, paced, left);
        WaterFill(rest, left, Counts::ALL);
    }
    for (auto& l : m_links)
    {
        l.rate[JOB] = l.ackBps[JOB];
        l.rate[CROSS] = l.ackBps[CROSS];
        l.growthBps = l.ackAtRatesBps = 0;
    }
    for (Flow* f : all)
    {
        if (!f->Backlogged())
        {
            f->pushRate = f->rate;
        }
        for (uint32_t l : f->spec.ackPath)
        {
            m_links[l].ackAtRatesBps += f->rate * f->spec.ackWireFactor;
        }
        // Slow start sends what each ACK releases and the window's growth: into a host buffer.
        const double gain = !m_overflowLinks.empty() && f->Growing() ? f->spec.slowStartGain : 0;
        for (size_t i = 0; i < f->spec.path.size(); ++i)
        {
            // Upstream of its queue a backlogged flow's links carry what it pushes.
            const double r = int(i) < f->queuedAt && f->Backlogged() ? f->pushRate : f->rate;
            Link& link = m_links[f->spec.path[i]];
            link.rate[f->spec.cls] += r * f->spec.wireFactor;
            if (gain > 0 && link.overflowBufferBits > 0)
            {
                link.growthBps += r * f->spec.wireFactor * gain;
            }
        }
    }
    for (uint32_t l : m_overflowLinks)
    {
        // The buffer's occupancy under these rates (the outputs' queue, link.csv's bins).
        Link& link = m_links[l];
        link.overrunAtRatesBits = link.overrunBits;
        link.overrunSlopeBps = link.SendingBps() - link.bps;
    }
    ScheduleNextCompletion();
}

Time
FluidNetwork::NanoSecondsAtMost(double ns, Time most)
{
    return ns < static_cast<double>(most.GetNanoSeconds()) ? NanoSeconds(static_cast<int64_t>(ns))
                                                           : most;
}

void
FluidNetwork::ScheduleNextCompletion()
{
    Simulator::Cancel(m_completion);
    double soonest = kUnbounded;
    for (const Flow* flow : m_active)
    {
        const Flow& f = *flow;
        if (f.rate > 0 && std::isfinite(f.spec.bytes))
        {
            soonest = std::min(soonest, (f.spec.bytes - f.moved) * 8 / f.rate);
        }
        if (f.Backlogged() && !f.sentCalled && f.pushRate > 0)
        {
            soonest = std::min(soonest, (f.spec.bytes - f.pushed) * 8 / f.pushRate);
        }
    }
    if (!m_queuedLinks.empty() || !m_overflowLinks.empty())
    {
        const Time step = QueueStep();
        soonest = step.IsPositive() ? std::min(soonest, step.GetSeconds()) : soonest;
    }
    if (AcksStale())
    {
        soonest = std::min(soonest, m_minStep.GetSeconds()); // the ACKs catch up with the rates
    }
    if (std::isfinite(soonest))
    {
        // Rounded up to the next nanosecond, so that the flow is done when the event runs
        // (less a thousandth of one: rounding in the byte counts must not cost a whole ns).
        // (A completion beyond ns-3's range of times is looked at again a billion seconds on.)
        const Time in
            = NanoSecondsAtMost(std::ceil(std::max(0.0, soonest * 1e9 - 1e-3)), Seconds(1e9));
        m_completion = Simulator::Schedule(in, &FluidNetwork::CompleteDue, this);
    }
}

void
FluidNetwork::CompleteDue()
{
    Advance();
    // Changes earlier at this instant first (a drained flow's last byte leaves behind the queue
    // they make).
    Settled();
    std::vector<std::pair<uint64_t, Callback<void, uint64_t>>> done;
    std::vector<std::pair<uint64_t, Callback<void, uint64_t>>> sent;
    std::vector<std::pair<uint64_t, WindowRecord>> ended;
    for (Flow*& flow : m_active)
    {
        Flow& f = *flow;
        if (f.Backlogged() && !f.sentCalled
            && f.spec.bytes - f.pushed <= f.pushRate * m_completionSlackS / 8 + 1e-6)
        {
            f.pushed = f.spec.bytes;
            f.sentCalled = true;
            // FIFO: its last byte leaves once what is queued ahead of it has.
            const Link& at = m_links[f.spec.path[f.queuedAt]];
            f.drainByS = Simulator::Now().GetSeconds() + at.queueBits / at.bps;
            sent.emplace_back(f.id, f.spec.sent);
        }
        const double remaining = f.spec.bytes - f.moved;
        // A backlogged flow is done when all its bytes have left the sender and its backlog
        // is empty (rounding residue apart).
        const bool backlogDone
            = f.Backlogged() && f.pushed >= f.spec.bytes && remaining <= kEmptyBacklogBytes;
        if (backlogDone
            || (remaining <= f.rate * m_completionSlackS / 8 + 1e-6
                && (!f.Backlogged() || f.pushed >= f.spec.bytes)))
        {
            const uint64_t id = f.id; // not a reference into the node erased
            if (f.spec.kind == WINDOW && !m_windowFlowEndedTrace.IsEmpty())
            {
                ended.emplace_back(id, f.Record());
            }
            done.emplace_back(id, f.spec.done);
            m_flows.erase(id);
            flow = nullptr;
        }
    }
    if (!done.empty())
    {
        m_active.erase(std::remove(m_active.begin(), m_active.end(), nullptr), m_active.end());
    }
    // The callbacks may start and stop flows (a ring's next message): one recomputation after
    // them serves those and these completions alike.
    m_completing = true;
    for (const auto& [id, record] : ended)
    {
        m_windowFlowEndedTrace(id, record); // before its completion callback
    }
    for (auto* list : { &sent, &done })
    {
        for (auto& [id, cb] : *list)
        {
            if (!cb.IsNull())
            {
                cb(id);
            }
        }
    }
    m_completing = false;
    Recompute();
}

void
FluidNetwork::RecomputeUnlessCompleting()
{
    if (!m_completing && !m_ratesDue)
    {
        m_ratesDue = true;
        m_settle = Simulator::ScheduleNow(&FluidNetwork::Recompute, this);
    }
}

void
FluidNetwork::SettleRates()
{
    Settled();
}

void
FluidNetwork::Settled() const
{
    if (m_ratesDue)
    {
        const_cast<FluidNetwork*>(this)->Recompute();
    }
}

} // namespace ns3
