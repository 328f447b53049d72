// The shipped examples' sweep files stay valid: every point of each resolves (a renamed key or
// a value out of range would fail the sweep before it runs, exit 2), counted by --status in an
// empty folder, where nothing is done yet (exit 1). The examples' scenario files (no grid)
// resolve as `flumen run` would resolve them.
#include "scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace fs = std::filesystem;
using namespace flumen;

TEST(ExampleSweeps, EverySweepFileResolvesEveryPoint)
{
    size_t files = 0;
    size_t scenarios = 0;
    for (const auto& folder : fs::directory_iterator(FLUMEN_SOURCE_DIR "/examples"))
    {
        if (!folder.is_directory())
        {
            continue;
        }
        for (const auto& file : fs::directory_iterator(folder.path()))
        {
            if (file.path().extension() != ".json")
            {
                continue;
            }
            const std::string path = file.path().string();
            if (!nlohmann::json::parse(test::ReadFile(path)).contains("grid"))
            {
                EXPECT_NO_THROW(ResolveScenario(LoadScenarioFile(path), path)) << path;
                ++scenarios;
                continue;
            }
            test::TempDir dir;
            auto r
                = test::RunSweep(file.path().string() + " --out " + dir.Path() + "/out --status");
            EXPECT_EQ(r.exitCode, 1) << file.path() << ": " << r.output;
            EXPECT_NE(r.output.find(" points: 0 done"), std::string::npos)
                << file.path() << ": " << r.output;
            ++files;
        }
    }
    EXPECT_GE(files, 16u);    // the examples' sweep files as shipped (2026-12-05)
    EXPECT_GE(scenarios, 3u); // and their scenario files (examples/mltcp)
}
