// flumen-bench: the speed of the simulator, measured. `./flumen bench [--out FILE] [--quick]`.
// Runs the canonical scenarios for a fixed simulated time, and in the same run an anchor:
// a plain ns-3 program (stock helpers only) pushing 24 Gbps of UDP over two 25 Gbps hops, so
// that every figure reads as a ratio to plain ns-3 on the same machine at the same moment.
// Each measurement runs in a child process (its own peak RSS, fresh ns-3 state), repeated;
// medians are reported (bench/).
#include "atomic-file.h"
#include "bench-report.h"
#include "scale-bench.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace
{

const char* kUsage
    = "usage: flumen bench [--out FILE] [--quick] [--repeats N]\n"
      "       flumen bench --scale [--workers N,N,...] [--budget-s S] [--out FILE]\n"
      "Runs the canonical scenarios and the plain-ns-3 anchor for a fixed\n"
      "simulated time (1 s; --quick 0.05 s, one repeat), repeated (default\n"
      "3), and writes the medians as JSON (default out/bench.json).\n"
      "--scale: the flow engine with 64, 256, 1024 and 4096 workers (--workers) on\n"
      "a leaf-spine fabric beside web-search, ring and NCCL tree, 1:1 and 4:1, and one\n"
      "ring all-reduce against the alpha-beta formula; each point one iteration\n"
      "within a wall-time budget (--budget-s, default 120) (default out/scale.json).\n";

// "64,256" -> {64, 256}; empty on a malformed list.
std::vector<uint32_t>
ParseWorkers(const std::string& v)
{
    std::vector<uint32_t> out;
    size_t at = 0;
    while (at <= v.size())
    {
        const size_t comma = std::min(v.find(',', at), v.size());
        const std::string item = v.substr(at, comma - at);
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos
            || item.size() > 4)
        {
            return {};
        }
        const unsigned long n = std::stoul(item);
        if (n < 4 || n > 4096)
        {
            return {};
        }
        out.push_back(static_cast<uint32_t>(n));
        at = comma + 1;
    }
    return out;
}

} // namespace

int
main(int argc, char** argv)
{
    std::string outPath;
    flumen::BenchOptions o;
    flumen::ScaleBenchOptions scale;
    bool scaleMode = false;
    auto bad = [](const std::string& option, const std::string& expected, const std::string& v)
    {
        std::cerr << "flumen bench: " << option << ": expected " << expected << ", got '" << v
                  << "'\n";
        return 2;
    };
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        const bool takesValue
            = a == "--out" || a == "--repeats" || a == "--workers" || a == "--budget-s";
        if (a == "--quick")
            o.quick = true;
        else if (a == "--scale")
            scaleMode = true;
        else if (takesValue && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                outPath = v;
            else if (a == "--workers")
            {
                scale.workers = ParseWorkers(v);
                if (scale.workers.empty())
                    return bad(a, "worker counts 4..4096 separated by commas", v);
            }
            else
            {
                double x = 0;
                try
                {
                    x = std::stod(v);
                }
                catch (const std::exception&)
                {
                    x = 0;
                }
                if (a == "--budget-s" && !(x >= 1 && x <= 86400))
                    return bad(a, "1..86400 wall seconds", v);
                if (a == "--repeats" && !(x >= 1 && x <= 100 && x == std::floor(x)))
                    return bad(a, "1..100", v);
                if (a == "--budget-s")
                    scale.budgetS = x;
                else
                    o.repeats = static_cast<int>(x);
            }
        }
        else if (a == "-h" || a == "--help")
        {
            std::cout << kUsage;
            return 0;
        }
        else
        {
            std::cerr << "flumen bench: unknown argument '" << a << "'\n" << kUsage;
            return 2;
        }
    }
    if (outPath.empty())
        outPath = scaleMode ? "out/scale.json" : "out/bench.json";
    // 1 s: BERT-large computes for about 0.5 s before its first all-reduce, and the job's
    // traffic must be in what is measured.
    o.simulatedS = o.quick ? 0.05 : 1.0;
    if (o.quick)
        o.repeats = 1;

    try
    {
        flumen::CheckOutputFile(outPath, "--out"); // before minutes of measurement
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen bench: " << e.what() << "\n";
        return 2;
    }
    nlohmann::json report = scaleMode ? flumen::RunScaleBench(scale) : flumen::RunBench(o);
    std::cout << (scaleMode ? flumen::FormatScaleTable(report) : flumen::FormatBenchTable(report));
    try
    {
        flumen::WriteBenchReport(outPath, report);
    }
    catch (const std::exception& e)
    {
        std::cerr << "flumen bench: " << e.what() << "\n";
        return 1;
    }
    std::cout << "wrote " << outPath << "\n";
    return 0;
}
