/*
 * What the flow engine's whole collectives (FluidRingAllReduce, FluidTreeAllReduce) share: every
 * rank joins the same all-reduces in the same order, each at its own time, and an all-reduce
 * runs once its last rank has joined. AllReduceJoins keeps the all-reduces from the one running
 * (or waiting for ranks) on, each an `AllReduce` derived from JoinedAllReduce.
 */
#ifndef FLUMEN_FLUID_ALL_REDUCE_JOINS_H
#define FLUMEN_FLUID_ALL_REDUCE_JOINS_H

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace ns3
{

/** What every whole collective's all-reduce holds while its ranks join and it runs. */
struct JoinedAllReduce
{
    uint64_t bytes = 0;
    uint32_t joined = 0;
    std::vector<Callback<void>> done; //!< by rank
    Time start;                       //!< the last rank's join
};

template <typename AllReduce> class AllReduceJoins
{
  public:
    /** Ranks 0..ranks-1; `who` names the collective in errors. */
    void Reset(uint32_t ranks, const char* who)
    {
        m_joins.assign(ranks, 0);
        m_pending.clear();
        m_first = 0;
        m_who = who;
    }
    uint32_t Ranks() const { return static_cast<uint32_t>(m_joins.size()); }

    /** Rank `rank` joins its next all-reduce, of `bytes`; `done` runs when it is over. Aborts,
     * naming both, where another rank joined the same all-reduce with other bytes. */
    AllReduce& Join(uint32_t rank, uint64_t bytes, Callback<void> done)
    {
        NS_ABORT_MSG_IF(rank >= m_joins.size(), m_who << ": no rank " << rank);
        const uint64_t index = m_joins[rank]++;
        while (m_pending.size() <= index - m_first)
        {
            m_pending.emplace_back();
            m_pending.back().done.resize(m_joins.size());
        }
        AllReduce& a = m_pending[index - m_first];
        NS_ABORT_MSG_IF(a.joined > 0 && a.bytes != bytes,
                        m_who << ": rank " << rank << " joined all-reduce " << index << " with "
                              << bytes << " bytes, others with " << a.bytes);
        a.bytes = bytes;
        a.done[rank] = done;
        ++a.joined;
        return a;
    }
    /** Whether the next all-reduce has every rank. */
    bool FrontReady() const { return !m_pending.empty() && m_pending.front().joined == Ranks(); }
    AllReduce& Front() { return m_pending.front(); }
    /** The front all-reduce, done: taken out. */
    AllReduce Pop()
    {
        AllReduce a = std::move(m_pending.front());
        m_pending.pop_front();
        ++m_first;
        return a;
    }
    void Clear() { m_pending.clear(); }

  private:
    std::vector<uint64_t> m_joins;   //!< all-reduces each rank has joined
    uint64_t m_first = 0;            //!< the index of m_pending's front
    std::deque<AllReduce> m_pending; //!< from the one running (or waiting for ranks) on
    const char* m_who = "";
};

} // namespace ns3

#endif
