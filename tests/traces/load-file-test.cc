// The testbed generator's load files: round trip, a hand-written file, and every kind of bad
// line named by its number.
#include "load-file.h"
#include "test-support.h"

#include <gtest/gtest.h>

using namespace flumen;

namespace
{

std::string
ErrorOf(const std::string& text)
{
    try
    {
        ParseLoadFile(text, "bad.txt");
    }
    catch (const LoadFileError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(LoadFile, RoundTrip)
{
    std::vector<LoadFileFlow> flows
        = { { 0, 1, 0 }, { 0, 1460, 0 }, { 948, 2369492, 0 }, { 5000, 28000000000ULL, 3 } };
    EXPECT_EQ(ParseLoadFile(FormatLoadFile(flows), "mem"), flows);
}

TEST(LoadFile, HandWrittenFileWithCrlfAndTrailingBlankLines)
{
    auto flows
        = ParseLoadFile("3\r\n10 5000 0\r\n10\t1460  0 \r\n2500.4 1234.6 1\r\n\r\n\n", "hand.txt");
    std::vector<LoadFileFlow> expected = { { 10, 5000, 0 }, { 10, 1460, 0 }, { 2500, 1235, 1 } };
    EXPECT_EQ(flows, expected);
}

TEST(LoadFile, BadLinesNameTheLine)
{
    struct Case
    {
        std::string text;
        std::string where;
        std::string what;
    };
    std::vector<Case> cases = {
        { "", "bad.txt:1:", "flow count" },
        { "two\n", "bad.txt:1:", "flow count" },
        { "2\n0 10 0\n", "bad.txt:3:", "ended after 1 of the 2" },
        { "1\n0 10 0\n5 10 0\n", "bad.txt:3:", "end of the file" },
        { "1\n0 10\n", "bad.txt:2:", "3 fields" },
        { "2\n0 10 0\n5 abc 0\n", "bad.txt:3:", "size_bytes" },
        { "1\n-3 10 0\n", "bad.txt:2:", "start_us" },
        { "1\n0 10 1.5\n", "bad.txt:2:", "dest_index" },
        { "1\n0 0 0\n", "bad.txt:2:", "at least 1 byte" },
        { "2\n50 10 0\n40 10 0\n", "bad.txt:3:", "previous start" },
        { "1\n0 99999999999999999999999 0\n", "bad.txt:2:", "size_bytes" },
    };
    for (const auto& c : cases)
    {
        std::string msg = ErrorOf(c.text);
        EXPECT_NE(msg.find(c.where), std::string::npos) << c.text << " -> " << msg;
        EXPECT_NE(msg.find(c.what), std::string::npos) << c.text << " -> " << msg;
    }
}

TEST(LoadFile, MissingFileIsNamed)
{
    try
    {
        ReadLoadFile("/nonexistent/load.txt");
        FAIL();
    }
    catch (const LoadFileError& e)
    {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/load.txt"), std::string::npos);
    }
}
