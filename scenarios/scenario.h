// A run, fully described: loading a JSON scenario file, --set overrides, and resolution into a
// typed Scenario (every key checked against the key table of scenario-keys.h, defaults filled
// in, cross-key rules checked).
#ifndef FLUMEN_SCENARIO_H
#define FLUMEN_SCENARIO_H

#include "load-file.h"
#include "scenario-keys.h"

#include "ns3/flow-size-cdf.h"
#include "ns3/model-profile.h"
#include "ns3/star-topology-helper.h"

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

/** A model: the built-in profiles, or one defined under `models` (one gradient tensor, or
 * the layers of its layers_file). */
using ModelSettings = ns3::ModelProfile;

/**
 * A resolved scenario: what the builders of a run read. Keys that set an ns-3 attribute have
 * no field here (ApplyAttributeKeys sets them); each field is written by its key's `store`
 * in the key table (scenario-keys.cc), then cross-key rules are checked.
 */
struct Scenario
{
    nlohmann::json resolved; //!< every key, defaults filled in
    std::string source;      //!< where it came from (file name), for messages

    std::string name;
    uint64_t seed = 1;

    char configuration = 'B';
    uint32_t hosts = 4; //!< on the ToR
    double linkRateGbps = 0;
    double hostReceiveGbps = 0;  //!< as given (0: the link rate), then the rate in effect
    uint32_t leaves = 1;         //!< 1: the star
    uint32_t spines = 0;         //!< leaf-spine
    double uplinkRateGbps = 0;   //!< leaf-spine: as given, then the rate in effect
    double oversubscription = 0; //!< leaf-spine: as given, then the ratio in effect
    double linkDelayUs = 0;
    uint32_t mtuBytes = 0;
    bool ethernetFraming = false; //!< topology.ethernet_framing
    ns3::EgressQueueConfig hostQueue;
    ns3::EgressQueueConfig switchQueue;
    bool pfcEnabled = false;
    double lossPercent = 0;          //!< topology.loss.percent
    std::string lossHostsText;       //!< topology.loss.hosts as given
    std::vector<uint32_t> lossHosts; //!< its host indices (empty: every host's link)

    bool jobEnabled = true;
    std::string jobName;
    std::string jobHostsText;       //!< job.hosts as given
    std::vector<uint32_t> jobHosts; //!< the job's host indices, rank 0 first
    double jobStartS = 0;
    std::string modelName;
    ModelSettings model; //!< job.model's profile with the job.compute_s etc. overrides
    struct ModelOverrides
    {
        double computeS = 0;         //!< 0: the model's
        double backwardShare = 0;    //!< 0: the model's
        double computeJitterCv = -1; //!< -1: the model's
        uint32_t batchSize = 0;      //!< 0: the model's reference batch
    } modelOverrides;
    std::string transport;
    std::string collective = "ring";
    uint32_t psServers = 1;
    uint32_t iterations = 0;
    uint32_t warmupIterations = 0;
    uint32_t ncclChannels = 1;
    bool mltcp = false;         //!< job.mltcp: MLTCP on the ring's flows
    uint32_t rdmaMtuBytes = 0;  //!< also the RdmaRingTransport::Mtu attribute
    double hostCeilingGbps = 0; //!< also the TcpRingTransport::HostCeiling attribute

    std::string crossType;
    double crossLoadGbps = 0;
    uint32_t crossStreams = 0;
    double crossStartS = 0;
    std::string crossSourceText;      //!< cross_traffic.source as given
    std::string crossDestinationText; //!< cross_traffic.destination as given
    /** Their host indices (StarTopologyConfig::kConfigured: the configuration's). */
    uint32_t crossSource = ns3::StarTopologyConfig::kConfigured;
    uint32_t crossDestination = ns3::StarTopologyConfig::kConfigured;
    std::string crossArrivals;        //!< "testbed" or "exponential"
    std::string crossLaunch;          //!< "scheduled" or "windows" (the testbed client's)
    uint32_t crossSizeBlockFlows = 0; //!< websearch: flows per stratified block of sizes
    uint64_t burstWidthUs = 0;
    uint32_t burstPeriodMultiple = 0;
    double burstShare = 0;
    uint32_t burstMinFlows = 0;
    std::string sizeCdfFile;               //!< cross_traffic.size_cdf as given ("" = built in)
    std::string replayFile;                //!< cross_traffic.file as given
    ns3::FlowSizeCdf sizeCdf;              //!< web-search and burst flow sizes
    std::vector<LoadFileFlow> replayFlows; //!< replay: the load file's flows

    std::string tcpCongestionControl;
    bool tcpTimestamps = true; //!< also the TcpSocketBase::Timestamp attribute
    bool tcpEcn = false;
    bool commCsv = false; //!< outputs.comm_csv
    double tcpTimeWaitMs = 0;
    double linkBinUs = 0;
    std::string linkPortText;        //!< outputs.link_port as given ("": the bottleneck)
    int linkPortHost = -1;           //!< its host (-1: the bottleneck)
    bool linkPortAtNic = false;      //!< the host's NIC egress (else the ToR's port towards it)
    std::string pcapHostsText;       //!< outputs.pcap_hosts as given
    std::vector<uint32_t> pcapHosts; //!< its host indices (whose NIC links are captured)
    bool tcpCsv = false;             //!< outputs.tcp_csv: each cross flow's socket traced

    double maxTimeS = 0;
    bool reportUnfinished = false; //!< simulation.on_max_time = report
    double durationS = 0;
    std::string scheduler;
    std::string engine;               //!< "packet" (the reference), "flow" or "auto"
    double autoMaxUtilization = 0.95; //!< engine auto: busier FIFO bottlenecks go to packet
    bool flowWholeSteps = true;       //!< flow engine: ring steps unsliced
    bool flowQueues = true;           //!< flow engine: standing queues at FIFO switch ports
    double flowSliceBytes = 2097152;  //!< flow engine: RoCE slices behind standing queues
    std::string flowRing = "auto";    //!< flow engine: "slices" or "whole" (auto: resolved to one)
    uint32_t flowRingWholeFrom = 32;  //!< flow_ring auto: whole from this many ranks
    bool flowRingWholeByAuto = false; //!< flow_ring auto chose whole (keys its runs apart)
    double progressIntervalS = 0;

    /**
     * With `jobs`: every job as a scenario of its own (this scenario's topology, cross
     * traffic and simulation keys with that job's job keys); the job fields above are then
     * the first job's. Empty for the single `job`.
     */
    std::vector<Scenario> jobs;
};

/** The scenario's training jobs: each of `jobs`, else the scenario itself (none when
 * job.enabled is false). */
std::vector<const Scenario*> Jobs(const Scenario& s);
/** The configuration's roles with the cross traffic where the scenario puts it. */
ns3::StarRoles CrossTrafficRoles(const Scenario& s);
/** websearch, burst and replay: traffic made of flows (iperf streams are not). */
bool IsFlowTraffic(const std::string& type);
/** Whether a host runs an RDMA job: its NIC then serves RoCE and TCP/IP round robin. */
bool HostRunsRdmaJob(const Scenario& s, uint32_t host);
/** Whether the flow engine holds standing queues at the switch's FIFO ports, where its TCP
 * flows are windows (simulation.flow_queues, an RDMA job, a switch discipline fifo or ecn). */
bool FlowEngineHasStandingQueues(const Scenario& s);

/**
 * Changes whenever the simulation gives different results for the same scenario (a fixed
 * modelling bug, a new default). Cached validation runs are keyed on it, so a new version
 * re-runs them instead of mixing old and new results.
 */
constexpr const char* kSimulationModelVersion = "2026-12-02 NCCL flow control";
/** The same for the web-search generator alone: only web-search runs are keyed on it. */
constexpr const char* kWebSearchModelVersion = "2026-11-23 stratified size blocks";
/** The same for the flow-level engine alone: only its runs (flow, auto) are keyed on it. */
constexpr const char* kFlowEngineModelVersion
    = "2026-11-30 a TCP ring's ceiling beside flow traffic that fills the port is out of the "
      "domain";
/** The same for TCP that negotiates ECN (tcp.ecn, DCTCP) alone: only those runs are keyed on it
 * (runs without ECN never enter the window reduction that changed). */
constexpr const char* kTcpEcnModelVersion
    = "2026-12-05 PRR's ECN window reduction ends at ssthresh (TcpPrrEcnRecovery)";
/** The same for MLTCP (job.mltcp) alone: only runs with it are keyed on it. */
constexpr const char* kMltcpModelVersion
    = "2026-12-06 DCQCN's every increase stage closes F times its half of the gap to the "
      "target";
/** The same for flow_ring auto's choice of the whole ring: only runs it chose it for are keyed
 * on it (with "slices" the default, they ran by slices). */
constexpr const char* kAutoWholeRingModelVersion
    = "2026-12-06 flow_ring auto: the whole ring from flow_ring_whole_from ranks";
/** The same for ports that mark (an ecn or red discipline) alone: only runs with one are keyed
 * on it (their marking draws moved from ns-3's automatic streams to fixed ones). */
constexpr const char* kMarkingStreamsModelVersion
    = "2026-12-06 ECN and RED marking draws on fixed streams";
/** The same for BERT-large alone: only runs of it are keyed on it (its parameters went from the
 * thesis's Table 2.1's 366 M to the 335 M its data per iteration implies, model-layers.cc). */
constexpr const char* kBertLargeModelVersion
    = "2026-12-06 BERT-large as a two-class sequence classifier, 335,143,938 parameters";
/** The same for the burst generator alone: only burst runs are keyed on it. */
constexpr const char* kBurstModelVersion
    = "2026-11-26 stratified size blocks, fractional flows carried";

/** Whether the hosts' TCP negotiates ECN: tcp.ecn, or DCTCP (which needs it). */
bool TcpNegotiatesEcn(const Scenario& s);

/** The model version a scenario's results depend on (cached runs are keyed on it). */
std::string ModelVersion(const Scenario& s);

/** Seconds from the command line: all of the text a number above 0, at most 1e6. */
bool ParseSeconds(const std::string& text, double& out);
/** The items of a comma-separated list from the command line ("a,b"), empty ones left out. */
std::vector<std::string> SplitList(const std::string& text);

/**
 * Reads a JSON object from a file; syntax errors name the file, line and column, and a file
 * that cannot be read is named as `what` ("scenario file", "sweep file", ...).
 */
nlohmann::json LoadScenarioFile(const std::string& path, const std::string& what = "scenario file");
/** Applies "key=value" (value parsed as JSON, else taken as a string). Unknown keys throw. */
void ApplyOverride(nlohmann::json& scenario, const std::string& assignment);
/** Sets a dotted key (a scenario key or models.<name>.<field>) to a JSON value; unknown keys
 * throw. Types and ranges are checked when the scenario is resolved. */
void SetKey(nlohmann::json& scenario, const std::string& key, const nlohmann::json& value);
/** Checks every key, type, range and cross-key rule; fills defaults. Throws ScenarioError. */
Scenario ResolveScenario(const nlohmann::json& user, const std::string& source);
/** Sets a dotted path of a JSON object, creating the objects on the way. */
void SetAtPath(nlohmann::json& root, const std::string& path, const nlohmann::json& value);
/** Whether a JSON object has a value at a dotted path. */
bool HasPath(const nlohmann::json& root, const std::string& path);
/** Reads a JSON value at a dotted path of a resolved scenario. */
const nlohmann::json& ValueAt(const nlohmann::json& resolved, const std::string& path);

} // namespace flumen

#endif
