// The web-search generators without a network: flow sizes against the CDF, start gaps as
// the testbed drew them, the burst pattern, and reproducibility.
#include "ns3/flow-size-cdf.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/uinteger.h"
#include "ns3/websearch-flow-schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <vector>

using namespace ns3;

namespace
{

FlowSizeCdf
TestbedCdf()
{
    return FlowSizeCdf::Load(FLUMEN_SOURCE_DIR "/scenarios/websearch_cdf.txt");
}

struct Moments
{
    double mean = 0;
    double cv = 0;
};

Moments
Of(const std::vector<double>& v)
{
    Moments m;
    for (double x : v)
    {
        m.mean += x / v.size();
    }
    double var = 0;
    for (double x : v)
    {
        var += (x - m.mean) * (x - m.mean) / (v.size() - 1);
    }
    m.cv = std::sqrt(var) / m.mean;
    return m;
}

std::vector<FlowArrival>
Draw(Ptr<FlowSchedule> s, size_t n)
{
    std::vector<FlowArrival> out(n);
    for (auto& f : out)
    {
        EXPECT_TRUE(s->Next(f));
    }
    return out;
}

Ptr<ConsistentWebSearchSchedule>
Consistent(double gbps, bool exponential, int64_t stream, uint32_t sizeBlock = 1000)
{
    RngSeedManager::SetSeed(1);
    auto s = CreateObject<ConsistentWebSearchSchedule>();
    s->SetAttribute("SizeBlock", UintegerValue(sizeBlock));
    s->Setup(TestbedCdf(), DataRate(static_cast<uint64_t>(gbps * 1e9)), exponential, 0);
    s->AssignStreams(stream);
    return s;
}

} // namespace

TEST(FlowSizeCdf, TestbedMeanIsTheDocumentedOne)
{
    FlowSizeCdf cdf = TestbedCdf();
    EXPECT_NEAR(cdf.MeanBytes() / (1622.94 * 1460), 1.0, 1e-6);
    EXPECT_EQ(cdf.SampleBytes(0.0), 6u * 1460); // 3 packets have weight 0
    EXPECT_EQ(cdf.SampleBytes(0.999999), 20000u * 1460);
    EXPECT_DOUBLE_EQ(cdf.CdfAtBytes(13 * 1460), 0.2);
}

TEST(FlowSizeCdf, BadLinesNameFileAndLine)
{
    auto messageOf = [](const std::string& text)
    {
        try
        {
            FlowSizeCdf::Parse(text, "src");
        }
        catch (const FlowSizeCdfError& e)
        {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_NE(messageOf("3 1 0\n6 1 0.5\n13 1 0.4\n20 1 1\n").find("src:3:"), std::string::npos);
    EXPECT_NE(messageOf("3 1 0\nsix 1 0.5\n").find("src:2:"), std::string::npos);
    EXPECT_NE(messageOf("3 1 0\n6 1 0.5\n")
                  .find("src:2: expected the last cumulative probability "
                        "to be 1"),
              std::string::npos);
    EXPECT_NE(messageOf("3 1 0\n6 1 0.5\n# trailing\n\n").find("src:2:"), std::string::npos);
    EXPECT_NE(messageOf("3 1 0\n6 1 1.5\n").find("src:2:"), std::string::npos);
    EXPECT_NE(messageOf("3 1 0\n6 1\n").find("src:2: expected 3 fields"), std::string::npos);
    EXPECT_NE(messageOf("3 1 0\n3 1 1\n").find("src:2:"), std::string::npos);
    EXPECT_NE(messageOf("").find("found none"), std::string::npos);
    EXPECT_EQ(messageOf("# comment\n3 1 0\r\n\n6 1 1\n"), "");
}

TEST(WebSearchSchedule, SizesFollowTheCdf)
{
    // Independent draws, as the testbed's generator. Size CV is 2.29, so 20000 draws put the
    // mean's noise at 1.6%; 200000 bring it to 0.5%, making the 2% bound a real test rather
    // than a coin toss on the stream.
    auto flows = Draw(Consistent(20, false, 7, 0), 200000);
    FlowSizeCdf cdf = TestbedCdf();
    std::map<uint64_t, double> counts;
    std::vector<double> sizes;
    for (const auto& f : flows)
    {
        counts[f.sizeBytes] += 1.0 / flows.size();
        sizes.push_back(static_cast<double>(f.sizeBytes));
    }
    // Kolmogorov-Smirnov against the step CDF, evaluated at every support point.
    double ks = 0;
    double empirical = 0;
    for (const auto& p : cdf.GetPoints())
    {
        double bytes = p.packets * cdf.GetPacketBytes();
        empirical += counts[static_cast<uint64_t>(std::llround(bytes))];
        ks = std::max(ks, std::abs(empirical - cdf.CdfAtBytes(bytes)));
    }
    Moments m = Of(sizes);
    std::cout << "[measure] " << flows.size() << " web-search sizes: KS " << ks << ", mean "
              << m.mean / 1e6 << " MB (target 2.3695), CV " << m.cv << "\n";
    EXPECT_LT(ks, 0.02);
    EXPECT_NEAR(m.mean / 2.37e6, 1.0, 0.02);
}

// The default: sizes in stratified blocks of 1000 flows. Every block holds each size in the
// CDF's exact proportion (its steps are multiples of 0.01), in random order; independent draws
// vary by the size CV over sqrt(1000), 7 %, from one 1000 flows to the next.
TEST(WebSearchSchedule, StratifiedBlocksHoldTheCdfProportionsInRandomOrder)
{
    const size_t block = 1000;
    const size_t blocks = 200;
    FlowSizeCdf cdf = TestbedCdf();
    std::map<uint64_t, long> expected;
    double previous = 0;
    for (const auto& p : cdf.GetPoints())
    {
        expected[static_cast<uint64_t>(std::llround(p.packets * cdf.GetPacketBytes()))]
            = std::lround((p.cumulative - previous) * block);
        previous = p.cumulative;
    }
    auto relativeSd = [&](const std::vector<FlowArrival>& flows)
    {
        std::vector<double> sums(blocks, 0.0);
        for (size_t i = 0; i < flows.size(); ++i)
        {
            sums[i / block] += static_cast<double>(flows[i].sizeBytes);
        }
        return Of(sums).cv;
    };
    auto stratified = Draw(Consistent(20, false, 7), block * blocks);
    for (size_t b = 0; b < blocks; ++b)
    {
        std::map<uint64_t, long> counts;
        double bytes = 0;
        int descents = 0;
        for (size_t i = b * block; i < (b + 1) * block; ++i)
        {
            ++counts[stratified[i].sizeBytes];
            bytes += static_cast<double>(stratified[i].sizeBytes);
            descents += i > b * block && stratified[i].sizeBytes < stratified[i - 1].sizeBytes;
        }
        for (const auto& [size, n] : expected)
        {
            EXPECT_EQ(counts[size], n) << "block " << b << ", size " << size;
        }
        EXPECT_NEAR(bytes / (block * cdf.MeanBytes()), 1.0, 1e-9) << "block " << b;
        // Slice order would never descend; a random order descends about 40 % of the time.
        EXPECT_GT(descents, 300) << "block " << b;
    }
    auto sizeOf
        = [](const FlowArrival& a, const FlowArrival& b) { return a.sizeBytes == b.sizeBytes; };
    EXPECT_FALSE(std::equal(stratified.begin(), stratified.begin() + block,
                            stratified.begin() + block, sizeOf))
        << "each block draws its own order";
    double independentSd = relativeSd(Draw(Consistent(20, false, 7, 0), block * blocks));
    std::cout << "[measure] bytes per 1000 flows, relative sd over " << blocks
              << " blocks: stratified " << relativeSd(stratified) << ", independent "
              << independentSd << " (expected 2.29 / sqrt(1000) = 0.072)\n";
    EXPECT_LT(relativeSd(stratified), 1e-9);
    EXPECT_NEAR(independentSd, 2.29 / std::sqrt(1000.0), 0.015);
}

TEST(WebSearchSchedule, TestbedGapsAreNearlyPeriodicExponentialAreNot)
{
    auto gapsOf = [](bool exponential)
    {
        auto flows = Draw(Consistent(20, exponential, 11), 200000);
        std::vector<double> gaps;
        for (size_t i = 1; i < flows.size(); ++i)
        {
            gaps.push_back(static_cast<double>(flows[i].startUs - flows[i - 1].startUs));
        }
        return Of(gaps);
    };
    const double target = 1622.94 * 1460 * 8 / 20e9 * 1e6; // 948 us at 20 Gbps
    Moments testbed = gapsOf(false);
    Moments exponential = gapsOf(true);
    std::cout << "[measure] gaps at 20 Gbps (target " << target << " us): testbed mean "
              << testbed.mean << " CV " << testbed.cv << "; exponential mean " << exponential.mean
              << " CV " << exponential.cv << "\n";
    EXPECT_NEAR(testbed.mean / target, 1.0, 0.02);
    EXPECT_NEAR(exponential.mean / target, 1.0, 0.02);
    EXPECT_LT(testbed.cv, 0.1);
    EXPECT_NEAR(exponential.cv, 1.0, 0.1);
}

TEST(Poisson, MeanAndVarianceMatchForSmallAndLargeMeans)
{
    RngSeedManager::SetSeed(3);
    auto none = CreateObject<UniformRandomVariable>();
    EXPECT_EQ(DrawPoisson(none, 0.0), 0u);
    EXPECT_EQ(DrawPoisson(none, -1.0), 0u);
    for (double mean : { 3.5, 948.0 })
    {
        auto u = CreateObject<UniformRandomVariable>();
        u->SetStream(5);
        std::vector<double> v;
        for (int i = 0; i < 50000; ++i)
        {
            v.push_back(static_cast<double>(DrawPoisson(u, mean)));
        }
        Moments m = Of(v);
        double var = std::pow(m.cv * m.mean, 2);
        std::cout << "[measure] Poisson(" << mean << "): mean " << m.mean << ", variance " << var
                  << "\n";
        double tol = mean < 10 ? 0.03 : 0.02;
        EXPECT_NEAR(m.mean / mean, 1.0, tol);
        EXPECT_NEAR(var / mean, 1.0, tol);
    }
}

TEST(WebSearchSchedule, BurstPatternAtTenGbps)
{
    RngSeedManager::SetSeed(1);
    auto b = CreateObject<BurstWebSearchSchedule>();
    b->Setup(TestbedCdf(), DataRate("10Gbps"), 0);
    b->AssignStreams(21);
    const uint64_t period = b->GetPeriodUs();
    const uint64_t width = b->GetBurstWidthUs();
    // The 70% outside the bursts rides on 8 heavy-tailed flows a period (CV 2.29 / sqrt(8) of
    // that share): 4000 periods bring the rate's noise to about 0.9%.
    const uint64_t periods = 4000;
    std::vector<uint32_t> perPeriod(periods + 2, 0);
    double total = 0;
    double inWindow = 0;
    uint64_t last = 0;
    FlowArrival f;
    while (b->Next(f) && f.startUs < periods * period)
    {
        EXPECT_GE(f.startUs, last);
        last = f.startUs;
        ++perPeriod[f.startUs / period];
        total += f.sizeBytes;
        if (f.startUs % period < width)
        {
            inWindow += f.sizeBytes;
        }
    }
    double gbps = total * 8 / (periods * period * 1e-6) / 1e9;
    // What the testbed's rule puts in burst windows: the first burst flow always; the second
    // with p = P(U*1000 + 300 + Exp(200) < 1000); and the last of the 8 web-search flows half
    // the time, since its gaps add up to the rest of the period on average and it then lands
    // in the next period's window.
    double p = (700 - 200 * (1 - std::exp(-3.5))) / 1000;
    double expected = 0.3 * (1 + p) / 2 + 0.7 / 8 * 0.5;
    std::cout << "[measure] burst 10 Gbps over " << periods << " periods: " << gbps
              << " Gbps, bytes of flows starting in burst windows " << inWindow / total
              << " (rule's expectation " << expected << ")\n";
    EXPECT_NEAR(gbps / 10, 1.0, 0.05);
    EXPECT_NEAR(inWindow / total, expected, 0.02);
    EXPECT_GT(inWindow / total, 0.25); // the band: about 30%, 25..35%
    EXPECT_LT(inWindow / total, 0.35);
    for (uint64_t k = 1; k + 1 < periods; ++k) // the edges may lend flows to neighbours
    {
        EXPECT_GE(perPeriod[k], 8u + 2u - 1u) << "period " << k;
    }
}

TEST(WebSearchSchedule, BurstAttributesShapeThePeriod)
{
    RngSeedManager::SetSeed(1);
    auto b = CreateObject<BurstWebSearchSchedule>();
    b->SetAttribute("BurstWidth", UintegerValue(500));
    b->SetAttribute("PeriodMultiple", UintegerValue(20));
    b->SetAttribute("MinFlows", UintegerValue(20));
    b->Setup(TestbedCdf(), DataRate("10Gbps"), 3);
    EXPECT_EQ(b->AssignStreams(50), 3);
    ASSERT_EQ(b->GetPeriodUs(), 10000u);
    ASSERT_EQ(b->GetBurstWidthUs(), 500u);
    const uint64_t periods = 200;
    std::vector<uint32_t> perPeriod(periods + 2, 0);
    FlowArrival f;
    while (b->Next(f) && f.startUs < periods * 10000)
    {
        EXPECT_EQ(f.destination, 3u);
        EXPECT_GE(f.sizeBytes, 1u);
        ++perPeriod[f.startUs / 10000];
    }
    for (uint64_t k = 1; k + 1 < periods; ++k)
    {
        EXPECT_GE(perPeriod[k], 20u + 2u - 1u) << "period " << k;
    }
}

TEST(WebSearchSchedule, SameStreamSameFlowsOtherStreamOthers)
{
    auto a = Draw(Consistent(12, false, 40), 1000);
    auto b = Draw(Consistent(12, false, 40), 1000);
    auto c = Draw(Consistent(12, false, 42), 1000);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_EQ(CreateObject<ConsistentWebSearchSchedule>()->AssignStreams(0), 2);
}

namespace
{

// Bytes of the flows a burst schedule starts in [0, seconds), as Gbps.
double
BurstOfferedGbps(double gbps, uint32_t sizeBlock, int64_t stream, double seconds)
{
    auto b = CreateObject<BurstWebSearchSchedule>();
    b->SetAttribute("SizeBlock", UintegerValue(sizeBlock));
    b->Setup(TestbedCdf(), DataRate(static_cast<uint64_t>(gbps * 1e9)), 0);
    b->AssignStreams(stream);
    double bytes = 0;
    FlowArrival f;
    while (b->Next(f) && f.startUs < seconds * 1e6)
    {
        bytes += f.sizeBytes;
    }
    return bytes * 8 / seconds / 1e9;
}

} // namespace

TEST(WebSearchSchedule, BurstOffersTheRequestedLoadInAShortRun)
{
    // The issue: 10 Gbps of burst over a 1.9 s run scheduled 9.38 Gbps. Over 20 streams: the
    // mean (unbiased: floor() used to drop up to one flow a period at 25 Gbps, where the rest
    // needs more than MinFlows flows, 2.6 % short) and the worst run, against independent
    // draws (the testbed generator's rule). What is left is the run's partial size block and
    // its largest flows: one 29 MB flow is 1.8 % of 10 Gbps' web-search bytes over 1.9 s.
    RngSeedManager::SetSeed(1);
    for (double gbps : { 10.0, 25.0 })
    {
        double worst = 0, worstIndependent = 0, mean = 0;
        for (int64_t stream = 100; stream < 120; ++stream)
        {
            double g = BurstOfferedGbps(gbps, 1000, stream * 3, 1.9);
            mean += g / 20;
            worst = std::max(worst, std::abs(g / gbps - 1));
            worstIndependent = std::max(
                worstIndependent, std::abs(BurstOfferedGbps(gbps, 0, stream * 3, 1.9) / gbps - 1));
        }
        std::cout << "[measure] burst " << gbps << " Gbps over 1.9 s, 20 streams: mean " << mean
                  << " Gbps, worst |error| " << worst * 100
                  << " % (independent draws: " << worstIndependent * 100 << " %)\n";
        EXPECT_NEAR(mean / gbps, 1.0, 0.005);
        EXPECT_LT(worst, 0.04);
        EXPECT_LT(worst, 0.6 * worstIndependent);
    }
}
