#include "test-support.h"

#include "atomic-file.h"
#include "csv-format.h"
#include "run-store.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>

namespace flumen::test
{

TempDir::TempDir()
{
    std::string tmpl = (std::filesystem::temp_directory_path() / "flumen-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
    {
        throw std::runtime_error("mkdtemp failed");
    }
    m_path = tmpl;
}

TempDir::~TempDir()
{
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
}

std::string
TempDir::Write(const std::string& name, const std::string& content) const
{
    std::string path = m_path + "/" + name;
    std::ofstream(path) << content;
    return path;
}

CommandResult
RunCommand(const std::string& commandLine)
{
    std::string cmd = commandLine + " 2>&1";
    CommandResult r;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p)
    {
        throw std::runtime_error("popen failed");
    }
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0)
    {
        r.output.append(buf, n);
    }
    int status = ::pclose(p);
    r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

CommandResult
RunFlumen(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_RUN_BINARY) + " " + args);
}

CommandResult
RunSweep(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_SWEEP_BINARY) + " " + args);
}

CommandResult
RunValidate(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_VALIDATE_BINARY) + " " + args);
}

CommandResult
RunCalibrate(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_CALIBRATE_BINARY) + " " + args);
}

CommandResult
RunBench(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_BENCH_BINARY) + " " + args);
}

CommandResult
RunTcpSummary(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_TCP_SUMMARY_BINARY) + " " + args);
}

CommandResult
RunShift(const std::string& args)
{
    return RunCommand(std::string(FLUMEN_SHIFT_BINARY) + " " + args);
}

std::vector<std::string>
Lines(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string l;
    while (std::getline(ss, l))
    {
        out.push_back(l);
    }
    return out;
}

std::string
ReadFile(const std::string& path)
{
    return ReadTextFile(path);
}

std::vector<std::map<std::string, std::string>>
ReadCsvRows(const std::string& path)
{
    const std::vector<std::string> lines = Lines(ReadFile(path));
    std::vector<std::map<std::string, std::string>> rows;
    if (lines.empty())
    {
        ADD_FAILURE() << path << ": empty";
        return rows;
    }
    const std::vector<std::string> header = SplitCsvFields(lines[0]);
    for (size_t i = 1; i < lines.size(); ++i)
    {
        const std::vector<std::string> cells = SplitCsvFields(lines[i]);
        EXPECT_EQ(cells.size(), header.size()) << path << " line " << i + 1 << ": " << lines[i];
        std::map<std::string, std::string> row;
        for (size_t k = 0; k < header.size() && k < cells.size(); ++k)
        {
            row[header[k]] = cells[k];
        }
        rows.push_back(row);
    }
    return rows;
}

Scenario
Resolve(const nlohmann::json& user)
{
    return ResolveScenario(user, "test");
}

std::string
ScenarioErrorOf(const nlohmann::json& user)
{
    try
    {
        ResolveScenario(user, "bad.json");
    }
    catch (const ScenarioError& e)
    {
        return e.what();
    }
    return "";
}

std::string
MountSmallDisk(const std::string& dir, const std::string& size)
{
    std::filesystem::create_directories(dir);
    CommandResult r = RunCommand("mount -t tmpfs -o size=" + size + " tmpfs " + dir);
    return r.exitCode == 0 ? "" : "cannot mount a tmpfs here: " + r.output;
}

::testing::AssertionResult
MatchesGolden(const std::string& name, const std::string& actual)
{
    const std::string path = std::string(FLUMEN_SOURCE_DIR) + "/tests/golden/" + name;
    const char* update = std::getenv("FLUMEN_UPDATE_GOLDEN");
    if (update && std::string(update) == "1")
    {
        WriteFileAtomically(path, actual);
        return ::testing::AssertionFailure() << "updated " << path << " (FLUMEN_UPDATE_GOLDEN=1)";
    }
    if (!std::filesystem::exists(path))
    {
        return ::testing::AssertionFailure() << "no golden reference " << path;
    }
    const std::string expected = ReadFile(path);
    if (expected == actual)
    {
        return ::testing::AssertionSuccess();
    }
    std::vector<std::string> want = Lines(expected);
    std::vector<std::string> got = Lines(actual);
    size_t line = 0;
    while (line < want.size() && line < got.size() && want[line] == got[line])
    {
        ++line;
    }
    return ::testing::AssertionFailure()
           << path << " differs at line " << line + 1 << ": expected '"
           << (line < want.size() ? want[line] : "<end>") << "', got '"
           << (line < got.size() ? got[line] : "<end>")
           << "' (a deliberate model change: re-run with FLUMEN_UPDATE_GOLDEN=1 and commit)";
}

std::string
StoredRunFolder(const std::string& points, const std::string& prefix, const TempDir& dir)
{
    for (const std::string& id : StoredRunIds(points))
    {
        if (id.rfind(prefix, 0) != 0)
        {
            continue;
        }
        const std::string folder = dir.Path() + "/" + id;
        std::filesystem::create_directories(folder);
        for (const char* file : { "scenario.json", "summary.json", "iterations.csv" })
        {
            dir.Write(id + "/" + file, ReadRunFile(points, id, file).value_or(""));
        }
        return folder;
    }
    return "";
}

} // namespace flumen::test
