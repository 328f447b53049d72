// Reading a file that a user named: a path that is a folder or cannot be read is said in
// words before any stream touches it (libstdc++'s streams throw std::ios_failure, with no
// path, when they read a folder).
#ifndef FLUMEN_INPUT_FILE_H
#define FLUMEN_INPUT_FILE_H

#include <string>

namespace flumen
{

/** A file's whole content, or why it could not be read (then `text` is empty). */
struct InputFile
{
    std::string text;
    /** "" when read; else "no such file", "is a folder, not a file" or "cannot be read
     * (<reason>)". Each reader puts it in its own error, beside the path and what the file
     * was for. */
    std::string problem;
};

/** Opens and reads `path` once. */
InputFile ReadInputFile(const std::string& path);

} // namespace flumen

#endif
