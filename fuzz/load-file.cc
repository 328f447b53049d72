// Testbed load files (ReadLoadFile, ParseLoadFile). Only LoadFileError may escape; what
// parses must come back unchanged through FormatLoadFile (what --write-load-file writes).
#include "fuzz-support.h"

#include "load-file.h"

#include <cstdio>
#include <cstdlib>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("load.txt", data, size);
    fuzz::Expect<LoadFileError>(
        "load-file",
        [&]
        {
            std::vector<LoadFileFlow> flows = ReadLoadFile(path);
            if (ParseLoadFile(FormatLoadFile(flows), "formatted") != flows)
            {
                std::fprintf(stderr, "flumen fuzz load-file: FormatLoadFile does not round-trip\n");
                std::abort();
            }
        });
    return 0;
}
