// Flow-size CDFs (ns3::FlowSizeCdf::Parse), then what the generators ask of one: sizes drawn
// across [0, 1), the mean, the CDF at a size. Only FlowSizeCdfError may escape.
#include "fuzz-support.h"

#include "ns3/flow-size-cdf.h"

#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    flumen::fuzz::Expect<ns3::FlowSizeCdfError>("flow-size-cdf",
                                                [&]
                                                {
                                                    ns3::FlowSizeCdf cdf
                                                        = ns3::FlowSizeCdf::Parse(text, "fuzz");
                                                    for (double u : { 0.0, 0.25, 0.5, 0.999999 })
                                                    {
                                                        (void)cdf.SampleBytes(u);
                                                    }
                                                    (void)cdf.CdfAtBytes(cdf.MeanBytes());
                                                });
    return 0;
}
