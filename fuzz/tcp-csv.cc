// tcp.csv files (ParseTcpCsv) and their summary by flow size (SummariseTcpFlows). Only
// std::runtime_error may escape; what parses writes back to the same rows and every flow lands
// in one size class.
#include "fuzz-support.h"

#include "run-outputs.h"
#include "tcp-flow-summary.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace flumen;
    const std::string text(reinterpret_cast<const char*>(data), size);
    fuzz::Expect<std::runtime_error>(
        "tcp-csv",
        [&]
        {
            const std::vector<TcpFlowRow> rows = ParseTcpCsv(text, "tcp.csv");
            const std::vector<TcpFlowRow> again = ParseTcpCsv(FormatTcpCsv(rows), "again.csv");
            const TcpFlowSummary s = SummariseTcpFlows(rows, { 100000, 1000000, 3000000 }, 0);
            uint64_t inClasses = 0;
            for (const TcpSizeClass& c : s.classes)
            {
                inClasses += c.flows;
                if (c.neverLeft + c.byHystart + c.byLoss + c.byOther != c.flows)
                {
                    std::fprintf(stderr, "flumen fuzz tcp-csv: a flow with no slow-start state\n");
                    std::abort();
                }
            }
            if (again.size() != rows.size() || inClasses != rows.size()
                || s.all.flows != rows.size())
            {
                std::fprintf(stderr,
                             "flumen fuzz tcp-csv: rows lost (%zu, again %zu, classes %llu)\n",
                             rows.size(), again.size(), static_cast<unsigned long long>(inClasses));
                std::abort();
            }
            for (size_t i = 0; i < rows.size(); ++i)
            {
                if (again[i].id != rows[i].id || again[i].sizeBytes != rows[i].sizeBytes
                    || again[i].slowStartEndCause != rows[i].slowStartEndCause
                    || again[i].recoveries != rows[i].recoveries)
                {
                    std::fprintf(stderr, "flumen fuzz tcp-csv: row %zu changed on the way back\n",
                                 i);
                    std::abort();
                }
            }
        });
    return 0;
}
