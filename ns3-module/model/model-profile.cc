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
    uint32_t batch; //!< per-worker batch the compute time is for
};

// The built-in models measured on the testbed, with the per-GPU batch of those runs (the
// thesis's Table 2.1: 64 for the CNNs, 8 for BERT-large); their architectures come from
// BuiltInModelLayers.
struct Measured
{
    const char* name;
    uint32_t batch;
};

const Measured kMeasuredModels[]
    = { { "resnet50", 64 }, { "densenet161", 64 }, { "vgg16", 64 }, { "bert-large", 8 } };

// Built-in models the testbed did not measure (the measurement framework's models): their
// compute time is the measured model's of the same family (same batch) scaled by the ratio of
// forward FLOPs, with that model's backward share and jitter. Approximate: FLOPs track time
// within a family of the same layer types; MobileNetV2's depthwise convolutions are memory
// bound, so its time scaled from ResNet-50 is low (its exposure to the network high).
struct Derived
{
    const char* name;
    const char* from;
};

const Derived kDerivedModels[] = { { "resnet101", "resnet50" },
                                   { "densenet201", "densenet161" },
                                   { "mobilenetv2", "resnet50" } };

// Each measured model's profile from the shipped testbed calibration (`./flumen calibrate` on
// the testbed's runs without cross traffic, validation/calibration.json, compiled in): the one
// source of these numbers.
std::vector<Calibrated>
CalibratedProfiles()
{
    const auto calibration = nlohmann::json::parse(kBuiltInCalibrationJson);
    std::vector<Calibrated> out;
    for (const auto& measured : kMeasuredModels)
    {
        const char* name = measured.name;
        const auto& models = calibration.at("models");
        NS_ABORT_MSG_UNLESS(models.contains(name),
                            "validation/calibration.json has no profile of built-in model "
                                << name);
        const auto& m = models.at(name);
        out.push_back({ name, m.at("compute_s").get<double>(),
                        m.value("backward_share", ModelProfile::kDefaultBackwardShare),
                        m.at("compute_jitter_cv").get<double>(), measured.batch });
    }
    return out;
}

double
ForwardFlops(const std::string& model)
{
    double total = 0;
    for (const auto& l : BuiltInModelLayers(model))
    {
        total += l.forwardFlops;
    }
    return total;
}

// The derived models' profiles, from the measured ones.
std::vector<Calibrated>
DerivedProfiles(const std::vector<Calibrated>& measured)
{
    std::vector<Calibrated> out;
    for (const auto& d : kDerivedModels)
    {
        auto from = std::find_if(measured.begin(), measured.end(),
                                 [&](const Calibrated& c) { return c.name == d.from; });
        NS_ABORT_MSG_UNLESS(from != measured.end(), "no measured model " << d.from);
        Calibrated c = *from;
        c.name = d.name;
        c.computeSeconds *= ForwardFlops(d.name) / ForwardFlops(d.from);
        out.push_back(c);
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
    p.referenceBatch = c.batch;
    p.SetComputeSeconds(c.computeSeconds, c.backwardShare);
    return p;
}

const std::vector<ModelProfile>&
Table()
{
    static const std::vector<ModelProfile> table = []
    {
        std::vector<ModelProfile> t;
        const auto measured = CalibratedProfiles();
        for (const auto& c : measured)
        {
            t.push_back(Make(c));
        }
        for (const auto& c : DerivedProfiles(measured))
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

void
ModelProfile::ScaleToBatch(uint32_t batch)
{
    NS_ABORT_MSG_UNLESS(referenceBatch > 0 && batch > 0,
                        "ScaleToBatch needs the batch the compute time is for");
    const double f = static_cast<double>(batch) / referenceBatch;
    forwardSeconds *= f;
    backwardSeconds *= f;
    referenceBatch = batch;
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
