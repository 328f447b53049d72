#include "flow-player.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace flumen
{

using namespace ns3;

void
FlowPlayer::Next(const std::shared_ptr<FlowPlayer>& self)
{
    FlowArrival a;
    if (!schedule->Next(a))
    {
        return;
    }
    NS_ABORT_MSG_IF(a.destination != 0, "FlowNetwork: destination index "
                                            << a.destination << " but only 1 destination");
    const Time at = origin + MicroSeconds(a.startUs);
    if (at >= stop)
    {
        return;
    }
    Simulator::Schedule(std::max(Time(0), at - Simulator::Now()),
                        [self, a] { self->Start(self, a); });
}

void
FlowPlayer::Start(const std::shared_ptr<FlowPlayer>& self, const FlowArrival& a)
{
    FlowRow row;
    row.id = first + static_cast<uint32_t>(rows.size());
    row.startS = Simulator::Now().GetSeconds();
    row.sizeBytes = a.sizeBytes;
    row.endS = -1;
    rows.push_back(row);
    if (traceWindows)
    {
        TcpFlowRow w;
        w.id = row.id;
        w.startS = row.startS;
        w.sizeBytes = row.sizeBytes;
        windows.push_back(w);
    }
    const uint32_t index = row.id;
    // On a fabric each connection its spine (its ephemeral port stood in for by its index).
    const auto port = static_cast<uint16_t>(index);
    const std::vector<uint32_t>& path = route.PathOf(source, destination, 6, port, 0);
    const std::vector<uint32_t>& back = ackRoute.PathOf(destination, source, 6, 0, port);
    const Time handshake
        = route.delay * 2 + Seconds(net->GetQueueDelay(path) + net->GetQueueDelay(back));
    Simulator::Schedule(
        handshake,
        [self, index, port, bytes = a.sizeBytes]
        {
            FluidNetwork::FlowSpec spec = self->window;
            spec.path = self->route.PathOf(self->source, self->destination, 6, port, 0);
            spec.ackPath = self->ackRoute.PathOf(self->destination, self->source, 6, 0, port);
            spec.bytes = double(bytes + FlowGenerator::kHeaderBytes);
            spec.wireFactor = self->wireFactor;
            spec.cls = FluidNetwork::CROSS;
            spec.done = MakeCallback(&FlowPlayer::Done, self.get());
            self->active[self->net->StartFlow(spec)] = index;
        });
    Next(self);
}

void
FlowPlayer::Done(uint64_t flow)
{
    auto it = active.find(flow);
    const uint32_t index = it->second;
    active.erase(it);
    FlowRow& row = rows[index - first];
    doneBytes += double(row.sizeBytes + FlowGenerator::kHeaderBytes);
    row.endS = (Simulator::Now() + route.delay).GetSeconds();
}

void
FlowPlayer::Fill(uint32_t index, const FluidNetwork::WindowRecord& r)
{
    TcpFlowRow& w = windows.at(index);
    w.slowStartEndS = r.slowStartEndS;
    w.slowStartEndCwndBytes = static_cast<uint32_t>(std::llround(r.slowStartEndBytes));
    w.slowStartEndCause = r.slowStartEndS < 0 ? "" : r.slowStartEndedByLoss ? "loss" : "hystart";
    w.maxCwndBytes = static_cast<uint32_t>(std::llround(r.maxWindowBytes));
    w.minSrttS = r.minRttS;
    w.maxSrttS = r.maxRttS;
    w.recoveries = r.cuts;
}

void
FlowPlayer::WindowEnded(uint64_t flow, const FluidNetwork::WindowRecord& r)
{
    auto it = active.find(flow);
    if (it != active.end())
    {
        Fill(it->second, r);
    }
}

std::vector<TcpFlowRow>
FlowPlayer::TakeWindows()
{
    for (const auto& [flow, index] : active)
    {
        if (const auto r = net->GetWindowRecord(flow))
        {
            Fill(index, *r);
        }
    }
    return windows;
}

std::vector<FlowRow>
FlowPlayer::Take(bool closedOnly)
{
    size_t n = 0;
    while (n < rows.size() && (!closedOnly || rows[n].endS >= 0))
    {
        ++n;
    }
    std::vector<FlowRow> taken(rows.begin(), rows.begin() + n);
    rows.erase(rows.begin(), rows.begin() + n);
    first += static_cast<uint32_t>(n);
    return taken;
}

uint64_t
FlowPlayer::BytesReceived() const
{
    double bytes = doneBytes;
    for (const auto& [flow, index] : active)
    {
        bytes += net->GetFlowBytes(flow);
    }
    return static_cast<uint64_t>(bytes);
}

} // namespace flumen
