// Measured cross traffic (ReadCrossTraffic), the same bytes in its three formats and both
// units. Only TraceError may escape.
#include "fuzz-support.h"

#include "testbed-readers.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("bw.txt", data, size);
    for (const char* format : { "index-mean-stdev", "index-gbps-runtime-stdev", "reference" })
    {
        for (const char* unit : { "Gbps", "Mbps" })
        {
            fuzz::Expect<TraceError>("cross-traffic",
                                     [&] { (void)ReadCrossTraffic(path, format, unit); });
        }
    }
    return 0;
}
