// Scenario inputs the fuzzers found (fuzz/, docs/testing.md), through the normal build: bad
// input fails with ScenarioError naming the key, never with another exception. The raw inputs
// are replayed from fuzz/regressions/scenario/ (a scenario file, then after a NUL byte the
// --set assignments, one per line).
#include "scenario.h"
#include "test-support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>

using namespace flumen;
using nlohmann::json;

namespace
{

// The message of the ScenarioError `f` throws ("" if none); any other exception fails the test.
std::string
ScenarioErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const ScenarioError& e)
    {
        return e.what();
    }
    catch (const std::exception& e)
    {
        ADD_FAILURE() << "undocumented exception: " << e.what();
    }
    return "";
}

// A message that JSON can hold (what sweep and validate write), i.e. valid UTF-8.
bool
IsUtf8(const std::string& text)
{
    try
    {
        (void)json(text).dump();
        return true;
    }
    catch (const json::type_error&)
    {
        return false;
    }
}

} // namespace

// A --set value that is not UTF-8 became a JSON string: nlohmann's dump() in the range message
// threw json::type_error (316) out of ResolveScenario, and a key without a range (name)
// resolved, to throw when the outputs were written after the run.
TEST(FuzzRegressionsScenario, SetValuesAndModelNamesThatAreNotUtf8AreScenarioErrors)
{
    for (const std::string set : { "cross_traffic.type=web\xf0"
                                   "earch",
                                   "name=\xff", "models.\xc3.parameters=1000" })
    {
        json user = { { "job", { { "iterations", 2 }, { "warmup_iterations", 1 } } } };
        std::string error = ScenarioErrorOf(
            [&]
            {
                ApplyOverride(user, set);
                ResolveScenario(user, "s.json");
            });
        EXPECT_NE(error.find("expected UTF-8 text"), std::string::npos) << error;
        std::string key = set.substr(0, std::min(set.find('='), set.find_first_of("\xf0\xff\xc3")));
        EXPECT_NE(error.find("s.json: key '" + key), std::string::npos) << error;
        EXPECT_TRUE(IsUtf8(error)) << error;
    }
    // UTF-8 beyond ASCII is text like any other.
    json user = { { "name", "d\xc3\xa9j\xc3\xa0 vu" } };
    EXPECT_EQ(ResolveScenario(user, "s.json").name, "d\xc3\xa9j\xc3\xa0 vu");
}

TEST(FuzzRegressionsScenario, FoundInputsFailWithScenarioErrorOnly)
{
    test::TempDir dir;
    for (const auto& f :
         std::filesystem::directory_iterator(FLUMEN_SOURCE_DIR "/fuzz/regressions/scenario"))
    {
        std::string input = test::ReadFile(f.path().string());
        size_t nul = input.find('\0');
        std::string path = dir.Write("scenario.json", input.substr(0, nul));
        std::string error = ScenarioErrorOf(
            [&]
            {
                json user = LoadScenarioFile(path);
                for (size_t from = nul + 1; nul != std::string::npos && from <= input.size();)
                {
                    size_t end = std::min(input.find('\n', from), input.size());
                    ApplyOverride(user, input.substr(from, end - from));
                    from = end + 1;
                }
                ResolveScenario(user, path);
            });
        EXPECT_NE(error, "") << f.path();
        EXPECT_TRUE(IsUtf8(error)) << error;
    }
}
