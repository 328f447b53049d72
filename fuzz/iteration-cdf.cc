// Per-iteration CDFs (ReadIterationCdf). Only TraceError may escape.
#include "fuzz-support.h"

#include "testbed-readers.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("cdf.csv", data, size);
    fuzz::Expect<TraceError>("iteration-cdf", [&] { (void)ReadIterationCdf(path); });
    return 0;
}
