#include "folder-lock.h"

#include "atomic-file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

namespace flumen
{

FolderLock::FolderLock(const std::string& dir, const std::string& command)
{
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    const std::string path = dir + "/.flumen.lock";
    m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (m_fd < 0)
    {
        throw std::runtime_error(
            fmt::format("{}: cannot create the lock file: {}", path, std::strerror(errno)));
    }
    if (::flock(m_fd, LOCK_EX | LOCK_NB) != 0)
    {
        const int err = errno;
        ::close(m_fd);
        m_fd = -1;
        if (err != EWOULDBLOCK)
        {
            throw std::runtime_error(fmt::format("{}: cannot lock: {}", path, std::strerror(err)));
        }
        std::string holder = ReadTextFile(path);
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
        {
            holder.pop_back();
        }
        throw FolderLockedError(
            fmt::format("{}: in use by another command ({}); wait for it to finish or stop it", dir,
                        holder.empty() ? "it has not written its name yet" : holder));
    }
    // Who holds it, for the message a second command prints (the lock itself is flock's).
    const std::string who = fmt::format("{}, pid {} on host {}\n", command, ::getpid(),
                                        ProcessTag().substr(0, ProcessTag().rfind('-')));
    if (::ftruncate(m_fd, 0) == 0)
    {
        [[maybe_unused]] auto n = ::pwrite(m_fd, who.data(), who.size(), 0);
    }
}

FolderLock::~FolderLock()
{
    if (m_fd >= 0)
    {
        ::close(m_fd); // releases the lock
    }
}

} // namespace flumen
