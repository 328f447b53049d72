#include "input-file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace flumen
{

InputFile
ReadInputFile(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) // other errors: the open below names them
    {
        return { "", "no such file" };
    }
    if (fs::is_directory(status))
    {
        return { "", "is a folder, not a file" };
    }
    errno = 0;
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        return { "", std::string("cannot be read (")
                         + (errno ? std::strerror(errno) : "unknown reason") + ")" };
    }
    std::stringstream text;
    text << in.rdbuf(); // (an empty file inserts nothing: its text is "")
    return { text.str(), "" };
}

} // namespace flumen
