// Series manifests (LoadSeries), with the files they name: the manifest sits next to a folder
// "data" holding the testbed-format seeds of the reader harnesses. Only TraceError may escape.
#include "fuzz-support.h"

#include "series-manifest.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("manifest.json", data, size);
    fuzz::Expect<TraceError>("series-manifest",
                             [&]
                             {
                                 Series series = LoadSeries(path);
                                 (void)NearIdleTcpReferences(series);
                                 for (const auto& p : series.points)
                                 {
                                     (void)PointLoadGbps(p);
                                 }
                             });
    return 0;
}
