// Writing result files so that a reader never sees half of one: write a temporary file
// beside the target, flush it, then rename it over the target.
#ifndef FLUMEN_ATOMIC_FILE_H
#define FLUMEN_ATOMIC_FILE_H

#include <string>
#include <utility>
#include <vector>

namespace flumen
{

/** Writes `content` to `path` atomically; throws std::runtime_error naming the path. */
void WriteFileAtomically(const std::string& path, const std::string& content);

/**
 * Writes a set of files into `dir` as one: every file is first written in full beside its
 * target (a temporary name, flushed to disk); only then are they renamed into place, the last
 * one last. The last file marks a complete set: it is removed before the others are replaced
 * and renamed in after them, so a reader that finds it finds the whole new set, and a failure
 * (full disk, kill) leaves either the old set or no marker, never a mixed one. A `dir` that
 * did not exist is filled under a temporary name beside it and renamed into place whole, so
 * that it is either complete or absent. Throws std::runtime_error naming the path; the
 * temporary files are removed (a kill -9 may leave them, named "<name>.tmp.<tag>").
 * `staged` files (name, path) were written in full elsewhere on the same file system (a long
 * run's series, written as it went): they are moved in with the set, before the marker.
 */
void WriteFileSetAtomically(const std::string& dir,
                            const std::vector<std::pair<std::string, std::string>>& files,
                            const std::vector<std::pair<std::string, std::string>>& staged = {});

/**
 * Removes the temporaries ("<name>.tmp.<tag>", files or folders) directly in `dir`: those of
 * every writer (a folder this process owns: it holds the folder's lock, so the others were
 * killed), or only those of process tag `tag` (its own, see ProcessTag()).
 */
void RemoveStaleTemporaries(const std::string& dir, const std::string& tag = "");

/**
 * A name for this process that is unique across the hosts sharing a file system
 * ("<host>-<pid>"): temporary files of processes on different cluster nodes never collide.
 */
std::string ProcessTag();

/**
 * Checks, before any work, that `dir` can be created (or exists) and written: an existing
 * path must be a writable folder, otherwise its nearest existing ancestor must be (a probe
 * folder is made there and removed). Throws std::runtime_error naming the path and why, after
 * the command-line `option` that gave it when there is one ("--out").
 */
void CheckOutputFolder(const std::string& dir, const std::string& option = "");

/**
 * Checks, before any work, that the file `path` can be written: it is not a folder, and its
 * folder can be created or written (CheckOutputFolder). Throws std::runtime_error naming it.
 */
void CheckOutputFile(const std::string& path, const std::string& option = "");

/** The whole content of a file ("" when it cannot be read). */
std::string ReadTextFile(const std::string& path);

} // namespace flumen

#endif
