// One command at a time per output folder: `sweep` and `validate` hold an exclusive lock on
// DIR/.flumen.lock while they run, so a second command on the same folder refuses to start,
// naming the one that holds it, instead of running the same points twice. The lock is the
// kernel's (flock): it goes with the process, also on kill -9, so it never goes stale.
#ifndef FLUMEN_FOLDER_LOCK_H
#define FLUMEN_FOLDER_LOCK_H

#include <stdexcept>
#include <string>

namespace flumen
{

/** The folder is locked by another command; the message names it (pid, host, command). */
class FolderLockedError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

class FolderLock
{
  public:
    /**
     * Creates `dir` if needed and locks it for `command` (e.g. "flumen sweep"). Throws
     * FolderLockedError when another process holds it, std::runtime_error when the folder or
     * its lock file cannot be created.
     */
    FolderLock(const std::string& dir, const std::string& command);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

  private:
    int m_fd = -1;
};

} // namespace flumen

#endif
