// Generic per-iteration CSV (ReadGenericIterationCsv). Only TraceError may escape.
#include "fuzz-support.h"

#include "testbed-readers.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("iterations.csv", data, size);
    fuzz::Expect<TraceError>("generic-csv", [&] { (void)ReadGenericIterationCsv(path); });
    return 0;
}
