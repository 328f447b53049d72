// Raw PyTorch training logs (ReadPyTorchLog). Only TraceError may escape.
#include "fuzz-support.h"

#include "testbed-readers.h"

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string path = fuzz::WriteInput("train.log", data, size);
    fuzz::Expect<TraceError>("pytorch-log", [&] { (void)ReadPyTorchLog(path); });
    return 0;
}
