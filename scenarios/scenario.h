// A run, fully described: the scenario keys (one table: type, default, range, meaning),
// loading a JSON file, --set overrides, and validation into a typed Scenario.
#ifndef FLUMEN_SCENARIO_H
#define FLUMEN_SCENARIO_H

#include "load-file.h"

#include "ns3/flow-size-cdf.h"
#include "ns3/model-profile.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace flumen
{

/** Bad input: the message names the file and key (or line) and what was expected. */
class ScenarioError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

enum class KeyType
{
    Integer,
    Number,
    String,
    Boolean
};

struct KeySpec
{
    std::string path; //!< dotted, e.g. "cross_traffic.load_gbps"
    KeyType type;
    nlohmann::json defaultValue;
    std::string help;
    double min = -1e300; //!< numbers: inclusive bounds
    double max = 1e300;
    std::vector<std::string> choices; //!< strings: allowed values (empty = any)
};

/** Every scenario key, in documentation order. */
const std::vector<KeySpec>& ScenarioKeys();
/** Fields of a user-defined model under models.<name>. */
const std::vector<KeySpec>& ModelKeys();

struct QueueSettings
{
    std::string discipline;
    uint64_t bufferBytes;
    uint64_t ecnKminBytes;
    uint64_t ecnKmaxBytes;
    double ecnPmax;
};

/** A model: the built-in profiles, or one defined under `models` (one gradient tensor). */
using ModelSettings = ns3::ModelProfile;

struct Scenario
{
    nlohmann::json resolved; //!< every key, defaults filled in
    std::string source;      //!< where it came from (file name), for messages

    std::string name;
    uint64_t seed;

    char configuration;
    double linkRateGbps;
    double linkDelayUs;
    uint32_t mtuBytes;
    QueueSettings hostQueue;
    QueueSettings switchQueue;

    bool jobEnabled;
    ModelSettings model;
    std::string transport;
    uint32_t iterations;
    uint32_t warmupIterations;
    uint32_t socketsPerPeer;
    double hostCeilingGbps;
    uint32_t ncclChannels;
    uint64_t ncclSliceBytes;
    double horovodCycleMs;
    uint64_t horovodFusionBytes;

    struct Rdma
    {
        uint32_t mtuBytes;
        uint32_t ackInterval;
        double cnpIntervalUs;
        double nakIntervalUs;
        double retransmitTimeoutMs;
        uint32_t nicBackpressureBytes;
        double nicWeight;
        uint32_t nicTcpQueues;
    } rdma;
    struct Dcqcn
    {
        double alphaGain;
        double alphaUpdateUs;
        double rateIncreaseUs;
        uint64_t byteCounterBytes;
        uint32_t fastRecoverySteps;
        double aiMbps;
        double haiMbps;
        double minRateMbps;
        double minDecreaseFactor;
        bool clampTargetRate;
    } dcqcn;
    bool pfcEnabled;
    uint32_t pfcXoffBytes;
    uint32_t pfcXonBytes;

    std::string crossType;
    double crossLoadGbps;
    uint32_t crossStreams;
    double crossStartS;
    std::string crossArrivals;    //!< "testbed" or "exponential"
    uint32_t crossSizeBlockFlows; //!< websearch: flows per stratified block of sizes
    uint64_t burstWidthUs;
    uint32_t burstPeriodMultiple;
    double burstShare;
    uint32_t burstMinFlows;
    ns3::FlowSizeCdf sizeCdf;              //!< web-search and burst flow sizes
    std::vector<LoadFileFlow> replayFlows; //!< replay: the load file's flows

    std::string tcpCongestionControl;
    uint32_t tcpSndBufBytes;
    uint32_t tcpRcvBufBytes;
    double tcpMinRtoMs;
    double tcpTimeWaitMs;
    double linkBinUs;
    uint32_t tcpDelayedAckCount;
    double tcpDelayedAckTimeoutMs;
    bool tcpEcn;
    bool tcpSack;
    bool tcpTimestamps;

    double maxTimeS;
    bool reportUnfinished; //!< simulation.on_max_time = report
    double durationS;
    std::string scheduler;
    double progressIntervalS;
};

/**
 * Changes whenever the simulation gives different results for the same scenario (a fixed
 * modelling bug, a new default). Cached validation runs are keyed on it, so a new version
 * re-runs them instead of mixing old and new results.
 */
constexpr const char* kSimulationModelVersion = "2026-11-23 delayed-ACK 40 ms";
/** The same for the web-search generator alone: only web-search runs are keyed on it. */
constexpr const char* kWebSearchModelVersion = "2026-11-23 stratified size blocks";

/** The model version a scenario's results depend on (cached runs are keyed on it). */
std::string ModelVersion(const Scenario& s);

/** Seconds from the command line: all of the text a number above 0, at most 1e6. */
bool ParseSeconds(const std::string& text, double& out);

/** Reads a JSON object from a file; syntax errors name the file, line and column. */
nlohmann::json LoadScenarioFile(const std::string& path);
/** Applies "key=value" (value parsed as JSON, else taken as a string). Unknown keys throw. */
void ApplyOverride(nlohmann::json& scenario, const std::string& assignment);
/** Sets a dotted key (a scenario key or models.<name>.<field>) to a JSON value; unknown keys
 * throw. Types and ranges are checked when the scenario is resolved. */
void SetKey(nlohmann::json& scenario, const std::string& key, const nlohmann::json& value);
/** Checks every key, type, range and cross-key rule; fills defaults. Throws ScenarioError. */
Scenario ResolveScenario(const nlohmann::json& user, const std::string& source);
/**
 * Applies a calibration file (written by `flumen calibrate`): for the scenario's model (job.model,
 * default resnet50) sets job.compute_s and job.compute_jitter_cv unless the scenario sets them.
 * Returns whether the file had the model. Errors name `calibrationSource`.
 */
bool ApplyCalibration(nlohmann::json& scenario, const nlohmann::json& calibration,
                      const std::string& calibrationSource);
/**
 * Reads a calibration file and checks its shape and every model's entry, so that a bad file
 * fails before anything runs. Throws ScenarioError naming the file and key.
 */
nlohmann::json LoadCalibration(const std::string& path);
/** The table of keys as text (for `flumen keys` and the README). */
std::string DescribeKeys();

} // namespace flumen

#endif
