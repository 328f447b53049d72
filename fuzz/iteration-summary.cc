// Iteration summaries (ReadIterationSummary), the same bytes in both formats. Only TraceError
// may escape.
#include "fuzz-support.h"

#include "testbed-readers.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("iterations.txt", data, size);
    for (const char* format : { "index-mean-stdev-p99", "index-mean-samples-stdev-p99" })
    {
        fuzz::Expect<TraceError>("iteration-summary",
                                 [&] { (void)ReadIterationSummary(path, format); });
    }
    return 0;
}
