// flumen-bench: the speed of the simulator, measured. `./flumen bench [--out FILE] [--quick]`.
// Runs the canonical scenarios for a fixed simulated time, and in the same run an anchor:
// a plain ns-3 program (stock helpers only) pushing 24 Gbps of UDP over two 25 Gbps hops, so
// that every figure reads as a ratio to plain ns-3 on the same machine at the same moment.
// Each measurement runs in a child process (its own peak RSS, fresh ns-3 state), repeated;
// medians are reported (bench/).
#include "atomic-file.h"
#include "bench-report.h"

#include <iostream>
#include <string>

namespace
{

const char* kUsage = "usage: flumen bench [--out FILE] [--quick] [--repeats N]\n"
                     "Runs the canonical scenarios and the plain-ns-3 anchor for a fixed\n"
                     "simulated time (1 s; --quick 0.05 s, one repeat), repeated (default\n"
                     "3), and writes the medians as JSON (default out/bench.json).\n";

} // namespace

int
main(int argc, char** argv)
{
    std::string outPath = "out/bench.json";
    flumen::BenchOptions o;
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if (a == "--quick")
            o.quick = true;
        else if ((a == "--out" || a == "--repeats") && i + 1 < argc)
        {
            std::string v = argv[++i];
            if (a == "--out")
                outPath = v;
            else
            {
                try
                {
                    o.repeats = std::stoi(v);
                }
                catch (const std::exception&)
                {
                    o.repeats = 0;
                }
                if (o.repeats < 1 || o.repeats > 100)
                {
                    std::cerr << "flumen bench: --repeats: expected 1..100, got '" << v << "'\n";
                    return 2;
                }
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
    nlohmann::json report = flumen::RunBench(o);
    std::cout << flumen::FormatBenchTable(report);
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
