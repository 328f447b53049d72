// tcp.csv read back (ParseTcpCsv) and summarised by flow size (SummariseTcpFlows,
// FormatTcpFlowSummaries): flumen tcp-summary's parts.
#include "run-outputs.h"
#include "tcp-flow-summary.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace flumen;

namespace
{

TcpFlowRow
Flow(uint32_t id, double startS, uint64_t size, const std::string& cause, uint32_t exitWindow,
     uint32_t maxWindow, double minSrttS, uint32_t recoveries = 0, uint32_t timeouts = 0)
{
    TcpFlowRow r;
    r.id = id;
    r.startS = startS;
    r.sizeBytes = size;
    if (!cause.empty())
    {
        r.slowStartEndS = startS + 0.01;
        r.slowStartEndCwndBytes = exitWindow;
        r.slowStartEndCause = cause;
    }
    r.maxCwndBytes = maxWindow;
    if (minSrttS >= 0)
    {
        r.minSrttS = minSrttS;
        r.maxSrttS = minSrttS * 2;
    }
    r.recoveries = recoveries;
    r.timeouts = timeouts;
    return r;
}

std::string
ErrorOf(const std::string& text)
{
    try
    {
        ParseTcpCsv(text, "t.csv");
    }
    catch (const std::runtime_error& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(TcpFlowSummary, TcpCsvRoundTrips)
{
    const std::vector<TcpFlowRow> rows
        = { Flow(3, 0.25, 2000000, "hystart", 23168, 150000, 0.004, 2, 1),
            Flow(7, 1.5, 50000, "", 0, 40000, -1) };
    const std::vector<TcpFlowRow> back = ParseTcpCsv(FormatTcpCsv(rows), "t.csv");
    ASSERT_EQ(back.size(), 2u);
    EXPECT_EQ(back[0].id, 3u);
    EXPECT_DOUBLE_EQ(back[0].startS, 0.25);
    EXPECT_EQ(back[0].sizeBytes, 2000000u);
    EXPECT_DOUBLE_EQ(back[0].slowStartEndS, 0.26);
    EXPECT_EQ(back[0].slowStartEndCwndBytes, 23168u);
    EXPECT_EQ(back[0].slowStartEndCause, "hystart");
    EXPECT_EQ(back[0].maxCwndBytes, 150000u);
    EXPECT_DOUBLE_EQ(back[0].minSrttS, 0.004);
    EXPECT_DOUBLE_EQ(back[0].maxSrttS, 0.008);
    EXPECT_EQ(back[0].recoveries, 2u);
    EXPECT_EQ(back[0].timeouts, 1u);
    // Never left slow start, no round trip: the empty cells come back as "none".
    EXPECT_LT(back[1].slowStartEndS, 0);
    EXPECT_EQ(back[1].slowStartEndCause, "");
    EXPECT_LT(back[1].minSrttS, 0);
    EXPECT_EQ(back[1].maxCwndBytes, 40000u);
}

TEST(TcpFlowSummary, BadTcpCsvNamesTheLineAndColumn)
{
    const std::string header = FormatTcpCsv({});
    EXPECT_NE(ErrorOf("flow_id,start_s\n1,2\n").find("t.csv:1: expected header"),
              std::string::npos);
    EXPECT_NE(ErrorOf("").find("t.csv: empty"), std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,100,,,,10,,,0\n").find("t.csv:2: expected 11"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,1e3,,,,10,,,0,0\n").find("t.csv:2: size_bytes"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,-0.5,100,,,,10,,,0,0\n").find("t.csv:2: start_s"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,nan,100,,,,10,,,0,0\n").find("t.csv:2: start_s"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,100,,,,10,,,-1,0\n").find("t.csv:2: recoveries"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,100,,,,4294967296,,,0,0\n").find("t.csv:2: max_cwnd_bytes"),
              std::string::npos);
    EXPECT_NE(
        ErrorOf(header + "1,0.5,100,0.6,20000,,10,,,0,0\n").find("t.csv:2: slow_start_end_cause"),
        std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,100,,,,10,0.001,,0,0\n").find("t.csv:2: max_srtt_s"),
              std::string::npos);
    EXPECT_NE(ErrorOf(header + "1,0.5,100,0.6,20000,HyStart,10,,,0,0\n").find("'HyStart'"),
              std::string::npos);
    // Times are plain decimal numbers: no hexadecimal, no spaces, no negative zero.
    for (const char* time : { "0x1p-3", " 0.1", "-0", "inf" })
    {
        EXPECT_NE(ErrorOf(header + "1," + time + ",100,,,,10,,,0,0\n").find("t.csv:2: start_s"),
                  std::string::npos)
            << time;
    }
    EXPECT_EQ(ErrorOf(header + "1,0.5,100,,,,10,,,0,0\r\n"), "") << "CRLF line ends are read";
    EXPECT_EQ(ErrorOf(header + "1,5e-1,100,,,,10,,,0,0\n"), "") << "exponents are read";
}

TEST(TcpFlowSummary, ClassesCountCausesAndTakeMedians)
{
    // Sizes 50 KB, 0.5, 0.6, 0.7 MB and 5 MB; one flow starts before `from` and is left out.
    const std::vector<TcpFlowRow> rows = {
        Flow(0, 0.1, 50000, "", 0, 30000, 0.001),
        Flow(1, 0.2, 500000, "hystart", 23168, 100000, 0.002),
        Flow(2, 0.2, 600000, "loss", 46336, 200000, 0.004, 3, 1),
        Flow(3, 0.3, 700000, "", 0, 300000, -1),
        Flow(4, 0.4, 5000000, "ecn", 100000, 900000, 0.006, 1),
        Flow(5, 0.01, 600000, "loss", 1000, 1000, 0.5, 9, 9),
    };
    const TcpFlowSummary s = SummariseTcpFlows(rows, { 100000, 1000000 }, 0.05);
    ASSERT_EQ(s.classes.size(), 3u);
    const TcpSizeClass& small = s.classes[0];
    EXPECT_EQ(small.fromBytes, 0u);
    EXPECT_EQ(small.toBytes, 100000u);
    EXPECT_EQ(small.flows, 1u);
    EXPECT_EQ(small.neverLeft, 1u);
    EXPECT_TRUE(std::isnan(small.exitWindowMedianBytes)) << "no flow left slow start";
    EXPECT_DOUBLE_EQ(small.maxWindowMedianBytes, 30000);
    const TcpSizeClass& mid = s.classes[1];
    EXPECT_EQ(mid.flows, 3u);
    EXPECT_EQ(mid.byHystart, 1u);
    EXPECT_EQ(mid.byLoss, 1u);
    EXPECT_EQ(mid.neverLeft, 1u);
    EXPECT_DOUBLE_EQ(mid.exitWindowMedianBytes, (23168 + 46336) / 2.0);
    EXPECT_DOUBLE_EQ(mid.maxWindowMedianBytes, 200000);
    EXPECT_DOUBLE_EQ(mid.minSrttMedianS, 0.003) << "over the flows with a round trip";
    EXPECT_EQ(mid.flowsWithLoss, 1u);
    EXPECT_EQ(mid.recoveries, 3u);
    EXPECT_EQ(mid.timeouts, 1u);
    const TcpSizeClass& large = s.classes[2];
    EXPECT_EQ(large.fromBytes, 1000000u);
    EXPECT_EQ(large.flows, 1u);
    EXPECT_EQ(large.byOther, 1u);
    EXPECT_EQ(s.all.flows, 5u);
    EXPECT_EQ(s.all.recoveries, 4u);
    EXPECT_EQ(s.all.flowsWithLoss, 2u);
    EXPECT_DOUBLE_EQ(s.all.maxWindowMedianBytes, 200000);
    // A flow exactly at an edge belongs to the class that starts there.
    EXPECT_EQ(
        SummariseTcpFlows({ Flow(9, 1, 100000, "", 0, 1, -1) }, { 100000 }, 0).classes[1].flows,
        1u);
    EXPECT_THROW(SummariseTcpFlows(rows, { 1000000, 100000 }, 0), std::invalid_argument);
}

TEST(TcpFlowSummary, TheTableSetsRunsSideBySideInSegments)
{
    const std::vector<TcpFlowRow> a = { Flow(1, 0.2, 500000, "hystart", 14480, 28960, 0.002) };
    const std::vector<TcpFlowRow> b = { Flow(1, 0.2, 500000, "", 0, 144800, 0.009, 2) };
    const std::string table = FormatTcpFlowSummaries(
        { "p (packet)", "f (flow)" },
        { SummariseTcpFlows(a, { 100000 }, 0), SummariseTcpFlows(b, { 100000 }, 0) }, 1448);
    // A header, then per class (< 0.1 MB, >= 0.1 MB, all) a row for each run.
    const std::vector<std::string> expectedStarts
        = { "size", "< 0.1 MB", "", ">= 0.1 MB", "", "all", "" };
    std::vector<std::string> lines;
    for (size_t at = 0, next; (next = table.find('\n', at)) != std::string::npos; at = next + 1)
    {
        lines.push_back(table.substr(at, next - at));
    }
    ASSERT_EQ(lines.size(), expectedStarts.size()) << table;
    for (size_t i = 0; i < lines.size(); ++i)
    {
        EXPECT_EQ(lines[i].rfind(expectedStarts[i], 0), 0u) << lines[i];
    }
    EXPECT_NE(lines[3].find("p (packet)"), std::string::npos);
    EXPECT_NE(lines[4].find("f (flow)"), std::string::npos);
    // Packet: left by HyStart at 10 segments, largest 20; flow: never left, largest 100.
    EXPECT_NE(lines[3].find("100.0%"), std::string::npos) << lines[3];
    EXPECT_NE(lines[3].find(" 10 "), std::string::npos) << lines[3];
    EXPECT_NE(lines[3].find(" 20 "), std::string::npos) << lines[3];
    EXPECT_NE(lines[4].find(" 100 "), std::string::npos) << lines[4];
    EXPECT_NE(lines[4].find(" 9 ms"), std::string::npos) << lines[4];
    EXPECT_THROW(FormatTcpFlowSummaries({ "x" }, {}, 1448), std::invalid_argument);
}
