// Calibration files (LoadCalibration), then applied to a scenario of each model they hold and
// to one without a model, and resolved. Only ScenarioError may escape.
#include "fuzz-support.h"

#include "calibration-file.h"
#include "scenario.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    using nlohmann::json;
    const std::string path = fuzz::WriteInput("calibration.json", data, size);
    json calibration;
    fuzz::Expect<ScenarioError>("calibration", [&] { calibration = LoadCalibration(path); });
    if (calibration.is_null())
    {
        return 0;
    }
    std::vector<json> scenarios = { json::object() };
    for (const auto& entry : calibration["models"].items())
    {
        scenarios.push_back({ { "job", { { "model", entry.key() } } } });
        if (scenarios.size() > 8)
        {
            break;
        }
    }
    for (json& s : scenarios)
    {
        fuzz::Expect<ScenarioError>("calibration",
                                    [&]
                                    {
                                        ApplyCalibration(s, calibration, path);
                                        (void)ResolveScenario(s, "calibrated");
                                    });
    }
    return 0;
}
