#include "atomic-file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace flumen
{

void
WriteFileAtomically(const std::string& path, const std::string& content)
{
    std::string tmp = fmt::format("{}.tmp.{}", path, ProcessTag());
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (!f)
    {
        throw std::runtime_error(fmt::format("{}: cannot create: {}", tmp, std::strerror(errno)));
    }
    bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
    ok = (std::fflush(f) == 0) && ok;
    ok = (::fsync(::fileno(f)) == 0) && ok;
    ok = (std::fclose(f) == 0) && ok;
    if (!ok || std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        int err = errno;
        std::remove(tmp.c_str());
        throw std::runtime_error(fmt::format("{}: cannot write: {}", path, std::strerror(err)));
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
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void
CheckOutputFolder(const std::string& dir)
{
    namespace fs = std::filesystem;
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
            fmt::format("{}: cannot write the output folder {}: {} is not a folder", dir,
                        p.string(), existing.string()));
    }
    // A probe folder made and removed at once: permission bits alone do not tell (root
    // ignores them; a read-only file system does not).
    std::string probe = (existing / ".flumen-probe-XXXXXX").string();
    if (!::mkdtemp(probe.data()))
    {
        throw std::runtime_error(fmt::format("{}: cannot write the output folder: {} is not "
                                             "writable ({})",
                                             dir, existing.string(), std::strerror(errno)));
    }
    ::rmdir(probe.c_str());
}

} // namespace flumen
