#include "run-store.h"

#include "atomic-file.h"
#include "input-file.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace flumen
{

namespace fs = std::filesystem;
using nlohmann::json;

namespace
{

struct StoredRun
{
    std::string scenario;
    std::string summary;
    std::string iterations;
};

struct RunsFile
{
    fs::file_time_type time;
    uintmax_t size = 0;
    std::map<std::string, StoredRun> runs;
};

// A points folder's runs files, read once and again only when one changes (a folder's mtime
// moves whenever a run folder is renamed into it, so the listing is redone then; the files'
// own mtimes and sizes say whether they need reading again).
struct Index
{
    fs::file_time_type dirTime;
    bool listed = false;
    std::map<std::string, RunsFile> files; //!< by file name
};

std::mutex g_mutex;
std::map<std::string, Index> g_indexes;

// A runs file's lines by run id, each as written and as parsed; throws naming the file and
// line where one is not a run.
std::map<std::string, std::pair<std::string, json>>
ReadRunLines(const fs::path& path)
{
    const InputFile in = ReadInputFile(path.string());
    if (!in.problem.empty())
    {
        throw std::runtime_error(fmt::format("{}: {}", path.string(), in.problem));
    }
    std::map<std::string, std::pair<std::string, json>> lines;
    std::istringstream text(in.text);
    std::string line;
    for (size_t number = 1; std::getline(text, line); ++number)
    {
        if (line.empty())
        {
            continue;
        }
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("id") || !j["id"].is_string()
            || !j.contains("summary") || !j["summary"].is_object() || !j.contains("iterations_csv")
            || !j["iterations_csv"].is_string())
        {
            throw std::runtime_error(fmt::format(
                "{}:{}: expected a run: {{\"id\", \"scenario\", \"summary\", \"iterations_csv\"}}",
                path.string(), number));
        }
        const std::string id = j["id"].get<std::string>();
        lines[id] = { line, std::move(j) };
    }
    return lines;
}

std::map<std::string, StoredRun>
ParseRunsFile(const fs::path& path)
{
    std::map<std::string, StoredRun> runs;
    for (const auto& [id, line] : ReadRunLines(path))
    {
        const json& j = line.second;
        StoredRun& r = runs[id];
        r.scenario = j.value("scenario", json::object()).dump(2) + "\n";
        r.summary = j["summary"].dump(2) + "\n";
        r.iterations = j["iterations_csv"].get<std::string>();
    }
    return runs;
}

// The index of DIR, brought up to date; call with g_mutex held.
Index&
IndexOf(const fs::path& dir)
{
    Index& index = g_indexes[fs::absolute(dir).lexically_normal().string()];
    std::error_code ec;
    const auto dirTime = fs::last_write_time(dir, ec);
    if (ec)
    {
        index = Index();
        return index;
    }
    if (index.listed && dirTime == index.dirTime)
    {
        return index;
    }
    std::map<std::string, RunsFile> files;
    const std::string suffix = kRunsFileSuffix;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    {
        const std::string name = it->path().filename().string();
        if (name.size() <= suffix.size()
            || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        {
            continue;
        }
        RunsFile f;
        f.time = fs::last_write_time(it->path(), ec);
        f.size = fs::file_size(it->path(), ec);
        auto old = index.files.find(name);
        if (old != index.files.end() && old->second.time == f.time && old->second.size == f.size)
        {
            f.runs = std::move(old->second.runs);
        }
        else
        {
            f.runs = ParseRunsFile(it->path());
        }
        files[name] = std::move(f);
    }
    index.files = std::move(files);
    index.dirTime = dirTime;
    index.listed = true;
    return index;
}

const StoredRun*
FindStored(const Index& index, const std::string& id)
{
    for (const auto& [name, file] : index.files)
    {
        auto it = file.runs.find(id);
        if (it != file.runs.end())
        {
            return &it->second;
        }
    }
    return nullptr;
}

// A run folder's JSON file, or an error naming it (a run folder is the pool's own output, so
// this is a damaged disk or a hand edit).
json
ParseRunJson(const fs::path& path, const std::string& text)
{
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
    {
        throw std::runtime_error(fmt::format("{}: expected a JSON object", path.string()));
    }
    return j;
}

} // namespace

std::optional<std::string>
ReadRunFile(const fs::path& dir, const std::string& id, const std::string& file)
{
    std::error_code ec;
    if (fs::exists(dir / id / "summary.json", ec))
    {
        return ReadTextFile((dir / id / file).string());
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    const StoredRun* run = FindStored(IndexOf(dir), id);
    if (!run)
    {
        return std::nullopt;
    }
    return file == "summary.json"     ? run->summary
           : file == "iterations.csv" ? run->iterations
           : file == "scenario.json"  ? run->scenario
                                      : std::string();
}

bool
InRunsFile(const fs::path& dir, const std::string& id)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    return FindStored(IndexOf(dir), id) != nullptr;
}

std::vector<std::string>
StoredRunIds(const fs::path& dir)
{
    std::set<std::string> ids;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    {
        if (it->is_directory(ec) && fs::exists(it->path() / "summary.json", ec))
        {
            ids.insert(it->path().filename().string());
        }
    }
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const auto& [name, file] : IndexOf(dir).files)
    {
        for (const auto& [id, run] : file.runs)
        {
            ids.insert(id);
        }
    }
    return { ids.begin(), ids.end() };
}

size_t
CompactRuns(const fs::path& dir, const std::map<std::string, std::vector<std::string>>& groups)
{
    size_t moved = 0;
    std::error_code ec;
    for (const auto& [group, ids] : groups)
    {
        std::vector<std::string> folders;
        for (const auto& id : ids)
        {
            if (fs::exists(dir / id / "summary.json", ec))
            {
                folders.push_back(id);
            }
        }
        if (folders.empty())
        {
            continue;
        }
        const fs::path file = dir / (group + kRunsFileSuffix);
        std::map<std::string, std::string> lines; // id -> line, sorted
        if (fs::exists(file, ec))
        {
            for (const auto& [id, line] : ReadRunLines(file))
            {
                lines[id] = line.first;
            }
        }
        for (const auto& id : folders)
        {
            json run = { { "id", id } };
            const std::string scenario = ReadTextFile((dir / id / "scenario.json").string());
            run["scenario"] = scenario.empty() ? json::object()
                                               : ParseRunJson(dir / id / "scenario.json", scenario);
            const fs::path summary = dir / id / "summary.json";
            run["summary"] = ParseRunJson(summary, ReadTextFile(summary.string()));
            run["iterations_csv"] = ReadTextFile((dir / id / "iterations.csv").string());
            lines[id] = run.dump();
        }
        std::string out;
        for (const auto& [id, line] : lines)
        {
            out += line + "\n";
        }
        WriteFileAtomically(file.string(), out);
        for (const auto& id : folders)
        {
            fs::remove_all(dir / id, ec);
            ++moved;
        }
    }
    return moved;
}

} // namespace flumen
