#include "atomic-file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
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

} // namespace flumen
