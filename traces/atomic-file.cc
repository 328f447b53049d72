#include "atomic-file.h"

#include "appending-file.h"
#include "input-file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <unistd.h>

namespace flumen
{

namespace
{

// Writes `content` to `tmp` and flushes it to disk; on failure removes it and throws naming
// `path` (the file it stands for).
void
WriteTemporary(const std::string& tmp, const std::string& path, const std::string& content)
{
    try
    {
        AppendingFile file(tmp, path);
        file.Write(content);
        file.Close();
    }
    catch (...)
    {
        std::remove(tmp.c_str());
        throw;
    }
}

} // namespace

void
WriteFileAtomically(const std::string& path, const std::string& content)
{
    std::string tmp = fmt::format("{}.tmp.{}", path, ProcessTag());
    WriteTemporary(tmp, path, content);
    if (std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        int err = errno;
        std::remove(tmp.c_str());
        throw std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
    }
}

namespace
{

// Writes every file of the set beside its target (a staged one is moved there), then renames
// them into place, the last one (the marker) last, after removing the old marker.
void
ReplaceFilesInFolder(const std::string& dir,
                     const std::vector<std::pair<std::string, std::string>>& files,
                     const std::vector<std::pair<std::string, std::string>>& staged)
{
    std::vector<std::string> names;
    std::vector<std::string> temporaries;
    try
    {
        for (const auto& [name, from] : staged)
        {
            const std::string path = dir + "/" + name;
            names.push_back(name);
            temporaries.push_back(fmt::format("{}.tmp.{}", path, ProcessTag()));
            if (std::rename(from.c_str(), temporaries.back().c_str()) != 0)
            {
                throw std::runtime_error(
                    fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
            }
        }
        for (const auto& [name, content] : files)
        {
            const std::string path = dir + "/" + name;
            names.push_back(name);
            temporaries.push_back(fmt::format("{}.tmp.{}", path, ProcessTag()));
            WriteTemporary(temporaries.back(), path, content);
        }
        const std::string marker = dir + "/" + names.back();
        if (std::remove(marker.c_str()) != 0 && errno != ENOENT)
        {
            throw std::runtime_error(
                fmt::format("{}: cannot replace: {}", marker, std::strerror(errno)));
        }
        for (size_t i = 0; i < names.size(); ++i)
        {
            const std::string path = dir + "/" + names[i];
            if (std::rename(temporaries[i].c_str(), path.c_str()) != 0)
            {
                throw std::runtime_error(
                    fmt::format("{}: cannot write: {}", path, std::strerror(errno)));
            }
        }
    }
    catch (...)
    {
        for (const auto& tmp : temporaries)
        {
            std::remove(tmp.c_str());
        }
        throw;
    }
}

} // namespace

void
WriteFileSetAtomically(const std::string& dir,
                       const std::vector<std::pair<std::string, std::string>>& files,
                       const std::vector<std::pair<std::string, std::string>>& staged)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::exists(dir, ec))
    {
        ReplaceFilesInFolder(dir, files, staged);
        return;
    }
    // A new folder is filled under a temporary name beside it and renamed whole: a kill at
    // any moment leaves the folder complete or absent.
    fs::path target = fs::path(dir).lexically_normal();
    if (target.filename().empty())
    {
        target = target.parent_path();
    }
    if (!target.parent_path().empty())
    {
        fs::create_directories(target.parent_path(), ec);
    }
    const std::string tmp = fmt::format("{}.tmp.{}", target.string(), ProcessTag());
    fs::remove_all(tmp, ec);
    if (!fs::create_directory(tmp, ec))
    {
        throw std::runtime_error(
            fmt::format("{}: cannot create the output folder: {}", dir, ec.message()));
    }
    try
    {
        ReplaceFilesInFolder(tmp, files, staged);
        if (std::rename(tmp.c_str(), target.c_str()) != 0)
        {
            throw std::runtime_error(
                fmt::format("{}: cannot create the output folder: {}", dir, std::strerror(errno)));
        }
    }
    catch (...)
    {
        fs::remove_all(tmp, ec);
        throw;
    }
}

void
RemoveStaleTemporaries(const std::string& dir, const std::string& tag)
{
    namespace fs = std::filesystem;
    const std::string mark = ".tmp." + tag;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    {
        const std::string name = it->path().filename().string();
        const size_t at = name.rfind(mark);
        if (at != std::string::npos && (tag.empty() || at + mark.size() == name.size()))
        {
            std::error_code ignored;
            fs::remove_all(it->path(), ignored);
        }
    }
}

std::string
ProcessTag()
{
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0)
    {
        host[0] = '\0';
    }
    return fmt::format("{}-{}", host, ::getpid());
}

std::string
ReadTextFile(const std::string& path)
{
    return ReadInputFile(path).text;
}

void
CheckOutputFolder(const std::string& dir, const std::string& option)
{
    namespace fs = std::filesystem;
    const std::string named = option.empty() ? dir : option + " " + dir;
    std::error_code ec;
    fs::path p = fs::absolute(dir.empty() ? fs::path(".") : fs::path(dir), ec).lexically_normal();
    fs::path existing = p;
    while (!fs::exists(existing, ec) && existing.has_parent_path()
           && existing.parent_path() != existing)
    {
        existing = existing.parent_path();
    }
    if (!fs::is_directory(existing, ec))
    {
        throw std::runtime_error(
            fmt::format("{}: cannot write the output folder {}: {} is not a folder", named,
                        p.string(), existing.string()));
    }
    // A probe folder made and removed at once: permission bits alone do not tell (root
    // ignores them; a read-only file system does not).
    std::string probe = (existing / ".flumen-probe-XXXXXX").string();
    if (!::mkdtemp(probe.data()))
    {
        throw std::runtime_error(fmt::format("{}: cannot write the output folder: {} is not "
                                             "writable ({})",
                                             named, existing.string(), std::strerror(errno)));
    }
    ::rmdir(probe.c_str());
}

void
CheckOutputFile(const std::string& path, const std::string& option)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.empty() || fs::is_directory(path, ec))
    {
        throw std::runtime_error(fmt::format("{}'{}': cannot write the output file: expected a "
                                             "file's path, got {}",
                                             option.empty() ? "" : option + " ", path,
                                             path.empty() ? "nothing" : "a folder"));
    }
    CheckOutputFolder(fs::path(path).parent_path().string(), option);
}

} // namespace flumen
