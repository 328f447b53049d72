// The flow engine's comparison tables in docs/flow-engine.md quote committed result files
// (results/flow-engine/engines.md and engines-testbed.md, written by the flow validation's
// command): a re-run that moves a figure must move the doc with it.
#include "test-support.h"

#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace
{

const std::string kDoc = FLUMEN_SOURCE_DIR "/docs/flow-engine.md";
const std::string kResults = FLUMEN_SOURCE_DIR "/results/flow-engine/";

// The text of the section that starts with `heading`, up to the next section of its level.
std::string
Section(const std::string& doc, const std::string& heading)
{
    const size_t at = doc.find("\n" + heading + "\n");
    if (at == std::string::npos)
    {
        ADD_FAILURE() << "docs/flow-engine.md has no section " << heading;
        return "";
    }
    const size_t end = doc.find("\n## ", at + heading.size() + 1);
    return doc.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// The captures of `pattern` in `text` (empty, with a test failure, when it is not there).
std::vector<std::string>
Captures(const std::string& text, const std::string& pattern, const std::string& where)
{
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(pattern)))
    {
        ADD_FAILURE() << where << ": no match for " << pattern;
        return {};
    }
    return std::vector<std::string>(m.begin() + 1, m.end());
}

// The rows of the first Markdown table in `text` (after its |---| line).
std::vector<std::string>
TableRows(const std::string& text)
{
    std::istringstream in(text);
    std::vector<std::string> rows;
    std::string line;
    bool inTable = false;
    while (std::getline(in, line))
    {
        if (line.rfind("|---", 0) == 0)
        {
            inTable = true;
        }
        else if (inTable && line.rfind("|", 0) == 0)
        {
            rows.push_back(line);
        }
        else if (inTable)
        {
            break;
        }
    }
    return rows;
}

TEST(DocFigures, TheEnginesAgainstTheTestbedTableIsTheCommittedOne)
{
    const std::vector<std::string> committed
        = TableRows(flumen::test::ReadFile(kResults + "engines-testbed.md"));
    const std::vector<std::string> quoted = TableRows(
        Section(flumen::test::ReadFile(kDoc), "## Against the testbed, beside the packet level"));
    EXPECT_GE(committed.size(), 10u);
    EXPECT_EQ(quoted, committed);
}

TEST(DocFigures, TheAgreementFiguresAreTheCommittedOnes)
{
    const std::string doc = flumen::test::ReadFile(kDoc);
    const std::string agreement = Section(doc, "## Agreement with the packet level");
    const std::string trust = Section(doc, "## Where to trust it");
    const std::string md = flumen::test::ReadFile(kResults + "engines.md");
    const std::string number = "([0-9.]+)";

    // engines.md: compared runs of all; the mean's median and p95; the engine's domain.
    const auto runs = Captures(md, R"(engines: (\d+) of (\d+) runs compared)", "engines.md");
    const auto mean = Captures(md,
                               "mean iteration time \\|flow - packet\\|: median " + number
                                   + " %[^,]*, p95 " + number + " %",
                               "engines.md");
    const auto domain = Captures(md,
                                 R"(in the flow engine's domain[^:]*: (\d+) of the (\d+) runs, )"
                                 "mean iteration time \\|flow - packet\\| median "
                                     + number + " %, p95 " + number + " %",
                                 "engines.md");
    const auto p99 = Captures(md, "p99 iteration time: median " + number + " %", "engines.md");
    const auto cross
        = Captures(md, "achieved cross traffic: median " + number + " %", "engines.md");
    ASSERT_EQ(runs.size(), 2u);
    ASSERT_EQ(mean.size(), 2u);
    ASSERT_EQ(domain.size(), 4u);
    ASSERT_EQ(p99.size(), 1u);
    ASSERT_EQ(cross.size(), 1u);

    EXPECT_EQ(Captures(agreement, R"(; (\d+) of (\d+) runs finished uncensored in both)", "doc"),
              (std::vector<std::string>{ runs[0], runs[1] }));
    const std::string row = "\n\\| ";
    // The figure in the first column of the agreement table's row that starts with `label`
    // (a regular expression; "\|difference\|" is written escaped in the Markdown).
    const std::string difference = "\\\\\\|difference\\\\\\|";
    auto figure = [&](const std::string& label)
    { return Captures(agreement, row + label + "[^|]*\\| " + number + " % \\|", "doc"); };
    using Figures = std::vector<std::string>;
    EXPECT_EQ(figure("mean iteration time, median " + difference), Figures{ mean[0] });
    EXPECT_EQ(figure("mean iteration time, 95th percentile " + difference), Figures{ mean[1] });
    EXPECT_EQ(figure("p99 iteration time, median " + difference), Figures{ p99[0] });
    EXPECT_EQ(figure("achieved cross-traffic rate, median " + difference), Figures{ cross[0] });
    EXPECT_EQ(figure("the same over the runs in the engine's domain \\((\\d+) of (\\d+):"),
              (Figures{ domain[0], domain[1], domain[3] }));
    // "Where to trust it" quotes the engine's domain too.
    EXPECT_EQ(Captures(trust,
                       row
                           + "the shipped validation, in the engine's domain \\((\\d+) of (\\d+) "
                             "runs\\) \\| median "
                           + number + " %, 95th percentile " + number + " %",
                       "doc"),
              domain);
}

} // namespace
