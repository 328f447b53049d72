#include "calibration-file.h"

#include "scenario.h"

#include <fmt/format.h>

namespace flumen
{

using nlohmann::json;

namespace
{

// Whether a dotted key is present in a (partial) scenario.
bool
IsSet(const json& scenario, const std::string& key)
{
    const json* at = &scenario;
    size_t from = 0;
    while (true)
    {
        size_t dot = key.find('.', from);
        std::string part
            = key.substr(from, dot == std::string::npos ? std::string::npos : dot - from);
        if (!at->is_object() || !at->contains(part))
        {
            return false;
        }
        at = &(*at)[part];
        if (dot == std::string::npos)
        {
            return true;
        }
        from = dot + 1;
    }
}

// Whether the job's ring runs over TCP (job.transport, or its declared default), read before
// the scenario is resolved.
bool
IsTcpJob(const json& scenario)
{
    const json& transport = IsSet(scenario, "job.transport")
                                ? scenario.at("job").at("transport")
                                : FindKey(ScenarioKeys(), "job.transport")->defaultValue;
    return !transport.is_string() || transport.get<std::string>() == "tcp";
}

} // namespace

json
LoadCalibration(const std::string& path)
{
    json calibration = LoadScenarioFile(path, "calibration file");
    json probe = json::object();
    ApplyCalibration(probe, calibration, path); // the file's shape
    for (const auto& entry : calibration["models"].items())
    {
        json one = { { "job", { { "model", entry.key() } } } };
        ApplyCalibration(one, calibration, path); // every model's entry
    }
    return calibration;
}

bool
ApplyCalibration(json& scenario, const json& calibration, const std::string& calibrationSource)
{
    if (!calibration.is_object() || !calibration.contains("models")
        || !calibration["models"].is_object())
    {
        throw ScenarioError(fmt::format("{}: expected an object with \"models\" (a calibration "
                                        "file written by flumen calibrate)",
                                        calibrationSource));
    }
    if (calibration.contains("testbed"))
    {
        // Testbed parameters fitted to loaded points (flumen calibrate --fit), unless the
        // scenario sets its own.
        const json& t = calibration["testbed"];
        if (!t.is_object() || !t.contains("values") || !t["values"].is_object())
        {
            throw ScenarioError(fmt::format("{}: key 'testbed': expected an object with "
                                            "\"values\" (scenario key -> fitted value)",
                                            calibrationSource));
        }
        for (const auto& [key, value] : t["values"].items())
        {
            if (!value.is_number())
            {
                throw ScenarioError(fmt::format("{}: key 'testbed.values.{}': expected a number",
                                                calibrationSource, key));
            }
            json probe = json::object();
            try
            {
                SetKey(probe, key, value);
            }
            catch (const ScenarioError& e)
            {
                throw ScenarioError(
                    fmt::format("{}: testbed.values: {}", calibrationSource, e.what()));
            }
            if (!IsSet(scenario, key))
            {
                SetKey(scenario, key, value);
            }
        }
    }
    if (calibration.contains("transports"))
    {
        // The host's TCP ceiling (fitted by calibrate where the testbed ran TCP), unless the
        // scenario sets its own; set only on a TCP job, the only one it acts on.
        const json& t = calibration["transports"];
        if (!t.is_object() || (t.contains("tcp") && !t["tcp"].is_object()))
        {
            throw ScenarioError(fmt::format("{}: key 'transports': expected an object of "
                                            "transports (\"tcp\": {{\"host_ceiling_gbps\": "
                                            "...}})",
                                            calibrationSource));
        }
        if (t.contains("tcp"))
        {
            const json& tcp = t["tcp"];
            if (!tcp.contains("host_ceiling_gbps") || !tcp["host_ceiling_gbps"].is_number()
                || !(tcp["host_ceiling_gbps"].get<double>() >= 0))
            {
                throw ScenarioError(fmt::format("{}: key 'transports.tcp.host_ceiling_gbps': "
                                                "expected a number of Gbps (0 = none)",
                                                calibrationSource));
            }
            bool set = scenario.contains("job") && scenario["job"].contains("tcp")
                       && scenario["job"]["tcp"].contains("host_ceiling_gbps");
            // An RDMA job has no socket path: the value would only change its runs' ids.
            if (!set && IsTcpJob(scenario))
            {
                scenario["job"]["tcp"]["host_ceiling_gbps"] = tcp["host_ceiling_gbps"];
            }
        }
    }
    std::string model = "resnet50";
    if (scenario.contains("job") && scenario["job"].contains("model")
        && scenario["job"]["model"].is_string())
    {
        model = scenario["job"]["model"].get<std::string>();
    }
    if (!calibration["models"].contains(model))
    {
        return false;
    }
    const json& m = calibration["models"][model];
    // Each field fills the job unless the scenario sets its own. A calibration without a
    // backward share (one fitted parameter) keeps the model's.
    struct Field
    {
        const char* name;
        bool required;
        double min, max; //!< open below, closed above
    };
    for (const Field& f : { Field{ "compute_s", true, -1e300, 1e300 },
                            Field{ "compute_jitter_cv", true, -1e300, 1e300 },
                            Field{ "backward_share", false, 0, 0.98 } })
    {
        if (!f.required && !m.contains(f.name))
        {
            continue;
        }
        if (!m.contains(f.name) || !m[f.name].is_number())
        {
            throw ScenarioError(fmt::format("{}: key 'models.{}.{}': expected a number",
                                            calibrationSource, model, f.name));
        }
        double v = m[f.name].get<double>();
        if (!(v > f.min && v <= f.max))
        {
            throw ScenarioError(fmt::format("{}: key 'models.{}.{}': expected a number in ({}, "
                                            "{}], got {}",
                                            calibrationSource, model, f.name, f.min, f.max,
                                            m[f.name].dump()));
        }
        if (!(scenario.contains("job") && scenario["job"].contains(f.name)))
        {
            scenario["job"][f.name] = m[f.name];
        }
    }
    return true;
}

} // namespace flumen
