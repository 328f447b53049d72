#include "scenario-models.h"

#include "scenario-checks.h"

#include "layers-file.h"

#include <fmt/format.h>

namespace flumen::detail
{

using nlohmann::json;

namespace
{

// A model defined under `models`: one gradient tensor of `parameters`, or the layers of its
// layers_file.
ModelSettings
UserModel(const std::string& source, const std::string& base, const json& m)
{
    ModelSettings ms;
    const auto parameters = m["parameters"].get<uint64_t>();
    const auto layersFile = m["layers_file"].get<std::string>();
    if (layersFile.empty())
    {
        if (parameters == 0)
        {
            Fail(source, base + ".parameters",
                 "missing: expected the model's trainable parameters (or a layers_file)");
        }
        ms.parameters = parameters;
    }
    else
    {
        std::vector<FileLayer> layers;
        try
        {
            layers = ReadLayersFile(ScenarioRelative(source, layersFile));
        }
        catch (const LayersFileError& e)
        {
            Fail(source, base + ".layers_file", e.what());
        }
        for (const auto& l : layers)
        {
            ms.layers.push_back({ l.parameters, l.compute });
            ms.parameters += l.parameters;
        }
        if (parameters != 0 && parameters != ms.parameters)
        {
            Fail(source, base + ".parameters",
                 fmt::format("expected 0 or the layers' sum {} from {}, got {}", ms.parameters,
                             layersFile, parameters));
        }
    }
    ms.computeJitterCv = m["compute_jitter_cv"].get<double>();
    ms.referenceBatch = m["batch_size"].get<uint32_t>();
    ms.SetComputeSeconds(m["compute_s"].get<double>(), m["backward_share"].get<double>());
    return ms;
}

} // namespace

UserModels
ParseUserModels(const std::string& source, const json& user)
{
    UserModels out;
    json models = user.contains("models") ? user.at("models") : json::object();
    if (!models.is_object())
    {
        Fail(source, "models",
             fmt::format("expected an object of model name -> {{parameters, compute_s, "
                         "compute_jitter_cv}}, got {}",
                         Short(models)));
    }
    out.resolved = json::object();
    for (auto it = models.begin(); it != models.end(); ++it)
    {
        std::string base = "models." + it.key();
        if (!it.value().is_object())
        {
            Fail(source, base,
                 fmt::format("expected an object with parameters, compute_s, "
                             "compute_jitter_cv, got {}",
                             Short(it.value())));
        }
        json m;
        for (const auto& spec : ModelKeys())
        {
            if (!it.value().contains(spec.path))
            {
                if (spec.defaultValue.is_null())
                {
                    Fail(source, base + "." + spec.path,
                         fmt::format("missing: expected {} ({})", TypeName(spec.type), spec.help));
                }
                m[spec.path] = spec.defaultValue;
            }
            else
            {
                CheckValue(source, base + "." + spec.path, spec, it.value().at(spec.path));
                m[spec.path] = it.value().at(spec.path);
            }
        }
        for (auto f = it.value().begin(); f != it.value().end(); ++f)
        {
            if (!FindKey(ModelKeys(), f.key()))
            {
                std::string known;
                for (const auto& spec : ModelKeys())
                {
                    known += (known.empty() ? "" : ", ") + spec.path;
                }
                Fail(source, base + "." + f.key(), fmt::format("unknown key (known: {})", known));
            }
        }
        ModelSettings ms = UserModel(source, base, m);
        ms.name = it.key();
        out.models[it.key()] = ms;
        out.resolved[it.key()] = m;
    }
    return out;
}

// The model: a user-defined one or a built-in profile, then the job's overrides.
void
ResolveModel(Scenario& s, const std::map<std::string, ModelSettings>& userModels)
{
    if (auto it = userModels.find(s.modelName); it != userModels.end())
    {
        s.model = it->second;
    }
    else if (auto builtIn = ns3::ModelProfile::BuiltIn(s.modelName))
    {
        s.model = *builtIn;
    }
    else
    {
        std::string known;
        for (const auto& n : ns3::ModelProfile::BuiltInNames())
        {
            known += (known.empty() ? "" : ", ") + n;
        }
        for (const auto& [n, m] : userModels)
        {
            known += ", " + n;
        }
        Fail(s.source, "job.model",
             fmt::format("unknown model '{}' (expected one of {}, or define it under models)",
                         s.modelName, known));
    }
    const auto& o = s.modelOverrides;
    if (o.computeS > 0)
    {
        s.model.SetComputeSeconds(o.computeS);
    }
    if (o.backwardShare > 0)
    {
        s.model.SetComputeSeconds(s.model.ComputeSeconds(), o.backwardShare);
    }
    if (o.computeJitterCv >= 0)
    {
        s.model.computeJitterCv = o.computeJitterCv;
    }
    if (o.batchSize > 0)
    {
        if (s.model.referenceBatch == 0)
        {
            Fail(s.source, "job.batch_size",
                 fmt::format("model '{}' states no batch its compute time is for: set "
                             "models.{}.batch_size",
                             s.modelName, s.modelName));
        }
        s.model.ScaleToBatch(o.batchSize);
    }
}

} // namespace flumen::detail
