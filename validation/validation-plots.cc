#include "validation-plots.h"

#include "child-process.h"

#include "atomic-file.h"
#include "series-summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <unistd.h>

namespace flumen
{

namespace fs = std::filesystem;

namespace
{

// Appends one model's gnuplot data block: its rows sorted by load. gnuplot needs at least one
// row per block; a NaN row keeps the block indices aligned with the models.
void
AppendPlotBlock(std::string& data, const std::string& model,
                std::vector<std::pair<double, std::string>> rows, const char* emptyRow)
{
    std::sort(rows.begin(), rows.end());
    data += "# " + model + "\n";
    for (const auto& r : rows)
    {
        data += r.second;
    }
    data += rows.empty() ? std::string(emptyRow) + "\n\n\n" : "\n\n";
}

// The plot data, the gnuplot script and (when gnuplot runs) the PNGs, into `tmp`.
std::vector<std::string>
DrawPlots(const fs::path& tmp, const std::vector<ValidatedPoint>& points,
          const std::vector<ValidatedCdf>& cdfs, std::string& problem)
{
    std::vector<std::string> pngs;
    std::error_code ec;
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp, ec);
    std::string script
        = "set terminal pngcairo size 1000,650 font ',11'\n"
          "set grid\nset key top left\nset logscale y\n"
          "set xlabel 'cross traffic (Gbps): testbed measured, simulation achieved'\n"
          "set ylabel 'iteration time (s), bars up to p99'\n";
    std::vector<std::string> seriesNames;
    for (const auto& p : points)
    {
        if (std::find(seriesNames.begin(), seriesNames.end(), p.series) == seriesNames.end())
        {
            seriesNames.push_back(p.series);
        }
    }
    for (const auto& series : seriesNames)
    {
        std::vector<std::string> models;
        for (const auto& p : points)
        {
            if (p.series == series
                && std::find(models.begin(), models.end(), p.model) == models.end())
            {
                models.push_back(p.model);
            }
        }
        std::string testbedData;
        std::string simData;
        std::string censoredData; // lower bounds of censored points
        std::vector<bool> hasCensored;
        for (const auto& m : models)
        {
            std::vector<std::pair<double, std::string>> tb;
            std::vector<std::pair<double, std::string>> sim;
            std::vector<std::pair<double, std::string>> censored;
            for (const auto& p : points)
            {
                if (p.series != series || p.model != m)
                {
                    continue;
                }
                if (p.testbed && (p.idle || std::isfinite(p.measuredGbps)))
                {
                    double x = p.idle ? 0.0 : p.measuredGbps;
                    tb.push_back({ x, fmt::format("{} {} {}\n", x, p.testbedMeanS,
                                                  std::max(p.testbedMeanS, p.testbedP99S)) });
                }
                if (p.status == "done" || p.status == "partial")
                {
                    double x = p.idle ? 0.0 : p.simAchievedGbps;
                    sim.push_back({ x, fmt::format("{} {} {}\n", x, p.simMeanS,
                                                   std::max(p.simMeanS, p.simP99S)) });
                }
                if (p.status == "censored" && std::isfinite(p.simMeanLowerBoundS)
                    && (p.idle || std::isfinite(p.simAchievedGbps)))
                {
                    double x = p.idle ? 0.0 : p.simAchievedGbps;
                    censored.push_back({ x, fmt::format("{} {}\n", x, p.simMeanLowerBoundS) });
                }
            }
            AppendPlotBlock(testbedData, m, tb, "NaN NaN NaN");
            AppendPlotBlock(simData, m, sim, "NaN NaN NaN");
            AppendPlotBlock(censoredData, m, censored, "NaN NaN");
            hasCensored.push_back(!censored.empty());
        }
        std::string base = FileSafeName(series);
        WriteFileAtomically((tmp / (base + ".testbed.dat")).string(), testbedData);
        WriteFileAtomically((tmp / (base + ".simulated.dat")).string(), simData);
        WriteFileAtomically((tmp / (base + ".censored.dat")).string(), censoredData);
        script += fmt::format("set output '{}.png'\nset title '{}: testbed (filled, solid) "
                              "and simulation (open, dashed)' noenhanced\nplot ",
                              base, series);
        for (size_t k = 0; k < models.size(); ++k)
        {
            script += fmt::format(
                "{}'{tb}' index {k} using 1:2:2:3 with yerrorbars lc {c} pt 7 title '{m} testbed' "
                "noenhanced, '{tb}' index {k} using 1:2 with lines lc {c} notitle, "
                "'{sim}' index {k} using 1:2:2:3 with yerrorbars lc {c} pt 6 title '{m} "
                "simulated' noenhanced, '{sim}' index {k} using 1:2 with lines lc {c} dt 2 "
                "notitle",
                k ? ", " : "", fmt::arg("tb", base + ".testbed.dat"),
                fmt::arg("sim", base + ".simulated.dat"), fmt::arg("k", k), fmt::arg("c", k + 1),
                fmt::arg("m", models[k]));
            if (hasCensored[k])
            {
                // Open triangles pointing up: the simulated mean is at least there.
                script += fmt::format(", '{}' index {} using 1:2 with points lc {} pt 8 ps 1.5 "
                                      "title '{} simulated, censored (at least)' noenhanced",
                                      base + ".censored.dat", k, k + 1, models[k]);
            }
        }
        script += "\n";
        pngs.push_back(base + ".png");
    }
    script += "unset logscale y\nset key bottom right\nset xlabel 'iteration time (s)'\n"
              "set ylabel 'cumulative fraction'\n";
    for (const auto& c : cdfs)
    {
        if (c.simulated.empty())
        {
            continue;
        }
        std::string base
            = FileSafeName(fmt::format("cdf-{}-{}G-{}", c.model, c.requestedGbps, c.transport));
        std::string measured;
        for (const auto& p : c.measured)
        {
            measured += fmt::format("{} {}\n", p.seconds, p.fraction);
        }
        std::vector<double> s = c.simulated;
        std::sort(s.begin(), s.end());
        std::string simulated;
        for (size_t i = 0; i < s.size(); ++i)
        {
            simulated += fmt::format("{} {}\n", s[i], double(i + 1) / s.size());
        }
        WriteFileAtomically((tmp / (base + ".testbed.dat")).string(), measured);
        WriteFileAtomically((tmp / (base + ".simulated.dat")).string(), simulated);
        script += fmt::format("set output '{0}.png'\nset title '{1} at {2} Gbps web-search, "
                              "{3}: KS distance {4}' noenhanced\n"
                              "plot '{0}.testbed.dat' using 1:2 with steps lw 2 title "
                              "'testbed', '{0}.simulated.dat' using 1:2 with steps lw 2 dt 2 "
                              "title 'simulated ({5} iterations)'\n",
                              base, c.model, c.requestedGbps, c.transport, NumberText(c.ks, 3),
                              s.size());
        pngs.push_back(base + ".png");
    }
    WriteFileAtomically((tmp / "plots.gp").string(), script);
    // Paths in the script are relative to it, so `gnuplot plots.gp` in DIR/plots redraws.
    // gnuplot dies with this process: a killed validate leaves no gnuplot drawing into its
    // temporary folder while the next validate clears it.
    SpawnOptions options;
    options.searchPath = true;
    options.workingDirectory = tmp.string();
    options.outputFile = "gnuplot.log";
    options.dieWithParent = true;
    std::string why;
    try
    {
        const ChildExit exit = WaitForChild(StartProgram({ "gnuplot", "plots.gp" }, options)).exit;
        if (!exit.Succeeded())
        {
            why = exit.Describe();
        }
    }
    catch (const std::exception& e)
    {
        why = e.what();
    }
    if (!why.empty())
    {
        problem = fmt::format("gnuplot failed or is missing ({}); see {}/gnuplot.log; the "
                              "plot data and script are in plots/",
                              why, (tmp.parent_path() / "plots").string());
        pngs.clear();
    }
    return pngs;
}

} // namespace

std::vector<std::string>
DrawValidationPlots(const fs::path& staging, const std::vector<ValidatedPoint>& points,
                    const std::vector<ValidatedCdf>& cdfs, std::string& problem)
{
    try
    {
        return DrawPlots(staging, points, cdfs, problem);
    }
    catch (...)
    {
        std::error_code ec;
        fs::remove_all(staging, ec);
        throw;
    }
}

} // namespace flumen
