// How much of the shared port's wire the testbed's own measured traffic took at a point: a
// point beyond 1 is one that no simulation of the scenario's frames can meet (its port cannot
// carry what the testbed measured through it).
#ifndef FLUMEN_WIRE_SHARE_H
#define FLUMEN_WIRE_SHARE_H

#include "scenario.h"

namespace flumen
{

/**
 * The share of the shared port's rate (A: S0's NIC egress at the link rate, B: the ToR port
 * towards S0, at topology.host_receive_gbps where that is set)
 * that a testbed point's measured traffic needs in the scenario's frames: the cross traffic,
 * TCP (`crossGbps` of payload), and the ring's hop through that port (a worker's ring bytes per
 * iteration over the testbed's mean iteration time `iterationS`), RoCE or TCP frames as the job
 * sends them. ACKs are left out: a lower bound. NaN without a mean.
 */
double TestbedWireShare(const Scenario& s, double crossGbps, double iterationS);

} // namespace flumen

#endif
