// A test fixture shared by the queued-link tests (fluid-queue-test.cc, fluid-drop-test.cc): a
// switch port (FIFO, queued) fed by an unresponsive sender's NIC and a window sender's NIC, at
// 25 Gbps.
#ifndef FLUMEN_QUEUED_PORT_H
#define FLUMEN_QUEUED_PORT_H

#include "ns3/fluid-network.h"
#include "ns3/simulator.h"

#include <gtest/gtest.h>

namespace ns3::test
{

constexpr double kC = 25e9; // bits per second
constexpr double kMB = 8e6; // bits

struct QueuedPort : ::testing::Test
{
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    uint32_t nic = 0;  // the unresponsive sender's NIC
    uint32_t nic2 = 0; // the window flows' sender's NIC
    uint32_t port = 0; // the switch's port towards the receiver: FIFO, queued

    void SetUp() override
    {
        nic = net->AddLink(kC);
        nic2 = net->AddLink(kC, true);
        port = net->AddLink(kC, true, true);
    }
    void TearDown() override
    {
        net->Dispose();
        Simulator::Destroy();
    }
    FluidNetwork::FlowSpec Unresponsive(double bytes)
    {
        FluidNetwork::FlowSpec s;
        s.path = { nic, port };
        s.bytes = bytes;
        s.kind = FluidNetwork::UNRESPONSIVE;
        s.cls = FluidNetwork::JOB;
        return s;
    }
    FluidNetwork::FlowSpec Window(double bytes, double window, double first)
    {
        FluidNetwork::FlowSpec s;
        s.path = { nic2, port };
        s.bytes = bytes;
        s.kind = FluidNetwork::WINDOW;
        s.windowBytes = window;
        s.initialWindowBytes = first;
        s.slowStartGain = 0.5;
        s.baseRttS = 4e-6;
        return s;
    }
    // A CUBIC connection: 10 segments first, 4 MB buffers, HyStart from 16 segments on.
    FluidNetwork::FlowSpec Cubic()
    {
        auto s = Window(FluidNetwork::kUnbounded, 4e6, 14480);
        s.hystartWindowBytes = 16 * 1448;
        s.segmentBytes = 1448;
        return s;
    }
    // A 1 MB window alone behind the port that marks on DCQCN's ramp (100 to 400 KB, 0.2):
    // almost all of it waits in the queue, every packet marked.
    FluidNetwork::FlowSpec MarkedWindow(FluidNetwork::EcnResponse ecn)
    {
        net->SetMarking(port, 100e3, 400e3, 0.2);
        auto s = Window(FluidNetwork::kUnbounded, 1e6, 1e6);
        s.segmentBytes = 1448;
        s.ecn = ecn;
        return s;
    }
    void RunUntil(Time t)
    {
        Simulator::Stop(t - Simulator::Now());
        Simulator::Run();
        net->Advance();
    }
};

} // namespace ns3::test

#endif
