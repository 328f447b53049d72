// Inputs the fuzzers found (fuzz/, docs/testing.md), read through the normal build: each must
// fail with the reader's documented TraceError, named by file and line, never with another
// exception or undefined behaviour. The raw inputs are replayed from fuzz/regressions/.
#include "test-support.h"
#include "testbed-readers.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

using namespace flumen;

namespace
{

// The message of the TraceError `f` throws ("" if none); any other exception fails the test.
std::string
TraceErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const TraceError& e)
    {
        return e.what();
    }
    catch (const std::exception& e)
    {
        ADD_FAILURE() << "undocumented exception: " << e.what();
    }
    return "";
}

// Every file in fuzz/regressions/<kind>/.
std::vector<std::string>
Regressions(const std::string& kind)
{
    std::vector<std::string> files;
    for (const auto& f :
         std::filesystem::directory_iterator(FLUMEN_SOURCE_DIR "/fuzz/regressions/" + kind))
    {
        files.push_back(f.path().string());
    }
    return files;
}

} // namespace

// std::stoull threw std::out_of_range on a batch number beyond 64 bits.
TEST(FuzzRegressionsTraces, PyTorchBatchBeyondSixtyFourBitsIsATraceError)
{
    test::TempDir dir;
    std::string log = dir.Write("train.log", "Epoch: [0][ 10/5005]\tTime 0.158 ( 0.160)\n"
                                             "Epoch: [0][ 99999999999999999999999/5005]\t"
                                             "Time 0.158 ( 0.160)\n");
    EXPECT_NE(TraceErrorOf([&] { ReadPyTorchLog(log); }).find("train.log:2: expected an epoch"),
              std::string::npos);
    std::string rank = dir.Write("rank.log", "[1,99999999999]<stdout>:Epoch: [0][ 10/5005]\t"
                                             "Time 0.158 ( 0.160)\n");
    EXPECT_NE(TraceErrorOf([&] { ReadPyTorchLog(rank); }).find("rank.log:1: expected a rank tag"),
              std::string::npos);
    for (const auto& f : Regressions("pytorch-log"))
    {
        EXPECT_NE(TraceErrorOf([&] { ReadPyTorchLog(f); }), "") << f;
    }
}

// std::regex recursed once per character of a progress line: a line of 50,000 characters
// overflowed the stack (SIGSEGV in the normal build; found by reading, beyond the fuzzer's
// -max_len). Lines longer than a progress line can be are a TraceError, before the regex.
TEST(FuzzRegressionsTraces, PyTorchProgressLineTooLongForTheRegexIsATraceError)
{
    test::TempDir dir;
    std::string padding(200000, 'x');
    std::string log
        = dir.Write("long.log", "Epoch: [0][ 10/5005] " + padding + " Time 0.158 ( 0.160)\n");
    EXPECT_NE(TraceErrorOf([&] { ReadPyTorchLog(log); })
                  .find("long.log:1: expected a progress line of at most 4096 characters"),
              std::string::npos);
    // Long lines that are not progress lines are skipped as before.
    std::string other
        = dir.Write("other.log", padding + "\nEpoch: [0][ 10/5005] Time 0.158 ( 0.160)\n");
    EXPECT_EQ(ReadPyTorchLog(other).size(), 1u);
}

// An iteration number of 3e96 was converted to uint64_t (undefined behaviour; UBSan aborts).
TEST(FuzzRegressionsTraces, GenericCsvIterationBeyondSixtyFourBitsIsATraceError)
{
    test::TempDir dir;
    std::string csv = dir.Write("it.csv", "iteration,duration_s\n0,0.1\n3e96,0.2\n");
    EXPECT_NE(TraceErrorOf([&] { ReadGenericIterationCsv(csv); })
                  .find("it.csv:3: expected a whole iteration number"),
              std::string::npos);
    std::string edge = dir.Write("edge.csv", "iteration,duration_s\n18446744073709551616,0.2\n");
    EXPECT_NE(TraceErrorOf([&] { ReadGenericIterationCsv(edge); }), "");
    std::string largest = dir.Write("largest.csv", "iteration,duration_s\n1e19,0.2\n");
    EXPECT_EQ(ReadGenericIterationCsv(largest).at(0).iteration, 10000000000000000000ULL);
    for (const auto& f : Regressions("generic-csv"))
    {
        EXPECT_NE(TraceErrorOf([&] { ReadGenericIterationCsv(f); }), "") << f;
    }
}
