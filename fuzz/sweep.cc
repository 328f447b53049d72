// Sweep files (LoadSweep): every point is resolved, so the scenario checks run too. Only
// ScenarioError may escape. The file sits next to quickstart.json (base_file) and
// websearch_cdf.txt.
#include "fuzz-support.h"

#include "sweep.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("sweep.json", data, size);
    fuzz::Expect<ScenarioError>(
        "sweep",
        [&]
        {
            Sweep sweep = LoadSweep(path);
            std::vector<std::string> columns = ResultColumns(sweep);
            for (const auto& p : sweep.points)
            {
                if (ResultRow(sweep, p, nullptr, "pending", "").size() != columns.size())
                {
                    __builtin_trap(); // a results.csv row must match its header
                }
            }
        });
    return 0;
}
