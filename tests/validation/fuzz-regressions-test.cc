// Inputs the fuzzers found in the series-manifest and sweep loaders (fuzz/regressions/): each
// must fail with the loader's documented error naming the file, never another exception or an
// undefined conversion (a number beyond an int, which UBSan reports).
#include "scenario.h"
#include "series-manifest.h"
#include "sweep.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <filesystem>

using namespace flumen;

namespace
{

// Each input of fuzz/regressions/<kind>/ fails with `Error` naming the file, or (where the
// input is valid after all, `mustFail` false) loads; never another exception.
template <typename Error, typename Load>
void
EveryInputFailsWith(const std::string& kind, Load load, bool mustFail = true)
{
    size_t n = 0;
    for (const auto& f :
         std::filesystem::directory_iterator(FLUMEN_SOURCE_DIR "/fuzz/regressions/" + kind))
    {
        const std::string path = f.path().string();
        try
        {
            load(path);
            EXPECT_FALSE(mustFail) << path << " was accepted";
        }
        catch (const Error& e)
        {
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
        }
        catch (const std::exception& e)
        {
            ADD_FAILURE() << path << ": undocumented exception: " << e.what();
        }
        ++n;
    }
    EXPECT_GT(n, 0u);
}

} // namespace

TEST(FuzzRegressionsLoaders, SeriesManifestsFailWithTraceErrorOnly)
{
    // A number beyond a double, a description or flag of the wrong type, models or cdfs not
    // arrays, 1e300 workers.
    EveryInputFailsWith<TraceError>("series-manifest", [](const std::string& p) { LoadSeries(p); });
}

TEST(FuzzRegressionsLoaders, SweepsFailWithScenarioErrorOnly)
{
    // The base's seed a string (ignored: "seeds" is given, so the sweep loads), or 1e300; an
    // empty base_file (it named the sweep's own folder, which the stream threw on).
    EveryInputFailsWith<ScenarioError>(
        "sweep", [](const std::string& p) { LoadSweep(p); }, false);
    try
    {
        LoadSweep(FLUMEN_SOURCE_DIR "/fuzz/regressions/sweep/base-file-empty.json");
        ADD_FAILURE() << "an empty base_file was accepted";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("key 'base_file'"), std::string::npos) << e.what();
    }
    try
    {
        LoadSweep(FLUMEN_SOURCE_DIR "/fuzz/regressions/sweep/base-seed-beyond-int.json");
        ADD_FAILURE() << "a seed of 1e300 was accepted";
    }
    catch (const ScenarioError& e)
    {
        EXPECT_NE(std::string(e.what()).find("key 'base.seed'"), std::string::npos) << e.what();
    }
}
