// The testbed's files read exactly as they are, raw training logs, and bad input named by
// file and line.
#include "test-support.h"
#include "testbed-readers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>

using namespace flumen;

namespace
{

using test::kTestbed;

std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    return "";
}

} // namespace

TEST(TestbedReaders, EveryShippedFileReads)
{
    REQUIRE_TESTBED_DATA();
    size_t files = 0;
    for (std::string m : { "r50", "dn161", "vgg16", "bert24" })
    {
        auto iperf = ReadIterationSummary(
            kTestbed + "iperf-rdma-configA/iperf_data_iter_" + m + ".txt", "index-mean-stdev-p99");
        auto iperfBw = ReadCrossTraffic(kTestbed + "iperf-rdma-configA/iperf_data_bw_" + m + ".txt",
                                        "index-mean-stdev", "Mbps");
        auto ws = ReadIterationSummary(kTestbed + "websearch-rdma-configB/consistRDMA_data_iter_"
                                           + m + ".txt",
                                       "index-mean-stdev-p99");
        auto wsBw = ReadCrossTraffic(kTestbed + "websearch-rdma-configB/consistRDMA_data_bw_" + m
                                         + ".txt",
                                     "index-mean-stdev", "Gbps");
        files += 4;
        EXPECT_GT(iperf.size(), 10u) << m;
        EXPECT_EQ(iperf.front().index, 0) << m; // the idle run comes first in these files
        EXPECT_GT(iperfBw.size(), 10u) << m;
        EXPECT_GT(ws.size(), 10u) << m;
        EXPECT_GT(wsBw.size(), 10u) << m;
        for (const auto& r : iperfBw)
        {
            EXPECT_LT(r.gbps, 26.0) << m << " line " << r.line; // Mbps turned into Gbps
        }
    }
    for (std::string m : { "r50", "bert24" })
    {
        auto tcp = ReadIterationSummary(kTestbed + "websearch-tcp-configB/consist_data_TCP_iter_"
                                            + m + ".csv",
                                        "index-mean-samples-stdev-p99");
        auto ext = ReadIterationSummary(
            kTestbed + "websearch-tcp-configB/consist_data_TCP_extended_iter_" + m + ".csv",
            "index-mean-samples-stdev-p99");
        auto bw
            = ReadCrossTraffic(kTestbed + "websearch-tcp-configB/consist_data_TCP_bw_" + m + ".csv",
                               "index-gbps-runtime-stdev");
        files += 3;
        EXPECT_GT(tcp.size(), 10u) << m;
        EXPECT_FALSE(std::isnan(tcp.front().samples)) << m;
        EXPECT_GE(ext.size(), 5u) << m;
        EXPECT_GT(bw.size(), 10u) << m;
    }
    auto ref = ReadCrossTraffic(kTestbed + "websearch-tcp-configB/consist_data_TCP_reference.csv",
                                "reference");
    ++files;
    ASSERT_EQ(ref.size(), 15u);
    EXPECT_EQ(ref.front().section, "SHORT (3min) Runs");
    EXPECT_EQ(ref.back().section, "LONG (5min) Runs");
    for (const auto& e : std::filesystem::directory_iterator(kTestbed + "iteration-cdfs"))
    {
        auto cdf = ReadIterationCdf(e.path().string());
        ++files;
        EXPECT_GT(cdf.size(), 50u) << e.path();
        EXPECT_NEAR(cdf.back().fraction, 1.0, 1e-9) << e.path();
    }
    EXPECT_EQ(files, 16u + 6u + 1u + 7u);
}

TEST(TestbedReaders, ValuesComeThroughExactly)
{
    REQUIRE_TESTBED_DATA();
    // First data lines of three differently shaped files, as written.
    auto iperf = ReadIterationSummary(kTestbed + "iperf-rdma-configA/iperf_data_iter_r50.txt",
                                      "index-mean-stdev-p99");
    EXPECT_DOUBLE_EQ(iperf[0].meanS, 0.1585797969915617);
    EXPECT_DOUBLE_EQ(iperf[0].p99S, 0.166);
    EXPECT_EQ(iperf[0].line, 2u);
    auto bw = ReadCrossTraffic(kTestbed + "iperf-rdma-configA/iperf_data_bw_r50.txt",
                               "index-mean-stdev", "Mbps");
    EXPECT_DOUBLE_EQ(bw[0].index, 1);
    EXPECT_NEAR(bw[0].gbps, 0.9997136929460581, 1e-15);
    auto ext = ReadIterationSummary(
        kTestbed + "websearch-tcp-configB/consist_data_TCP_extended_iter_r50.csv",
        "index-mean-samples-stdev-p99");
    EXPECT_DOUBLE_EQ(ext[0].index, 23.0);
    EXPECT_DOUBLE_EQ(ext[0].meanS, 0.622875);
    EXPECT_DOUBLE_EQ(ext[0].samples, 1431);
    EXPECT_DOUBLE_EQ(ext[0].p99S, 1.308);
}

TEST(TestbedReaders, PyTorchLogWithMpirunTags)
{
    test::TempDir dir;
    std::string path
        = dir.Write("train.log", "=> creating model 'resnet50'\n"
                                 "[1,0]<stdout>:Epoch: [0][  0/5005]\tTime  2.512 ( 2.512)\tData "
                                 " 1.9 ( 1.9)\tLoss 6.9 (6.9)\n"
                                 "[1,1]<stdout>:Epoch: [0][  0/5005]\tTime  2.498 ( 2.498)\n"
                                 "[1,0]<stdout>:Epoch: [0][ 10/5005]\tTime  0.158 ( 0.160)\n"
                                 "Epoch: [1][ 20/5005]  Time  0.161 ( 0.159)  Data  0.000\n"
                                 " * Acc@1 0.100 Acc@5 0.500\n");
    auto s = ReadPyTorchLog(path);
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0].worker, 0);
    EXPECT_EQ(s[1].worker, 1);
    EXPECT_EQ(s[2].iteration, 10u);
    EXPECT_DOUBLE_EQ(s[2].durationS, 0.158);
    EXPECT_EQ(s[3].iteration, 5005u + 20u);
    EXPECT_EQ(s[3].worker, -1);
    EXPECT_EQ(s[3].line, 5u);
    std::string bad = dir.Write("bad.log", "ok\nEpoch: [0][ 10/5005]\tTime  abc ( 0.1)\n");
    EXPECT_NE(ErrorOf([&] { ReadPyTorchLog(bad); }).find("bad.log:2:"), std::string::npos);
    std::string none = dir.Write("none.log", "nothing here\n");
    EXPECT_NE(ErrorOf([&] { ReadPyTorchLog(none); }).find("found none"), std::string::npos);
}

TEST(TestbedReaders, GenericCsv)
{
    test::TempDir dir;
    auto s = ReadGenericIterationCsv(dir.Write(
        "it.csv", "iteration, duration_s, cross_traffic_gbps\n0, 0.16, 0\n1,0.31,20.5\n"));
    ASSERT_EQ(s.size(), 2u);
    EXPECT_DOUBLE_EQ(s[1].durationS, 0.31);
    EXPECT_DOUBLE_EQ(s[1].crossTrafficGbps, 20.5);
    auto t = ReadGenericIterationCsv(dir.Write("two.csv", "iteration,duration_s\n7,0.2\n"));
    EXPECT_TRUE(std::isnan(t[0].crossTrafficGbps));
    std::string bad = dir.Write("bad.csv", "iteration,duration_s\n0,0.1\n1,x\n");
    EXPECT_NE(ErrorOf([&] { ReadGenericIterationCsv(bad); }).find("bad.csv:3: duration_s"),
              std::string::npos);
    std::string head = dir.Write("head.csv", "iter,time\n0,0.1\n");
    EXPECT_NE(ErrorOf([&] { ReadGenericIterationCsv(head); }).find("head.csv:1:"),
              std::string::npos);
}

TEST(TestbedReaders, GarbledFilesNameTheLine)
{
    test::TempDir dir;
    std::string garbledFirst = dir.Write("a.txt", "0,0.15,0.01,x\n");
    EXPECT_NE(ErrorOf([&] { ReadIterationSummary(garbledFirst, "index-mean-stdev-p99"); })
                  .find("a.txt:1: tail99: expected a number, got 'x'"),
              std::string::npos);
    std::string shortRow
        = dir.Write("b.txt", "index, mean, stdev, tail99\n0,0.15,0.01,0.16\n1,0.2\n");
    EXPECT_NE(ErrorOf([&] { ReadIterationSummary(shortRow, "index-mean-stdev-p99"); })
                  .find("b.txt:3: expected 4 columns"),
              std::string::npos);
    std::string word = dir.Write("c.csv", "4,0.16,2156,oops,0.175\n");
    EXPECT_NE(ErrorOf([&] { ReadIterationSummary(word, "index-mean-samples-stdev-p99"); })
                  .find("c.csv:1: stdev"),
              std::string::npos);
    std::string cdf = dir.Write("d.csv", "0.15, 0.0\n0.16, 0.5\n0.17, 0.4\n");
    EXPECT_NE(ErrorOf([&] { ReadIterationCdf(cdf); }).find("d.csv:3:"), std::string::npos);
    EXPECT_NE(ErrorOf([&] { ReadCrossTraffic(cdf, "index-mean-stdev", "kbps"); }).find("unit"),
              std::string::npos);
    EXPECT_NE(
        ErrorOf([&] { ReadIterationSummary(dir.Path() + "/missing", "index-mean-stdev-p99"); })
            .find("cannot open"),
        std::string::npos);
}

TEST(TestbedReaders, HeadersAreOptionalAndBlankLinesSkippedInEveryFormat)
{
    // A header in any spelling (the testbed repository's own copies of the header-less TCP
    // files carry one: it was refused as "expected a number, got 'index'"), none at all, and
    // blank or separator-only lines anywhere.
    test::TempDir dir;
    std::string tcp = dir.Write("bw.csv", "index, mean, run_time, stdev\n\n2,2.01,120.1,0.003\n"
                                          " \t\n,,\n4,4.00,120.2,0.02\n\n");
    auto rows = ReadCrossTraffic(tcp, "index-gbps-runtime-stdev");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_DOUBLE_EQ(rows[1].gbps, 4.00);
    EXPECT_EQ(rows[1].line, 6u);
    std::string iperf = dir.Write("iperf.txt", "1,999.7,2.2\n\n2,2000.3,0.5\n");
    auto mbps = ReadCrossTraffic(iperf, "index-mean-stdev", "Mbps");
    ASSERT_EQ(mbps.size(), 2u);
    EXPECT_DOUBLE_EQ(mbps[0].gbps, 0.9997);
    std::string iter = dir.Write("iter.txt", "Index;Mean;Stdev;P99\n0,0.15,0.01,0.16\n");
    // ';' is no separator: one cell, not a header; the line is garbled and named.
    EXPECT_NE(ErrorOf([&] { ReadIterationSummary(iter, "index-mean-stdev-p99"); })
                  .find("iter.txt:1: expected 4 columns"),
              std::string::npos);
    std::string cdf = dir.Write("cdf.csv", "time, fraction\n2.85, 0.0\n\n2.86, 1.0\n");
    EXPECT_EQ(ReadIterationCdf(cdf).size(), 2u);
    // A garbled row after a header is still refused with its file and line.
    std::string bad = dir.Write("bad.csv", "index, mean, run_time, stdev\n2,2.01,oops,0.003\n");
    EXPECT_NE(ErrorOf([&] { ReadCrossTraffic(bad, "index-gbps-runtime-stdev"); })
                  .find("bad.csv:2: run_time_s: expected a number, got 'oops'"),
              std::string::npos);
}
