// WindowedLaunchSchedule against the testbed client's launch loop, written out here as the
// client runs it (real time from the program's start, the load file shifted by 2 s, threads
// that look two windows ahead and sleep to 1 ms before the next window): every flow the client
// launched after its first burst is launched by the schedule a constant time later, flows come
// out in start order, and none is lost or duplicated.
#include "ns3/flow-schedule.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"
#include "ns3/windowed-launch-schedule.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

// The client's helper_thread loop, per thread: when (us from the program's start) it started
// each flow, by flow index. Thread start-up costs are nil, as in the schedule.
std::vector<int64_t>
ClientLaunches(const std::vector<int64_t>& fileStartUs, int threads, int64_t windowUs)
{
    std::vector<int64_t> start(fileStartUs.size());
    for (size_t i = 0; i < start.size(); ++i)
    {
        start[i] = fileStartUs[i] + 2000000; // main() shifts the file by 2 s
    }
    std::vector<int64_t> launched(start.size());
    for (int t = 0; t < threads; ++t)
    {
        int64_t elapsed = 0;
        int64_t startPoint = start[0];
        int64_t stopPoint = startPoint + 2 * windowUs;
        for (size_t i = t; i < start.size(); i += threads)
        {
            launched[i] = elapsed; // the flow's thread is started before the check
            if (start[i] > stopPoint)
            {
                while (stopPoint + windowUs < start[i])
                {
                    startPoint += windowUs;
                    stopPoint += windowUs;
                }
                if (elapsed + 1000 < startPoint)
                {
                    elapsed = startPoint - 1000; // sleeps, then spins, to 1 ms before
                    startPoint += windowUs;
                    stopPoint += windowUs;
                }
            }
        }
    }
    return launched;
}

// A load file: `count` flows with gaps drawn by a small generator (mean `meanGapUs`), flow i
// of size i + 1 (its name in the output).
std::vector<FlowArrival>
LoadFile(size_t count, uint64_t meanGapUs, uint32_t seed)
{
    std::vector<FlowArrival> flows;
    uint64_t at = 1234;
    uint32_t x = seed;
    for (size_t i = 0; i < count; ++i)
    {
        x = x * 1664525u + 1013904223u;
        at += (x >> 8) % (2 * meanGapUs + 1);
        flows.push_back({ at, i + 1, static_cast<uint32_t>(i % 2) });
    }
    return flows;
}

std::vector<FlowArrival>
Launched(const std::vector<FlowArrival>& file, uint32_t threads, Time window)
{
    Ptr<WindowedLaunchSchedule> s = CreateObject<WindowedLaunchSchedule>();
    s->SetAttribute("Threads", UintegerValue(threads));
    s->SetAttribute("Window", TimeValue(window));
    s->SetInner(Create<ReplayFlowSchedule>(file));
    std::vector<FlowArrival> out;
    FlowArrival f;
    while (s->Next(f))
    {
        out.push_back(f);
    }
    return out;
}

void
ExpectTheClientsLaunches(size_t count, uint64_t meanGapUs, uint32_t threads, int64_t windowUs)
{
    const auto file = LoadFile(count, meanGapUs, 7);
    std::vector<int64_t> fileUs;
    for (const auto& f : file)
    {
        fileUs.push_back(static_cast<int64_t>(f.startUs));
    }
    const auto client = ClientLaunches(fileUs, threads, windowUs);
    const auto launched = Launched(file, threads, MicroSeconds(windowUs));
    ASSERT_EQ(launched.size(), file.size());
    // Same flows, in start order, each once.
    std::map<uint64_t, int64_t> byFlow; // size (flow i + 1) -> launch
    for (size_t i = 0; i < launched.size(); ++i)
    {
        if (i > 0)
        {
            EXPECT_GE(launched[i].startUs, launched[i - 1].startUs) << i;
        }
        const uint64_t flow = launched[i].sizeBytes - 1;
        ASSERT_LT(flow, file.size());
        EXPECT_EQ(launched[i].destination, file[flow].destination);
        EXPECT_TRUE(byFlow.emplace(launched[i].sizeBytes, launched[i].startUs).second) << flow;
        EXPECT_LE(launched[i].startUs, file[flow].startUs) << "never later than its own start";
    }
    // After the client's first burst (at its time 0: the file's first 2.2 s), each flow starts a
    // constant time after the client started it: two windows and 1 ms, less the 2 s.
    const int64_t shift = 2 * windowUs + 1000 - 2000000;
    size_t compared = 0;
    for (size_t i = 0; i < file.size(); ++i)
    {
        if (client[i] == 0)
        {
            continue;
        }
        EXPECT_EQ(byFlow.at(i + 1) - client[i], shift) << "flow " << i;
        ++compared;
    }
    EXPECT_GT(compared, file.size() / 2);
}

} // namespace

TEST(WindowedLaunch, HeavyLoadStartsAWindowsFlowsAtOnceAsTheClientDid)
{
    // About 20 Gbps of web-search: a flow every 0.95 ms, some hundred per 100 ms window.
    ExpectTheClientsLaunches(20000, 950, 3, 100000);
    const auto launched = Launched(LoadFile(20000, 950, 7), 3, MilliSeconds(100));
    std::map<uint64_t, int> perLaunch;
    for (const auto& f : launched)
    {
        perLaunch[f.startUs]++;
    }
    // One launch instant per window (a window's flows at once, and each thread's first flow
    // past its window one window early), so about 105 flows each.
    EXPECT_LE(perLaunch.size(), 20000u * 950 / 100000 + 2);
    EXPECT_GT(perLaunch.begin()->second, 50);
}

TEST(WindowedLaunch, SparseFlowsSkipEmptyWindowsAndComeOutInOrder)
{
    // Gaps of a window or more on average: threads skip empty windows, and a thread's early
    // flow can precede another thread's, which the schedule reorders.
    ExpectTheClientsLaunches(3000, 60000, 3, 100000);
    ExpectTheClientsLaunches(3000, 250000, 3, 100000);
    ExpectTheClientsLaunches(3000, 20000, 5, 30000);
}
