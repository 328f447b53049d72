/*
 * The testbed client's launch loop (tcp_load_clientside.cpp in the thesis's public repository,
 * docs/testbed-data.md): its helper threads take the load file's flows in turn (flow i to
 * thread i mod Threads) and start each on its own thread at once, looking ahead; a thread
 * that meets a flow beyond its look-ahead (that flow still started) sleeps to the next
 * boundary of a grid of Window, skipping empty windows. So flows do not start at their own
 * times: every Window, each thread starts in one burst the flows of the next window, about a
 * Window's worth of the load at once.
 *
 * This wraps another schedule and moves each flow's start to its launch: the grid point
 * (Window apart, from the first flow's start) at or before its own start, and one window
 * earlier for a thread's first flow past its window (started before the thread sleeps). It is
 * the client's steady state, shifted by a constant: the client looks two windows further ahead
 * (and starts the first 2.2 s of a file in its first burst, before the runs it measured), a
 * shift that moves the whole pattern in time and changes no gap. The threads' own start-up
 * costs (microseconds per thread) are left out: a burst's flows start at the same instant.
 * Launches come out in start order without reordering: the threads take the flows in turn
 * and the starts are sorted, so a thread's first flow past its window comes within Threads
 * flows of any other's, before the other can launch in the next window.
 */
#ifndef FLUMEN_WINDOWED_LAUNCH_SCHEDULE_H
#define FLUMEN_WINDOWED_LAUNCH_SCHEDULE_H

#include "flow-schedule.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

class WindowedLaunchSchedule : public FlowSchedule
{
  public:
    static TypeId GetTypeId();
    WindowedLaunchSchedule();

    /** The schedule whose flows are launched (before the first Next()). */
    void SetInner(Ptr<FlowSchedule> inner) { m_inner = inner; }
    bool Next(FlowArrival& flow) override;
    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    Ptr<FlowSchedule> m_inner;
    Time m_window;
    uint32_t m_threadCount;
    std::vector<uint64_t> m_threadWindow; //!< each thread's window on the grid (its launches)
    uint64_t m_originUs = 0;              //!< the grid's origin: the first flow's start
    uint64_t m_flows = 0;                 //!< flows taken so far
};

} // namespace ns3

#endif
