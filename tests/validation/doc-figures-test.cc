// The flow engine's comparison tables in docs/flow-engine.md quote committed result files
// (results/flow-engine/engines.md and engines-testbed.md, written by the flow validation's
// command): a re-run that moves a figure must move the doc with it.
#include "test-support.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

namespace
{

const std::string kDoc = FLUMEN_SOURCE_DIR "/docs/flow-engine.md";
const std::string kResults = FLUMEN_SOURCE_DIR "/results/flow-engine/";

// The first capture of `pattern` in `text` (empty, with a test failure, when it is not there).
std::string
Capture(const std::string& text, const std::string& pattern, const std::string& where)
{
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(pattern)))
    {
        ADD_FAILURE() << where << ": no match for " << pattern;
        return "";
    }
    return m[1].str();
}

TEST(DocFigures, TheEnginesAgainstTheTestbedTableIsTheCommittedOne)
{
    const std::string doc = flumen::test::ReadFile(kDoc);
    std::istringstream table(flumen::test::ReadFile(kResults + "engines-testbed.md"));
    std::string line;
    int rows = 0;
    while (std::getline(table, line))
    {
        if (line.rfind("| iperf-", 0) == 0 || line.rfind("| websearch-", 0) == 0)
        {
            ++rows;
            EXPECT_NE(doc.find(line + "\n"), std::string::npos)
                << "docs/flow-engine.md lacks the row of engines-testbed.md:\n"
                << line;
        }
    }
    EXPECT_GE(rows, 10);
}

TEST(DocFigures, TheAgreementTableHasTheCommittedHeadline)
{
    const std::string doc = flumen::test::ReadFile(kDoc);
    const std::string md = flumen::test::ReadFile(kResults + "engines.md");
    const std::string runs = R"(engines: (\d+) of \d+ runs compared)";
    const std::string mean
        = R"(mean iteration time \|flow - packet\|: median ([0-9.]+) %[^,]*, p95 ([0-9.]+) %)";
    const std::string domain
        = R"(in the flow engine's domain[^:]*: (\d+) of the \d+ runs, mean iteration time \|flow - packet\| median [0-9.]+ %, p95 ([0-9.]+) %)";
    const std::string p99 = R"(p99 iteration time: median ([0-9.]+) %)";
    const std::string cross = R"(achieved cross traffic: median ([0-9.]+) %)";

    EXPECT_EQ(Capture(doc, R"(; (\d+) of \d+ runs finished uncensored in both)", "doc"),
              Capture(md, runs, "engines.md"));
    EXPECT_EQ(
        Capture(doc, R"(\| mean iteration time, median \\\|difference\\\| \| ([0-9.]+) %)", "doc"),
        Capture(md, mean, "engines.md"));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(md, m, std::regex(mean)));
    EXPECT_EQ(
        Capture(doc, R"(\| mean iteration time, 95th percentile \\\|difference\\\| \| ([0-9.]+) %)",
                "doc"),
        m[2].str());
    ASSERT_TRUE(std::regex_search(md, m, std::regex(domain)));
    EXPECT_EQ(Capture(doc, R"(\| the same over the runs in the engine's domain \((\d+) of)", "doc"),
              m[1].str());
    EXPECT_EQ(Capture(doc, R"(what `auto` keeps at flow level\) \| ([0-9.]+) %)", "doc"),
              m[2].str());
    EXPECT_EQ(
        Capture(doc, R"(\| p99 iteration time, median \\\|difference\\\| \| ([0-9.]+) %)", "doc"),
        Capture(md, p99, "engines.md"));
    EXPECT_EQ(Capture(doc,
                      R"(\| achieved cross-traffic rate, median \\\|difference\\\| \| ([0-9.]+) %)",
                      "doc"),
              Capture(md, cross, "engines.md"));
}

} // namespace
