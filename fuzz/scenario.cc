// Scenario files and --set: the text of a scenario file, optionally followed by a NUL byte and
// --set assignments (key=value), one per line. LoadScenarioFile, ApplyOverride and
// ResolveScenario may throw only ScenarioError. The file sits next to quickstart.json and
// websearch_cdf.txt, which cross_traffic.size_cdf may name.
#include "fuzz-support.h"

#include "scenario.h"

#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string input(reinterpret_cast<const char*>(data), size);
    const size_t nul = input.find('\0');
    const std::string path = fuzz::WriteText("scenario.json", input.substr(0, nul));
    std::vector<std::string> sets;
    if (nul != std::string::npos)
    {
        size_t from = nul + 1;
        while (from <= input.size())
        {
            size_t end = input.find('\n', from);
            if (end == std::string::npos)
            {
                end = input.size();
            }
            sets.push_back(input.substr(from, end - from));
            from = end + 1;
        }
    }
    fuzz::Expect<ScenarioError>("scenario",
                                [&]
                                {
                                    nlohmann::json j = LoadScenarioFile(path);
                                    for (const auto& s : sets)
                                    {
                                        ApplyOverride(j, s);
                                    }
                                    Scenario scenario = ResolveScenario(j, path);
                                    (void)ModelVersion(scenario);
                                    // What the runner reads back: every key of the resolved
                                    // scenario.
                                    for (const auto& key : ScenarioKeys())
                                    {
                                        (void)ValueAt(scenario.resolved, key.path);
                                    }
                                });
    return 0;
}
