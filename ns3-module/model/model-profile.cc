#include "model-profile.h"

#include "model-layers.h"

#include "ns3/abort.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <numeric>

namespace ns3
{

extern const char* const kBuiltInCalibrationJson; // generated from validation/calibration.json

namespace
{

// A built-in model's compute time per iteration (forward + backward + step, no
// communication), its backward share and the jitter CV of each phase.
struct Calibrated
{
    std::string name;
    double computeSeconds;
    double backwardShare;
    double jitterCv;
};

// The built-in models, in the order BuiltInNames lists them; their architectures come from
// BuiltInModelLayers.
const char* const kBuiltInModels[] = { "resnet50", "densenet161", "vgg16", "bert-large" };

// Each built-in model's profile from the shipped testbed calibration (`./flumen calibrate` on
// the testbed's runs without cross traffic, validation/calibration.json, compiled in): the one
// source of these numbers.
std::vector<Calibrated>
CalibratedProfiles()
{
    const auto calibration = nlohmann::json::parse(kBuiltInCalibrationJson);
    std::vector<Calibrated> out;
    for (const char* name : kBuiltInModels)
    {
        const auto& models = calibration.at("models");
        NS_ABORT_MSG_UNLESS(models.contains(name),
                            "validation/calibration.json has no profile of built-in model "
                                << name);
        const auto& m = models.at(name);
        out.push_back({ name, m.at("compute_s").get<double>(),
                        m.value("backward_share", ModelProfile::kDefaultBackwardShare),
                        m.at("compute_jitter_cv").get<double>() });
    }
    return out;
}

ModelProfile
Make(const Calibrated& c)
{
    ModelProfile p;
    p.name = c.name;
    for (const auto& l : BuiltInModelLayers(c.name))
    {
        GradientTensor t;
        t.parameters = l.parameters;
        t.backwardWeight = l.forwardFlops;
        p.layers.push_back(t);
        p.parameters += l.parameters;
    }
    p.computeJitterCv = c.jitterCv;
    p.SetComputeSeconds(c.computeSeconds, c.backwardShare);
    return p;
}

const std::vector<ModelProfile>&
Table()
{
    static const std::vector<ModelProfile> table = []
    {
        std::vector<ModelProfile> t;
        for (const auto& c : CalibratedProfiles())
        {
            t.push_back(Make(c));
        }
        return t;
    }();
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

double
ModelProfile::StepSecondsFor(uint64_t parameters)
{
    return 5.0 * 4.0 * static_cast<double>(parameters) / 1.2e12;
}

double
ModelProfile::BackwardShare() const
{
    double pass = forwardSeconds + backwardSeconds;
    return pass > 0 ? backwardSeconds / pass : kDefaultBackwardShare;
}

void
ModelProfile::SetComputeSeconds(double total, double backwardShare)
{
    stepSeconds = std::min(StepSecondsFor(parameters), total / 10.0);
    double rest = total - stepSeconds;
    backwardSeconds = rest * backwardShare;
    forwardSeconds = rest - backwardSeconds;
}

std::vector<uint64_t>
ModelProfile::ReleaseBytes() const
{
    std::vector<uint64_t> out;
    if (layers.empty())
    {
        out.push_back(GradientBytes());
        return out;
    }
    for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    {
        out.push_back(it->parameters * bytesPerParameter);
    }
    return out;
}

std::vector<double>
ModelProfile::ReleaseFractions() const
{
    std::vector<double> out;
    if (layers.empty())
    {
        out.push_back(1.0);
        return out;
    }
    double total = 0;
    for (const auto& l : layers)
    {
        total += l.backwardWeight;
    }
    double done = 0;
    for (auto it = layers.rbegin(); it != layers.rend(); ++it)
    {
        done += it->backwardWeight;
        out.push_back(total > 0 ? std::min(1.0, done / total) : 1.0);
    }
    out.back() = 1.0;
    return out;
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
