// The cross traffic of a scenario: its flow schedule (web-search, burst, replay), drawn the
// same way for a run and for a load file, installed on the network, and its offered load.
#ifndef FLUMEN_CROSS_TRAFFIC_H
#define FLUMEN_CROSS_TRAFFIC_H

#include "load-file.h"
#include "network.h"

#include "ns3/flow-schedule.h"

#include <optional>
#include <string>
#include <vector>

namespace flumen
{

struct Scenario;

/**
 * The flows of a websearch, burst or replay scenario as a load file lists them, its random
 * streams fixed; the seed must be set first. Null for other types.
 */
ns3::Ptr<ns3::FlowSchedule> MakeLoadFileSchedule(const Scenario& scenario);
/** The same flows as a run starts them: launched in windows with cross_traffic.launch. */
ns3::Ptr<ns3::FlowSchedule> MakeCrossSchedule(const Scenario& scenario);

/**
 * The flows a websearch, burst or replay scenario offers in its first `durationS` seconds
 * (start times from the start of the cross traffic), drawn exactly as a run draws them for the
 * same scenario and seed, at the load file's start times (the testbed's client, as
 * cross_traffic.launch = windows, starts them in windows). Throws RunError for other types.
 */
std::vector<LoadFileFlow> DrawCrossTrafficFlows(const Scenario& scenario, double durationS);

/** Installs the scenario's cross traffic on the network (nothing for type none). */
std::optional<CrossTraffic> InstallCrossTraffic(const Scenario& scenario, Network& network);

/** The load the scenario offers: its request, or a load file's own rate for replay. */
double OfferedGbps(const Scenario& scenario);

/**
 * A note for flow cross traffic (websearch, burst, replay) whose offered load, with its TCP/IP
 * headers, is more than its sender's link carries: its flows then pile up without bound, in
 * either engine, and a job beside it may never finish. Empty otherwise.
 */
std::string CrossTrafficOverloadNote(const Scenario& scenario);

} // namespace flumen

#endif
