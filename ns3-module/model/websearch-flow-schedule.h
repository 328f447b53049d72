/*
 * Web-search cross traffic as the testbed's generator drew it (docs/testbed-data.md and the
 * thesis's Algorithms 1 and 2), one flow at a time.
 *
 * Consistent: sizes from the CDF; gaps between starts drawn as Poisson(mean_gap_us) whole
 * microseconds (numpy.random.poisson), mean_gap = mean size x 8 / load, which makes
 * arrivals nearly periodic. Option: textbook exponential gaps with the same mean (rounded to
 * whole microseconds).
 *
 * Sizes are drawn in stratified blocks (attribute SizeBlock, n flows): each block of n
 * consecutive flows takes one uniform draw from each of the n equal slices of [0, 1), in a
 * random order. Each flow's size still follows the CDF, but a block holds the CDF's sizes in
 * their exact proportions (to 1/n), so a run of a few seconds offers the requested load. The
 * testbed's generator drew sizes independently (SizeBlock 0 or 1), which over minutes gives
 * the same load; over the 1-4 s a simulation lasts, its heavy tail (3 % of flows carry 37 %
 * of the bytes) left one seed's offered load 8-14 % short at every load of a 3 s series.
 *
 * Burst: repeating periods of PeriodMultiple x BurstWidth. Each period holds load x period
 * bytes: BurstShare of them in two burst flows (split f ~ N(0.5, 0.08) clamped to
 * [0.05, 0.95]); the first starts uniformly inside the burst window [0, width), the second
 * 300 us + Exp(mean 200 us) after the first. The rest goes to max(MinFlows,
 * floor(rest / mean size)) web-search flows, whose sizes are scaled by
 * rest / (n x mean size) when fewer than MinFlows would be drawn, starting after the burst
 * window with Poisson gaps of mean (period - width) / n. Two departures from the testbed's
 * generator keep a run of seconds at its requested load (it draws minutes): the fraction of a
 * flow that floor() leaves out of a period is carried to the next (over a run, the rest gets
 * its bytes to within one flow, not up to one flow short per period), and sizes are drawn in
 * stratified blocks (SizeBlock) as for consistent web-search.
 */
#ifndef FLUMEN_WEBSEARCH_FLOW_SCHEDULE_H
#define FLUMEN_WEBSEARCH_FLOW_SCHEDULE_H

#include "flow-schedule.h"
#include "flow-size-cdf.h"
#include "stratified-uniform.h"

#include "ns3/data-rate.h"
#include "ns3/random-variable-stream.h"

#include <deque>
#include <vector>

namespace ns3
{

/**
 * Poisson(mean) integer from uniform draws: inversion by multiplication below mean 10,
 * Hoermann's transformed rejection (PTRS, as numpy uses) from 10 on.
 */
uint64_t DrawPoisson(Ptr<UniformRandomVariable> uniform, double mean);

class ConsistentWebSearchSchedule : public FlowSchedule
{
  public:
    static TypeId GetTypeId();
    ConsistentWebSearchSchedule();

    /** Must be called before the first Next(). */
    void Setup(const FlowSizeCdf& cdf, DataRate load, bool exponentialGaps, uint32_t destination);
    bool Next(FlowArrival& flow) override;
    int64_t AssignStreams(int64_t stream) override;
    double GetMeanGapUs() const { return m_meanGapUs; }

  private:
    uint32_t m_sizeBlock;      // attribute SizeBlock
    StratifiedUniform m_sizes; // size draws, stratified by block
    FlowSizeCdf m_cdf;
    bool m_exponential = false;
    uint32_t m_destination = 0;
    double m_meanGapUs = 0;
    uint64_t m_clockUs = 0;
    Ptr<UniformRandomVariable> m_sizeRv;
    Ptr<UniformRandomVariable> m_gapRv;
};

class BurstWebSearchSchedule : public FlowSchedule
{
  public:
    static TypeId GetTypeId();
    BurstWebSearchSchedule();

    /** Must be called before the first Next(). Attributes set the burst shape. */
    void Setup(const FlowSizeCdf& cdf, DataRate load, uint32_t destination);
    bool Next(FlowArrival& flow) override;
    int64_t AssignStreams(int64_t stream) override;

    uint64_t GetPeriodUs() const;
    uint64_t GetBurstWidthUs() const { return m_widthUs; }

  private:
    void GeneratePeriod(); // appends period m_period's flows to m_pending, sorted

    // Attributes
    uint64_t m_widthUs;
    uint32_t m_periodMultiple;
    double m_burstShare;
    uint32_t m_minFlows;
    uint32_t m_sizeBlock;

    StratifiedUniform m_sizes;
    double m_carriedFlows = 0; //!< the fraction of a flow floor() left out so far
    FlowSizeCdf m_cdf;
    double m_loadBps = 0;
    uint32_t m_destination = 0;
    uint64_t m_period = 0; //!< index of the next period to generate
    std::deque<FlowArrival> m_pending;
    Ptr<UniformRandomVariable> m_sizeRv;
    Ptr<UniformRandomVariable> m_gapRv;
    Ptr<UniformRandomVariable> m_burstRv;
};

} // namespace ns3

#endif
