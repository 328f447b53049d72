// The fuzzers' findings as a user meets them through flumen-run (docs/testing.md).
#include "test-support.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>

using namespace flumen;

// A --set value that is not UTF-8 resolved: name=0xFF ran the whole simulation, then failed
// writing summary.json (exit 1, iterations.csv and link.csv left in --out); a non-UTF-8 value of
// a key with choices aborted flumen-run (uncaught json::type_error). Now both exit 2 before
// anything runs, naming the key.
TEST(FuzzRegressionsPrograms, SetValuesThatAreNotUtf8ExitTwoBeforeRunning)
{
    test::TempDir dir;
    for (std::string set :
         { "name=$(printf '\\377')", "cross_traffic.type=$(printf 'web\\360earch')" })
    {
        auto r
            = test::RunFlumen(fmt::format("{}/scenarios/quickstart.json --set \"{}\" --out {}/out",
                                          FLUMEN_SOURCE_DIR, set, dir.Path()));
        EXPECT_EQ(r.exitCode, 2) << r.output;
        EXPECT_NE(r.output.find("expected UTF-8 text"), std::string::npos) << r.output;
        EXPECT_FALSE(std::filesystem::exists(dir.Path() + "/out"));
    }
}
