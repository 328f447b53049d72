#include "appending-file.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <unistd.h>

namespace flumen
{

namespace
{

constexpr size_t kPieceBytes = 1 << 20;

} // namespace

AppendingFile::AppendingFile(const std::string& path)
    : m_path(path), m_file(std::fopen(path.c_str(), "wb"))
{
    if (!m_file)
    {
        throw std::runtime_error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
    }
}

AppendingFile::~AppendingFile()
{
    if (m_file)
    {
        std::fclose(m_file);
    }
}

void
AppendingFile::Written()
{
    if (m_buffer.size() >= kPieceBytes)
    {
        Write();
    }
}

void
AppendingFile::Write()
{
    const bool ok = std::fwrite(m_buffer.data(), 1, m_buffer.size(), m_file) == m_buffer.size();
    m_buffer.clear();
    if (!ok)
    {
        throw std::runtime_error(fmt::format("{}: cannot write: {}", m_path, std::strerror(errno)));
    }
}

void
AppendingFile::Close()
{
    Write();
    bool ok = std::fflush(m_file) == 0 && ::fsync(::fileno(m_file)) == 0;
    const int err = errno;
    ok = std::fclose(m_file) == 0 && ok;
    m_file = nullptr;
    if (!ok)
    {
        throw std::runtime_error(
            fmt::format("{}: cannot write: {}", m_path, std::strerror(err ? err : errno)));
    }
}

} // namespace flumen
