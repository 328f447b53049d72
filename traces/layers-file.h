// A model's layers from a CSV file, so that any architecture can be simulated without code:
// a header `layer,parameters` or `layer,parameters,compute`, then one line per layer in
// forward order (input first): its name, its trainable parameters (its gradient tensor) and,
// optionally, its relative forward compute (FLOPs or any unit, the same for every line),
// which shares the backward pass's time between layers; without it a layer's compute is taken
// in proportion to its parameters (exact for fully connected layers, not for convolutions). Lines
// starting with '#' and blank lines are skipped. Readers fail on anything else with the file and
// line number.
#ifndef FLUMEN_LAYERS_FILE_H
#define FLUMEN_LAYERS_FILE_H

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace flumen
{

/** Malformed layers file: the message names the file and line and what was expected. */
class LayersFileError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

struct FileLayer
{
    std::string name;
    uint64_t parameters = 0;
    double compute = 0; //!< relative forward compute (its parameters without a compute column)
};

/** Parses layers-file text; `source` names it in errors ("FILE:LINE: ..."). */
std::vector<FileLayer> ParseLayersFile(const std::string& text, const std::string& source);
/** Reads and parses a layers file. */
std::vector<FileLayer> ReadLayersFile(const std::string& path);

} // namespace flumen

#endif
