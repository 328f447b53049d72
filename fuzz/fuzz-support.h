// Shared by the libFuzzer harnesses (fuzz/<kind>.cc): the readers under test take file paths,
// so each input is written to a file in a private scratch folder (on /dev/shm where there is
// one), next to a few fixture files that inputs may name (a scenario, a CDF, a load file, the
// testbed-format seeds). A harness lets only the reader's documented exception type(s) pass;
// any other exception aborts with its type and message, which libFuzzer reports as a crash,
// like the sanitizers' reports.
#ifndef FLUMEN_FUZZ_SUPPORT_H
#define FLUMEN_FUZZ_SUPPORT_H

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

namespace flumen::fuzz
{

/** The scratch folder (created on first use, with the fixtures; removed at exit). */
const std::string& Scratch();
/** Writes `size` bytes to Scratch()/name and returns the path. */
std::string WriteInput(const std::string& name, const uint8_t* data, size_t size);
/** Writes a text to Scratch()/name and returns the path. */
std::string WriteText(const std::string& name, const std::string& text);

/** Aborts naming the exception: an error type the reader does not document. */
[[noreturn]] void Undocumented(const char* harness, const std::exception& e);
[[noreturn]] void Undocumented(const char* harness);

/** Runs `body`; the reader's documented error type passes, anything else aborts. */
template <typename Documented, typename Body>
void
Expect(const char* harness, Body&& body)
{
    try
    {
        body();
    }
    catch (const Documented&)
    {
    }
    catch (const std::exception& e)
    {
        Undocumented(harness, e);
    }
    catch (...)
    {
        Undocumented(harness);
    }
}

} // namespace flumen::fuzz

#endif
