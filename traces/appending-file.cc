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

AppendingFile::AppendingFile(const std::string& path, const std::string& writingAs)
    : m_path(writingAs.empty() ? path : writingAs), m_file(std::fopen(path.c_str(), "wb"))
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
        PutBuffer();
    }
}

void
AppendingFile::Write(std::string_view text)
{
    PutBuffer();
    Put(text);
}

void
AppendingFile::PutBuffer()
{
    Put(m_buffer);
    m_buffer.clear();
}

void
AppendingFile::Put(std::string_view text)
{
    if (std::fwrite(text.data(), 1, text.size(), m_file) != text.size())
    {
        throw std::runtime_error(fmt::format("{}: cannot write: {}", m_path, std::strerror(errno)));
    }
}

void
AppendingFile::Close()
{
    PutBuffer();
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
