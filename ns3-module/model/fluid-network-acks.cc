// FluidNetwork's ACKs (fluid-network.h, FlowSpec::ackPath): the load they put on the links back
// to their senders, and the queueing they add to a flow's round trip.
#include "fluid-network.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

void
FluidNetwork::LoadAcks()
{
    // ACKs follow what the flows delivered (the rates about to be replaced): a recomputation
    // late, a few percent of the rates (an ACK per DelAckCount segments); AcksStale() asks for
    // the next one soon when they are off.
    // (Only the links on ACK paths carry any: the others' stay 0.)
    if (m_ackLinks.empty())
    {
        return;
    }
    for (uint32_t l : m_ackLinks)
    {
        m_links[l].ackBps[JOB] = m_links[l].ackBps[CROSS] = 0;
    }
    for (const Flow* f : m_active)
    {
        const double ack = f->rate * f->spec.ackWireFactor;
        for (uint32_t l : f->spec.ackPath)
        {
            m_links[l].ackBps[f->spec.cls] += ack;
        }
    }
}

bool
FluidNetwork::AcksStale() const
{
    for (uint32_t id : m_ackLinks)
    {
        const Link& l = m_links[id];
        const double used = l.ackBps[JOB] + l.ackBps[CROSS];
        if (std::abs(l.ackAtRatesBps - used) > 0.1 * std::max(used, l.ackAtRatesBps))
        {
            return true;
        }
    }
    return false;
}

double
FluidNetwork::RoundTripQueueing(const Flow& f) const
{
    return QueueDelayAlong(f.spec.path) + QueueDelayAlong(f.spec.ackPath);
}

} // namespace ns3
