// Opening a file that a user named: a path that is a folder or cannot be read is said in
// words before any stream touches it (libstdc++'s streams throw std::ios_failure, with no
// path, when they read a folder).
#ifndef FLUMEN_INPUT_FILE_H
#define FLUMEN_INPUT_FILE_H

#include <string>

namespace flumen
{

/**
 * Why `path` cannot be read as an input file, "" when it can: "no such file", "is a folder,
 * not a file" or "cannot be read (<reason>)". Each reader puts it in its own error, beside
 * the path and what the file was for.
 */
std::string InputFileProblem(const std::string& path);

} // namespace flumen

#endif
