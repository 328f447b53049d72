#include "websearch-flow-schedule.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WebSearchFlowSchedule");
NS_OBJECT_ENSURE_REGISTERED(ConsistentWebSearchSchedule);
NS_OBJECT_ENSURE_REGISTERED(BurstWebSearchSchedule);

uint64_t
DrawPoisson(Ptr<UniformRandomVariable> uniform, double mean)
{
    if (mean <= 0)
    {
        return 0;
    }
    if (mean < 10)
    {
        // Knuth: count uniforms until their product falls below e^-mean.
        const double limit = std::exp(-mean);
        uint64_t k = 0;
        double product = uniform->GetValue();
        while (product > limit)
        {
            ++k;
            product *= uniform->GetValue();
        }
        return k;
    }
    // Hoermann (1993), transformed rejection with squeeze: a hat built from a transformed
    // uniform, a quick acceptance region, and the exact test on the log-pmf otherwise.
    const double root = std::sqrt(mean);
    const double logMean = std::log(mean);
    const double b = 0.931 + 2.53 * root;
    const double a = -0.059 + 0.02483 * b;
    const double inverseAlpha = 1.1239 + 1.1328 / (b - 3.4);
    const double quickAccept = 0.9277 - 3.6224 / (b - 2);
    while (true)
    {
        double u = uniform->GetValue() - 0.5;
        double v = uniform->GetValue();
        double us = 0.5 - std::abs(u);
        double k = std::floor((2 * a / us + b) * u + mean + 0.43);
        if (us >= 0.07 && v <= quickAccept)
        {
            return static_cast<uint64_t>(k);
        }
        if (k < 0 || (us < 0.013 && v > us))
        {
            continue;
        }
        double lhs = std::log(v) + std::log(inverseAlpha) - std::log(a / (us * us) + b);
        double rhs = -mean + k * logMean - std::lgamma(k + 1);
        if (lhs <= rhs)
        {
            return static_cast<uint64_t>(k);
        }
    }
}

namespace
{

double
DrawExponential(Ptr<UniformRandomVariable> uniform, double mean)
{
    return -mean * std::log(1.0 - uniform->GetValue());
}

double
DrawStandardNormal(Ptr<UniformRandomVariable> uniform)
{
    // Box-Muller; 1 - u keeps the logarithm's argument in (0, 1].
    double u1 = 1.0 - uniform->GetValue();
    double u2 = uniform->GetValue();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

} // namespace

// ---------------------------------------------------------------------------------------

TypeId
ConsistentWebSearchSchedule::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::ConsistentWebSearchSchedule")
              .SetParent<FlowSchedule>()
              .SetGroupName("Flumen")
              .AddConstructor<ConsistentWebSearchSchedule>()
              .AddAttribute("SizeBlock",
                            "Flows per stratified block of size draws: each block holds the "
                            "CDF's sizes in their exact proportions, in random order (0 or 1: "
                            "independent draws, as the testbed's generator).",
                            UintegerValue(1000),
                            MakeUintegerAccessor(&ConsistentWebSearchSchedule::m_sizeBlock),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

ConsistentWebSearchSchedule::ConsistentWebSearchSchedule()
    : m_sizeRv(CreateObject<UniformRandomVariable>()),
      m_gapRv(CreateObject<UniformRandomVariable>())
{
}

void
ConsistentWebSearchSchedule::Setup(const FlowSizeCdf& cdf, DataRate load, bool exponentialGaps,
                                   uint32_t destination)
{
    NS_ABORT_MSG_IF(load.GetBitRate() == 0, "ConsistentWebSearchSchedule: load must be above 0");
    m_cdf = cdf;
    m_exponential = exponentialGaps;
    m_destination = destination;
    // The testbed: flows = target bytes / mean size over the run, gap = run / flows.
    m_meanGapUs = cdf.MeanBytes() * 8.0 / static_cast<double>(load.GetBitRate()) * 1e6;
    m_clockUs = 0;
    m_sizes.SetBlock(m_sizeBlock);
}

bool
ConsistentWebSearchSchedule::Next(FlowArrival& flow)
{
    uint64_t gap = m_exponential
                       ? static_cast<uint64_t>(std::llround(DrawExponential(m_gapRv, m_meanGapUs)))
                       : DrawPoisson(m_gapRv, m_meanGapUs);
    m_clockUs += gap; // cumulative sum of the gaps, as the testbed's generator did
    flow.startUs = m_clockUs;
    flow.sizeBytes = m_cdf.SampleBytes(m_sizes.Next(m_sizeRv));
    flow.destination = m_destination;
    return true;
}

int64_t
ConsistentWebSearchSchedule::AssignStreams(int64_t stream)
{
    m_sizeRv->SetStream(stream);
    m_gapRv->SetStream(stream + 1);
    return 2;
}

// ---------------------------------------------------------------------------------------

TypeId
BurstWebSearchSchedule::GetTypeId()
{
    static TypeId tid
        = TypeId("ns3::BurstWebSearchSchedule")
              .SetParent<FlowSchedule>()
              .SetGroupName("Flumen")
              .AddConstructor<BurstWebSearchSchedule>()
              .AddAttribute(
                  "BurstWidth", "Width of the burst window at the start of each period (us).",
                  UintegerValue(1000), MakeUintegerAccessor(&BurstWebSearchSchedule::m_widthUs),
                  MakeUintegerChecker<uint64_t>(1))
              .AddAttribute("PeriodMultiple", "Period = PeriodMultiple x BurstWidth.",
                            UintegerValue(10),
                            MakeUintegerAccessor(&BurstWebSearchSchedule::m_periodMultiple),
                            MakeUintegerChecker<uint32_t>(2))
              .AddAttribute(
                  "BurstShare", "Fraction of each period's bytes carried by its two burst flows.",
                  DoubleValue(0.3), MakeDoubleAccessor(&BurstWebSearchSchedule::m_burstShare),
                  MakeDoubleChecker<double>(0.0, 1.0))
              .AddAttribute("MinFlows",
                            "Fewest web-search flows outside the burst (sizes are scaled down "
                            "when fewer would be drawn).",
                            UintegerValue(8),
                            MakeUintegerAccessor(&BurstWebSearchSchedule::m_minFlows),
                            MakeUintegerChecker<uint32_t>(1))
              .AddAttribute("SizeBlock",
                            "Flows per stratified block of size draws of the web-search flows "
                            "(0 or 1: independent draws, as the testbed's generator).",
                            UintegerValue(1000),
                            MakeUintegerAccessor(&BurstWebSearchSchedule::m_sizeBlock),
                            MakeUintegerChecker<uint32_t>());
    return tid;
}

BurstWebSearchSchedule::BurstWebSearchSchedule()
    : m_sizeRv(CreateObject<UniformRandomVariable>()),
      m_gapRv(CreateObject<UniformRandomVariable>()),
      m_burstRv(CreateObject<UniformRandomVariable>())
{
}

void
BurstWebSearchSchedule::Setup(const FlowSizeCdf& cdf, DataRate load, uint32_t destination)
{
    NS_ABORT_MSG_IF(load.GetBitRate() == 0, "BurstWebSearchSchedule: load must be above 0");
    m_cdf = cdf;
    m_loadBps = static_cast<double>(load.GetBitRate());
    m_destination = destination;
    m_period = 0;
    m_pending.clear();
    m_carriedFlows = 0;
    m_sizes.SetBlock(m_sizeBlock);
}

uint64_t
BurstWebSearchSchedule::GetPeriodUs() const
{
    return m_widthUs * m_periodMultiple;
}

void
BurstWebSearchSchedule::GeneratePeriod()
{
    const uint64_t period = GetPeriodUs();
    const uint64_t origin = m_period * period;
    ++m_period;
    const double bytes = m_loadBps / 8.0 * period * 1e-6;
    std::vector<FlowArrival> flows;

    // Two burst flows: a N(0.5, 0.08) split of the burst share.
    const double burstBytes = m_burstShare * bytes;
    double split = std::clamp(0.5 + 0.08 * DrawStandardNormal(m_burstRv), 0.05, 0.95);
    uint64_t first = origin + static_cast<uint64_t>(std::floor(m_burstRv->GetValue() * m_widthUs));
    uint64_t second
        = first + 300 + static_cast<uint64_t>(std::llround(DrawExponential(m_burstRv, 200.0)));
    if (burstBytes > 0)
    {
        flows.push_back(
            { first, std::max<uint64_t>(1, std::llround(split * burstBytes)), m_destination });
        flows.push_back({ second, std::max<uint64_t>(1, std::llround((1 - split) * burstBytes)),
                          m_destination });
    }

    // The rest in web-search flows after the window, scaled down when fewer than MinFlows
    // would carry it; otherwise the fraction of a flow floor() leaves is carried over.
    const double rest = bytes - burstBytes;
    const double mean = m_cdf.MeanBytes();
    const double flowsOwed = rest / mean + m_carriedFlows;
    uint64_t n = static_cast<uint64_t>(std::floor(flowsOwed));
    m_carriedFlows = flowsOwed - n;
    double scale = 1.0;
    if (n < m_minFlows)
    {
        n = m_minFlows;
        scale = rest / (n * mean);
        m_carriedFlows = 0;
    }
    const double gapMean = static_cast<double>(period - m_widthUs) / n;
    uint64_t t = origin + m_widthUs;
    for (uint64_t i = 0; i < n && rest > 0; ++i)
    {
        t += DrawPoisson(m_gapRv, gapMean);
        uint64_t size = std::max<uint64_t>(
            1, std::llround(m_cdf.SampleBytes(m_sizes.Next(m_sizeRv)) * scale));
        flows.push_back({ t, size, m_destination });
    }

    // Merge into the pending flows, keeping start order (stable for equal starts).
    std::stable_sort(flows.begin(), flows.end(),
                     [](const auto& x, const auto& y) { return x.startUs < y.startUs; });
    std::deque<FlowArrival> merged;
    std::merge(m_pending.begin(), m_pending.end(), flows.begin(), flows.end(),
               std::back_inserter(merged),
               [](const auto& x, const auto& y) { return x.startUs < y.startUs; });
    m_pending.swap(merged);
}

bool
BurstWebSearchSchedule::Next(FlowArrival& flow)
{
    // A flow may leave only once no later period can hold an earlier start: every flow of
    // period k starts at or after k x period.
    while (m_pending.empty() || m_pending.front().startUs >= m_period * GetPeriodUs())
    {
        GeneratePeriod();
    }
    flow = m_pending.front();
    m_pending.pop_front();
    return true;
}

int64_t
BurstWebSearchSchedule::AssignStreams(int64_t stream)
{
    m_sizeRv->SetStream(stream);
    m_gapRv->SetStream(stream + 1);
    m_burstRv->SetStream(stream + 2);
    return 3;
}

} // namespace ns3
