// The testbed generator's load files: the first line is the flow count N, then N lines
// `start_time_us size_bytes destination_index` (start times cumulative microseconds from the
// run's start). Start times and sizes may be written as decimals (the generator scales burst
// sizes); they are rounded to whole microseconds and bytes. Readers fail on anything else
// with the file and line number.
#ifndef FLUMEN_LOAD_FILE_H
#define FLUMEN_LOAD_FILE_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace flumen
{

/** Malformed load file: the message names the file and line and what was expected. */
class LoadFileError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

struct LoadFileFlow
{
    uint64_t startUs = 0;
    uint64_t sizeBytes = 0;
    uint32_t destination = 0;

    bool operator==(const LoadFileFlow& o) const
    {
        return startUs == o.startUs && sizeBytes == o.sizeBytes && destination == o.destination;
    }
};

/** Parses load-file text; `source` names it in errors ("FILE:LINE: ..."). */
std::vector<LoadFileFlow> ParseLoadFile(const std::string& text, const std::string& source);
/** Reads and parses a load file. */
std::vector<LoadFileFlow> ReadLoadFile(const std::string& path);
/** The text of a load file holding these flows, in the testbed's format. */
std::string FormatLoadFile(const std::vector<LoadFileFlow>& flows);

} // namespace flumen

#endif
