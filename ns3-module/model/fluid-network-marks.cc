// FluidNetwork's ECN marks (fluid-network.h): a queued link's marking ramp over its standing
// queue, and how an ECN-capable window flow answers the marks its packets carry.
#include "ecn-ramp-queue-disc.h"
#include "fluid-network.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
FluidNetwork::SetMarking(uint32_t link, double kminBytes, double kmaxBytes, double pmax)
{
    Link& l = m_links.at(link);
    NS_ABORT_MSG_IF(!l.queued, "FluidNetwork: only a queued link marks");
    NS_ABORT_MSG_IF(!(kmaxBytes > 0 && kminBytes >= 0 && pmax > 0 && pmax <= 1),
                    "FluidNetwork: a marking ramp needs kmax > 0, kmin >= 0, 0 < pmax <= 1");
    l.markMinBits = kminBytes * 8;
    l.markMaxBits = kmaxBytes * 8;
    l.markPmax = pmax;
}

double
FluidNetwork::GetMarkProbability(const std::vector<uint32_t>& path) const
{
    Settled();
    // The packet level's ramp on the fluid queue; marks at successive queues are independent.
    double unmarked = 1;
    for (uint32_t id : path)
    {
        const Link& l = m_links.at(id);
        if (l.markMaxBits > 0)
        {
            unmarked
                *= 1
                   - EcnRampQueueDisc::Ramp(l.queueBits, l.markMinBits, l.markMaxBits, l.markPmax);
        }
    }
    return 1 - unmarked;
}

void
FluidNetwork::Flow::AnswerMarks(double markProbability, double delivered, double dt)
{
    // Deterministic in the mean: the marks its delivered packets carry add up, and once they
    // reach one their echo comes back a round trip later (the marked packet leaves the queue,
    // reaches the receiver, its ACK returns), when the window falls; at most once per round
    // trip (an echo per window, as TCP's CWR).
    const double now = Simulator::Now().GetSeconds();
    if (ecnCutDueS >= 0 && now >= ecnCutDueS)
    {
        // A congestion signal, as a loss.
        Cut(spec.ecn == DCTCP ? 1 - alpha / 2 : spec.lossBeta, Window());
        ++record.ecnCuts;
        lastEcnCutS = now;
        ecnCutDueS = -1;
    }
    if (delivered <= 0)
    {
        return;
    }
    const double rtt = rttS > 0 ? rttS : spec.baseRttS;
    if (spec.ecn == DCTCP && rtt > 0)
    {
        // alpha follows the marked fraction, by gain g per round trip.
        alpha += spec.dctcpGain * (markProbability - alpha) * std::min(1.0, dt / rtt);
        alpha = std::clamp(alpha, 0.0, 1.0);
    }
    expectedMarks += markProbability * delivered / spec.segmentBytes;
    if (expectedMarks < 1 || ecnCutDueS >= 0 || (lastEcnCutS >= 0 && now - lastEcnCutS < rtt))
    {
        return;
    }
    expectedMarks = 0;
    ecnCutDueS = now + rtt;
}

} // namespace ns3
