// A file written piece by piece while a run goes (a long run's link.csv and flows.csv): the
// text is buffered and written in pieces of a megabyte, so that what the run holds stays flat.
#ifndef FLUMEN_APPENDING_FILE_H
#define FLUMEN_APPENDING_FILE_H

#include <cstdio>
#include <string>
#include <string_view>

namespace flumen
{

class AppendingFile
{
  public:
    /**
     * Creates `path` (a file there is replaced); throws std::runtime_error naming it. Errors
     * in writing name `writingAs` (the file a temporary stands for), or `path`.
     */
    explicit AppendingFile(const std::string& path, const std::string& writingAs = "");
    ~AppendingFile();
    AppendingFile(const AppendingFile&) = delete;
    AppendingFile& operator=(const AppendingFile&) = delete;

    /** The text to append to: written out once it holds a megabyte (call Written()). */
    std::string& Buffer() { return m_buffer; }
    /** Writes the buffer out if it is large enough. */
    void Written();
    /** Writes the buffer, then `text`, out at once. */
    void Write(std::string_view text);
    /** Writes what is left, flushes the file to disk and closes it. */
    void Close();

  private:
    void Put(std::string_view text);
    void PutBuffer();

    std::string m_path; //!< what errors in writing name
    std::FILE* m_file = nullptr;
    std::string m_buffer;
};

} // namespace flumen

#endif
