// Several training jobs in one scenario (`jobs`): a list of objects, each with the job keys
// that differ between jobs (model, hosts, transport, collective, start, iterations, ...). Each
// entry is laid over `job`, whose keys every job shares; ns-3 attributes (Horovod, NCCL
// slices, RDMA and TCP transport settings) are set once, under `job`, for every job. Part of
// resolving a scenario; not a public API.
#ifndef FLUMEN_SCENARIO_JOBS_H
#define FLUMEN_SCENARIO_JOBS_H

#include "scenario.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <string>

namespace flumen::detail
{

/** Whether a job key (e.g. "job.model") may differ between the entries of `jobs`. */
bool IsPerJobKey(const std::string& key);
/**
 * For "jobs.<i>.<key>" (a --set or sweep key): sets `index` and `jobKey` ("job.<key>") and
 * returns true; false for any other key. Throws ScenarioError for a key of `jobs` that is not
 * a per-job key.
 */
bool ParseJobsKey(const std::string& key, size_t& index, std::string& jobKey);
/** Checks the user's `jobs`: a non-empty array of objects of per-job keys and values. */
void CheckJobEntries(const std::string& source, const nlohmann::json& user);
/** The user's scenario as job `index` sees it: `jobs` left out, its entry laid over `job`. */
nlohmann::json JobView(const nlohmann::json& user, size_t index);
/** Runs `resolve`; a ScenarioError about a job key names it as jobs[index]'s. */
Scenario NameJobErrors(size_t index, const std::function<Scenario()>& resolve);
/** Rules between the jobs: names unique, each host in one job, PFC with an RDMA job. */
void CheckJobsTogether(const Scenario& s);

} // namespace flumen::detail

#endif
