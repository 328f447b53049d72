// Small helpers shared by the test suites: temporary folders, running flumen-run.
#ifndef FLUMEN_TEST_SUPPORT_H
#define FLUMEN_TEST_SUPPORT_H

#include "scenario.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace flumen::test
{

/** A fresh empty folder under the system temp dir, removed when this object goes. */
class TempDir
{
  public:
    TempDir();
    ~TempDir();
    const std::string& Path() const { return m_path; }
    std::string Write(const std::string& name, const std::string& content) const;

  private:
    std::string m_path;
};

struct CommandResult
{
    int exitCode = -1;
    std::string output; //!< stdout and stderr together
};

/** Runs a shell command line, stdout and stderr together. */
CommandResult RunCommand(const std::string& commandLine);
/**
 * The --set that re-runs a shipped packet run made before NCCL's flow control (simulation model
 * "2026-11-23 delayed-ACK 40 ms") with the ring it ran: the engines are compared on one model.
 */
inline const std::string kRingBeforeFlowControl = " --set job.nccl.flow_control=false";
/**
 * A finished run of a points folder whose id starts with `prefix` (batch/run-store.h: its folder
 * or its series' runs file), written out as DIR/<id>/ with its scenario.json, summary.json and
 * iterations.csv; returns that folder ("" when there is none).
 */
std::string StoredRunFolder(const std::string& points, const std::string& prefix,
                            const TempDir& dir);
/** Runs flumen-run with these arguments (shell-quoted by the caller where needed). */
CommandResult RunFlumen(const std::string& args);
/** Runs flumen-sweep with these arguments (shell-quoted by the caller where needed). */
CommandResult RunSweep(const std::string& args);
/** Runs flumen-validate with these arguments. */
CommandResult RunValidate(const std::string& args);
/** Runs flumen-calibrate with these arguments. */
CommandResult RunCalibrate(const std::string& args);
/** Runs flumen-bench with these arguments. */
CommandResult RunBench(const std::string& args);
/** Runs flumen-tcp-summary with these arguments. */
CommandResult RunTcpSummary(const std::string& args);
/** Runs flumen-shift with these arguments. */
CommandResult RunShift(const std::string& args);

/** The shipped series manifests, and the testbed data beside the repository (../shared). */
inline const std::string kManifests = FLUMEN_SOURCE_DIR "/validation/manifests/";
inline const std::string kTestbed = FLUMEN_SOURCE_DIR "/../shared/testbed/";

// The manifests point at ../shared/testbed, beside the repository as on CI; a clone without
// it reports the tests that need it as skipped, with the reason, never as passed.
#define REQUIRE_TESTBED_DATA()                                                                     \
    if (!std::filesystem::exists(flumen::test::kTestbed))                                          \
    GTEST_SKIP() << "no testbed data at " << flumen::test::kTestbed                                \
                 << " (shared/ is not beside the repository)"
/** The lines of a text, without their newlines. */
std::vector<std::string> Lines(const std::string& text);
std::string ReadFile(const std::string& path);
/** A CSV file of plain cells (no quotes) as rows of cells by column name; a row whose cell
 * count differs from the header's fails the calling test. */
std::vector<std::map<std::string, std::string>> ReadCsvRows(const std::string& path);
/**
 * Compares `actual` with the committed reference tests/golden/<name> byte for byte and
 * returns a failure naming the first differing line. With FLUMEN_UPDATE_GOLDEN=1 in the
 * environment it writes the reference instead and still fails, naming the file, so that an
 * update is a deliberate change of a committed file, never a silent pass.
 */
::testing::AssertionResult MatchesGolden(const std::string& name, const std::string& actual);
/**
 * Mounts a tmpfs of `size` (e.g. "256k") at `dir` for full-disk tests; returns "" on success,
 * otherwise why not (not root, no mount here): the caller skips with that reason.
 */
std::string MountSmallDisk(const std::string& dir, const std::string& size);
/** Resolves a scenario given as JSON, as the runner would. */
Scenario Resolve(const nlohmann::json& user);
/** The message of the ScenarioError that resolving `user` (from "bad.json") throws ("" if
 * none). */
std::string ScenarioErrorOf(const nlohmann::json& user);

} // namespace flumen::test

#endif
