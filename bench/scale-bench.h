// The flow engine at the scale of real clusters (`flumen bench --scale`): a training job of 64
// to 4,096 workers on a leaf-spine fabric of 100 Gbps hosts and 400 Gbps uplinks (1:1 and 4:1)
// beside web-search, with NCCL's ring and its double binary tree; and, without cross traffic, one
// ring all-reduce set against the alpha-beta formula. Each point runs in a child process under a
// wall-time budget: what it costs per iteration, its events and its peak memory, or, where it does
// not finish an iteration within the budget, how far it got.
#ifndef FLUMEN_SCALE_BENCH_H
#define FLUMEN_SCALE_BENCH_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace flumen
{

struct ScaleBenchOptions
{
    std::vector<uint32_t> workers{ 64, 256, 1024, 4096 };
    double budgetS = 120; //!< wall seconds per point
};

/** One point of the scale bench: its scenario (JSON, as a user would write it). */
struct ScalePoint
{
    std::string name;
    std::string kind; //!< "loaded" (web-search beside the job) or "alpha-beta" (no cross traffic)
    uint32_t workers = 0;
    double oversubscription = 1;
    std::string collective;
    std::string ring = "slices"; //!< simulation.flow_ring (whole: without standing queues)
    nlohmann::json scenario;
};

/** Hosts per leaf (at most 32, at least 2 leaves), spines and uplink rate of a fabric. */
struct ScaleFabric
{
    uint32_t leaves = 0;
    uint32_t spines = 0;
    double uplinkGbps = 0;
};
ScaleFabric ScaleFabricFor(uint32_t workers, double oversubscription);

/** The points for these worker counts: loaded (1:1 and 4:1, ring and nccl_tree), alpha-beta. */
std::vector<ScalePoint> ScalePoints(const std::vector<uint32_t>& workers);

/**
 * The alpha-beta time of one ring all-reduce of `bytes` over `ranks`: 2(n-1) steps, each paying
 * the hop's one-way latency `alphaS` and moving bytes / n at `payloadGbps`.
 */
double RingAlphaBetaS(uint64_t bytes, uint32_t ranks, double alphaS, double payloadGbps);

/** Runs every point in a child under the budget (progress on stderr); the report. */
nlohmann::json RunScaleBench(const ScaleBenchOptions& options);

/** The report as a table for people. */
std::string FormatScaleTable(const nlohmann::json& report);

} // namespace flumen

#endif
