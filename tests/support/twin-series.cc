#include "twin-series.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <vector>

namespace flumen::test
{

using nlohmann::json;

std::string
WriteTwinSeries(const TempDir& dir, const std::string& name, const SeriesRows& rows,
                const TwinSetup& setup)
{
    std::string iter, bw;
    for (const auto& [load, r] : rows)
    {
        iter += fmt::format("{},{:.12g},100,0.01,{:.12g}\n", load, r[0], r[1]);
        bw += fmt::format("{},{:.12g},120,0.01\n", load, r[2]);
    }
    std::filesystem::create_directories(dir.Path() + "/" + name);
    dir.Write(name + "/iter.csv", iter);
    dir.Write(name + "/bw.csv", bw);
    json m
        = { { "name", name },
            { "description", "twin experiment" },
            { "folder", name },
            { "experiment",
              { { "configuration", setup.configuration },
                { "transport", setup.transport },
                { "workers", setup.workers },
                { "cross_traffic", setup.crossTraffic } } },
            { "models",
              { { { "model", "resnet50" },
                  { "index_is_requested_gbps", true },
                  { "iterations",
                    { { { "file", "iter.csv" }, { "format", "index-mean-samples-stdev-p99" } } } },
                  { "cross_traffic",
                    { { "file", "bw.csv" }, { "format", "index-gbps-runtime-stdev" } } } } } } };
    if (!setup.scenario.empty())
    {
        m["scenario"] = setup.scenario;
    }
    if (rows.count(0))
    {
        m["models"][0]["idle_index"] = 0; // the run without cross traffic
    }
    return dir.Write(name + ".json", m.dump(2));
}

SeriesRows
SimulatedRows(const std::string& pointsCsv, const std::string& series)
{
    SeriesRows out;
    auto lines = Lines(ReadFile(pointsCsv));
    if (lines.empty())
        return out;
    std::vector<std::string> header;
    std::stringstream hs(lines.at(0));
    for (std::string c; std::getline(hs, c, ',');)
        header.push_back(c);
    auto col = [&](const std::string& name)
    { return std::find(header.begin(), header.end(), name) - header.begin(); };
    for (size_t i = 1; i < lines.size(); ++i)
    {
        std::vector<std::string> cells;
        std::stringstream ls(lines[i]);
        for (std::string c; std::getline(ls, c, ',');)
            cells.push_back(c);
        if (cells.at(0) != series || cells.at(col("requested_gbps")).empty())
            continue;
        out[std::stoi(cells.at(col("requested_gbps")))]
            = { std::stod(cells.at(col("simulated_mean_s"))),
                std::stod(cells.at(col("simulated_p99_s"))),
                std::stod(cells.at(col("simulated_achieved_gbps"))) };
    }
    return out;
}

std::string
WriteCalibrationWith(const TempDir& dir, const std::string& name, const json& values)
{
    json cal = json::parse(ReadFile(kShippedCalibration));
    cal["testbed"] = { { "values", values } };
    return dir.Write(name, cal.dump());
}

} // namespace flumen::test
