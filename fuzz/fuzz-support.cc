#include "fuzz-support.h"

#include <cxxabi.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <typeinfo>

namespace flumen::fuzz
{

namespace fs = std::filesystem;

namespace
{

std::string g_scratch;

void
RemoveScratch()
{
    std::error_code ignored;
    if (!g_scratch.empty())
    {
        fs::remove_all(g_scratch, ignored);
    }
}

void
CopyFixtures(const fs::path& to)
{
    const fs::path source(FLUMEN_SOURCE_DIR);
    // What scenarios and sweeps may name: a base scenario, a flow-size CDF, a load file.
    fs::copy_file(source / "scenarios/quickstart.json", to / "quickstart.json");
    fs::copy_file(source / "scenarios/websearch_cdf.txt", to / "websearch_cdf.txt");
    // What manifests may name (folder "data"): the readers' seeds, testbed files among them.
    fs::create_directories(to / "data");
    for (const char* kind : { "iteration-summary", "cross-traffic", "iteration-cdf", "load-file" })
    {
        const fs::path dir = source / "fuzz/corpus" / kind;
        if (!fs::is_directory(dir))
        {
            continue;
        }
        for (const auto& f : fs::directory_iterator(dir))
        {
            fs::copy_file(f.path(), to / "data" / f.path().filename(),
                          fs::copy_options::overwrite_existing);
        }
    }
}

} // namespace

const std::string&
Scratch()
{
    if (g_scratch.empty())
    {
        std::string base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : fs::temp_directory_path();
        std::string tmpl = base + "/flumen-fuzz-XXXXXX";
        if (!mkdtemp(tmpl.data()))
        {
            std::perror("flumen fuzz: mkdtemp");
            std::abort();
        }
        g_scratch = tmpl;
        std::atexit(RemoveScratch);
        CopyFixtures(g_scratch);
    }
    return g_scratch;
}

std::string
WriteInput(const std::string& name, const uint8_t* data, size_t size)
{
    std::string path = Scratch() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out.flush())
    {
        std::fprintf(stderr, "flumen fuzz: cannot write %s\n", path.c_str());
        std::abort();
    }
    return path;
}

std::string
WriteText(const std::string& name, const std::string& text)
{
    return WriteInput(name, reinterpret_cast<const uint8_t*>(text.data()), text.size());
}

void
Undocumented(const char* harness, const std::exception& e)
{
    int status = 0;
    const char* mangled = typeid(e).name();
    char* name = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    std::fprintf(stderr, "flumen fuzz %s: undocumented exception %s: %s\n", harness,
                 status == 0 && name ? name : mangled, e.what());
    std::abort();
}

void
Undocumented(const char* harness)
{
    std::fprintf(stderr, "flumen fuzz %s: undocumented exception (not a std::exception)\n",
                 harness);
    std::abort();
}

} // namespace flumen::fuzz
