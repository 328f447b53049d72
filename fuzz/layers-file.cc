// Model layers files (ReadLayersFile, ParseLayersFile). Only LayersFileError may escape; what
// parses has at least one parameter and a positive compute total.
#include "fuzz-support.h"

#include "layers-file.h"

#include <cstdio>
#include <cstdlib>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("layers.csv", data, size);
    fuzz::Expect<LayersFileError>(
        "layers-file",
        [&]
        {
            uint64_t parameters = 0;
            double compute = 0;
            for (const auto& l : ReadLayersFile(path))
            {
                parameters += l.parameters;
                compute += l.compute;
            }
            if (parameters == 0 || !(compute > 0))
            {
                std::fprintf(stderr, "flumen fuzz layers-file: an empty model was accepted\n");
                std::abort();
            }
        });
    return 0;
}
