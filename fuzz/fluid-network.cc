// The flow engine's network (ns3::FluidNetwork) under random links and flows: FIFO, queued,
// marking, overflow, drop-buffer and PFC links; share, window (slow start, HyStart, ECN answers,
// timeouts) and unresponsive flows; starts, stops and cap changes at random times. Every input
// must keep the model's invariants: no link carries more than its rate, every rate, byte count
// and queue is finite and not negative, a queue stays within its drop buffer, a flow's bytes
// never fall or pass its size, a flow completes once, the run ends within a bounded number of
// events, and the same input gives the same completions, bit for bit. A violation aborts
// (libFuzzer reports it as a crash).
#include "ns3/fluid-network.h"
#include "ns3/simulator.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <vector>

namespace
{

using ns3::FluidNetwork;

[[noreturn]] void
Violated(const char* what, double value)
{
    std::fprintf(stderr, "fluid-network: invariant violated: %s (%.17g)\n", what, value);
    std::abort();
}

struct Planned
{
    double startS = 0;
    double stopS = -1;  //!< negative: never stopped
    double capAtS = -1; //!< negative: cap never changed
    double newCapBps = 0;
    FluidNetwork::FlowSpec spec;
};

struct Network
{
    std::vector<double> rates;
    std::vector<bool> queued;
    std::vector<bool> fifo;
    std::vector<Planned> flows;
};

double
Gbps(FuzzedDataProvider& in, int lo, int hi)
{
    return 1e8 * in.ConsumeIntegralInRange(lo * 10, hi * 10);
}

Network
Decode(FuzzedDataProvider& in)
{
    Network n;
    const int links = in.ConsumeIntegralInRange(1, 6);
    for (int l = 0; l < links; ++l)
    {
        n.rates.push_back(Gbps(in, 1, 100));
        const bool fifo = in.ConsumeBool();
        n.fifo.push_back(fifo);
        n.queued.push_back(fifo && in.ConsumeBool());
    }
    const int flows = in.ConsumeIntegralInRange(1, 12);
    for (int i = 0; i < flows && in.remaining_bytes() > 0; ++i)
    {
        Planned p;
        auto& s = p.spec;
        const int hops = in.ConsumeIntegralInRange(1, std::min(3, links));
        for (int h = 0; h < hops; ++h)
        {
            const uint32_t l = in.ConsumeIntegralInRange(0, links - 1);
            if (std::find(s.path.begin(), s.path.end(), l) == s.path.end())
            {
                s.path.push_back(l);
            }
        }
        s.kind = static_cast<FluidNetwork::Kind>(in.ConsumeIntegralInRange(0, 2));
        s.bytes = in.ConsumeIntegralInRange(1, 4000) * 1000.0;
        s.capBps = in.ConsumeBool() ? FluidNetwork::kUnbounded : Gbps(in, 1, 100);
        s.weight = in.ConsumeIntegralInRange(1, 8) / 2.0;
        s.wireFactor = 1 + in.ConsumeIntegralInRange(0, 10) / 100.0;
        s.cls = in.ConsumeBool() ? FluidNetwork::JOB : FluidNetwork::CROSS;
        s.paced = s.kind == FluidNetwork::SHARE && std::isfinite(s.capBps) && in.ConsumeBool();
        // StartFlow's rules: something holds an unresponsive flow before its queue.
        int queuedAt = -1;
        for (size_t h = 0; h < s.path.size(); ++h)
        {
            queuedAt = n.queued[s.path[h]] ? static_cast<int>(h) : queuedAt;
        }
        if (s.kind == FluidNetwork::UNRESPONSIVE && queuedAt == 0)
        {
            s.capBps = std::isinf(s.capBps) ? n.rates[s.path[0]] : s.capBps;
        }
        if (s.kind == FluidNetwork::WINDOW)
        {
            s.initialWindowBytes = 1448.0 * in.ConsumeIntegralInRange(1, 20);
            s.windowBytes = in.ConsumeBool() ? FluidNetwork::kUnbounded
                                             : 1448.0 * in.ConsumeIntegralInRange(2, 5000);
            s.slowStartGain = in.ConsumeIntegralInRange(0, 4) / 2.0;
            s.baseRttS = in.ConsumeIntegralInRange(1, 1000) * 1e-6;
            s.hystartWindowBytes = in.ConsumeBool() ? FluidNetwork::kUnbounded : 16 * 1448.0;
            s.ecn = static_cast<FluidNetwork::EcnResponse>(in.ConsumeIntegralInRange(0, 2));
        }
        p.startS = in.ConsumeIntegralInRange(0, 100) * 1e-4;
        if (in.ConsumeBool())
        {
            s.bytes = in.ConsumeBool() ? FluidNetwork::kUnbounded : s.bytes;
            p.stopS = p.startS + in.ConsumeIntegralInRange(0, 100) * 1e-4;
        }
        if (in.ConsumeBool())
        {
            p.capAtS = p.startS + in.ConsumeIntegralInRange(0, 100) * 1e-4;
            p.newCapBps = Gbps(in, 1, 100);
        }
        n.flows.push_back(p);
    }
    return n;
}

template <typename... Args>
void
Note(const char* format, Args... args)
{
    if (std::getenv("FLUMEN_FUZZ_VERBOSE"))
    {
        std::fprintf(stderr, format, args...);
    }
}

/** With FLUMEN_FUZZ_VERBOSE set, the decoded network (to read a finding). */
void
Print(const Network& n)
{
    if (!std::getenv("FLUMEN_FUZZ_VERBOSE"))
    {
        return;
    }
    for (size_t l = 0; l < n.rates.size(); ++l)
    {
        std::fprintf(stderr, "link %zu: %g bps fifo %d queued %d\n", l, n.rates[l], int(n.fifo[l]),
                     int(n.queued[l]));
    }
    for (const Planned& p : n.flows)
    {
        const auto& s = p.spec;
        std::fprintf(stderr, "flow: path");
        for (uint32_t l : s.path)
        {
            std::fprintf(stderr, " %u", l);
        }
        std::fprintf(stderr,
                     " kind %d bytes %g cap %g weight %g wire %g paced %d window %g/%g gain %g "
                     "rtt %g hystart %g ecn %d start %g stop %g cap at %g to %g\n",
                     int(s.kind), s.bytes, s.capBps, s.weight, s.wireFactor, int(s.paced),
                     s.initialWindowBytes, s.windowBytes, s.slowStartGain, s.baseRttS,
                     s.hystartWindowBytes, int(s.ecn), p.startS, p.stopS, p.capAtS, p.newCapBps);
    }
}

/** Runs the network with its link options taken from `in`; returns each flow's completion
 * time (negative: none) in the order planned. */
std::vector<double>
Run(const Network& n, FuzzedDataProvider& options)
{
    using namespace ns3;
    Ptr<FluidNetwork> net = CreateObject<FluidNetwork>();
    for (size_t l = 0; l < n.rates.size(); ++l)
    {
        net->AddLink(n.rates[l], n.fifo[l], n.queued[l]);
        const int option = options.ConsumeIntegralInRange(0, 3);
        if (option == 1 && n.queued[l])
        {
            const double kmin = 1000.0 * options.ConsumeIntegralInRange(0, 500);
            const double kmax = kmin + 1000.0 * options.ConsumeIntegralInRange(1, 2000);
            const double pmax = options.ConsumeIntegralInRange(1, 100) / 100.0;
            net->SetMarking(l, kmin, kmax, pmax);
            Note("link %zu marks from %g to %g bytes, pmax %g\n", l, kmin, kmax, pmax);
        }
        else if (option == 2 && n.fifo[l] && !n.queued[l])
        {
            const double bytes = 1000.0 * options.ConsumeIntegralInRange(10, 10000);
            net->SetOverflowBuffer(l, bytes);
            Note("link %zu overflows at %g bytes\n", l, bytes);
        }
        else if (option == 3)
        {
            const double bytes = 1000.0 * options.ConsumeIntegralInRange(1, 2000);
            net->SetPauseThreshold(l, bytes);
            Note("link %zu pauses at %g bytes\n", l, bytes);
        }
    }
    // Drop buffers and retransmission timeouts, taken after the options above so that older
    // inputs keep their links.
    std::vector<double> dropBytes(n.rates.size(), 0);
    for (size_t l = 0; l < n.rates.size(); ++l)
    {
        if (n.queued[l] && options.ConsumeBool())
        {
            dropBytes[l] = 1000.0 * options.ConsumeIntegralInRange(10, 10000);
            net->SetDropBuffer(l, dropBytes[l]);
            Note("link %zu drops beyond %g bytes\n", l, dropBytes[l]);
        }
    }
    std::vector<double> timeouts(n.flows.size(), 0);
    for (double& t : timeouts)
    {
        t = options.ConsumeIntegralInRange(0, 20) * 1e-3;
    }
    std::vector<double> doneAt(n.flows.size(), -1);
    std::vector<uint64_t> ids(n.flows.size(), 0);
    std::map<uint64_t, size_t> index;
    std::vector<double> lastBytes(n.flows.size(), 0);
    for (size_t i = 0; i < n.flows.size(); ++i)
    {
        const Planned& p = n.flows[i];
        FluidNetwork::FlowSpec spec = p.spec;
        spec.timeoutS = timeouts[i];
        spec.done = Callback<void, uint64_t>(
            [&, i](uint64_t id)
            {
                if (doneAt[i] >= 0 || index.at(id) != i)
                {
                    Violated("a flow completes once, under its own id", static_cast<double>(id));
                }
                doneAt[i] = Simulator::Now().GetSeconds();
            });
        Simulator::Schedule(Seconds(p.startS),
                            [&, i, spec]
                            {
                                ids[i] = net->StartFlow(spec);
                                index[ids[i]] = i;
                            });
        if (p.stopS >= 0)
        {
            Simulator::Schedule(Seconds(p.stopS), [&, i] { net->StopFlow(ids[i]); });
        }
        if (p.capAtS >= 0)
        {
            Simulator::Schedule(Seconds(p.capAtS),
                                [&, i, cap = p.newCapBps] { net->SetFlowCap(ids[i], cap); });
        }
    }
    // The invariants, every 100 us and at the end.
    std::function<void()> check = [&]
    {
        for (uint32_t l = 0; l < net->GetLinkCount(); ++l)
        {
            const double carried
                = net->GetLinkRate(l, FluidNetwork::JOB) + net->GetLinkRate(l, FluidNetwork::CROSS);
            if (!(carried <= net->GetLinkCapacity(l) * (1 + 1e-9) + 1))
            {
                Violated("a link carries at most its rate", carried / net->GetLinkCapacity(l));
            }
            const double queue = net->GetQueueBytes(l);
            if (!(queue >= 0 && std::isfinite(queue)))
            {
                Violated("a queue is finite and not negative", queue);
            }
            if (dropBytes[l] > 0 && !(queue <= dropBytes[l] * (1 + 1e-9)))
            {
                Violated("a queue stays within its drop buffer", queue / dropBytes[l]);
            }
        }
        for (size_t i = 0; i < n.flows.size(); ++i)
        {
            if (ids[i] == 0 || doneAt[i] >= 0)
            {
                continue;
            }
            const double rate = net->GetFlowRate(ids[i]);
            if (!(rate >= 0 && std::isfinite(rate)))
            {
                Violated("a flow's rate is finite and not negative", rate);
            }
            const double bytes = net->GetFlowBytes(ids[i]);
            if (!(bytes >= lastBytes[i] - 1e-6 && bytes <= n.flows[i].spec.bytes * (1 + 1e-12)))
            {
                Violated("a flow's bytes never fall or pass its size", bytes);
            }
            lastBytes[i] = bytes;
        }
    };
    std::function<void()> probe = [&]
    {
        check();
        Simulator::Schedule(MicroSeconds(100), probe);
    };
    Simulator::Schedule(Seconds(0), probe);
    Simulator::Stop(MilliSeconds(40));
    Simulator::Run();
    check();
    // 400 probes and a few hundred flow events; queue steps at least 10 us apart (PFC's may be
    // shorter, each bounded by a pause): far below this unless the engine runs away.
    if (Simulator::GetEventCount() > 1'000'000)
    {
        Violated("a run of 40 ms ends within 10^6 events",
                 static_cast<double>(Simulator::GetEventCount()));
    }
    net->Dispose();
    Simulator::Destroy();
    return doneAt;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    FuzzedDataProvider in(data, size);
    const Network n = Decode(in);
    Print(n);
    const std::vector<uint8_t> rest = in.ConsumeRemainingBytes<uint8_t>();
    FuzzedDataProvider first(rest.data(), rest.size());
    FuzzedDataProvider second(rest.data(), rest.size());
    const std::vector<double> a = Run(n, first);
    const std::vector<double> b = Run(n, second);
    for (size_t i = 0; i < a.size(); ++i)
    {
        if (a[i] != b[i])
        {
            Violated("the same input completes its flows at the same times", a[i] - b[i]);
        }
    }
    return 0;
}
