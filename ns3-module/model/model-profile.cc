#include "model-profile.h"

namespace ns3
{

namespace
{

// Measured no-cross-traffic iteration time (RDMA, 4 workers; DESIGN.md) minus the ring's
// bytes at 25 Gbps: t0 - 2*(3/4)*4*P*8/25e9. Jitter CV of 2% is a placeholder until the
// calibration issue derives it from the index-0 runs.
ModelProfile
Make(const std::string& name, uint64_t params, double idleIterationS)
{
    ModelProfile p;
    p.name = name;
    p.parameters = params;
    double ringSeconds = p.RingBytesPerWorker(4) * 8.0 / 25e9;
    p.computeSeconds = idleIterationS - ringSeconds;
    p.computeJitterCv = 0.02;
    return p;
}

const std::vector<ModelProfile>&
Table()
{
    static const std::vector<ModelProfile> table = {
        Make("resnet50", 25557032ULL, 0.16),
        Make("densenet161", 28681000ULL, 0.38),
        Make("vgg16", 138357444ULL, 0.37),
        Make("bert-large", 366428986ULL, 0.84),
    };
    return table;
}

} // namespace

double
ModelProfile::RingBytesPerWorker(uint32_t n) const
{
    if (n < 2)
    {
        return 0.0;
    }
    return 2.0 * (n - 1) / n * static_cast<double>(GradientBytes());
}

std::optional<ModelProfile>
ModelProfile::BuiltIn(const std::string& name)
{
    for (const auto& p : Table())
    {
        if (p.name == name)
        {
            return p;
        }
    }
    return std::nullopt;
}

std::vector<std::string>
ModelProfile::BuiltInNames()
{
    std::vector<std::string> names;
    for (const auto& p : Table())
    {
        names.push_back(p.name);
    }
    return names;
}

} // namespace ns3
