// flumen-plot: a run's or a sweep's own pictures (plotting/run-plots.h). `./flumen plot DIR`.
#include "run-plots.h"

#include <fmt/format.h>

#include <iostream>
#include <stdexcept>
#include <string>

namespace
{

const char* kUsage
    = "usage: flumen plot DIR [--out PLOTS]\n"
      "DIR is a run's output folder (iterations.csv, summary.json, link.csv, ring.csv) or a\n"
      "sweep's (results.csv). Draws, with gnuplot, into PLOTS (default DIR/plots): the bottleneck\n"
      "port over time with the iteration boundaries (bottleneck.png), each ring hop over one\n"
      "iteration (ring-hops.png), the iteration-time CDF (iteration-cdf.png), one\n"
      "band per job with several jobs (jobs.png), a sweep's key against the mean and p99\n"
      "(sweep.png); beside them each picture's data (.dat) and plots.gp, which redraws them.\n";

} // namespace

int
main(int argc, char** argv)
{
    std::string dir, out;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        if (a == "--out" && i + 1 < argc)
        {
            out = argv[++i];
        }
        else if (!a.empty() && a[0] != '-' && dir.empty())
        {
            dir = a;
        }
        else
        {
            std::cerr << "flumen plot: unexpected argument '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    if (dir.empty())
    {
        std::cerr << "flumen plot: expected a run or sweep folder\n" << kUsage;
        return 2;
    }
    try
    {
        const flumen::PlotResult r = flumen::PlotRunFolder(dir, out);
        for (const auto& png : r.drawn)
        {
            std::cout << fmt::format("flumen plot: drew {}/{}\n", r.folder, png);
        }
        for (const auto& why : r.skipped)
        {
            std::cout << fmt::format("flumen plot: left out {}\n", why);
        }
        if (!r.problem.empty())
        {
            std::cerr << fmt::format("flumen plot: {}; the data and plots.gp are in {}\n",
                                     r.problem, r.folder);
            return 1;
        }
        return 0;
    }
    catch (const std::invalid_argument& e)
    {
        std::cerr << "flumen plot: " << e.what() << "\n";
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen plot: " << e.what() << "\n";
        return 1;
    }
}
