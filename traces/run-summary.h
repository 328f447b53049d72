// A run's summary (summary.json) as a type: what the runner writes and every program reads.
// ToJson/FromJson are the one place its keys are spelled; FromJson names the file and key of
// anything missing or mistyped. FormatHumanSummary is the text `flumen run` prints.
#ifndef FLUMEN_RUN_SUMMARY_H
#define FLUMEN_RUN_SUMMARY_H

#include "summary-statistics.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace flumen
{

/** A summary.json that is not what a run writes; the message names the file and key. */
class RunSummaryError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/**
 * The flow engine's losses at a buffer over the measurement window: a sender's NIC buffer
 * (FluidNetwork::SetOverflowBuffer) or a switch port's (SetDropBuffer). Where the packet level
 * drops packets, the engine cuts windows.
 */
struct BufferLossSummary
{
    uint64_t overflows = 0;  //!< times it overflowed (a switch port: it filled)
    uint64_t windowsCut = 0; //!< each window flow sending through it, at each overflow
};

/** One egress port over the measurement window. */
struct PortSummary
{
    std::string port; //!< e.g. "ToR port towards S0"
    double utilization = 0;
    uint64_t drops = 0;
    uint64_t ecnMarks = 0;
    double meanQueueBytes = 0;
    uint64_t maxQueueBytes = 0;
    std::optional<BufferLossSummary> hostBuffer;   //!< flow engine, host buffers only
    std::optional<BufferLossSummary> switchBuffer; //!< flow engine, switch ports' drop buffers
};

/** One hop of the ring over the measurement window (from ring.csv's bins). */
struct RingHopSummary
{
    std::string from;
    std::string to;
    double meanGbps = 0; //!< the hop's job bytes over the window
    /**
     * The rate its bytes were sent at: the mean of each bin's rate weighted by the bin's bytes
     * (what averaging tcpdump's per-packet injection rates gives, thesis Table 3.11).
     */
    double injectionGbps = 0;
};

/** The job's model as the run used it, and a no-contention yardstick. */
struct ModelSummary
{
    std::string name;
    uint64_t parameters = 0;
    double computeS = 0;
    double forwardS = 0;
    double backwardS = 0;
    double stepS = 0;
    uint64_t gradientTensors = 0;
    double computeJitterCv = 0;
    uint64_t ringBytesPerWorker = 0;
    /** Compute plus the ring's bytes with headers at line rate: a yardstick, not a model. */
    double idleEstimateS = 0;
};

struct FlowsSummary
{
    uint64_t started = 0;
    uint64_t completed = 0;
    uint64_t failed = 0;
    uint64_t openAtEnd = 0;
    SummaryStatistics fctS; //!< flow completion times of the completed flows
};

struct CrossTrafficSummary
{
    std::string type = "none";
    double offeredGbps = 0;
    double achievedGbps = 0; //!< received by the sink(s) over the measurement window
    /** Flow generators: bytes of the flows started in the window (what was really offered). */
    std::optional<double> scheduledGbps;
    std::optional<FlowsSummary> flows;
};

/** Mean phase times over the measured iterations: how much communication is exposed. */
struct PhaseSummary
{
    double forward = 0;
    double backward = 0;
    double wait = 0;
    double step = 0;
};

struct RdmaSummary
{
    uint64_t cnps = 0;
    uint64_t naks = 0;
    uint64_t timeouts = 0;
    uint64_t packetsRetransmitted = 0;
    uint64_t pfcPauses = 0;
};

/** Random packet loss (topology.loss.*): requested, and applied over the window. */
struct LossSummary
{
    double requestedPercent = 0;
    std::string hosts; //!< whose links lose ("" = every link)
    uint64_t packetsArrived = 0;
    uint64_t packetsLost = 0;
    double AppliedPercent() const
    {
        return packetsArrived > 0 ? 100.0 * packetsLost / packetsArrived : 0.0;
    }
};

/** What an unfinished job still tells (simulation.on_max_time = report). */
struct UnfinishedJob
{
    uint32_t iterationsCompleted = 0;
    /** The mean measured iteration time is at least this (iterations run back to back). */
    double lowerBoundS = 0;
    /** False when a rank was still in its warm-up: the bound is then approximate. */
    bool strict = true;
};

/** A training job's figures over its measurement window. */
struct JobFigures
{
    uint32_t iterations = 0; //!< measured per worker
    uint32_t warmupIterations = 0;
    uint32_t workers = 0;
    SummaryStatistics iterationTimeS; //!< over the measured iterations of every worker
    std::optional<bool> jobFinished;  //!< absent for fixed-length runs and runs without a job
    std::optional<UnfinishedJob> unfinished;
    std::optional<ModelSummary> model;
    double dlGoodputGbps = 0; //!< per worker, over the job's measurement window
    std::optional<PhaseSummary> phasesS;
    std::optional<double> allReducesPerIteration;
};

/** One job of a run (summary.json `jobs`, every job in the scenario's order). */
struct JobSummary : JobFigures
{
    std::string name;
    std::vector<std::string> hosts; //!< rank 0 first
    std::string transport;
    std::string collective;
    /** The flow engine's ring (simulation.flow_ring as run): "slices" or "whole"; empty at
     * packet level or with another collective. */
    std::string flowRing;
    double startS = 0;
    /** From its first worker's first measured iteration (its start without a warm-up) to
     * its end (the run's if it did not finish). */
    double windowStartS = 0;
    double windowEndS = 0;
    /** With other jobs: the share of its measured all-reduce time (rank 0's) during which
     * another job's all-reduces ran (comm-phases.h); none with one job. */
    std::optional<double> commOverlap;
};

/** A run. Its job figures are the first job's; every job's are under `jobs`. */
struct RunSummary : JobFigures
{
    std::string name;
    std::string engine = "packet";          //!< simulation.engine: "packet" or "flow"
    std::vector<std::string> engineIgnores; //!< keys this engine does not model (flow)
    std::string engineAuto; //!< simulation.engine auto: which engine ran and why ("" otherwise)
    /** simulation.engine flow: why the run fell out of the engine's domain, where `auto` would
     * re-run it at packet level ("" inside it, and for other engines). */
    std::string engineDomain;
    std::vector<JobSummary> jobs; //!< empty without a job
    CrossTrafficSummary crossTraffic;
    std::optional<RdmaSummary> rdma; //!< every RDMA job's transports, summed
    std::optional<LossSummary> loss; //!< with topology.loss.percent > 0
    PortSummary bottleneck;
    std::vector<PortSummary> ports;
    std::vector<RingHopSummary> ringHops; //!< packet engine with outputs.link_bin_us > 0
    double windowStartS = 0;
    double windowEndS = 0;
    bool windowIsWholeRun = false; //!< the job was cut before any measured iteration began
    double simulatedTimeS = 0;
    double wallTimeS = 0;
    double wallPerSimulatedS = 0;
    uint64_t events = 0;
    uint64_t packetHops = 0;
    uint64_t torForwardedPackets = 0;
    nlohmann::json scenario; //!< the resolved scenario, every key
};

nlohmann::json ToJson(const RunSummary& summary);
/** Reads what ToJson wrote; `source` (a file name) names errors. Throws RunSummaryError. */
RunSummary RunSummaryFromJson(const nlohmann::json& j, const std::string& source);
/** Reads DIR/summary.json. Throws RunSummaryError naming the file. */
RunSummary ReadRunSummary(const std::string& path);
/** Reads a summary.json's text; `source` names errors. Throws RunSummaryError. */
RunSummary ParseRunSummary(const std::string& text, const std::string& source);

/** A few lines for people: iteration times, cross traffic, bottleneck, speed. */
std::string FormatHumanSummary(const RunSummary& summary);
/** "50x slower than real time" or "100x faster than real time", from wall s per simulated s. */
std::string RealTimePace(double wallPerSimulatedS);

} // namespace flumen

#endif
