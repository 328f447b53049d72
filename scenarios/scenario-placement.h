// Where a scenario puts things: host lists ("S0,S3"), the job's hosts (and its name, a column
// of iterations.csv), the leaf-spine fabric's uplinks, and the cross traffic's two hosts. Part
// of resolving a scenario; not a public API.
#ifndef FLUMEN_SCENARIO_PLACEMENT_H
#define FLUMEN_SCENARIO_PLACEMENT_H

#include "scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace flumen::detail
{

/** Host names "S0,S3" of a key, as indices (each once, in the order given). */
std::vector<uint32_t> HostList(const Scenario& s, const std::string& key, const std::string& text);
/** job.name (plain characters) and job.hosts (else the configuration's; at least two). */
void ResolveJobNameAndHosts(Scenario& s);
/** Hosts split evenly over the leaves; the uplink rate and oversubscription in effect. */
void CheckFabric(Scenario& s);
/** cross_traffic.source and destination: one host each, two distinct ones. */
void ResolveCrossTrafficHosts(Scenario& s);
/** outputs.link_port: a host's NIC egress or the ToR's port towards it ("": the bottleneck). */
void ResolveLinkPort(Scenario& s);

} // namespace flumen::detail

#endif
