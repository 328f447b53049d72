// A points folder's finished runs, in two forms. The point pool writes each run as its folder,
// DIR/<id>/ (scenario.json, summary.json, iterations.csv and the bulky files); a validation then
// compacts its finished runs into one file per series, DIR/<series>.runs.jsonl: a line per run,
// {"id", "scenario", "summary", "iterations_csv"}, sorted by id, so that a diff shows which runs
// changed. A run is found in either form (its folder first); the pool skips both, so that a
// compacted validation still resumes point by point.
#ifndef FLUMEN_RUN_STORE_H
#define FLUMEN_RUN_STORE_H

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flumen
{

/** The suffix of a series' runs file. */
inline constexpr const char* kRunsFileSuffix = ".runs.jsonl";

/**
 * The text of a finished run's file ("scenario.json", "summary.json" or "iterations.csv"): from
 * its folder, else from a runs file of DIR; nullopt when the run is in neither. Throws
 * std::runtime_error naming the runs file and line when one is not a run's JSON.
 */
std::optional<std::string> ReadRunFile(const std::filesystem::path& dir, const std::string& id,
                                       const std::string& file);

/** Whether DIR's runs files hold this run. */
bool InRunsFile(const std::filesystem::path& dir, const std::string& id);

/** Every finished run in DIR (folders and runs files), sorted. */
std::vector<std::string> StoredRunIds(const std::filesystem::path& dir);

/**
 * Moves the finished run folders named (group -> run ids) into DIR/<group>.runs.jsonl, over the
 * lines those files hold; a run already in a file and without a folder stays as it is. Each
 * file is rewritten atomically, and only then are its runs' folders removed (a kill between the
 * two leaves a run in both forms, read the same). Returns how many runs moved.
 */
size_t CompactRuns(const std::filesystem::path& dir,
                   const std::map<std::string, std::vector<std::string>>& groups);

} // namespace flumen

#endif
